#!/usr/bin/env python3
"""Every function the pinned CUDA headers declare, as data: served, an
alias of a served function, or refused for a reason; written as
docs/api-coverage.md.

    api_coverage.py --coverage LIB=TSV [--coverage ...] --refusals FILE
                    (--out FILE | --check FILE)

Each TSV is what runtime/gen_unsupported_stubs.py --coverage wrote for a
library (`function<TAB>header<TAB>status<TAB>target`): `served` (the
library defines it), `alias` (runtime/coverage/aliases.txt) or `missing`
(a stub that refuses the call by name). --refusals
(runtime/coverage/refusals.txt) gives every missing function its reason.
The tables are checked first; any of these is an error:

- a missing function that no refusal row matches (refused for no reason);
- a refusal row that matches no declared function, or only served ones;
- an alias whose target is not served (in any library's table).

--out writes the page; --check compares the committed page with a fresh
generation and says what differs.
"""

import argparse
import difflib
import fnmatch
import re
import sys

LIBRARIES = {
    # library -> (its title, its headers as the page names them)
    "cudart": "Runtime API (librc_cudart)",
    "cuda": "Driver API (librc_cuda)",
    "cublas": "cuBLAS (librc_cublas)",
}
# cublas_v2.h is how programs include cublas_api.h, which declares them.
HEADER_NAMES = {"cublas_v2.h": "cublas_api.h"}
KINDS = {
    "remote": "impossible remotely",
    "not-yet": "not served yet",
}


class Group:
    def __init__(self, name, kind, where):
        self.name, self.kind, self.where = name, kind, where
        self.reason = ""
        self.patterns = []  # (pattern, where)
        self.functions = []  # (library, function)


def read_refusals(path):
    """The refusal groups of the reasons file: `[name] kind` opens a group,
    its next line is the reason (one sentence), then name patterns."""
    groups, errors = [], []
    with open(path) as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            where = "%s:%d" % (path, number)
            if not line:
                continue
            m = re.match(r"^\[([\w-]+)\]\s+(\S+)$", line)
            if m:
                if m.group(2) not in KINDS:
                    errors.append("%s: kind %s is none of %s" %
                                  (where, m.group(2), ", ".join(KINDS)))
                groups.append(Group(m.group(1), m.group(2), where))
            elif not groups:
                errors.append("%s: a row before the first [group]" % where)
            elif not groups[-1].reason:
                groups[-1].reason = line
            elif line.startswith("in:"):
                # Every function declared in a header, by its label in the
                # coverage tables (`cuda.h 13.0`, `cuda.h (internal ABIs)`).
                groups[-1].patterns.append((line, where))
            else:
                groups[-1].patterns += [(p, where) for p in line.split()]
    for g in groups:
        if not g.reason or not g.patterns:
            errors.append("%s: group %s needs a reason and names" %
                          (g.where, g.name))
    return groups, errors


def read_coverage(spec):
    library, path = spec.split("=", 1)
    rows = []
    with open(path) as f:
        for line in f:
            fn, header, status, target = line.rstrip("\n").split("\t")
            rows.append((fn, HEADER_NAMES.get(header, header), status, target))
    return library, rows


def names_function(pattern, fn, header):
    """A refusal row's pattern: a shell pattern of names, or `in: LABEL`
    for every function declared in that header."""
    if pattern.startswith("in:"):
        return header == pattern[3:].strip()
    return fnmatch.fnmatchcase(fn, pattern)


def classify(tables, groups):
    """Puts every missing function into the first group that names it;
    returns the errors found."""
    errors = []
    served = {fn for rows in tables.values()
              for fn, _, status, _ in rows if status != "missing"}
    declared = {(fn, header) for rows in tables.values()
                for fn, header, _, _ in rows}
    matched = {}  # pattern -> [functions it matches]
    for library, rows in tables.items():
        for fn, header, status, target in rows:
            if status == "alias" and target not in served:
                errors.append("alias %s: its target %s is not served" %
                              (fn, target))
            if status != "missing":
                continue
            group = None
            for g in groups:
                for pattern, _ in g.patterns:
                    if names_function(pattern, fn, header):
                        matched.setdefault(pattern, []).append(fn)
                        group = group or g
            if group:
                group.functions.append((library, fn))
            else:
                errors.append("%s (%s) is refused for no reason: serve it "
                              "or give it a row of the refusals file" %
                              (fn, library))
    for g in groups:
        for pattern, where in g.patterns:
            if pattern in matched:
                continue
            hits = [fn for fn, header in declared
                    if names_function(pattern, fn, header)]
            errors.append(
                "%s: %s names %s" % (where, pattern,
                                     "only served functions (%s): drop it" %
                                     ", ".join(sorted(hits)[:4])
                                     if hits else
                                     "no function the headers declare"))
    return errors


