#!/usr/bin/env python3
"""Turns bench/bulk.sh's raw lines ("<config>: H2D pinned   51.87 GB/s")
into <date>-<gpu>-bulk.json with a top-level `rows` list of
{bench, case, transport, value, unit, local_value, ratio} (ratio: remote /
local, higher is better for a bandwidth) and a markdown table beside it.

    bulk_report.py --raw bulk-raw.txt --out DIR --gpu NAME --mib N --reps N
"""
import argparse
import re

from results_doc import write_results

LINE = re.compile(r"^(\S+): (H2D|D2H) (pageable|pinned)\s+([0-9.]+) GB/s$")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpu", required=True)
    ap.add_argument("--mib", type=int, required=True)
    ap.add_argument("--reps", type=int, required=True)
    args = ap.parse_args()
    values = {}  # (config, case) -> GB/s
    with open(args.raw) as f:
        for line in f:
            m = LINE.match(line.strip())
            if m:
                case = "%s-%s" % (m.group(2).lower(), m.group(3))
                values[(m.group(1), case)] = float(m.group(4))
    rows = []
    for (config, case), value in sorted(values.items()):
        if config == "local":
            continue
        local = values.get(("local", case))
        rows.append({"bench": "copy", "case": case, "transport": config,
                     "value": value, "unit": "GB/s", "local_value": local,
                     "ratio": round(value / local, 3) if local else None})
    setup = ("synchronous cudaMemcpy of %d MiB, median of %d, one stream "
             "(bench/copy_bandwidth.cu)" % (args.mib, args.reps))
    base = write_results(args.out, args.gpu, "bulk", "Bulk copies", setup,
                         rows, [
        ("case", lambda r: r["case"]),
        ("transport", lambda r: r["transport"]),
        ("GB/s", lambda r: "%.2f" % r["value"]),
        ("local GB/s", lambda r: "%.2f" % r["local_value"]
         if r["local_value"] else "-"),
        ("remote / local", lambda r: "%.3f" % r["ratio"] if r["ratio"] else "-"),
    ])
    print("bulk_report: wrote %s.json and .md (%d rows)" % (base, len(rows)))


if __name__ == "__main__":
    main()
