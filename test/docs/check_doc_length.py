#!/usr/bin/env python3
"""Checks that no Markdown page of the repository runs past 300 lines.

    check_doc_length.py [REPO_ROOT]

A page longer than that serves several readers at once (a new user, an
operator, a maintainer); split it by reader instead, and link the parts.

Exit status 0 when every page fits; 1 with one line per long page
(file: N lines) otherwise.
"""

import os
import sys

from doc_tree import repo_files, run

MAX_LINES = 300


def check(root):
    """Returns the pages below `root` longer than MAX_LINES, one message
    each, and how many pages were read."""
    pages = [f for f in repo_files(root) if f.lower().endswith(".md")]
    problems = []
    for page in pages:
        with open(os.path.join(root, page), encoding="utf-8") as f:
            lines = f.read().count("\n")
        if lines > MAX_LINES:
            problems.append(f"{page}: {lines} lines, more than {MAX_LINES}")
    return problems, len(pages)


def main(argv):
    return run(argv, check, "check_doc_length",
               "split the page by its readers and link the parts",
               "{count} Markdown page(s) of at most %d lines" % MAX_LINES)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
