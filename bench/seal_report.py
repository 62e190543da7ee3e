#!/usr/bin/env python3
"""Turns bench/seal.sh's raw lines into <date>-<gpu>.json (the schema of
bench/results/seal/: {benchmark, date, gpu, command, configs, note, rows,
ratios, goals}) and a text summary, both in --out.

Raw lines, each "<config> <what>: ..." with config clear, sealed or
lanes256k:
  clear bulk: H2D pageable   13.46 GB/s              (copy_bandwidth)
  sealed link: read-back by RMA   525312 B: median   87.05 us (...)
  clear decode-1b: {... "avg_ts": 123.4 ...}         (llama-bench jsonl)

Each row holds every run of one (config, measurement), its median, min and
max; `ratios` are each sealed config's median over clear's (GB/s and t/s:
higher is better; us: lower is better); `goals` says whether the medians
meet docs/design/transport-encryption.md's goals.

    seal_report.py --raw seal-raw.txt --out DIR --gpu NAME --command CMD
                   [--note TEXT]
"""
import argparse
import datetime
import json
import os
import re
import statistics

BULK = re.compile(r"^(\S+) bulk: (H2D|D2H) (pageable|pinned)\s+([0-9.]+) GB/s")
LINK = re.compile(r"^(\S+) link: read-back by RMA\s+(\d+) B: median\s+"
                  r"([0-9.]+) us")
DECODE = re.compile(r"^(\S+) decode-(\S+): .*\"avg_ts\": *([0-9.]+)")
CONFIGS = {
    "clear": "loopback tcp, unsealed",
    "sealed": "RC_DEV_TRANSPORT_SEAL_LOOPBACK=1: sealed as off this host "
              "(link: RC_BENCH_SEAL=1)",
    "lanes256k": "sealed, writes from 256 KiB over the lanes "
                 "(RC_DEV_TRANSPORT_SEALED_LANE_MIN=262144)",
}
LOGITS = 525312  # a 1B token's logits: the mid-size read-back


def parse(lines):
    runs = {}
    for line in lines:
        line = line.rstrip("\n")
        m = BULK.match(line)
        if m:
            key = (m.group(1), "bulk %s %s GB/s" % (m.group(2), m.group(3)))
            runs.setdefault(key, []).append(float(m.group(4)))
            continue
        m = LINK.match(line)
        if m:
            key = (m.group(1), "link read-back %s B us" % m.group(2))
            runs.setdefault(key, []).append(float(m.group(3)))
            continue
        m = DECODE.match(line)
        if m:
            key = (m.group(1), "decode %s t/s" % m.group(2))
            runs.setdefault(key, []).append(float(m.group(3)))
    return runs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpu", required=True)
    ap.add_argument("--command", required=True)
    ap.add_argument("--note", default="")
    args = ap.parse_args()
    with open(args.raw) as f:
        runs = parse(f)
    rows = []
    for (config, what), values in sorted(runs.items()):
        rows.append({"config": config, "measurement": what, "runs": values,
                     "median": statistics.median(values),
                     "min": min(values), "max": max(values)})
    median = {(r["config"], r["measurement"]): r["median"] for r in rows}
    ratios = []
    for (config, what), value in sorted(median.items()):
        clear = median.get(("clear", what))
        if config != "clear" and clear:
            ratios.append({"config": config, "measurement": what,
                           "sealed_over_clear": round(value / clear, 3)})
    ratio = {(r["config"], r["measurement"]): r["sealed_over_clear"]
             for r in ratios}
    goals = {}
    for config in ("sealed", "lanes256k"):
        bulk = [v for (c, w), v in median.items()
                if c == config and w.startswith("bulk ")]
        if bulk:
            goals["%s bulk >= 10 GB/s (slowest median)" % config] = \
                min(bulk) >= 10.0
        logits = ratio.get((config, "link read-back %d B us" % LOGITS))
        if logits:
            goals["%s %d B read-back <= 1.1x clear" % (config, LOGITS)] = \
                logits <= 1.1
        decode = [v for (c, w), v in ratio.items()
                  if c == config and w.startswith("decode ")]
        if decode:
            goals["%s decode >= 0.98x clear" % config] = min(decode) >= 0.98
    date = datetime.date.today().isoformat()
    slug = re.sub(r"[^a-z0-9]+", "-", args.gpu.lower()).strip("-") or "host"
    doc = {"benchmark": "seal", "date": date, "gpu": args.gpu,
           "command": args.command, "configs": CONFIGS, "note": args.note,
           "rows": rows, "ratios": ratios, "goals": goals}
    path = os.path.join(args.out, "%s-%s.json" % (date, slug))
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with open(os.path.join(args.out, "seal-summary.txt"), "w") as f:
        f.write("%-32s %24s %32s %32s\n" % (
            "measurement (median, min-max)", "clear", "sealed (x clear)",
            "lanes256k (x clear)"))
        for what in sorted({w for _, w in median}):
            cells = []
            for config in ("clear", "sealed", "lanes256k"):
                r = next((r for r in rows if r["config"] == config and
                          r["measurement"] == what), None)
                if not r:
                    cells.append("-")
                    continue
                cell = "%.2f (%.2f-%.2f)" % (r["median"], r["min"], r["max"])
                if config != "clear" and (config, what) in ratio:
                    cell += " %.3fx" % ratio[(config, what)]
                cells.append(cell)
            f.write("%-32s %24s %32s %32s\n" % (what, *cells))
        for goal, met in goals.items():
            f.write("goal %-50s %s\n" % (goal, "met" if met else "NOT met"))
        f.write("json: %s\n" % path)
    with open(os.path.join(args.out, "seal-summary.txt")) as f:
        print(f.read(), end="")


if __name__ == "__main__":
    main()
