#!/usr/bin/env python3
"""Checks that docs/environment.md lists every environment variable the
code reads, and lists no RC_* variable that nothing reads.

    check_env_doc.py [REPO_ROOT]

What counts as reading a variable:
- C and C++ in the components (runtime/, gpu-server/, transport/, driver/,
  tools/, clang-plugin/, manifest/, schema/): a `getenv("NAME")` of any
  name, and every string literal that is exactly an RC_* name, because
  the components read theirs through rc::EnvReader, which takes the name
  (`env.count("RC_BATCH_AGE_US", ...)`);
- C and C++ elsewhere (test/, bench/): a `getenv("NAME")`;
- Python anywhere: `os.environ.get`, `os.environ[...]`, `os.getenv` and
  the drivers' `env_switch` of a literal name;
- shell scripts anywhere: an expansion with a default or a check,
  `${NAME:-...}`, `${NAME-...}`, `${NAME:=...}`, `${NAME:?...}`,
  `${NAME:+...}`: that is how the scripts take their inputs (a plain
  `$NAME` is usually the script's own variable, so it is not counted).

test/docs/ is left out: the checks' own tests hold sample reads as data.

A variable is listed when its name appears in backquotes in the first cell
of a table row of docs/environment.md. The files are the repository's as
`doc_tree.repo_files` lists them.

Exit status 0 when both hold; 1 with one line per missing or stale
variable otherwise (file:line of a read for a missing one).
"""

import os
import re
import sys

from doc_tree import repo_files, run

COMPONENTS = ("runtime/", "gpu-server/", "transport/", "driver/", "tools/",
              "clang-plugin/", "manifest/", "schema/", "config/")
C_FILES = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".inc",
           ".cpp.in", ".h.in")
SHELL_FILES = (".sh", ".sh.in", ".bash")
PYTHON_FILES = (".py", ".py.in")
NOT_SCANNED = ("test/docs/",)  # the checks' tests: sample reads as data

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
GETENV = re.compile(r"\b(?:secure_)?getenv\s*\(\s*\"(" + NAME + r")\"")
RC_LITERAL = re.compile(r"\"(RC_[A-Z0-9_]+)\"")
PYTHON_READ = re.compile(
    r"(?:os\.(?:environ\.get\s*\(|environ\s*\[|getenv\s*\()|env_switch\s*\()"
    r"\s*[\"'](" + NAME + r")[\"']")
# Shell: `${NAME:-...}` and kin. A name starting in lower case is the
# script's own (a local's default), not an input from the environment.
SHELL_READ = re.compile(r"\$\{([A-Z][A-Za-z0-9_]*)(?::?[-=?+])")
DOC_ROW = re.compile(r"^\s*\|([^|]*)\|")
DOC_NAME = re.compile(r"`(" + NAME + r")`")
# Names a script prefix or a doc row may contain that are patterns, not
# variables (VARIANTS_<config>).
DOC_PATTERN = re.compile(r"`(" + NAME + r")<[^>]*>`")


def reads_in(path, text):
    """(line, name) for every variable the file at `path` reads."""
    found = []
    is_c = path.endswith(C_FILES)
    in_component = path.startswith(COMPONENTS)
    patterns = []
    if is_c:
        patterns.append(GETENV)
        if in_component:
            patterns.append(RC_LITERAL)
    if path.endswith(PYTHON_FILES):
        patterns.append(PYTHON_READ)
    if path.endswith(SHELL_FILES) or text.startswith("#!/usr/bin/env bash") \
            or text.startswith("#!/bin/bash") or text.startswith("#!/bin/sh"):
        patterns.append(SHELL_READ)
    for number, line in enumerate(text.split("\n"), 1):
        names = set()
        for pattern in patterns:
            names.update(pattern.findall(line))
        found.extend((number, name) for name in sorted(names))
    return found


def documented(doc_text):
    """Names in backquotes in the first cell of the document's table rows,
    and name prefixes written as `NAME<...>`."""
    names, prefixes = set(), set()
    for line in doc_text.split("\n"):
        row = DOC_ROW.match(line)
        if not row or set(row.group(1).strip()) <= set("-: "):
            continue
        names.update(DOC_NAME.findall(row.group(1)))
        prefixes.update(DOC_PATTERN.findall(row.group(1)))
    return names, prefixes


def check(root, doc="docs/environment.md"):
    """Returns the problems found below `root`, one message each."""
    with open(os.path.join(root, doc), encoding="utf-8") as f:
        names, prefixes = documented(f.read())
    problems = []
    read = set()
    searchable = []
    for path in repo_files(root):
        if path.endswith(".md") or path.startswith(NOT_SCANNED):
            continue
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        searchable.append(text)
        for number, name in reads_in(path, text):
            read.add(name)
            if name in names or any(name.startswith(p) for p in prefixes):
                continue
            problems.append(f"{path}:{number}: reads {name}, which {doc} "
                            f"does not list")
    everything = "\n".join(searchable)
    for name in sorted(n for n in names if n.startswith("RC_")):
        if name not in read and not re.search(r"\b" + name + r"\b",
                                              everything):
            problems.append(f"{doc}: lists {name}, which nothing in the "
                            f"repository reads")
    return problems, len(read)


def main(argv):
    return run(argv, check, "check_env_doc",
               "every variable the code reads goes into docs/environment.md "
               "with its default, meaning, parsing rule and users",
               "all {count} variable(s) the code reads are documented")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
