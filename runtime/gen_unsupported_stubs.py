#!/usr/bin/env python3
"""Writes a stub for every function a CUDA header declares that one of the
runtime's libraries does not define, so that a program calling it links
and fails at the call, naming it, instead of failing to link with a bare
"undefined reference".

    gen_unsupported_stubs.py --library cudart|cuda|cublas|curand|cufft|...
        --clang CLANG --include DIR --header HEADER [--header ...]
        --out FILE [--list FILE] [--rows DEF --forwarders FILE]
        [--aliases TABLE --alias-out FILE [--alias-include HEADER ...]]
        [--coverage FILE] [OBJECT...]

With --rows (abi/include/rc/libcalls/<library>.def, docs/libraries.md),
a served row's function that the library's objects do not define gets an
entry point in --forwarders instead of a stub: its parameters typed from
the function's declaration, forwarded to rc-server by the row.

The declared functions come from clang's AST of each header (after the
preprocessor: cuda.h's `#define cuMemAlloc cuMemAlloc_v2` gives the real
symbol); the defined ones from `nm` over the library's objects. A stub
that returns the library's status type returns its "not supported" value
(cudaErrorNotSupported, CUDA_ERROR_NOT_SUPPORTED,
CUBLAS_STATUS_NOT_SUPPORTED) after `remote-clang: <call> is not supported
by the remote <library>` once; one that returns anything else (a string,
a struct, nothing) cannot say so through its result, so it prints the
same line and aborts.

--list writes one line per stub, `symbol<TAB>call<TAB>library`: the
drivers name the calls a program makes that are not served yet when they
link it (docs/compatibility.md).

--aliases (runtime/coverage/aliases.txt): a declared function served
through another served one, `alias target` a row; the rows whose alias
these headers declare get a definition in --alias-out (alias_call.h
converts the arguments and the result, or the alias does not compile)
instead of a stub.

--coverage writes one line per declared function,
`function<TAB>header<TAB>status<TAB>target`, status `served` (the objects
define it), `alias` (through `target`) or `missing` (a stub):
runtime/coverage/api_coverage.py makes docs/api-coverage.md of it.
"""

import argparse
import json
import os
import re
import subprocess
import sys

LIBRARIES = {
    # prefix of its functions (or a tuple of them), status type, "not
    # supported" value, name
    "cudart": ("cuda", "cudaError_t", 801, "runtime"),
    "cuda": ("cu", "CUresult", 801, "driver library"),
    "cublas": ("cublas", "cublasStatus_t", 15, "cuBLAS"),
    # cuRAND has no "not supported" status: CURAND_STATUS_INTERNAL_ERROR.
    # Its device API (curand_kernel.h) is header-only and runs remotely.
    "curand": ("curand", "curandStatus_t", 999, "cuRAND host API"),
    "cufft": ("cufft", "cufftResult", 16, "cuFFT"),
    "cusparse": ("cusparse", "cusparseStatus_t", 10, "cuSPARSE"),
    "cusolver": ("cusolver", "cusolverStatus_t", 9, "cuSOLVER"),
    "nvjpeg": ("nvjpeg", "nvjpegStatus_t", 9, "nvJPEG"),
    # No "not supported" status either: NVJITLINK_ERROR_INTERNAL. Its calls
    # are inline functions calling versioned ones (__nvJitLinkCreate_12_4).
    "nvJitLink": (("nvJitLink", "__nvJitLink"), "nvJitLinkResult", 6,
                  "nvJitLink"),
    # NPP's eleven libraries (nppc, nppial, ..., npps) in one.
    "npp": ("npp", "NppStatus", -9999, "NPP"),
}


def prefixes(prefix):
    """A library's name prefixes (one, or a tuple), the first one a part of
    every name."""
    return prefix if isinstance(prefix, tuple) else (prefix,)


