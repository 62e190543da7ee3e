#!/usr/bin/env python3
"""Checks that docs/security.md names every place that opens a listening
endpoint.

    check_sockets_doc.py [REPO_ROOT]

Every source file of the product (transport/, gpu-server/, runtime/, auth/,
tools/; tests left out) that listens or binds a socket, opens a libfabric
endpoint, or calls `transport::listen` must be named, by its path, in
security.md's section "Who can reach the port", which says who can reach
each socket and what guards it. So a new listening socket cannot ship
without that row.

Exit status 0 when each is named; 1 with one line per unnamed file
(file:line: what it opens) otherwise.
"""

import os
import re
import sys

from doc_tree import repo_files, run

COMPONENTS = ("transport/", "gpu-server/", "runtime/", "auth/", "tools/")
SOURCE = re.compile(r"\.(c|cc|cpp|h|hpp)$")
OPENS = re.compile(r"(::listen\s*\(|\bbind\s*\(\s*(?:fd|sock)|"
                   r"\bfi_endpoint\s*\(|\bfi_passive_ep\s*\(|"
                   r"\bfi_scalable_ep\s*\(|transport::listen\s*\()")
SECTION = "## Who can reach the port"


def listening_places(root):
    """(path, line number, call) for each call that opens a listening
    endpoint, in the product's sources."""
    places = []
    for f in repo_files(root):
        if not f.startswith(COMPONENTS) or not SOURCE.search(f):
            continue
        with open(os.path.join(root, f), encoding="utf-8",
                  errors="replace") as src:
            for number, line in enumerate(src, 1):
                code = line.split("//", 1)[0]
                m = OPENS.search(code)
                if m:
                    places.append((f, number, m.group(1).rstrip("( ")))
    return places


def check(root):
    with open(os.path.join(root, "docs", "security.md"),
              encoding="utf-8") as f:
        page = f.read()
    if SECTION not in page:
        return [f"docs/security.md: no section '{SECTION}'"], 0
    section = page.split(SECTION, 1)[1].split("\n## ", 1)[0]
    places = listening_places(root)
    problems = []
    for path, number, call in places:
        if path not in section:
            problems.append(f"{path}:{number}: {call} opens an endpoint "
                            f"docs/security.md's '{SECTION[3:]}' does not "
                            f"name")
    if not places:
        problems.append("no listening endpoint found in the sources: has "
                        "the transport moved?")
    return problems, len(places)


def main(argv):
    return run(argv, check, "check_sockets_doc",
               "add the socket, who reaches it and what guards it to "
               "docs/security.md",
               "{count} place(s) that open endpoints are named in "
               "docs/security.md")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
