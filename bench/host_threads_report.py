#!/usr/bin/env python3
"""bench/host-threads.sh's report: --raw RAW (its JSON lines: config, rep,
threads, launches_per_s, checked) --out DIR --gpu NAME --setup TEXT.

Per configuration and thread count: the median launches/s of the reps
with min and max, the median's ratio to local's at that count and to the
configuration's own 1-thread median (how far its threads add up), into
host-threads/<date>-<gpu>.{json,md}. A rep whose checks failed counts as
failed, not as a number. Prints the table.
"""
import argparse
import json
import statistics

from results_doc import write_results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpu", required=True)
    ap.add_argument("--setup", required=True)
    args = ap.parse_args()
    runs, failed = {}, {}
    with open(args.raw) as f:
        for line in f:
            r = json.loads(line)
            key = (r["config"], r["threads"])
            if r.get("checked"):
                runs.setdefault(key, []).append(r["launches_per_s"])
            else:
                failed[key] = failed.get(key, 0) + 1
    median = {k: statistics.median(v) for k, v in runs.items()}
    rows = []
    for (config, threads), values in sorted(runs.items()):
        local = median.get(("local", threads))
        one = median.get((config, 1))
        m = median[(config, threads)]
        rows.append({
            "bench": "host-threads", "case": "%d threads" % threads,
            "transport": config, "threads": threads,
            "value": round(m, 1), "min": round(min(values), 1),
            "max": round(max(values), 1), "unit": "launches/s",
            "local_value": round(local, 1) if local else None,
            "ratio": round(m / local, 3) if local else None,
            "vs_one_thread": round(m / one, 2) if one else None,
            "failed_reps": failed.get((config, threads), 0)})
    for (config, threads), n in sorted(failed.items()):
        if (config, threads) not in runs:
            rows.append({"bench": "host-threads", "case": "%d threads" % threads,
                         "transport": config, "threads": threads,
                         "value": None, "unit": "launches/s",
                         "failed_reps": n})
    cell = lambda v: "-" if v is None else str(v)
    base = write_results(
        args.out, args.gpu, "host-threads",
        "Launches per second of one process's host threads", args.setup,
        rows, [("config", lambda r: r["transport"]),
               ("threads", lambda r: str(r["threads"])),
               ("launches/s (min-max)", lambda r: "-" if r["value"] is None
                else "%s (%s-%s)" % (r["value"], r["min"], r["max"])),
               ("x local", lambda r: cell(r.get("ratio"))),
               ("x 1 thread", lambda r: cell(r.get("vs_one_thread"))),
               ("failed reps", lambda r: str(r["failed_reps"]))])
    with open(base + ".md") as f:
        print(f.read())


if __name__ == "__main__":
    main()
