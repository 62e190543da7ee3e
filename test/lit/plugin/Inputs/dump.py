#!/usr/bin/env python3
"""Line-per-fact dump of manifest fragments (JSON from %manifest_json) and of
the pass's rewritten IR, so FileCheck tests do not depend on the order of
kernels (sorted by ID, and internal IDs depend on the source path).

  dump.py [--json FILE]... [--ir FILE]... [--ptx FILE]...

Kernels and variables are printed sorted by name. IR prints i64 constants
signed while the manifest stores IDs unsigned; calls are printed unsigned and
checked against the fragments given before them."""
import json
import os
import re
import sys

kernels = {}
layouts = {}
variables = set()
calls = []


def fnv1a64(data, h=0xcbf29ce484222325):
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def expected_id(name, internal, salt):
    # The rule of rc/kernel_id.h, recomputed independently of the plugin.
    if not internal:
        return fnv1a64(name.encode())
    return fnv1a64(name.encode(), fnv1a64(salt.encode() + b"\0"))


args = sys.argv[1:]
while args:
    flag, path = args[0], args[1]
    args = args[2:]
    text = open(path).read()
    if flag == "--json":
        m = json.loads(text)
        ks = m.get("kernels", [])
        ids = [k["id"] for k in ks]
        print("kernels-sorted-by-id", "yes" if ids == sorted(ids) else "NO")
        mods = m.get("modules", [])
        print("modules", len(mods))
        salt = mods[0]["source"] if mods else ""
        syms = ks + m.get("variables", [])
        ok = all(x["id"] == expected_id(x["name"], x["internal"], salt)
                 for x in syms)
        print("ids-follow-rule", "yes" if ok else "NO")
        for k in sorted(ks, key=lambda k: k["name"]):
            kernels[k["id"]] = k["name"]
            layouts[k["name"]] = [(p["offset"], p["size"], p["align"])
                                  for p in k.get("params", [])]
            print("kernel %s id=%d %s args_size=%d module=%d demangled=%s" % (
                k["name"], k["id"],
                "internal" if k["internal"] else "external",
                k["args_size"], k["module_index"], k["demangled"]))
            for p in k.get("params", []):
                print("  param %s [%s] off=%d size=%d align=%d %s ptrs=%s" % (
                    p["name"], p["type"], p["offset"], p["size"], p["align"],
                    p["kind"], ",".join(str(x) for x in p["pointer_offsets"])))
            for s in k.get("launch_sites", []):
                print("  site %s:%d:%d %s" % (os.path.basename(s["file"]),
                                              s["line"], s["column"], s["how"]))
        for v in sorted(m.get("variables", []), key=lambda v: v["name"]):
            variables.add(v["name"])
            print("var %s id=%d %s size=%d %s demangled=%s" % (
                v["name"], v["id"], "internal" if v["internal"] else "external",
                v["size"], v["kind"], v["demangled"]))
    elif flag == "--ptx":
        # The device compile's symbols: every fragment kernel must be a PTX
        # entry (and vice versa), every fragment variable a PTX global.
        entries = set(re.findall(r"\.entry\s+([\w$]+)\(", text))
        globs = set(re.findall(r"\.(?:global|const)\s[^;]*?([\w$]+)(?:\[\d*\])*(?:\s*=[^;]*)?;", text))
        names = set(kernels.values())
        print("ptx-entries", len(entries), "fragment-kernels", len(names))
        print("ptx-entries-equal-fragment-kernels",
              "yes" if entries == names else "NO %s" % sorted(entries ^ names))
        # Kernel parameter layout as the device compiler declares it:
        # `.param [.align A] .TYPE NAME[_param_i][[N]]`, each parameter at the
        # next multiple of its alignment.
        bad = []
        for name, body in re.findall(r"\.entry\s+([\w$]+)\(([^)]*)\)", text):
            ptx, end = [], 0
            for al, bits, count in re.findall(
                    r"\.param\s+(?:\.align\s+(\d+)\s+)?\.[a-z](\d+)\s+[\w$]+(?:\[(\d+)\])?",
                    body):
                size = int(bits) // 8 * (int(count) if count else 1)
                align = int(al) if al else size
                off = (end + align - 1) // align * align
                ptx.append((off, size, align))
                end = off + size
            if name in layouts and layouts[name] != ptx:
                bad.append("%s fragment=%s ptx=%s" % (name, layouts[name], ptx))
        print("ptx-param-layouts-match", "yes" if not bad else "NO " + "; ".join(bad))
        print("fragment-variables-in-ptx",
              "yes" if variables <= globs else "NO %s" % sorted(variables - globs))
    else:
        pat = r"(?:call|invoke) [^@]*@(__rc_launch_\w+)\((?:ptr [^,]*, )?i64 (-?\d+)"
        for callee, num in re.findall(pat, text):
            uid = int(num) & 0xFFFFFFFFFFFFFFFF
            calls.append(uid)
            print("call %s id=%d -> %s" % (callee, uid,
                                           kernels.get(uid, "UNKNOWN")))
if calls:
    missing = [c for c in calls if c not in kernels]
    print("ir-ids-in-fragment", "yes" if not missing else "NO")
