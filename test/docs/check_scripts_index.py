#!/usr/bin/env python3
"""Checks that scripts/README.md lists every runnable script.

    check_scripts_index.py [REPO_ROOT]

A runnable script is a tracked file named *.sh, *.py, *.sh.in or *.py.in,
or any tracked file with the executable bit, outside hidden folders. It is
listed when scripts/README.md names it in backticks by its path from the
repository root, or by its name inside the section whose heading starts
with its folder (`## bench/: ...` lists `bench/run.sh` as `run.sh`). So
a new script cannot ship without saying where it runs, when, and what it
takes and leaves.

Exit status 0 when every script is listed; 1 with one line per unlisted
script otherwise.
"""

import os
import re
import subprocess
import sys

from doc_tree import repo_files, run

SCRIPT = re.compile(r"\.(sh|py)(\.in)?$")
SECTION = re.compile(r"^## ([\w./-]+)/", re.M)


def executable_files(root):
    """Tracked files with the executable bit (git's mode 100755)."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-s"],
                             check=True, capture_output=True,
                             text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return set()
    return {line.split("\t", 1)[1] for line in out.splitlines()
            if line.startswith("100755")}


def runnable_scripts(root):
    files = set(repo_files(root))
    found = {f for f in files if SCRIPT.search(f)}
    found |= executable_files(root) & files
    return sorted(f for f in found
                  if not any(p.startswith(".") for p in f.split("/")))


def listed(index):
    """(paths named anywhere, {folder: names in its section})."""
    paths = set(re.findall(r"`([^`\s]+)`", index))
    sections = {}
    parts = SECTION.split(index)
    for folder, body in zip(parts[1::2], parts[2::2]):
        sections.setdefault(folder, set()).update(
            re.findall(r"`([^`\s/]+)`", body))
    return paths, sections


def check(root):
    path = os.path.join(root, "scripts", "README.md")
    with open(path, encoding="utf-8") as f:
        paths, sections = listed(f.read())
    scripts = runnable_scripts(root)
    problems = []
    for script in scripts:
        folder, _, name = script.rpartition("/")
        if script in paths or name in sections.get(folder, ()):
            continue
        problems.append(f"{script}: not listed in scripts/README.md")
    return problems, len(scripts)


def main(argv):
    return run(argv, check, "check_scripts_index",
               "add a row saying where it runs, when, what it takes and "
               "leaves", "{count} runnable script(s) listed in "
               "scripts/README.md")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
