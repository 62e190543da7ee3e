#!/usr/bin/env python3
"""Writes a CUDA source that calls every device function nvcc's headers
declare, each with arguments of its declared parameter types, so that
compiling it with remote-clang++ shows every declaration that clang's CUDA
headers (with remote-clang's fixes) lack or get wrong.

The declarations come from the headers themselves, not from a list: clang
parses the toolkit's cuda_runtime.h (plus cuda_fp16.h and cuda_bf16.h) the
way nvcc's device pass for sm_90 sees them (no clang CUDA wrapper, nvcc's
macros, __CUDA_ARCH__ 900), and every __device__ or __host__ __device__
function declared in one of HEADERS is called once, in a kernel of its own.

A declaration that cannot compile for sm_90 with nvcc either goes into
EXCLUDED with the reason; a function template is called with the template
arguments TEMPLATE_ARGUMENTS gives it. The generator stops with an error
when an exclusion or a template's entry matches no declaration (the lists
must stay true), when a template has no entry, and when a header yields no
functions (the parse went wrong).

Usage: gen_device_surface_test.py --cuda-root DIR [--out FILE.cu] [--list]
           [--exclude NAME ...] [--clang clang++-19]
  --list       prints each function called, "header: name(parameters)"
  --exclude    leaves NAME out too, as an entry of EXCLUDED would
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

# The headers whose device functions are the surface, relative to include/.
HEADERS = [
    "crt/device_functions.h", "crt/device_functions.hpp",
    "crt/device_double_functions.h", "crt/device_double_functions.hpp",
    "crt/math_functions.h", "crt/math_functions.hpp",
    "crt/common_functions.h",
    "crt/sm_70_rt.h", "crt/sm_70_rt.hpp",
    "crt/sm_80_rt.h", "crt/sm_80_rt.hpp",
    "crt/sm_90_rt.h", "crt/sm_90_rt.hpp",
    "device_atomic_functions.h", "device_atomic_functions.hpp",
    "sm_20_atomic_functions.h", "sm_20_atomic_functions.hpp",
    "sm_32_atomic_functions.h", "sm_32_atomic_functions.hpp",
    "sm_35_atomic_functions.h",
    "sm_60_atomic_functions.h", "sm_60_atomic_functions.hpp",
    "sm_20_intrinsics.h", "sm_20_intrinsics.hpp",
    "sm_30_intrinsics.h", "sm_30_intrinsics.hpp",
    "sm_32_intrinsics.h", "sm_32_intrinsics.hpp",
    "sm_35_intrinsics.h",
    "sm_61_intrinsics.h", "sm_61_intrinsics.hpp",
    "cuda_fp16.h", "cuda_fp16.hpp",
    "cuda_bf16.h", "cuda_bf16.hpp",
]
# Headers that declare nothing of their own in CUDA 12.4 (what sm_35 added
# is in the sm_32 headers); every other must yield functions.
MAY_BE_EMPTY = {"sm_35_atomic_functions.h", "sm_35_intrinsics.h"}

# Declarations nvcc's headers make for sm_90 that a program cannot call
# there, with nvcc either: "name" excludes every overload, "name(types)"
# one (the types as clang prints them, canonical). Each must match a
# declaration, or the generator fails.
EXCLUDED = {
    # Warp votes without a member mask: CUDA 12.4 still declares them for
    # sm_70+ (deprecated), but PTX has no vote without .sync there and
    # ptxas refuses them, for nvcc too ("Instruction 'vote' without '.sync'
    # is not supported on .target sm_70 and higher"). __any_sync and the
    # like are the API.
    "__any": "vote.any without .sync: not on sm_70+",
    "__all": "vote.all without .sync: not on sm_70+",
    "__ballot": "vote.ballot without .sync: not on sm_70+",
    "any": "vote.any without .sync: not on sm_70+",
    "all": "vote.all without .sync: not on sm_70+",
    "ballot": "vote.ballot without .sync: not on sm_70+",
    # The launch configuration of a kernel launched from device code
    # (dynamic parallelism), which clang 19 cannot compile
    # (docs/compatibility.md).
    "__cudaPushCallConfiguration": "device-side launches",
    # Helpers of the pre-C++11 std::pow(T, int) in old libstdc++, which
    # nvcc declares for device code; no libstdc++ clang 19 supports has
    # or calls them, and they are no CUDA API.
    "std::__pow_helper": "old libstdc++ internal",
    "std::__cmath_power": "old libstdc++ internal",
}

# Function templates are called with these template arguments (each must
# match a declaration).
TEMPLATE_ARGUMENTS = {
    "atomicCAS(_T *, _T, _T)": {"_T": "rc_pair16"},
    "atomicCAS_block(_T *, _T, _T)": {"_T": "rc_pair16"},
    "atomicCAS_system(_T *, _T, _T)": {"_T": "rc_pair16"},
    "atomicExch(_T *, _T)": {"_T": "rc_pair16"},
    "atomicExch_block(_T *, _T)": {"_T": "rc_pair16"},
    "atomicExch_system(_T *, _T)": {"_T": "rc_pair16"},
    "std::pow(_Tp, _Up)": {"_Tp": "float", "_Up": "int"},
}

# nvcc's predefined macros that the headers test, besides those clang's
# device pass defines itself (__CUDA_ARCH__, __CUDA__).
NVCC_MACROS = ["__CUDACC__", "__NVCC__", "__NV_NO_HOST_COMPILER_CHECK=1"]


def cuda_version(include_dir):
    path = os.path.join(include_dir, "cuda.h")
    try:
        with open(path) as f:
            m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", f.read())
    except OSError as e:
        sys.exit("gen_device_surface_test: %s: %s" % (path, e.strerror))
    if not m:
        sys.exit("gen_device_surface_test: no CUDA_VERSION in " + path)
    v = int(m.group(1))
    return v // 1000, (v % 1000) // 10


def ast_dump(clang, cuda_root):
    """clang's AST dump (text) of the headers as nvcc's sm_90 device pass
    reads them, and clang's diagnostics."""
    include = os.path.join(cuda_root, "include")
    major, minor = cuda_version(include)
    macros = NVCC_MACROS + ["__CUDACC_VER_MAJOR__=%d" % major,
                            "__CUDACC_VER_MINOR__=%d" % minor,
                            "__CUDACC_VER_BUILD__=0"]
    with tempfile.NamedTemporaryFile(suffix=".cu", mode="w") as empty:
        cmd = [clang, "-x", "cuda", "--cuda-device-only",
               "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib",
               "--cuda-path=" + cuda_root, "-isystem", include,
               "-Wno-unknown-cuda-version", "-ferror-limit=0", "-w",
               "-fno-color-diagnostics", "-fsyntax-only",
               "-include", "cuda_runtime.h", "-include", "cuda_fp16.h",
               "-include", "cuda_bf16.h"] + ["-D" + m for m in macros] + \
            ["-Xclang", "-ast-dump", empty.name]
        # clang reports the conflicts between nvcc's __host__ __device__
        # redeclarations and the C library's: nvcc allows them, clang does
        # not, and the declarations are in the tree either way. Its errors
        # matter only where no declaration came out.
        try:
            done = subprocess.run(cmd, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        except OSError as e:
            sys.exit("gen_device_surface_test: cannot run %s: %s"
                     % (clang, e.strerror))
    return (done.stdout.decode("utf-8", "replace"),
            done.stderr.decode("utf-8", "replace"))


# A node's line: "| | `-Kind 0x... rest", two characters per level.
NODE = re.compile(r"^(?P<indent>(?:[| ] )*)(?P<branch>[|`]-)?(?P<kind>\w+)"
                  r"(?P<rest>.*)$")
LOCATION = re.compile(r"(<scratch space>|<built-in>|/[^\s:<>,']+):\d+:\d+")
FUNCTION = re.compile(
    r"(?:(?:col:\d+|line:\d+:\d+|[^\s]+:\d+:\d+|<invalid sloc>)"
    r"(?: <Spelling=[^>]*>)?) "
    r"(?P<flags>(?:(?:implicit|used|referenced|invalid|constexpr) )*)"
    r"(?P<name>.+?) '(?P<type>[^']*)'(?::'(?P<canon>[^']*)')?(?P<rest>.*)$")
PARAM = re.compile(
    r"(?:col:\d+|line:\d+:\d+|[^\s]+:\d+:\d+|<invalid sloc>)"
    r"(?: <Spelling=[^>]*>)? "
    r"(?:(?:implicit|used|referenced|invalid) )*(?:\w+ )?"
    r"'(?P<type>[^']*)'(?::'(?P<canon>[^']*)')?")


class Function:
    def __init__(self, scope, name, type_text, header):
        self.scope = scope
        self.name = name
        self.type_text = type_text
        self.header = header
        self.params = []  # canonical type spellings
        self.variadic = "..." in type_text
        self.device = False
        self.template = False

    def qualified(self):
        return "::".join(self.scope + [self.name])

    def key(self):
        return "%s(%s)" % (self.qualified(), ", ".join(self.params))

    def returns_void(self):
        return self.type_text.startswith("void (") or \
            self.type_text.startswith("void(")


def declarations(dump, include_dir):
    """The functions declared in HEADERS, in order of declaration."""
    wanted = {os.path.realpath(os.path.join(include_dir, h)): h
              for h in HEADERS}
    functions = []
    stack = []  # (depth, kind, name)
    current = None
    current_depth = -1
    last_file = None
    for line in dump.splitlines():
        m = NODE.match(line)
        if not m:
            continue
        depth = len(m.group("indent")) // 2 + (1 if m.group("branch") else 0)
        kind, rest = m.group("kind"), m.group("rest")
        # The dump names a file only where it changes: follow it.
        files = LOCATION.findall(rest)
        name_file = last_file
        f = FUNCTION.search(rest) if kind == "FunctionDecl" else None
        if f:
            before = LOCATION.findall(rest[:f.start("flags")])
            name_file = before[-1] if before else last_file
        if files:
            last_file = files[-1]
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if current is not None and depth <= current_depth:
            current = None
        if current is not None and depth == current_depth + 1:
            if kind == "ParmVarDecl":
                p = PARAM.search(rest)
                current.params.append(p.group("canon") or p.group("type"))
            elif kind == "CUDADeviceAttr":
                current.device = True
            continue
        if kind in ("NamespaceDecl", "LinkageSpecDecl", "FunctionTemplateDecl",
                    "CXXRecordDecl", "ClassTemplateDecl",
                    "ClassTemplateSpecializationDecl", "FunctionDecl",
                    "CXXMethodDecl", "CXXConstructorDecl",
                    "CXXDestructorDecl", "CXXConversionDecl"):
            name = rest.split()[-1] if kind == "NamespaceDecl" else None
            stack.append((depth, kind, name))
        if kind != "FunctionDecl" or not f:
            continue
        kinds = [k for _, k, _ in stack[:-1]]
        if any(k not in ("NamespaceDecl", "LinkageSpecDecl",
                         "FunctionTemplateDecl") for k in kinds):
            continue  # a member or a local declaration
        header = wanted.get(os.path.realpath(name_file or ""))
        if header is None:
            continue
        scope = [n for _, k, n in stack[:-1] if k == "NamespaceDecl"]
        current = Function(scope, f.group("name"), f.group("type"), header)
        current.template = "FunctionTemplateDecl" in kinds
        current_depth = depth
        functions.append(current)
    return functions


def surface(functions, excluded):
    """The device functions to call, each signature once, in header order,
    and the errors in the lists."""
    seen = {}
    for f in functions:
        if f.device and f.key() not in seen:
            seen[f.key()] = f
    errors = []
    for entry in excluded:
        if not any(entry in (f.key(), f.qualified()) for f in seen.values()):
            errors.append("excluded '%s' matches no declaration" % entry)
    found = {f.header for f in functions if f.device}
    for h in HEADERS:
        if h not in found and h not in MAY_BE_EMPTY:
            errors.append("no device function found in %s" % h)
    called = [f for f in seen.values()
              if f.key() not in excluded and f.qualified() not in excluded]
    for f in called:
        if f.template and f.key() not in TEMPLATE_ARGUMENTS:
            errors.append("function template %s needs TEMPLATE_ARGUMENTS "
                          "or an exclusion" % f.key())
    for key in TEMPLATE_ARGUMENTS:
        if key not in seen:
            errors.append("TEMPLATE_ARGUMENTS '%s' matches no declaration"
                          % key)
    return called, errors


def argument(type_text, index):
    """An expression of exactly `type_text`, read from the kernel's input."""
    if type_text.endswith("&&"):
        base = type_text[:-2].strip()
        return "static_cast<%s &&>(rc_lvalue<%s>(in, %d))" % (base, base,
                                                              index)
    if type_text.endswith("&"):
        return "rc_lvalue<%s>(in, %d)" % (type_text[:-1].strip(), index)
    return "rc_value<%s>(in, %d)" % (type_text, index)


def instantiate(f, type_text):
    for param, concrete in TEMPLATE_ARGUMENTS.get(f.key(), {}).items():
        type_text = re.sub(r"\b%s\b" % re.escape(param), concrete, type_text)
    return type_text


PRELUDE = """\
// Generated by gen_device_surface_test.py: every device function that
// nvcc's headers declare for sm_90, called once with arguments of its
// declared types. Do not edit; regenerate.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// The arguments come from memory the kernel is given, so that nothing is
// constant and every call stays.
template <class T> __device__ T rc_value(const void *in, int i) {
  return *reinterpret_cast<T *>((char *)in + 16 * i);
}
template <class T> __device__ T &rc_lvalue(const void *in, int i) {
  return *reinterpret_cast<T *>((char *)in + 16 * i);
}
template <class T> __device__ void rc_keep(void *out, const T &value) {
  __builtin_memcpy(out, &value, sizeof value);
}
// A 16-byte trivially copyable type for the 16-byte atomics' templates.
struct alignas(16) rc_pair16 {
  long long a, b;
};
"""


def source(called):
    out = [PRELUDE]
    for n, f in enumerate(called):
        params = [instantiate(f, p) for p in f.params]
        args = [argument(p, i) for i, p in enumerate(params)]
        if f.variadic:
            args.append("rc_value<int>(in, %d)" % len(args))
        name = f.qualified()
        if f.template and f.key() in TEMPLATE_ARGUMENTS:
            explicit = TEMPLATE_ARGUMENTS[f.key()]
            name += "<%s>" % ", ".join(explicit.values())
        call = "%s(%s)" % (name, ", ".join(args))
        body = call + ";" if f.returns_void() else "rc_keep(out, %s);" % call
        out.append("// %s: %s\n__global__ void rc_surface_%d(const void *in, "
                   "void *out) {\n  %s\n}\n" % (f.header, f.key(), n, body))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(
        description="Writes a .cu calling every device function nvcc's "
        "CUDA headers declare for sm_90.")
    ap.add_argument("--cuda-root", required=True,
                    help="the CUDA toolkit root whose include/ to read")
    ap.add_argument("--clang", default="clang++-19")
    ap.add_argument("--out", help="the .cu to write")
    ap.add_argument("--list", action="store_true",
                    help="print each function called")
    ap.add_argument("--exclude", action="append", default=[],
                    help="leave out this name or name(parameters) too")
    args = ap.parse_args()
    cuda_root = os.path.abspath(args.cuda_root)
    dump, diagnostics = ast_dump(args.clang, cuda_root)
    functions = declarations(dump, os.path.join(cuda_root, "include"))
    if not functions:
        sys.stderr.write(diagnostics[-2000:])
        sys.exit("gen_device_surface_test: %s's AST dump of %s has no "
                 "function of HEADERS" % (args.clang, cuda_root))
    excluded = dict(EXCLUDED)
    excluded.update((name, "--exclude") for name in args.exclude)
    called, errors = surface(functions, excluded)
    if args.list:
        for f in called:
            print("%s: %s" % (f.header, f.key()))
    for e in errors:
        sys.stderr.write("gen_device_surface_test: %s\n" % e)
    if errors:
        sys.exit(1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(source(called))


if __name__ == "__main__":
    main()