def names(functions):
    return ", ".join("`%s`" % fn for fn in sorted(functions)) or "none"


def percent(part, whole):
    return "%.1f %%" % (100.0 * part / whole) if whole else "-"


def page(tables, groups):
    out = [
        "# API coverage: every declared function, served or refused",
        "",
        "Generated by `runtime/coverage/api_coverage.py` from what the "
        "libraries define and the data files in `runtime/coverage/` (see "
        "its [README](../runtime/coverage/README.md)); do not edit: "
        "`ninja -C build api-coverage-doc` writes it, and the test "
        "`docs_api_coverage` fails when it is not what the tree makes.",
        "",
        "Each function the pinned headers declare (CUDA 12.4's, after the "
        "preprocessor: `cuMemAlloc` is `cuMemAlloc_v2`) is **served** (the "
        "library defines it), an **alias** (served through another served "
        "function: a deprecated name, or a driver call that is a runtime "
        "call under other type names) or **refused**: it fails at the "
        "call with the library's \"not supported\" status and prints "
        "`remote-clang: <call> is not supported by the remote <library>` "
        "([runtime-api.md](runtime-api.md)). A refusal is "
        "*impossible remotely* (what it needs is on the GPU's host or the "
        "client's display, not across the network) or *not served yet*. "
        "A served function may still refuse some of its arguments, by "
        "name ([runtime-api.md](runtime-api.md), "
        "[driver-api.md](driver-api.md), [cublas.md](cublas.md)).",
        "",
        "Rows marked `13.0` count what CUDA 13.0's headers add, for "
        "programs built with them ([design/cuda-versions.md]"
        "(design/cuda-versions.md)); `(internal ABIs)`, what `cuda.h` "
        "declares only for the driver library itself (older toolkits' "
        "forms, the per-thread default stream's), which programs built "
        "against the headers never call.",
        "",
        "| header | declared | served | alias | refused: impossible "
        "remotely | refused: not yet | served or alias | of what can be "
        "served remotely |",
        "|---|---|---|---|---|---|---|---|",
    ]
    group_of = {(lib, fn): g for g in groups for lib, fn in g.functions}
    for library, rows in tables.items():
        headers = []
        for _, header, _, _ in rows:
            if header not in headers:
                headers.append(header)
        for header in headers:
            mine = [r for r in rows if r[1] == header]
            count = {"served": 0, "alias": 0, "remote": 0, "not-yet": 0}
            for fn, _, status, _ in mine:
                if status == "missing":
                    count[group_of[(library, fn)].kind] += 1
                else:
                    count[status] += 1
            ok = count["served"] + count["alias"]
            out.append("| `%s` | %d | %d | %d | %d | %d | %s | %s |" % (
                header, len(mine), count["served"], count["alias"],
                count["remote"], count["not-yet"], percent(ok, len(mine)),
                percent(ok, len(mine) - count["remote"])))
    for library, rows in tables.items():
        out += ["", "## " + LIBRARIES.get(library, library), ""]
        refused = [g for g in groups if any(lib == library
                                            for lib, _ in g.functions)]
        for kind, title in KINDS.items():
            mine = [g for g in refused if g.kind == kind]
            if not mine:
                continue
            out += ["### Refused: %s" % title, ""]
            for g in mine:
                fns = [fn for lib, fn in g.functions if lib == library]
                out.append("- **%s** (%d): %s %s" % (g.name, len(fns),
                                                     g.reason, names(fns)))
            out.append("")
        aliases = [(fn, t) for fn, _, s, t in rows if s == "alias"]
        if aliases:
            out += ["### Aliases (%d)" % len(aliases), "",
                    ", ".join("`%s` → `%s`" % a for a in aliases), ""]
        served = [fn for fn, _, s, _ in rows if s == "served"]
        out += ["### Served (%d)" % len(served), "", names(served)]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--coverage", action="append", required=True,
                    help="LIBRARY=TSV, as gen_unsupported_stubs.py wrote it")
    ap.add_argument("--refusals", required=True)
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--out")
    group.add_argument("--check")
    args = ap.parse_args()
    tables = dict(read_coverage(spec) for spec in args.coverage)
    groups, errors = read_refusals(args.refusals)
    errors += classify(tables, groups)
    if errors:
        sys.exit("api_coverage: the coverage tables are not consistent:\n  "
                 + "\n  ".join(errors))
    text = page(tables, groups)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
        return
    with open(args.check) as f:
        committed = f.read()
    if committed != text:
        diff = difflib.unified_diff(committed.splitlines(), text.splitlines(),
                                    args.check, "generated", lineterm="")
        sys.exit("api_coverage: %s is not what the tree makes; regenerate it "
                 "with `ninja -C build api-coverage-doc`:\n%s" %
                 (args.check, "\n".join(list(diff)[:60])))


if __name__ == "__main__":
    main()
