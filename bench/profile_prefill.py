#!/usr/bin/env python3
"""Where a remote prompt step (llama-bench pp) goes, from the files of
`P=512 bash bench/profile-decode.sh`.

  profile_prefill.py --dir DIR

Every configuration ran llama-bench twice against one rc-server: -r 1 and
-r 1+R. The server's per-session counters (commands by type with their
replay time, batches, bytes) of the longer run minus the shorter one are
exactly R prompt steps: model load, warm-up and graph capture cancel out.
Printed per step: its wall time (llama-bench), the server's replay time
split by command type, and what is left for the client and the link.
"""
import argparse
import json

from profile_report import analyse_runs


def bench_rows(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.startswith("{")]


def sessions_by_reps(metrics_path, short_pid, long_pid):
    with open(metrics_path) as f:
        sessions = {s["pid"]: s for s in json.load(f)["sessions"]}
    return sessions.get(short_pid), sessions.get(long_pid)


def analyse(tag, d):
    short, long_ = bench_rows(d["short"]), bench_rows(d["long"])
    if not short or not long_:
        print(f"{tag}: no llama-bench rows")
        return None
    with open(d["pids"]) as f:
        pids = [int(x) for x in f.read().split()]
    a, b = sessions_by_reps(d["metrics"], pids[0], pids[1])
    if not a or not b:
        print(f"{tag}: the server's metrics lack a session")
        return None
    steps = len(long_[0]["samples_ns"]) - len(short[0]["samples_ns"])
    per = lambda key: (b[key] - a[key]) / steps
    step_ms = long_[0]["avg_ns"] / 1e6
    replay_ms = per("replay_ns") / 1e6
    reply_ms = per("reply_ns") / 1e6
    types = {}
    for name, cb in b["commands_by_type"].items():
        ca = a["commands_by_type"].get(name, {"count": 0, "ns": 0})
        n = (cb["count"] - ca["count"]) / steps
        ns = (cb["ns"] - ca["ns"]) / steps
        if n > 0:
            types[name] = {"per_step": n, "ms": ns / 1e6, "us_each": ns / 1e3 / n}
    row = {"tps": long_[0]["avg_ts"], "step_ms": step_ms, "replay_ms": replay_ms,
           "reply_ms": reply_ms, "batches": per("batches"), "bytes_up": per("bytes_in"),
           "commands": types}
    n_prompt = long_[0]["n_prompt"]
    print(f"\n{tag}: pp{n_prompt} {row['tps']:.0f} t/s; one prompt step, server counters over {steps} steps")
    print(f"  step          {step_ms:8.2f} ms")
    print(f"  server replay {replay_ms:8.2f} ms  ({row['batches']:.0f} batches, {row['bytes_up'] / 1024:.0f} KiB up)")
    for name, t in sorted(types.items(), key=lambda kv: -kv[1]["ms"]):
        print(f"    {name:<18} {t['per_step']:7.0f} x {t['us_each']:8.2f} us = {t['ms']:7.2f} ms")
    print(f"  reply build   {reply_ms:8.2f} ms")
    print(f"  not replay    {step_ms - replay_ms - reply_ms:8.2f} ms  client work, link, and time the "
          f"replay thread waited for a batch")
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    args = ap.parse_args()
    analyse_runs(args.dir, "prefill-", ".pids",
                 {"pids": "prefill-{tag}.pids", "metrics": "metrics-{tag}.json",
                  "short": "bench-{tag}-short.jsonl", "long": "bench-{tag}-long.jsonl"},
                 analyse, "prefill.json")


if __name__ == "__main__":
    main()
