#!/usr/bin/env python3
"""bench/soak.sh's report: the runs (how many, how many failed, by model)
and the memory samples into soak/<date>-<gpu>-isolation-<isolation>.{json,md}.

  soak_report.py --runs DIR --out DIR --gpu NAME --isolation none|process

Memory is flat when rc-server's resident memory in the last third of the
busy samples is no higher than in the first third (allowing 10 %: what
is resident moves with the sessions open at that moment), and the GPU's
memory in use with no session open is back where it was before the first.
Exit status 1 when a run failed or memory is not flat.
"""
import argparse
import json
import os
import statistics

from results_doc import write_results


def read_lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpu", required=True)
    ap.add_argument("--isolation", default="none")
    args = ap.parse_args()
    runs = read_lines(os.path.join(args.runs, "soak-runs.jsonl"))
    samples = read_lines(os.path.join(args.runs, "soak-samples.jsonl"))
    busy = [s for s in samples if s["what"] == "busy"]
    idle = {s["what"]: s for s in samples if s["what"] != "busy"}
    if not busy or any(s["server_rss_kib"] <= 0 for s in busy):
        raise SystemExit("soak_report: rc-server's memory was not sampled "
                         "(server_rss_kib 0): no verdict")
    third = max(1, len(busy) // 3)
    first = statistics.median(s["server_rss_kib"] for s in busy[:third])
    last = statistics.median(s["server_rss_kib"] for s in busy[-third:])
    gpu_before = idle["idle-start"]["gpu_used_mib"]
    gpu_after = idle["idle-end"]["gpu_used_mib"]
    rows = []
    for model in sorted({r["model"] for r in runs}):
        mine = [r for r in runs if r["model"] == model]
        rows.append({"model": model, "runs": len(mine),
                     "failed": sum(1 for r in mine if r["status"] != 0)})
    summary = {
        "clients": len({r["client"] for r in runs}),
        "seconds": busy[-1]["t"] - idle["idle-start"]["t"] if busy else 0,
        "runs": len(runs),
        "failed": sum(r["failed"] for r in rows),
        "server_rss_mib_first_third": round(first / 1024, 1),
        "server_rss_mib_last_third": round(last / 1024, 1),
        "server_rss_mib_max": round(max(s["server_rss_kib"]
                                        for s in busy) / 1024, 1),
        "server_rss_mib_idle_end": round(
            idle["idle-end"]["server_rss_kib"] / 1024, 1),
        "gpu_used_mib_idle_start": gpu_before,
        "gpu_used_mib_idle_end": gpu_after,
    }
    summary["memory_flat"] = last <= first * 1.1 and \
        gpu_after <= gpu_before + 64
    setup = ("%d llama-bench clients (-p 64 -n 128 -r 1, a new process and "
             "session each run; 1B shape for even clients, 7B for odd) in a "
             "loop for %d s against one rc-server (bench/soak.sh); memory "
             "sampled every 10 s: %s" %
             (summary["clients"], summary["seconds"], json.dumps(summary)))
    for r in rows:
        r.update({k: summary[k] for k in ("server_rss_mib_first_third",
                                           "server_rss_mib_last_third",
                                           "gpu_used_mib_idle_start",
                                           "gpu_used_mib_idle_end")})
    base = write_results(args.out, args.gpu, "soak",
                         "Soak, --isolation " + args.isolation, setup, rows, [
        ("model", lambda r: r["model"]),
        ("runs", lambda r: "%d" % r["runs"]),
        ("failed", lambda r: "%d" % r["failed"]),
    ], config="isolation-" + args.isolation)
    with open(base + ".json") as f:
        doc = json.load(f)
    doc["summary"] = summary
    doc["samples"] = samples
    with open(base + ".json", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("soak_report: %s" % json.dumps(summary))
    return 0 if summary["failed"] == 0 and summary["memory_flat"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
