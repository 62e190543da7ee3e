#!/usr/bin/env python3
"""Writes the table cuGetProcAddress resolves names by (docs/driver-api.md,
"cuGetProcAddress"): for every driver function a CUDA toolkit's headers
know, the CUDA version each ABI of it appeared in and that ABI's symbol.

    gen_proc_table.py --out FILE.cpp --include DIR [--include DIR ...]

Each --include is a CUDA include directory (cuda.h, cudaTypedefs.h); the
table is the union of them (CUDA 12.4's and, where installed, 13.0's).

NVIDIA's rule (the driver API reference, "Driver Entry Point Access"):
cudaTypedefs.h gives each ABI of a function a typedef named after the
version that introduced it (PFN_cuCtxCreate_v2000, _v3020, _v11040,
_v12050), and the symbols of those ABIs are numbered in the same order
(cuCtxCreate, cuCtxCreate_v2, _v3, _v4); cuGetProcAddress(name, version)
returns the newest ABI introduced at or before `version`. A typedef
ending in _ptds / _ptsz is the per-thread-default-stream variant of the
ABI current at its version (PFN_cuMemcpyHtoD_v7000_ptds ->
cuMemcpyHtoD_v2_ptds). A function cuda.h declares without any typedef
has one ABI, its own name, since version 0.

The header's own `#define cuCtxCreate cuCtxCreate_vN` must name one of
the ABIs numbered this way; the script fails if one does not (a header
whose numbering it would get wrong).
"""

import argparse
import re
import sys

TYPEDEF = re.compile(
    r"typedef\s+CUresult\s*\(\s*CUDAAPI\s*\*\s*PFN_(cu\w+?)_v(\d{4,5})(_ptds|_ptsz)?\s*\)")
UNVERSIONED = re.compile(r"typedef\s+CUresult\s*\(\s*CUDAAPI\s*\*\s*PFN_(cu\w+)\s*\)")
# `#define PFN_cuGraphInstantiate PFN_cuGraphInstantiateWithFlags_v11040`:
# a name whose current ABI is another function.
PFN_ALIAS = re.compile(r"#define\s+PFN_(cu\w+)\s+PFN_(cu\w+?)_v(\d{4,5})\s*$", re.M)
DECLARED = re.compile(r"CUresult\s+CUDAAPI\s+(cu\w+)\s*\(")
MACRO = re.compile(
    r"^\s*#define\s+(cu\w+)\s+(?:__CUDA_API_PT(?:DS|SZ)\((cu\w+)\)|(cu\w+))\s*$", re.M)
CUDA_VERSION = re.compile(r"#define\s+CUDA_VERSION\s+(\d+)")


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def public_part(cuda_h):
    """cuda.h up to its block of pre-versioning declarations (under
    __CUDA_API_VERSION_INTERNAL, at the end of the file)."""
    at = cuda_h.rfind("#if defined(__CUDA_API_VERSION_INTERNAL)")
    return cuda_h if at < 0 else cuda_h[:at]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--include", action="append", required=True)
    args = ap.parse_args()

    legacy = {}      # name -> set of versions
    per_thread = {}  # name -> {version: "_ptds" | "_ptsz"}
    declared = set()
    aliases = {}     # name -> (other, version, header version)
    macros = []      # (name, symbol, header)
    newest = 0
    for inc in args.include:
        typedefs = read(inc + "/cudaTypedefs.h")
        cuda_h = read(inc + "/cuda.h")
        version = int(CUDA_VERSION.search(cuda_h).group(1))
        newest = max(newest, version)
        for name, ver, suffix in TYPEDEF.findall(typedefs):
            if suffix:
                per_thread.setdefault(name, {})[int(ver)] = suffix
            else:
                legacy.setdefault(name, set()).add(int(ver))
        for name in UNVERSIONED.findall(typedefs):
            legacy.setdefault(name, set())
        for name, other, ver in PFN_ALIAS.findall(typedefs):
            if other != name:
                aliases[name] = (other, int(ver), version)
        public = public_part(cuda_h)
        declared |= set(DECLARED.findall(public))
        head = public[:public.find("CUresult CUDAAPI")]
        for name, wrapped, plain in MACRO.findall(head):
            macros.append((name, wrapped or plain, inc))

    def symbol(name, ordinal):
        return name if ordinal == 1 else "%s_v%d" % (name, ordinal)

    table = {}  # name -> sorted [(since, symbol, per-thread suffix or "")]
    for name in sorted(set(legacy) | declared):
        if not name.startswith("cu") or re.search(r"_v\d+(_pt(ds|sz))?$", name):
            continue  # versioned symbols are not names programs look up
        versions = sorted(legacy.get(name, ())) or [0]
        rows = [(v, symbol(name, i + 1), "") for i, v in enumerate(versions)]
        for v, suffix in sorted(per_thread.get(name, {}).items()):
            current = [s for since, s, t in rows if since <= v and not t]
            if current:
                rows.append((v, current[-1] + suffix, suffix))
        table[name] = rows
    for name, (other, ver, header) in aliases.items():
        if name in table and other in table:
            target = [s for since, s, t in table[other] if since <= ver and not t]
            if target and target[-1] not in [s for _, s, _ in table[name]]:
                # From the first header that calls it so (12.x).
                since = max(ver, header // 1000 * 1000)
                table[name].append((since, target[-1], ""))
                table[name].sort()

    # Every versioned symbol a header's macros name must be an ABI above.
    for name, sym, inc in macros:
        if name == sym or name not in table or not sym.startswith(name + "_v"):
            continue
        if sym not in [s for _, s, _ in table[name]]:
            sys.exit("gen_proc_table: %s/cuda.h maps %s to %s, which the "
                     "typedef numbering does not give (ABIs: %s)"
                     % (inc, name, sym, [s for _, s, _ in table[name]]))

    out = [
        "// Generated by runtime/cuda/gen_proc_table.py from the CUDA headers'",
        "// cudaTypedefs.h and cuda.h: every driver function's ABIs, each with",
        "// the CUDA version that introduced it (docs/driver-api.md).",
        '#include "proc_table.h"',
        "",
        "namespace rc::cu {",
        "",
        "const int kNewestDriverApi = %d;" % newest,
        "",
        "namespace {",
    ]
    for i, name in enumerate(sorted(table)):
        rows = ", ".join('{%d, "%s", %s}' % (v, s, "true" if t else "false")
                         for v, s, t in table[name])
        out.append("const ProcAbi a%d[] = {%s};" % (i, rows))
    out += ["} // namespace", "", "const ProcName kProcNames[] = {"]
    for i, name in enumerate(sorted(table)):
        out.append('    {"%s", a%d, %d},' % (name, i, len(table[name])))
    out += ["};", "const size_t kProcNameCount = %d;" % len(table), "",
            "} // namespace rc::cu", ""]
    with open(args.out, "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
