#!/usr/bin/env python3
"""Counts test-backend-ops results (test mode, console output) and compares a
remote run with a local one: every test that passes locally must pass
remotely. Standard library only (runs on the GPU machine).

  ops-summary.py [--runs N] LOCAL.log REMOTE.log

A log may hold N runs one after another (device-run.sh's parallel shards):
it counts as complete when all N printed their final summary.

Prints passed/failed/not supported/skipped for both and the tests that pass
locally but not remotely; exit status 1 if there is any such test, or if the
remote log ends early (a crash or a timeout cuts it short).
"""
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*m")
# "  ADD(type=f32,ne=[10,5,4,3]): OK"; params may hold "): " themselves,
# so the status is what follows the last "): ". A failed comparison prints
# its error first: "[SUM] ERR = 0.2 > 0.0000001   SUM(type=f32,...): FAIL".
LINE = re.compile(r"^(?:  |\[[A-Z_0-9]+\] .*?\s{2,})([A-Z_0-9]+)\((.*)\): (.*)$")


def status_of(rest):
    if rest.endswith("OK"):
        return "passed"
    if rest.endswith("FAIL"):
        return "failed"
    if rest.startswith("not supported"):
        return "not supported"
    if rest.startswith("skipping"):
        return "skipped"
    return None


def parse(path, runs):
    results, finished = {}, 0
    with open(path, errors="replace") as f:
        for raw in f:
            line = ANSI.sub("", raw.rstrip("\n"))
            if re.match(r"^\d+/\d+ backends passed", line):
                finished += 1
            m = LINE.match(line)
            if not m:
                continue
            st = status_of(m.group(3).strip())
            if st:
                # A test name can repeat (same op, same params): count each.
                key = f"{m.group(1)}({m.group(2)})"
                n = 2
                while key in results:
                    key = f"{m.group(1)}({m.group(2)}) #{n}"
                    n += 1
                results[key] = st
    return results, finished >= runs


def counts(results):
    c = {"passed": 0, "failed": 0, "not supported": 0, "skipped": 0}
    for st in results.values():
        c[st] += 1
    return ", ".join(f"{v} {k}" for k, v in c.items())


def main():
    args = sys.argv[1:]
    runs = 1
    if len(args) == 4 and args[0] == "--runs" and args[1].isdigit():
        runs, args = int(args[1]), args[2:]
    if len(args) != 2:
        print(__doc__)
        return 2
    local, local_done = parse(args[0], runs)
    remote, remote_done = parse(args[1], runs)
    print(f"local  (nvcc):        {len(local)} tests: {counts(local)}"
          + ("" if local_done else "  [log ends early]"))
    print(f"remote (remote-clang): {len(remote)} tests: {counts(remote)}"
          + ("" if remote_done else "  [log ends early]"))
    # A test missing from a log that ends early was not reached (timeout):
    # reported as a count, not as a regression.
    regressions = [t for t, st in local.items() if st == "passed" and t in remote and remote[t] != "passed"]
    missing = [t for t, st in local.items() if st == "passed" and t not in remote]
    for t in regressions[:40]:
        print(f"REGRESSION  {t}: local passed, remote {remote[t]}")
    if len(regressions) > 40:
        print(f"... and {len(regressions) - 40} more")
    both = sum(1 for t, st in local.items() if st == "passed" and remote.get(t) == "passed")
    print(f"ops-summary: {both} test(s) passed in both runs; {len(missing)} passed locally "
          f"and were not reached remotely")
    extra = sum(1 for t, st in remote.items() if st == "passed" and local.get(t) != "passed")
    print(f"ops-summary: {len(regressions)} test(s) pass locally but not remotely; "
          f"{extra} pass remotely but not locally")
    return 1 if regressions or missing or not remote_done else 0


if __name__ == "__main__":
    sys.exit(main())
