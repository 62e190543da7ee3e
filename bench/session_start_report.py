#!/usr/bin/env python3
"""Turns bench/session-start.sh's raw lines ("<isolation>-<transport>
<manifests>: first_call_ms X first_kernel_ms Y") into
session-start/<date>-<gpu>.json, whose `rows` are {case, isolation,
transport, manifests, value, p90, unit, local_value, ratio, vs_none}: value
is the median time to the first kernel's result in ms, ratio remote /
local, vs_none this isolation / no isolation on the same transport (lower
is better for both); and a markdown table beside it.

    session_start_report.py --raw RAW --out DIR --gpu NAME --reps N --gap S
"""
import argparse
import re
import statistics

from results_doc import write_results

LINE = re.compile(r"^(\S+) (\S+): first_call_ms ([0-9.]+) "
                  r"first_kernel_ms ([0-9.]+)$")
# The client's own account of its session start (RC_STATS=1).
PHASES = ("manifests", "connect", "Hello", "redirect", "reply")
PHASE_LINE = re.compile(
    r"^(\S+) (\S+): remote-clang stats: session start [0-9.]+ ms: " +
    ", ".join(r"%s ([0-9.]+)" % p for p in PHASES))


def p90(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpu", required=True)
    ap.add_argument("--reps", type=int, required=True)
    ap.add_argument("--gap", type=float, required=True)
    args = ap.parse_args()
    runs = {}  # (config, manifests) -> [first kernel ms]
    phases = {}  # (config, manifests) -> [[ms per phase], ...]
    with open(args.raw) as f:
        for line in f:
            m = LINE.match(line.strip())
            if m:
                runs.setdefault((m.group(1), m.group(2)), []).append(
                    float(m.group(4)))
            m = PHASE_LINE.match(line.strip())
            if m:
                phases.setdefault((m.group(1), m.group(2)), []).append(
                    [float(g) for g in m.groups()[2:]])
    median = {k: statistics.median(v) for k, v in runs.items()}
    local = median.get(("local", "own"))
    rows = []
    for (config, manifests), values in sorted(runs.items()):
        if config == "local":
            continue
        isolation, transport = config.split("-", 1)
        value = median[(config, manifests)]
        none = median.get(("none-" + transport, manifests))
        per_phase = phases.get((config, manifests), [])
        phase_ms = {p.lower(): round(statistics.median(v[i] for v in
                                                       per_phase), 2)
                    for i, p in enumerate(PHASES)} if per_phase else {}
        rows.append({"case": "first-kernel", "isolation": isolation,
                     "phases_ms": phase_ms,
                     "transport": transport, "manifests": manifests,
                     "value": round(value, 2), "p90": round(p90(values), 2),
                     "unit": "ms", "local_value": local and round(local, 2),
                     "ratio": round(value / local, 3) if local else None,
                     "vs_none": round(value / none, 3) if none else None})
    setup = ("time from a program's first CUDA call to its first kernel's "
             "result (bench/session_start.cu), median of %d runs %.1f s "
             "apart; manifests 'llama': rc-server and the client also hold "
             "llama.cpp's" % (args.reps, args.gap))

    def ratio(key):
        return lambda r: "%.3f" % r[key] if r[key] else "-"

    base = write_results(args.out, args.gpu, "session-start", "Session start",
                         setup, rows, [
        ("isolation", lambda r: r["isolation"]),
        ("transport", lambda r: r["transport"]),
        ("manifests", lambda r: r["manifests"]),
        ("ms (median)", lambda r: "%.2f" % r["value"]),
        ("p90", lambda r: "%.2f" % r["p90"]),
        ("local ms", lambda r: "%.2f" % r["local_value"]
         if r["local_value"] else "-"),
        ("remote / local", ratio("ratio")),
        ("vs no isolation", ratio("vs_none")),
        ("client: manifests / connect / Hello / redirect / reply ms",
         lambda r: " / ".join("%.1f" % r["phases_ms"][p.lower()]
                              for p in PHASES) if r["phases_ms"] else "-"),
    ])
    print("session_start_report: wrote %s.json and .md (%d rows)" %
          (base, len(rows)))


if __name__ == "__main__":
    main()
