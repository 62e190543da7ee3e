#!/usr/bin/env python3
"""Checks every relative link in the repository's Markdown files.

    check_links.py [REPO_ROOT]

A link `[text](path)`, `[text](path#anchor)`, `[text](#anchor)` or a
reference definition `[name]: path` must name a file or folder of the
repository, and an anchor into a Markdown file must be one of its headings'
GitHub anchors (or an explicit `<a name>`/`id`). External links (any
`scheme:`) are not fetched: whether a web page exists is not this
repository's fact. Links inside code (fenced or indented blocks, inline
code spans) are text, not links, and are skipped.

The files are the repository's as `doc_tree.repo_files` lists them (git's
tracked and untracked-but-not-ignored files).

Exit status 0 when every link resolves; 1 with one line per broken link
(file:line: what is wrong) otherwise.
"""

import difflib
import os
import re
import sys
import unicodedata
import urllib.parse

from doc_tree import repo_files, run

SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
HTML_ANCHOR = re.compile(r"<a\s+[^>]*?(?:name|id)\s*=\s*\"([^\"]+)\"", re.I)
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def heading_text(markdown):
    """The text a heading renders, as GitHub reads it to make its anchor."""
    text = CODE_SPAN.sub(lambda m: m.group(2), markdown)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = re.sub(r"<[^>]+>", "", text)                      # inline HTML
    return text.replace("*", "").replace("~", "")


def github_slug(text):
    """GitHub's anchor for a heading's text: lower case, letters, digits,
    '_', '-' and spaces kept (spaces become '-'), everything else dropped."""
    kept = []
    for ch in text.lower():
        category = unicodedata.category(ch)
        if ch in " -_" or category[0] in "LNM" or category == "Pc":
            kept.append("-" if ch == " " else ch)
    return "".join(kept)


def scan(path):
    """Yields (line number, kind, value) for one Markdown file: kind is
    'link' (value = target) or 'anchor' (value = an anchor it defines)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence = None
    in_list = False
    previous_blank = True
    in_indented_code = False
    slugs = {}
    for number, line in enumerate(lines, 1):
        marker = FENCE.match(line)
        if fence:
            if marker and marker.group(1)[0] == fence[0] and \
                    len(marker.group(1)) >= len(fence):
                fence = None
            previous_blank = False
            continue
        if marker:
            fence = marker.group(1)
            continue
        blank = not line.strip()
        indented = line.startswith("    ") or line.startswith("\t")
        if blank:
            previous_blank = True
            continue
        if indented and not in_list and (previous_blank or in_indented_code):
            in_indented_code = True
            previous_blank = False
            continue
        in_indented_code = False
        if LIST_ITEM.match(line):
            in_list = True
        elif not indented:
            in_list = False
        previous_blank = False

        heading = HEADING.match(line)
        setext = SETEXT.match(line)
        title = None
        if heading:
            title = heading.group(2)
        elif setext and number > 1 and lines[number - 2].strip() and \
                not LIST_ITEM.match(lines[number - 2]):
            title = lines[number - 2].strip()
        if title is not None:
            slug = github_slug(heading_text(title))
            count = slugs.get(slug, 0)
            slugs[slug] = count + 1
            yield number, "anchor", slug if count == 0 else f"{slug}-{count}"
        for anchor in HTML_ANCHOR.findall(line):
            yield number, "anchor", anchor

        text = CODE_SPAN.sub("", line)
        definition = REFERENCE_DEF.match(text)
        if definition:
            yield number, "link", definition.group(1)
            continue
        for target in INLINE_LINK.findall(text):
            yield number, "link", target


def check(root):
    """Returns the broken links below `root`, one message each."""
    files = repo_files(root)
    folders = set()
    for f in files:
        parts = f.split("/")
        for i in range(1, len(parts)):
            folders.add("/".join(parts[:i]))
    documents = sorted(f for f in files if f.lower().endswith(".md"))
    anchors, links = {}, {}
    for doc in documents:
        anchors[doc] = set()
        links[doc] = []
        for number, kind, value in scan(os.path.join(root, doc)):
            if kind == "anchor":
                anchors[doc].add(value)
            else:
                links[doc].append((number, value))

    problems = []
    for doc in documents:
        here = os.path.dirname(doc)
        for number, target in links[doc]:
            if SCHEME.match(target):
                continue
            path, _, anchor = target.partition("#")
            path = urllib.parse.unquote(path)
            if not path:
                resolved = doc
            elif path.startswith("/"):
                resolved = os.path.normpath(path.lstrip("/"))
            else:
                resolved = os.path.normpath(os.path.join(here, path))
            resolved = resolved.replace(os.sep, "/")
            where = f"{doc}:{number}: link to {target}"
            if resolved == "." or resolved.startswith("../"):
                if resolved != ".":
                    problems.append(f"{where}: leaves the repository")
                    continue
            elif resolved not in files and resolved not in folders:
                problems.append(f"{where}: no such file or folder "
                                f"({resolved})")
                continue
            if not anchor or not resolved.lower().endswith(".md"):
                continue
            anchor = urllib.parse.unquote(anchor).lower()
            if anchor not in anchors[resolved]:
                near = difflib.get_close_matches(anchor, anchors[resolved], 1)
                hint = f"; did you mean #{near[0]}?" if near else ""
                problems.append(f"{where}: {resolved} has no heading with "
                                f"anchor #{anchor}{hint}")
    return problems, sum(len(v) for v in links.values())


def main(argv):
    return run(argv, check, "check_links",
               "fix the link or the heading it points to",
               "{count} link(s) in the Markdown files resolve")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