def declared_functions(clang, include, header, prefix):
    """name -> (return type, parameter count) of every non-inline function
    `header` declares whose name starts with `prefix`."""
    cmd = [clang, "-x", "c++", "-fsyntax-only", "-I", include,
           "-DCUBLASAPI=", "-Xclang", "-ast-dump=json",
           "-Xclang", "-ast-dump-filter=" + prefixes(prefix)[0], header]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("gen_unsupported_stubs: clang failed on %s:\n%s" %
                 (header, run.stderr))
    decoder = json.JSONDecoder()
    found = {}
    for part in re.split(r"^Dumping [^\n]*:\n", run.stdout, flags=re.M):
        at = 0
        while True:
            while at < len(part) and part[at].isspace():
                at += 1
            if at >= len(part):
                break
            node, at = decoder.raw_decode(part, at)
            name = node.get("name", "")
            if (node.get("kind") == "FunctionDecl" and not node.get("inline")
                    and name.startswith(prefixes(prefix))):
                params = [n for n in node.get("inner", [])
                          if n.get("kind") == "ParmVarDecl"]
                found[name] = (node["type"]["qualType"].split("(")[0].strip(),
                               len(params))
    return found


def defined_functions(objects):
    if not objects:
        return set()
    run = subprocess.run(["nm", "--defined-only", "--extern-only"] + objects,
                         capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in run.stdout.splitlines()
            if len(line.split()) == 3}


def called_as(fn):
    """The name a program calls: nvJitLink.h's inline nvJitLinkCreate calls
    the versioned __nvJitLinkCreate_12_4."""
    if fn.startswith("__"):
        return re.sub(r"_\d+_\d+$", "", fn.lstrip("_"))
    return fn


def stubs(library, missing):
    prefix, status, value, name = LIBRARIES[library]
    lines = [
        "// Generated by runtime/gen_unsupported_stubs.py: the functions the",
        "// CUDA headers declare that lib%s does not implement yet. Each one"
        % ("rc_" + library),
        "// fails at the call naming itself (docs/runtime-api.md).",
        "#include <cstdlib>",
        "",
        'extern "C" {',
        "int __rc_report_unsupported(const char *call, const char *library);",
        "",
    ]
    if library == "cudart":
        lines.append("int __rc_runtime_unsupported(const char *call);")
        lines.append("")
    for fn in sorted(missing):
        ret = missing[fn][0]
        lines.append('__attribute__((visibility("default"))) int %s() {' % fn)
        if ret == status and library == "cudart":
            # Also the thread's last error, as any failing runtime call.
            lines.append('  return __rc_runtime_unsupported("%s");' % fn)
        elif ret == status:
            lines.append('  __rc_report_unsupported("%s", "%s");'
                         % (called_as(fn), name))
            lines.append("  return %d;" % value)
        else:
            # No status to return the refusal through: stop here, named.
            lines.append('  __rc_report_unsupported("%s", "%s");'
                         % (called_as(fn), name))
            lines.append("  std::abort(); // returns %s" % ret)
        lines.append("}")
    lines.append('} // extern "C"')
    return "\n".join(lines) + "\n"


# Headers read for their declarations (stubs) but never included by the
# rows' entry points: cublas.h, the legacy cuBLAS API, cannot be included
# with cublas_v2.h, and rows are v2 calls (its served routines are
# runtime/cublas/cublas_legacy*.cpp).
DECLARATIONS_ONLY = {"cublas.h"}

# Libraries whose handle keeps a pointer mode: their entry points ask the
# header's scalarsOf(first parameter) where the row's scalars live
# (lib_forward.h).
POINTER_MODE_HEADERS = {"cublas": "cublas_pointer_mode.h"}

ROW = re.compile(r'^RC_LIB_CALL\((\w+),\s*(\w+),\s*"([^"]*)",\s*(\w*)\)',
                 re.M)


def rows(paths):
    """(key, function, tokens) of every row of the .def files (the
    tokens themselves reach the entry points as lib_forward.h's rows::)."""
    found = []
    for path in paths:
        with open(path) as f:
            found += [m.groups()[:3] for m in ROW.finditer(f.read())]
    return found


