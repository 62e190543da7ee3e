#!/usr/bin/env python3
"""Counts the member functions of every class in the given folders from
clang's AST, and fails when one has more than MAX_METHODS, or, for a class
in the ceiling list, more than its ceiling.

    check_class_sizes.py BUILD_DIR SOURCE_ROOT CEILINGS FOLDER...

BUILD_DIR holds compile_commands.json (CMake writes it); each translation
unit under a FOLDER (relative to SOURCE_ROOT, e.g. runtime/) is parsed by
libclang with its own command line, function bodies skipped. Every class,
struct and class template defined in a file under a FOLDER counts: its
member functions are those declared in its definition (constructors,
destructors, conversions, operators and member templates included;
`= delete` ones and those of nested classes not). A translation unit is
parsed only when it may add a class worth counting: its own file defines
one that may reach REPORT_FROM (a cheap upper bound, may_have_big_class),
or it includes a file of the FOLDERs no earlier unit included.

CEILINGS lists the classes allowed over MAX_METHODS today, one a line:
`QUALIFIED::NAME COUNT`, `#` comments. It is a ratchet: a class may not
grow past its ceiling; when it shrinks, lower its ceiling (the check says
so) and never raise one. A listed class that no longer exists fails, so
the list stays true.

Prints each class over REPORT_FROM member functions as `COUNT NAME
(FILE)`, largest first. Exit status 0 when every class is within bounds,
1 otherwise, 2 when the tree cannot be checked (no compile database, no
libclang).
"""

import json
import os
import re
import shlex
import sys

MAX_METHODS = 40
REPORT_FROM = 25
LIBCLANG = "/usr/lib/llvm-19/lib/libclang-19.so.1"
CLASS_DEFINITION = re.compile(r"^\s*(?:template\s*<[^>]*>\s*)?(?:class|struct)"
                              r"\s+(?:\[\[[^\]]*\]\]\s*)?\w+[^;()]*\{",
                              re.MULTILINE)
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
MACRO_CALL = re.compile(r"^\s*[A-Z][A-Z0-9_]{2,}\(", re.MULTILINE)


def may_have_big_class(text):
    """Whether a class defined in `text` may reach REPORT_FROM member
    functions: each member function declared in a class body has a `(` at
    the body's own brace depth, so that count bounds them from above. A
    body with a preprocessor line or a macro call may declare more than it
    shows, so it counts as big."""
    for m in CLASS_DEFINITION.finditer(text):
        depth, parens, i = 1, 0, m.end()
        while i < len(text) and depth:
            ch = text[i]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "(" and depth == 1:
                parens += 1
            elif ch == "#" and depth == 1:
                return True
            i += 1
        body = text[m.end():i]
        if parens >= REPORT_FROM or MACRO_CALL.search(body):
            return True
    return False


def load_clang():
    try:
        import clang.cindex as cindex
    except ImportError:
        return None
    if not cindex.Config.loaded:
        cindex.Config.set_library_file(LIBCLANG)
    return cindex


def parse_ceilings(path):
    """{name: ceiling}, and a problem per malformed line."""
    ceilings, problems = {}, []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            parts = text.split()
            if len(parts) != 2 or not parts[1].isdigit():
                problems.append(f"{path}:{number}: not `NAME COUNT`: "
                                f"{line.strip()}")
                continue
            ceilings[parts[0]] = int(parts[1])
    return ceilings, problems


def compile_args(entry):
    """The entry's compiler options for libclang: no compiler, output,
    -c or source file."""
    args = entry.get("arguments") or shlex.split(entry["command"])
    out, skip = [], False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a == "-c" or a == entry["file"] or a.startswith("-o"):
            continue
        out.append(a)
    return out + ["-Wno-unknown-warning-option", "-Wno-unused-command-line-argument"]


def include_dirs(entry_dir, args):
    dirs = [entry_dir]
    for i, a in enumerate(args):
        if a in ("-I", "-isystem", "-iquote") and i + 1 < len(args):
            dirs.append(args[i + 1])
        elif a.startswith("-I") and len(a) > 2:
            dirs.append(a[2:])
    return dirs


