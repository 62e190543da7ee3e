#!/usr/bin/env python3
"""Checks that the folders of a source tree include each other without a
cycle.

    check_include_cycles.py REPO_ROOT SOURCE_DIR...

Each SOURCE_DIR (relative to REPO_ROOT, e.g. gpu-server/src) is a graph:
its folders are the nodes (the SOURCE_DIR itself is one, named `.`), and
folder A has an edge to folder B when a file in A includes a file in B by
`#include "..."`, the path taken relative to the including file's folder
or to SOURCE_DIR (what the build's include paths give). Includes that
resolve to neither (public headers, other libraries, the system) are no
edge: they cannot close a cycle inside SOURCE_DIR.

A cycle means neither folder can be read, tested or moved without the
other: the layering the folders suggest is not the real one. Each cycle is
printed with one include per edge, where it is.

Exit status 0 without a cycle; 1 otherwise.
"""

import os
import re
import sys

SOURCE_FILES = (".c", ".cc", ".cpp", ".h", ".hpp", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(path):
    folder = os.path.dirname(path)
    return folder if folder else "."


def edges_of(root, source_dir):
    """{(from_folder, to_folder): "file:line: #include ..."} for every
    include from one folder of source_dir into another."""
    base = os.path.join(root, source_dir)
    edges = {}
    for dirpath, _, names in os.walk(base):
        for name in sorted(names):
            if not name.endswith(SOURCE_FILES):
                continue
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, base)
            with open(full, encoding="utf-8", errors="replace") as f:
                lines = f.read().split("\n")
            for number, line in enumerate(lines, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = resolve(base, os.path.dirname(rel), m.group(1))
                if target is None:
                    continue
                a, b = folder_of(rel), folder_of(target)
                if a != b and (a, b) not in edges:
                    edges[(a, b)] = (f"{source_dir}/{rel}:{number}: "
                                     f"{line.strip()}")
    return edges


def resolve(base, folder, included):
    """The included file's path relative to base, or None."""
    for start in (folder, ""):
        candidate = os.path.normpath(os.path.join(start, included))
        if candidate.startswith(".."):
            continue
        if os.path.isfile(os.path.join(base, candidate)):
            return candidate
    return None


def cycles(edges):
    """One cycle (a list of folders, first == last) per strongly connected
    group of folders, by Tarjan's algorithm."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(set(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [cycle_in(graph, group) for group in groups]


def cycle_in(graph, group):
    """A path through `group` from its first folder back to it."""
    start = min(group)
    path, seen = [start], {start}
    while True:
        here = path[-1]
        nexts = sorted(w for w in graph[here] if w in group)
        if start in nexts and len(path) > 1:
            return path + [start]
        fresh = [w for w in nexts if w not in seen]
        if not fresh:  # every neighbour seen: close through the start
            back = shortest(graph, group, here, start)
            return path + back[1:]
        path.append(fresh[0])
        seen.add(fresh[0])


def shortest(graph, group, a, b):
    frontier, parent = [a], {a: None}
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v]):
                if w in group and w not in parent:
                    parent[w] = v
                    nxt.append(w)
        frontier = nxt
    path, v = [], b
    while v is not None:
        path.append(v)
        v = parent[v]
    return path[::-1]


def check(root, source_dirs):
    problems = []
    for source_dir in source_dirs:
        edges = edges_of(root, source_dir)
        for cycle in cycles(edges):
            problems.append(f"{source_dir}: folders include each other: "
                            + " -> ".join(cycle))
            for a, b in zip(cycle, cycle[1:]):
                problems.append("  " + edges[(a, b)])
        print(f"{source_dir}: {len(edges)} include edge(s) between folders: "
              + ", ".join(f"{a} -> {b}" for a, b in sorted(edges)))
    return problems


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    problems = check(argv[1], argv[2:])
    for p in problems:
        print(p)
    if problems:
        print("check_include_cycles: the folders above include each other; "
              "move what both need into one of them (or a folder of its "
              "own), or reach it through an interface")
        return 1
    print("check_include_cycles: no folder cycles in " + ", ".join(argv[2:]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
