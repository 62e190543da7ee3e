#!/usr/bin/env python3
"""Checks that docs/environment.md lists every environment variable the
code reads, and lists no RC_* variable that nothing reads; that the
components read at most MAX_USER_FACING user-facing RC_* variables; and
that the developers' switches (RC_DEV_*) are listed in their own section.

    check_env_doc.py [REPO_ROOT]

What counts as reading a variable:
- C and C++ in the components (runtime/, gpu-server/, transport/, driver/,
  tools/, clang-plugin/, manifest/, schema/): a `getenv("NAME")` of any
  name, and every string literal that is exactly an RC_* name, because
  the components read theirs through rc::EnvReader, which takes the name
  (`env.count("RC_DEV_BATCH_AGE_US", ...)`);
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

User-facing: an RC_* variable the components read whose name does not
start with RC_DEV_. RC_DEV_* variables are unsupported switches for
developers (A/B measurements, debugging, fuzzing): they are listed in the
section headed DEV_SECTION and only there, and that section lists nothing
else, so a knob cannot leave the count by hiding among them.

Exit status 0 when all hold; 1 with one line per problem otherwise
(file:line of a read for a missing variable).
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
# A user should not need more knobs than this to run remote-clang; every
# other switch is a developer's, under DEV_PREFIX.
MAX_USER_FACING = 25
DEV_PREFIX = "RC_DEV_"
DEV_SECTION = "## Unsupported, for developers"

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
    name prefixes written as `NAME<...>`, and the names listed in the
    developers' section (DEV_SECTION, up to the next `## ` heading)."""
    names, prefixes, dev_section = set(), set(), set()
    in_dev = False
    for line in doc_text.split("\n"):
        if line.startswith("## "):
            in_dev = line.strip() == DEV_SECTION
        row = DOC_ROW.match(line)
        if not row or set(row.group(1).strip()) <= set("-: "):
            continue
        found = DOC_NAME.findall(row.group(1))
        names.update(found)
        if in_dev:
            dev_section.update(found)
        prefixes.update(DOC_PATTERN.findall(row.group(1)))
    return names, prefixes, dev_section


def developer_problems(doc, dev_section, names):
    """RC_DEV_* variables listed outside their section, others inside it."""
    problems = []
    for name in sorted(dev_section):
        if not name.startswith(DEV_PREFIX):
            problems.append(f"{doc}: lists {name} under '{DEV_SECTION}', "
                            f"which holds {DEV_PREFIX}* variables only")
    for name in sorted(n for n in names if n.startswith(DEV_PREFIX)):
        if name not in dev_section:
            problems.append(f"{doc}: lists {name} outside "
                            f"'{DEV_SECTION}'")
    return problems


def user_facing_problems(doc, product_reads):
    """More user-facing RC_* variables than MAX_USER_FACING."""
    users = sorted(n for n in product_reads if n.startswith("RC_")
                   and not n.startswith(DEV_PREFIX))
    if len(users) <= MAX_USER_FACING:
        return [], users
    return [f"{doc}: the components read {len(users)} user-facing RC_* "
            f"variables, at most {MAX_USER_FACING} allowed (make a "
            f"developer's switch {DEV_PREFIX}*, or delete one): "
            + ", ".join(users)], users


def check(root, doc="docs/environment.md"):
    """Returns the problems found below `root`, one message each."""
    with open(os.path.join(root, doc), encoding="utf-8") as f:
        names, prefixes, dev_section = documented(f.read())
    problems = developer_problems(doc, dev_section, names)
    read, product_reads = set(), set()
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
            if path.startswith(COMPONENTS):
                product_reads.add(name)
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
    too_many, users = user_facing_problems(doc, product_reads)
    problems += too_many
    return problems, (f"{len(read)} variable(s) the code reads are "
                      f"documented; {len(users)} of them user-facing RC_* "
                      f"(at most {MAX_USER_FACING}): " + ", ".join(users))


def main(argv):
    return run(argv, check, "check_env_doc",
               "every variable the code reads goes into docs/environment.md "
               "with its default, meaning, parsing rule and users",
               "all {count}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