def direct_includes(path, dirs):
    """The files `path` includes by `#include "..."` that exist."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return set(), ""
    found = set()
    for name in QUOTED_INCLUDE.findall(text):
        for d in [os.path.dirname(path)] + dirs:
            candidate = os.path.realpath(os.path.join(d, name))
            if os.path.isfile(candidate):
                found.add(candidate)
                break
    return found, text


def qualified_name(cursor, cindex):
    parts = []
    c = cursor
    kinds = (cindex.CursorKind.NAMESPACE, cindex.CursorKind.CLASS_DECL,
             cindex.CursorKind.STRUCT_DECL, cindex.CursorKind.CLASS_TEMPLATE,
             cindex.CursorKind.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION)
    while c is not None and c.kind in kinds:
        parts.append(c.spelling or "(anonymous)")
        c = c.semantic_parent
    return "::".join(reversed(parts))


def method_count(cls, cindex):
    kinds = (cindex.CursorKind.CXX_METHOD, cindex.CursorKind.CONSTRUCTOR,
             cindex.CursorKind.DESTRUCTOR,
             cindex.CursorKind.CONVERSION_FUNCTION,
             cindex.CursorKind.FUNCTION_TEMPLATE)
    return sum(1 for c in cls.get_children()
               if c.kind in kinds and not c.is_deleted_method())


def classes_in(tu, inside, cindex):
    """{(name, file): count} of the classes defined in files `inside`
    accepts, visited through namespaces and classes."""
    class_kinds = (cindex.CursorKind.CLASS_DECL, cindex.CursorKind.STRUCT_DECL,
                   cindex.CursorKind.CLASS_TEMPLATE,
                   cindex.CursorKind.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION)
    found = {}

    def visit(cursor):
        for c in cursor.get_children():
            f = c.location.file
            if f is None or not inside(os.path.realpath(f.name)):
                continue
            if c.kind in class_kinds and c.is_definition():
                found[(qualified_name(c, cindex),
                       os.path.realpath(f.name))] = method_count(c, cindex)
                visit(c)
            elif c.kind in (cindex.CursorKind.NAMESPACE,
                            cindex.CursorKind.LINKAGE_SPEC,
                            cindex.CursorKind.UNEXPOSED_DECL):
                visit(c)

    visit(tu.cursor)
    return found


def measure(build_dir, root, folders, cindex):
    """{(name, file): count} over the folders' translation units, the
    number of units parsed, and a problem per unit clang could not parse
    (a class it missed would escape the check)."""
    root = os.path.realpath(root)
    prefixes = tuple(os.path.join(root, f.rstrip("/")) + os.sep
                     for f in folders)

    def inside(path):
        return path.startswith(prefixes)

    with open(os.path.join(build_dir, "compile_commands.json"),
              encoding="utf-8") as f:
        entries = json.load(f)
    units, seen_files = [], set()
    for e in entries:
        path = os.path.realpath(os.path.join(e["directory"], e["file"]))
        if inside(path) and path not in seen_files:
            seen_files.add(path)
            units.append((path, e))
    index = cindex.Index.create()
    options = cindex.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES
    covered, classes, parsed, problems = set(), {}, 0, []
    for path, entry in sorted(units):
        args = compile_args(entry)
        includes, text = direct_includes(path, include_dirs(entry["directory"],
                                                             args))
        new = {i for i in includes if inside(i)} - covered
        if not new and not may_have_big_class(text):
            continue
        tu = index.parse(path, args=args, options=options)
        parsed += 1
        errors = [d for d in tu.diagnostics
                  if d.severity >= cindex.Diagnostic.Error]
        if errors:
            problems.append(f"cannot parse {os.path.relpath(path, root)}: "
                            f"{errors[0]}")
        covered.add(path)
        for inc in tu.get_includes():
            if inc.include is not None:
                covered.add(os.path.realpath(inc.include.name))
        classes.update(classes_in(tu, inside, cindex))
    return classes, parsed, problems


def judge(classes, ceilings, root):
    """Problems, and notes (ceilings to lower)."""
    problems, notes = [], []
    by_name = {}
    for (name, path), count in classes.items():
        by_name.setdefault(name, []).append((count, path))
    for (name, path), count in sorted(classes.items()):
        where = os.path.relpath(path, root)
        if name in ceilings:
            if count > ceilings[name]:
                problems.append(f"{name} ({where}): {count} member functions, "
                                f"over its ceiling of {ceilings[name]}: "
                                f"move the new work into a class of its own")
            elif count < ceilings[name]:
                notes.append(f"{name}: {count} member functions, under its "
                             f"ceiling of {ceilings[name]}: lower the "
                             f"ceiling to {count}")
        elif count > MAX_METHODS:
            problems.append(f"{name} ({where}): {count} member functions, "
                            f"more than {MAX_METHODS}: split it")
    for name in sorted(set(ceilings) - set(by_name)):
        problems.append(f"ceiling list: {name} is no class of the checked "
                        f"folders any more: remove its line")
    return problems, notes


def main(argv):
    if len(argv) < 5:
        print(__doc__)
        return 2
    build_dir, root, ceilings_path, folders = argv[1], argv[2], argv[3], argv[4:]
    cindex = load_clang()
    if cindex is None:
        print("check_class_sizes: no libclang Python bindings (`clang` in "
              ".venv: scripts/setup.sh)")
        return 2
    if not os.path.isfile(os.path.join(build_dir, "compile_commands.json")):
        print(f"check_class_sizes: no compile_commands.json in {build_dir}")
        return 2
    ceilings, problems = parse_ceilings(ceilings_path)
    classes, parsed, unparsed = measure(build_dir, root, folders, cindex)
    problems += unparsed
    root = os.path.realpath(root)
    for (name, path), count in sorted(classes.items(),
                                      key=lambda kv: (-kv[1], kv[0])):
        if count >= REPORT_FROM or name in ceilings:
            ceiling = f", ceiling {ceilings[name]}" if name in ceilings else ""
            print(f"{count:4d} {name} ({os.path.relpath(path, root)}{ceiling})")
    more, notes = judge(classes, ceilings, root)
    problems += more
    for n in notes:
        print("note: " + n)
    for p in problems:
        print(p)
    summary = (f"{len(classes)} classes in {', '.join(folders)} "
               f"({parsed} translation units parsed)")
    if problems:
        print(f"check_class_sizes: {len(problems)} problem(s) among {summary}")
        return 1
    print(f"check_class_sizes: every class of {summary} has at most "
          f"{MAX_METHODS} member functions or stays under its ceiling")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