def forwarders(library, headers, served):
    """An entry point per served row: its parameters typed from the
    function's own declaration (lib_forward.h's Param), forwarded by the
    row (docs/libraries.md)."""
    value = LIBRARIES[library][2]
    lines = [
        "// Generated by runtime/gen_unsupported_stubs.py: the entry points of",
        "// lib%s's rows (abi/include/rc/libcalls/), each forwarded to"
        % ("rc_" + library),
        "// rc-server by its row (docs/libraries.md).",
    ]
    lines += ['#include "%s"' % h for h in headers
              if os.path.basename(h) not in DECLARATIONS_ONLY]
    mode_header = POINTER_MODE_HEADERS.get(library)
    if mode_header:
        lines.append('#include "%s"' % mode_header)
    lines += ['#include "lib_forward.h"', "",
              "// Programs still call routines their headers mark deprecated.",
              '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
              "", 'extern "C" {']
    for fn, count in served:
        t = "decltype(::%s)" % fn
        params = ", ".join("rc::lib::Param<%s, %d> a%d" % (t, i, i)
                           for i in range(count))
        args = "".join(", a%d" % i for i in range(count))
        lines.append('__attribute__((visibility("default"))) '
                     "rc::lib::Ret<%s> %s(%s) {" % (t, fn, params))
        scalars = "rc::lib::scalarsOf(a0)" if mode_header and count else \
            "rc::lib::Scalars::Host"
        lines.append("  return rc::lib::forwardWith(%s, rc::lib::rows::%s, "
                     "rc::lib::Ret<%s>(%d)%s);" % (scalars, fn, t, value, args))
        lines.append("}")
    lines.append('} // extern "C"')
    return "\n".join(lines) + "\n"


ALIAS_ROW = re.compile(r"^\s*(\w+)\s+(\w+)\s*(?:#.*)?$")


def alias_rows(path):
    """(alias, target) of every row of the alias table."""
    found = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = ALIAS_ROW.match(line)
            if not m:
                sys.exit("gen_unsupported_stubs: %s:%d: not `alias target`"
                         % (path, number))
            found.append(m.groups())
    return found


def alias_definitions(headers, includes, aliases):
    """A definition per alias: its parameters typed from its own
    declaration, handed to the target by alias_call.h."""
    lines = [
        "// Generated by runtime/gen_unsupported_stubs.py from",
        "// runtime/coverage/aliases.txt: functions served through another",
        "// served function (alias_call.h checks each at compile time).",
    ]
    lines += ['#include "%s"' % h for h in headers + includes
              if os.path.basename(h) not in DECLARATIONS_ONLY]
    lines += ['#include "api/alias_call.h"', "",
              "// Deprecated names are what the aliases serve.",
              '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
              "", 'extern "C" {']
    for alias, target, count in aliases:
        t = "decltype(::%s)" % alias
        params = ", ".join("rc::alias::Param<%s, %d> a%d" % (t, i, i)
                           for i in range(count))
        args = "".join(", a%d" % i for i in range(count))
        lines.append('__attribute__((visibility("default"))) '
                     "rc::alias::Ret<%s> %s(%s) {" % (t, alias, params))
        lines.append("  return rc::alias::call<%s>(::%s%s);"
                     % (t, target, args))
        lines.append("}")
    lines.append('} // extern "C"')
    return "\n".join(lines) + "\n"


