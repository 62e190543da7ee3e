#!/usr/bin/env python3
"""Builds NVIDIA's cuda-samples with remote-clang, each sample through its
own CMakeLists.txt with only the compilers changed (the toolchain file),
and writes what built and what stopped each one that did not.

    compat/build_samples.py --samples DIR --tag v12.9 --out FILE.json
        [--toolchain BUILD/remote-clang-toolchain.cmake] [--work DIR]
        [--only REGEX] [--timeout SECONDS] [--cuda 12|13]
    compat/build_samples.py --samples DIR --out FILE.json --collect DEST

--collect copies what built (each sample's executables, stripped of debug
info, with their .rcm manifests) to DEST/<category>/<sample>/, the
non-system libraries they load to DEST/lib, and the results to
DEST/rows.json, for compat/run_samples.py on the GPU machine
(scripts/pack-device-bundle.sh compat packs it).

The samples are a yardstick fetched at test time (docs/yardsticks.md):
nothing of theirs is kept in this repository. Rows follow the results
format of docs/yardsticks.md; the run columns (remote_tcp, remote_shm,
local) are filled on the GPU machine by compat/run_samples.py and stay
null here. Python 3 stdlib only.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys

import run_samples

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# Samples skipped, with the reason the issue allows: graphics interop,
# MPI, multi-process IPC, hardware this machine class lacks. Matched on the
# sample's CMakeLists.txt (the libraries it finds) or, for IPC, its sources
# (the calls it makes).
SKIP_RULES = [
    ("cmake", re.compile(r"\b(OpenGL|GLUT|GLEW|glfw|GLFW|Vulkan|EGL|X11|NvSci|nvsci)\b|[Dd]3[Dd]1[12]"),
     "graphics interop (OpenGL, Vulkan, EGL, Direct3D or NvSci)"),
    ("cmake", re.compile(r"\bMPI\b"), "MPI"),
    ("sources", re.compile(r"\b(cudaIpcOpenMemHandle|cuIpcOpenMemHandle|cuMemImportFromShareableHandle"
                           r"|cudaMemPoolImportFromShareableHandle|ipcOpenSocket)\s*\("),
     "multi-process IPC"),
]
HARDWARE_DIRS = ("8_Platform_Specific",)

# Build failures nvcc shares on a machine like this one (the reason is not
# the compiler): a dependency the sample's CMakeLists looks for and does not
# find, or CMake 3.25's FindThreads in a project that enables only CUDA.
NOT_THE_COMPILER = [
    (re.compile(r"FreeImage not found"), "FreeImage is not installed"),
    (re.compile(r"NvSCI not found"), "NvSci is not installed"),
    (re.compile(r"FindThreads\.cmake"),
     "CMake 3.25's FindThreads needs C or C++ enabled (project enables CUDA only)"),
    (re.compile(r"Skipping the build of the cuda-c-linking sample"),
     "off by default (ENABLE_CUDA_C_LINKING_SAMPLE; needs LLVM 7 to 14 development files)"),
]


def fails_with_nvcc_too(error):
    for pattern, reason in NOT_THE_COMPILER:
        if pattern.search(error or ""):
            return reason
    return ""


def sample_dirs(root):
    """Leaf sample folders: a CMakeLists.txt that adds an executable."""
    samples = os.path.join(root, "Samples")
    for dirpath, dirnames, filenames in os.walk(samples):
        dirnames.sort()
        if "CMakeLists.txt" not in filenames:
            continue
        with open(os.path.join(dirpath, "CMakeLists.txt"), errors="replace") as f:
            text = f.read()
        if "add_executable" in text:
            rel = os.path.relpath(dirpath, samples)
            yield rel.split(os.sep)[0], os.path.basename(dirpath), dirpath, text


def skip_reason(category, path, cmake_text):
    if category in HARDWARE_DIRS:
        return "hardware: platform-specific (Tegra / DRIVE)"
    sources = []
    for f in sorted(os.listdir(path)):
        if f.endswith((".cu", ".cpp", ".h", ".cuh")):
            with open(os.path.join(path, f), errors="replace") as fh:
                sources.append(fh.read())
    texts = {"cmake": cmake_text, "sources": "\n".join(sources)}
    for where, pattern, reason in SKIP_RULES:
        if pattern.search(texts[where]):
            return reason
    return ""


def first_error(log):
    """The line that says why: a compiler, linker or CMake error."""
    for pattern in (r"(?m)^.*undefined reference.*$",
                    r"(?m)^(?!.*linker command failed).*\berror\b.*$",
                    r"(?m)^CMake Error.*$", r"(?m)^.*fatal.*$"):
        m = re.search(pattern, log)
        if m:
            return m.group(0).strip()[:400]
    return log.strip().splitlines()[-1][:400] if log.strip() else ""


def run(cmd, timeout, env=None, cwd=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, text=True, errors="replace", env=env, cwd=cwd)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return 124, out + "\n(timed out after %d s)" % timeout


def project_of(path, cmake_text):
    """(source dir, target or None): a sample is its own CMake project, or
    (7_libNVVM's) a part of its parent's, which finds the libraries it
    links: that project, building the sample's executable only."""
    if re.search(r"(?m)^\s*project\s*\(", cmake_text):
        return path, None
    target = re.search(r"add_executable\(\s*([^\s)]+)", cmake_text)
    return os.path.dirname(path), target.group(1) if target else None


def build(path, cmake_text, work, toolchain, timeout, cuda="12"):
    """(builds, error, log): configure and build one sample, from scratch
    (ninja does not know that the toolchain changed), against CUDA `cuda`'s
    headers (the toolchain's RC_CUDA_VERSION)."""
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    source, target = project_of(path, cmake_text)
    rc, log = run(["cmake", "-S", source, "-B", work, "-G", "Ninja",
                   "-DCMAKE_TOOLCHAIN_FILE=" + toolchain,
                   "-DRC_CUDA_VERSION=" + cuda], timeout)
    if rc != 0:
        return False, "configure: " + first_error(log), log
    # A sample that finds a dependency missing adds no target and says so.
    skipped = re.search(r"(?m)^-- (.*will not build sample.*)$", log)
    rc, blog = run(["cmake", "--build", work, "-j", str(os.cpu_count() or 2)]
                   + (["--target", target] if target else []), timeout)
    log += blog
    # A target the CMakeLists adds only where a dependency was found; the
    # configure step said why.
    said = re.findall(r"(?m)^-- ((?:The|Skipping the build of the) \S+ sample.*)$", log)
    if rc != 0 and said and "unknown target" in blog:
        return False, "configure: " + said[0], log
    if rc != 0:
        return False, first_error(blog), log
    if skipped:
        return False, "configure: " + skipped.group(1), log
    if not executables(cmake_text, work):
        return False, "no executable was built" + (": " + said[0] if said else ""), log
    return True, "", log


def executables(cmake_text, work):
    """The sample's executables in its build folder: the targets its
    CMakeLists.txt adds, wherever the (parent's) build put them."""
    names = set(re.findall(r"add_executable\(\s*([^\s)]+)", cmake_text))
    found = []
    for dirpath, dirnames, filenames in os.walk(work):
        dirnames[:] = sorted(d for d in dirnames if d != "CMakeFiles")
        found += [os.path.join(dirpath, f) for f in sorted(filenames)
                  if f in names and os.access(os.path.join(dirpath, f), os.X_OK)]
    return found


def client_libraries(exe, dest, overlay):
    """Copies the shared libraries a client machine has where it built the
    program and the GPU machine lacks to dest/lib: clang's (libomp) and the
    toolkit overlay's libNVVM (this machine's ldd may name another copy)."""
    out = subprocess.run(["ldd", exe], stdout=subprocess.PIPE, text=True).stdout
    os.makedirs(os.path.join(dest, "lib"), exist_ok=True)
    for name, path in re.findall(r"(\S+) => (/\S+)", out):
        if name.startswith("libnvvm.so"):
            path = os.path.join(overlay, "nvvm", "lib64", name)
        elif not path.startswith("/usr/lib/llvm-"):
            continue
        shutil.copy2(path, os.path.join(dest, "lib", name))


def collect(samples, rows, work, dest, overlay):
    """Copies each built sample's executables and manifests to dest."""
    paths = {(c, n): (p, t) for c, n, p, t in sample_dirs(samples)}
    copied = 0
    for r in rows:
        if not r["builds"] or (r["category"], r["sample"]) not in paths:
            continue
        _, text = paths[(r["category"], r["sample"])]
        exes = executables(text, os.path.join(work, r["sample"]))
        if not exes:
            print("collect: %s built, but no executable in %s" % (r["sample"], work), file=sys.stderr)
            continue
        to = os.path.join(dest, r["category"], r["sample"])
        os.makedirs(to, exist_ok=True)
        for exe in exes:
            shutil.copy2(exe, to)
            subprocess.run(["strip", "--strip-debug", os.path.join(to, os.path.basename(exe))])
            if os.path.isfile(exe + ".rcm"):
                shutil.copy2(exe + ".rcm", to)
            client_libraries(exe, dest, overlay)
        copied += 1
    # libdevice, which libNVVM programs (ptxgen) open by the path the build
    # gave them, the overlay's: a client machine has it there. The GPU
    # machine's runner puts this copy at that path where it is missing.
    shutil.copytree(os.path.join(overlay, "nvvm", "libdevice"),
                    os.path.join(dest, "overlay", "nvvm", "libdevice"), dirs_exist_ok=True)
    with open(os.path.join(dest, "overlay", "path"), "w") as f:
        f.write(overlay + "\n")
    with open(os.path.join(dest, "rows.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print("collect: %d samples' executables in %s" % (copied, dest))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", required=True, help="cuda-samples checkout")
    ap.add_argument("--tag", help="its tag, for the record (not for --collect)")
    ap.add_argument("--out", required=True, help="results JSON")
    ap.add_argument("--toolchain", default=os.path.join(REPO, "build", "remote-clang-toolchain.cmake"))
    ap.add_argument("--work", default="/tmp/rc-compat-build")
    ap.add_argument("--only", default="", help="regex on category/sample; --out's other rows are kept")
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--cuda", choices=("12", "13"), default="12",
                    help="CUDA headers the samples are written against "
                         "(13: cuda-samples' main branch)")
    ap.add_argument("--report", action="store_true",
                    help="only rewrite --out's summary and table")
    ap.add_argument("--merge-run", metavar="RUN.json",
                    help="take the run columns of compat/run_samples.py's output into --out")
    ap.add_argument("--collect", metavar="DEST",
                    help="copy what built (per --out) to DEST for the GPU machine")
    ap.add_argument("--rerun-failed", action="store_true",
                    help="keep --out's rows that built (and, with --only, "
                         "those not selected); build the others again")
    args = ap.parse_args()
    if args.report:
        with open(args.out) as f:
            return report(args.out, args.tag, json.load(f)["rows"])
    if not args.collect and not args.tag:
        ap.error("--tag is required")
    if args.merge_run:
        with open(args.out) as f:
            rows = json.load(f)["rows"]
        with open(args.merge_run) as f:
            run = json.load(f)
        # A run lists the samples it ran; the others keep their columns.
        ran = {(r["category"], r["sample"]): r for r in run["rows"]}
        for r in rows:
            theirs = ran.get((r["category"], r["sample"]), {})
            r.update({k: v for k, v in theirs.items() if k in RUN_KEYS})
        return report(args.out, args.tag, rows)
    if args.collect:
        with open(args.out) as f:
            return collect(args.samples, json.load(f)["rows"], args.work, args.collect,
                           os.path.join(os.path.dirname(args.toolchain), "cuda-overlay"))
    earlier = {}  # --out's rows: kept where --only does not select them
    if (args.rerun_failed or args.only) and os.path.isfile(args.out):
        with open(args.out) as f:
            earlier = {r["category"] + "/" + r["sample"]: r for r in json.load(f)["rows"]}
    if not os.path.isfile(args.toolchain):
        sys.exit("build_samples.py: no toolchain file %s (build remote-clang first)" % args.toolchain)
    rows = []
    for category, name, path, text in sample_dirs(args.samples):
        if args.only and not re.search(args.only, category + "/" + name):
            if category + "/" + name in earlier:  # kept as it was
                rows.append(earlier[category + "/" + name])
            continue
        row = {"sample": name, "category": category, "builds": None, "build_error": "",
               "remote_tcp": None, "remote_shm": None, "local": None,
               "skip_reason": skip_reason(category, path, text)}
        before = earlier.get(category + "/" + name) if args.rerun_failed else None
        if before and before["builds"] and not row["skip_reason"]:
            row["builds"] = True
        elif not row["skip_reason"]:
            ok, err, log = build(path, text, os.path.join(args.work, name), args.toolchain,
                                 args.timeout, args.cuda)
            row["builds"], row["build_error"] = ok, err
            with open(os.path.join(args.work, name + ".log"), "w") as f:
                f.write(log)
        rows.append(row)
        state = "skip" if row["skip_reason"] else ("ok" if row["builds"] else "FAIL")
        print("%-5s %s/%s %s" % (state, category, name,
                                 row["skip_reason"] or row["build_error"]), flush=True)
        with open(args.out, "w") as f:  # after each sample: a partial run is kept
            json.dump({"tag": args.tag, "date": datetime.date.today().isoformat(),
                       "rows": rows}, f, indent=1)
    report(args.out, args.tag, rows)


# What compat/run_samples.py adds to a row on the GPU machine.
RUN_KEYS = ("remote_tcp", "remote_shm", "local", "remote_tcp_detail", "remote_shm_detail",
            "local_detail", "run_skip_reason")


def report(out, tag, rows):
    """The summary lines, and the JSON and markdown table with them. The run
    line counts the rows that have run columns: a sample built again has
    none until the GPU half runs it."""
    for r in rows:
        r["fails_with_nvcc_too"] = "" if r["builds"] else fails_with_nvcc_too(r["build_error"])
    tried = [r for r in rows if not r["skip_reason"]]
    built = sum(1 for r in tried if r["builds"])
    theirs = sum(1 for r in tried if r["fails_with_nvcc_too"])
    counted = len(tried) - theirs
    summary = ("built %d of %d samples tried (%d skipped); %d fail for a reason nvcc "
               "shares here, so %d of %d = %.1f %%" %
               (built, len(tried), len(rows) - len(tried), theirs, built, counted,
                100.0 * built / max(counted, 1)))
    print(summary)
    with open(out) as f:
        data = json.load(f)
    ran = any(r.get("local") or r.get("run_skip_reason") for r in rows)
    run_summary = run_samples.summary(rows) if ran else None
    data.update({"rows": rows, "summary": summary})
    data.pop("run_summary", None)
    if run_summary:
        data["run_summary"] = run_summary
    with open(out, "w") as f:
        json.dump(data, f, indent=1)
    with open(os.path.splitext(out)[0] + ".md", "w") as f:
        f.write(markdown(tag or data.get("tag", ""), rows, summary, run_summary))


def markdown(tag, rows, summary, run_summary):
    """The results as the table docs/yardsticks.md shows."""
    out = ["# cuda-samples %s with remote-clang" % tag, "", "Build: " + summary + ".", ""]
    if run_summary:
        out += ["Run on the GPU machine: " + run_summary + ".", ""]
    out += ["| sample | category | builds | local | tcp | shm | why not / skipped because |",
            "|---|---|---|---|---|---|---|"]
    for r in rows:
        state = "skipped" if r["skip_reason"] else ("yes" if r["builds"] else "**no**")
        why = r["skip_reason"] or r["build_error"]
        if r.get("fails_with_nvcc_too"):
            state = "no (nvcc too)"
            why = r["fails_with_nvcc_too"] + ": " + why
        if r.get("run_skip_reason"):
            why = "not run: " + r["run_skip_reason"]
        elif r.get("local") == "pass" and "fail" in (r.get("remote_tcp"), r.get("remote_shm")):
            why = r.get("remote_shm_detail") or r.get("remote_tcp_detail") or ""
        elif r.get("local") == "fail":
            why = "local: " + (r.get("local_detail") or "")
        cells = [r.get(k) or "" for k in ("local", "remote_tcp", "remote_shm")]
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            r["sample"], r["category"], state, cells[0], cells[1], cells[2],
            why.replace("|", "\\|").replace("\n", " ")))
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
