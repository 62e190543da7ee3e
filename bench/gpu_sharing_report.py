#!/usr/bin/env python3
"""bench/gpu-sharing.sh's numbers.

One run (--runs DIR --config C --clients N --rep R --seconds S --failed F):
reads the clients' JSON lines (bench/sharing_kernels.cu) and prints one:
{config, clients, rep, kernels_per_s (all clients' kernels over S),
max_late_ms (the latest client's lateness for the common start: a late
one ran part of the window alone), failed_clients}.

The report (--raw RAW --out DIR --gpu NAME --setup TEXT): per config and
count the median kernels_per_s of the reps with min and max, and the
ratios of the median to local's and to local-mps's at that count, into
<date>-<gpu>-gpu-sharing.{json,md}.
"""
import argparse
import json
import os
import statistics

from results_doc import write_results


def one_run(args):
    kernels, late, got = 0, 0.0, 0
    for i in range(args.clients):
        path = os.path.join(args.runs, "%s-n%d-r%d-c%d.json" %
                            (args.config, args.clients, args.rep, i))
        try:
            with open(path) as f:
                line = json.loads(f.read().strip().splitlines()[-1])
        except (OSError, ValueError, IndexError):
            continue
        kernels += line["kernels"]
        late = max(late, line["late_ms"])
        got += 1
    failed = max(args.failed, args.clients - got)
    print(json.dumps({
        "config": args.config, "clients": args.clients, "rep": args.rep,
        "kernels_per_s": round(kernels / args.seconds, 1) if not failed
        else None,
        "max_late_ms": late, "failed_clients": failed}))


def report(args):
    runs = [json.loads(l) for l in open(args.raw) if l.strip()]
    groups = {}
    for r in runs:
        groups.setdefault((r["config"], r["clients"]), []).append(r)
    medians = {}
    rows = []
    for (config, clients), reps in sorted(groups.items()):
        values = [r["kernels_per_s"] for r in reps if r["kernels_per_s"]]
        row = {"config": config, "clients": clients, "reps": len(reps),
               "failed_reps": len(reps) - len(values),
               "max_late_ms": max(r["max_late_ms"] for r in reps)}
        if values:
            row.update(kernels_per_s=statistics.median(values),
                       min=min(values), max=max(values))
            medians[(config, clients)] = row["kernels_per_s"]
        rows.append(row)
    for row in rows:
        for base in ("local", "local-mps"):
            ref = medians.get((base, row["clients"]))
            mine = row.get("kernels_per_s")
            row["vs_" + base.replace("-", "_")] = \
                round(mine / ref, 3) if mine and ref else None
    num = lambda v: "-" if v is None else "%g" % v
    base = write_results(args.out, args.gpu, "gpu-sharing",
                         "Kernels of several clients on one GPU", args.setup,
                         rows, [
        ("config", lambda r: r["config"]),
        ("clients", lambda r: "%d" % r["clients"]),
        ("kernels/s (median)", lambda r: num(r.get("kernels_per_s"))),
        ("min", lambda r: num(r.get("min"))),
        ("max", lambda r: num(r.get("max"))),
        ("/ local", lambda r: num(r["vs_local"])),
        ("/ local+MPS", lambda r: num(r["vs_local_mps"])),
        ("latest start ms", lambda r: num(r["max_late_ms"])),
        ("failed reps", lambda r: "%d" % r["failed_reps"]),
    ])
    print("gpu_sharing_report: wrote %s.json and .md (%d rows)" %
          (base, len(rows)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs")
    ap.add_argument("--config")
    ap.add_argument("--clients", type=int)
    ap.add_argument("--rep", type=int)
    ap.add_argument("--seconds", type=float)
    ap.add_argument("--failed", type=int, default=0)
    ap.add_argument("--raw")
    ap.add_argument("--out")
    ap.add_argument("--gpu")
    ap.add_argument("--setup", default="")
    args = ap.parse_args()
    if args.runs:
        one_run(args)
    else:
        report(args)


if __name__ == "__main__":
    main()