def header_label(header, pinned_include):
    """How the coverage table names where a function is declared: a header
    of the pinned toolkit by its name; another toolkit's with its version
    (`cuda.h 13.0`); a wrapper that includes a header with
    __CUDA_API_VERSION_INTERNAL, which declares the ABIs the library itself
    exports beside the public ones (older toolkits' forms, per-thread
    default stream forms), as that header's `(internal ABIs)`."""
    path, suffix = header, ""
    with open(header) as f:
        text = f.read()
    wrapped = re.match(r'#define __CUDA_API_VERSION_INTERNAL 1\n'
                       r'#include "([^"]+)"', text)
    if wrapped:
        path, suffix = wrapped.group(1), " (internal ABIs)"
    label = os.path.basename(path)
    # Not realpath: the pinned root is a tree of links into wheels.
    folder = os.path.dirname(os.path.abspath(path))
    if folder != os.path.abspath(pinned_include):
        try:
            with open(os.path.join(folder, "cuda.h")) as f:
                v = re.search(r"#define CUDA_VERSION (\d+)", f.read())
            if v:
                label += " %d.%d" % (int(v.group(1)) // 1000,
                                     int(v.group(1)) % 1000 // 10)
        except OSError:
            pass
    return label + suffix


def coverage(declared, headers, defined, aliases):
    rows = []
    for fn in sorted(declared):
        if fn in aliases:
            status, target = "alias", aliases[fn]
        elif fn in defined:
            status, target = "served", ""
        else:
            status, target = "missing", ""
        rows.append("%s\t%s\t%s\t%s\n" % (fn, headers[fn], status, target))
    return "".join(rows)


def listing(library, missing):
    name = LIBRARIES[library][3]
    return "".join("%s\t%s\t%s\n" % (fn, called_as(fn), name)
                   for fn in sorted(missing))


def write_if_changed(path, text):
    """Unchanged files keep their time: nothing downstream rebuilds."""
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library", required=True, choices=sorted(LIBRARIES))
    ap.add_argument("--clang", required=True)
    ap.add_argument("--include", required=True)
    ap.add_argument("--header", action="append", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--list", help="also list the stubs here")
    ap.add_argument("--rows", action="append", default=[],
                    help="a .def of rows rc-server serves (repeatable)")
    ap.add_argument("--forwarders",
                    help="with --rows: write the rows' entry points here")
    ap.add_argument("--aliases", help="the alias table")
    ap.add_argument("--alias-out",
                    help="with --aliases: write the aliases' definitions here")
    ap.add_argument("--alias-include", action="append", default=[],
                    help="a header the aliases' definitions include")
    ap.add_argument("--coverage", help="write every declared function's "
                    "status here")
    # The library's own objects; none for a library of stubs only.
    ap.add_argument("objects", nargs="*")
    args = ap.parse_args()
    prefix = LIBRARIES[args.library][0]
    declared, declared_in = {}, {}
    for header in args.header:
        for fn, d in declared_functions(args.clang, args.include, header,
                                        prefix).items():
            declared.setdefault(fn, d)
            declared_in.setdefault(fn, header_label(header, args.include))
    defined = defined_functions(args.objects)
    aliases = {}
    if args.aliases:
        for alias, target in alias_rows(args.aliases):
            if alias not in declared:
                continue  # another library's
            if alias in defined:
                sys.exit("gen_unsupported_stubs: %s is an alias of %s, but "
                         "lib%s defines it too" % (alias, target,
                                                   args.library))
            aliases[alias] = target
    missing = {fn: d for fn, d in declared.items()
               if fn not in defined and fn not in aliases}
    served = []
    for key, fn, tokens in rows(args.rows):
        if fn not in declared:
            sys.exit("gen_unsupported_stubs: row %s: %s is declared by none "
                     "of the headers" % (key, fn))
        if key == fn and fn in missing:
            served.append((fn, missing.pop(fn)[1]))
    if args.forwarders:
        write_if_changed(args.forwarders,
                         forwarders(args.library, args.header, served))
    write_if_changed(args.out, stubs(args.library, missing))
    if args.alias_out:
        write_if_changed(args.alias_out, alias_definitions(
            args.header, args.alias_include,
            [(a, t, declared[a][1]) for a, t in sorted(aliases.items())]))
    if args.coverage:
        write_if_changed(args.coverage, coverage(
            declared, declared_in, defined | set(dict(served)), aliases))
    if args.list:
        write_if_changed(args.list, listing(args.library, missing))


if __name__ == "__main__":
    main()
