#!/usr/bin/env python3
"""Turns bench/run.sh's raw llama-bench lines into the results file, a
markdown table and a chart, and prints the ratios last.

  report.py --raw raw.jsonl --stats-dir DIR --gpu "NVIDIA H100 80GB HBM3" --out-dir DIR

llama-bench/<date>-<gpu>.json (with benchmark, date, gpu, machine, commit,
config) has a top-level "rows" list: model, test (pp512/tg128),
transport (tcp/shm), local_tps, remote_tps, rpc_tps, ratio (remote/local),
round_trips_per_token, bytes_up_per_token, and where the stats files have
them (newer runtimes) h2d_data_up_per_token (the application's own H2D
data among the bytes up), batches_per_token, commands_per_token,
reply_wait_us_per_token and launch_us_per_call (decode, from RC_STATS), plus
the per-repetition samples. Throughputs are medians over the repetitions.
Standard library only; the PNG needs matplotlib and is skipped without it.
"""
import argparse
import datetime
import json
import os
import re
import statistics
from collections import defaultdict

from results_doc import provenance, results_base


def load_samples(path):
    """(model, test, config) -> [tokens/s per repetition]."""
    samples = defaultdict(list)
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            b = r["bench"]
            test = f"pp{b['n_prompt']}" if b["n_gen"] == 0 else f"tg{b['n_gen']}"
            samples[(r["model"], test, r["config"])].append(float(b["avg_ts"]))
    return samples


DECODE_KEYS = ("round_trips_per_token", "bytes_up_per_token", "h2d_data_up_per_token",
               "batches_per_token", "commands_per_token", "reply_wait_us_per_token",
               "launch_us_per_call")


def decode_traffic(stats_dir, config, model):
    """Per decode token: (128-token run - 64-token run) / 64, so start-up and
    prompt cancel out. Keys missing from older stats files give None."""
    runs = {}
    for n in (64, 128):
        p = os.path.join(stats_dir, f"stats-{config}-{model}-{n}.json")
        if not os.path.exists(p):
            return dict.fromkeys(DECODE_KEYS)
        with open(p) as f:
            runs[n] = json.load(f)
    delta = lambda k: (runs[128][k] - runs[64][k]) if k in runs[64] and k in runs[128] else None
    per = lambda k, scale=1.0: None if delta(k) is None else round(delta(k) / 64.0 / scale, 2)
    calls, launch_ns = delta("launch_calls"), delta("launch_ns")
    # Uploads written into the server's upload ring by RMA are client-to-
    # server bytes too, and application data (stats files written before
    # the upload ring existed, 2026-11-24, have no bytes_up_rma).
    rma = delta("bytes_up_rma") or 0
    with_rma = lambda k: None if delta(k) is None else round((delta(k) + rma) / 64.0, 2)
    return {
        "round_trips_per_token": per("round_trips"),
        "bytes_up_per_token": with_rma("bytes_up"),
        # Of those, the application's own cudaMemcpy H2D data (the rest is
        # the protocol).
        "h2d_data_up_per_token": with_rma("bytes_up_h2d_data"),
        "batches_per_token": per("messages"),
        "commands_per_token": per("commands"),
        "reply_wait_us_per_token": per("reply_wait_ns", 1000.0),
        # Launch cost of the decode tokens alone, not an average over the run.
        "launch_us_per_call": round(launch_ns / calls / 1000.0, 3) if calls else None,
    }


def median(xs):
    return round(statistics.median(xs), 2) if xs else None


def build_rows(samples, stats_dir):
    rows = []
    models = sorted({k[0] for k in samples})
    tests = sorted({k[1] for k in samples})
    for model in models:
        for test in tests:
            local = median(samples.get((model, test, "local"), []))
            rpc = median(samples.get((model, test, "rpc"), []))
            for config, transport in (("tcp", "tcp"), ("shm", "shm"), ("tcp25", "tcp+25us")):
                remote_samples = samples.get((model, test, config), [])
                if not remote_samples:
                    continue
                remote = median(remote_samples)
                rows.append({
                    "model": model, "test": test, "transport": transport,
                    "local_tps": local, "remote_tps": remote, "rpc_tps": rpc,
                    "ratio": round(remote / local, 4) if local and remote else None,
                    "rpc_ratio": round(rpc / local, 4) if local and rpc else None,
                    **decode_traffic(stats_dir, config, model),
                    "samples": {
                        "local": samples.get((model, test, "local"), []),
                        "remote": remote_samples,
                        "rpc": samples.get((model, test, "rpc"), []),
                    },
                })
    return rows


def markdown(rows, gpu, date):
    out = [f"# llama-bench, remote-clang vs local vs ggml-rpc ({gpu}, {date})", "",
           "Medians of the repetitions, tokens/s; random-weight Q4_0 models.", "",
           "| model | test | transport | local | remote | rpc | remote/local | rpc/local "
           "| round trips/token | bytes up/token | of it H2D data | batches/token "
           "| commands/token | reply wait us/token | us/launch call |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    fmt = lambda v: "-" if v is None else (f"{v:.3f}" if isinstance(v, float) and v < 10 else str(v))
    for r in rows:
        out.append("| " + " | ".join(fmt(r[k]) for k in (
            "model", "test", "transport", "local_tps", "remote_tps", "rpc_tps", "ratio",
            "rpc_ratio") + DECODE_KEYS) + " |")
    return "\n".join(out) + "\n"


def chart(rows, path, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: no matplotlib: no chart")
        return False
    labels = [f"{r['model']} {r['test']}\n{r['transport']}" for r in rows]
    remote = [r["ratio"] or 0 for r in rows]
    rpc = [r["rpc_ratio"] or 0 for r in rows]
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(max(6, len(rows) * 1.1), 4))
    ax.bar([i - 0.2 for i in x], remote, 0.4, label="remote-clang / local")
    ax.bar([i + 0.2 for i in x], rpc, 0.4, label="ggml-rpc / local")
    ax.axhline(1.0, color="gray", linewidth=0.8)
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel("throughput relative to local")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--stats-dir", required=True)
    ap.add_argument("--gpu", default="unknown GPU")
    ap.add_argument("--out-dir", required=True)
    args = ap.parse_args()
    date = datetime.date.today().isoformat()
    base = results_base(args.out_dir, "llama-bench", args.gpu)
    rows = build_rows(load_samples(args.raw), args.stats_dir)
    doc = {"benchmark": "llama-bench", "date": date, "gpu": args.gpu}
    doc.update(provenance(args.gpu))
    doc.update({"config": "default", "rows": rows})
    with open(base + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    md = markdown(rows, args.gpu, date)
    with open(base + ".md", "w") as f:
        f.write(md)
    chart(rows, base + ".png", f"remote-clang vs ggml-rpc, relative to local ({args.gpu})")
    print(md)
    print("ratios (remote/local; rpc/local):")
    for r in rows:
        print(f"  {r['model']:>3} {r['test']:<6} {r['transport']:<4} "
              f"remote {r['ratio']}  rpc {r['rpc_ratio']}  "
              f"round trips/token {r['round_trips_per_token']}  bytes up/token {r['bytes_up_per_token']}"
              f" (H2D data {r['h2d_data_up_per_token']})  "
              f"reply wait us/token {r['reply_wait_us_per_token']}  us/launch call {r['launch_us_per_call']}")


if __name__ == "__main__":
    main()
