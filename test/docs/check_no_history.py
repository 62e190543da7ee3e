#!/usr/bin/env python3
"""Checks that the tree speaks of the product, not of how it was made.

    check_no_history.py [REPO_ROOT]

No tracked file (third-party trees fetched at test time are not tracked)
may name lab notes (`docs/notes`), issue numbers (`issue 4`, `issue #4`,
`#26 ` used as an issue), work sessions (`session 12`, `session-30`,
`sessions 4-5`), work periods, or bench results named by them (`-s11`,
`-s18-reps2`). Measured reasons belong in docs/design/<topic>.md, results
in bench/results/<benchmark>/. Upstream bug numbers stay where they say
whose they are (`LLVM issue 131415`), and rc-server's own sessions may be
counted where the text shows it (`session 3 (app pid ...`, `session 1:`
in a log line).

Exit status 0 when nothing is found; 1 with one line per finding
(file:line: the text) otherwise.
"""

import os
import re
import sys

from doc_tree import repo_files, run

PATTERNS = [
    ("lab notes", re.compile(r"docs/notes|\blab notes?\b", re.I)),
    ("an issue number", re.compile(
        r"(?<!LLVM )(?<!llvm )\bissue #?\d+(?:-\d+)?\b|\bissues #?\d+ and\b|"
        r"(?<![\w&/])#\d+\s+(?:issue|fix|follow)", re.I)),
    ("a work session", re.compile(
        r"\bsessions? \d+(?:-\d+)?(?:'s)?(?! \(app pid)(?!:)\b|"
        r"\bsession[-_]\d+\b", re.I)),
    ("a work period", re.compile(r"\bwork periods?\b", re.I)),
    ("a result named by a session", re.compile(r"-s\d+(?:-[\w-]+)?\.(?:json|md|png|txt)\b|\*-s\d+")),
]
# The check's own description and tests name what they look for.
SELF = ("test/docs/check_no_history.py", "test/docs/test_doc_checks.py")
BINARY = (".png", ".jpg", ".gz", ".bin", ".rcm", ".fatbin", ".cubin")


def check(root):
    problems = []
    files = [f for f in repo_files(root)
             if f not in SELF and not f.lower().endswith(BINARY)]
    for f in files:
        try:
            with open(os.path.join(root, f), encoding="utf-8") as src:
                lines = src.read().split("\n")
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(lines, 1):
            for what, pattern in PATTERNS:
                m = pattern.search(line)
                if m:
                    problems.append(f"{f}:{number}: names {what}: "
                                    f"{m.group(0)!r}")
                    break
    return problems, len(files)


def main(argv):
    return run(argv, check, "check_no_history",
               "say the reason itself or link the design record "
               "(docs/design/<topic>.md); name results by benchmark",
               "{count} file(s) name no notes, issues or work sessions")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
