# lit configuration for remote-clang's toolchain tests.
# Substitutions (use these; never hard-code paths in tests):
#   %clang_cuda_host  clang++-19 compiling CUDA host-side only, plugin loaded,
#                     fragment written to the path given by -fplugin-arg-rcplugin-out=
#   %cuda_flags       the common CUDA flags (cuda root, sm_90, warnings)
#   %rc_plugin        path of the plugin .so
#   %opt_rc           opt-19 with RcPasses.so loaded, printing IR: add
#                     -passes=rc-<pass> (test/lit/passes)
#   %remote_clangxx   the remote-clang++ driver;  %remote_clang  the C driver
#   %rc_link          rc-link;  %rc_manifest  rc-manifest
#   %manifest_json    flatc command that prints a .rcm/fragment as JSON: append the file
#   FileCheck, not
import os
import lit.formats

config.name = "remote-clang"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cu", ".cpp", ".test", ".ll"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.rc_binary_dir, "test", "lit")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py"]

bindir = os.path.join(config.rc_binary_dir, "bin")
libdir = os.path.join(config.rc_binary_dir, "lib")
plugin = os.path.join(libdir, "RcPlugin.so")
# -isystem: some machines put CUDA 13 headers in /usr/local/include, which
# clang searches before --cuda-path's include directory.
cuda_flags = ("--cuda-path=%s -isystem %s/include --cuda-gpu-arch=sm_90 "
              "-Wno-unknown-cuda-version" % (config.rc_cuda_root, config.rc_cuda_root))
config.substitutions.append(("%cuda_flags", cuda_flags))
config.substitutions.append(("%rc_plugin", plugin))
config.substitutions.append((
    "%opt_rc", "opt-19 -load-pass-plugin=%s -S"
    % os.path.join(libdir, "RcPasses.so")))
config.substitutions.append((
    "%clang_cuda_host",
    "clang++-19 -x cuda %s --cuda-host-only -fplugin=%s -fpass-plugin=%s"
    % (cuda_flags, plugin, plugin)))
config.substitutions.append(("%remote_clangxx", os.path.join(bindir, "remote-clang++")))
config.substitutions.append(("%remote_clang", os.path.join(bindir, "remote-clang")))
config.substitutions.append(("%rc_link", os.path.join(bindir, "rc-link")))
config.substitutions.append(("%rc_manifest", os.path.join(bindir, "rc-manifest")))
config.substitutions.append((
    "%manifest_json",
    "sh %s %s" % (os.path.join(config.rc_source_dir, "test", "lit", "tools",
                               "manifest-json.sh"),
                  os.path.join(config.rc_source_dir, "schema", "manifest.fbs"))))
config.substitutions.append(("FileCheck", config.rc_filecheck))
config.environment["PATH"] = os.pathsep.join(
    [bindir, "/usr/lib/llvm-19/bin", config.environment.get("PATH", os.environ.get("PATH", ""))])
