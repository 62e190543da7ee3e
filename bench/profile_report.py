#!/usr/bin/env python3
"""Where a remote decode token's time goes, from bench/profile-decode.sh's files.

  profile_report.py --dir DIR

For every run (model, transport, variant, tokens) it reads llama-bench's
jsonl, the client's RC_STATS file (every reply wait and the period between
waits) and rc-server's --metrics file (medians over the session's recent
round trips), and prints the steady-state token split, all medians:

  token          period between two reply waits = one decode token
  client         token - wait: the application's own work plus issuing
  wait           the client blocked on the reply
    server       replay (read-back, i.e. the GPU, included) + reply build + send
      replay     before the read-back: uploads + launches + syncs + the rest
    link         wait - server: transport latency and wake-ups, both ways
  extra/rep      time above the steady state per llama-bench repetition
                 (warm-up tokens, graph capture and instantiation)
  timed/rep      the same from llama-bench's own clock: each repetition's
                 time minus n_gen steady-state tokens (what the t/s pays)
  slow tokens    where in a repetition the slow tokens fall (index: us)
  server ms      server time by command type over the whole run, and how
                 many of each (graph instantiations, updates, launches)
"""
import argparse
import glob
import json
import os
import statistics


def load_json(path):
    with open(path) as f:
        return json.load(f)


def bench_row(path):
    with open(path) as f:
        for line in f:
            if line.startswith("{"):
                return json.loads(line)
    return None


def server_recent(path):
    """The recent round-trip medians of the metrics file's busiest session."""
    sessions = load_json(path)["sessions"]
    best = max(sessions, key=lambda s: s.get("recent_round_trips", {}).get("count", 0), default=None)
    rt = best.get("recent_round_trips", {}) if best else {}
    return rt.get("median"), rt.get("count", 0)


def server_by_type(path):
    """Commands by type of the metrics file's busiest session: count and ns."""
    sessions = load_json(path)["sessions"]
    best = max(sessions, key=lambda s: s.get("commands", 0), default=None)
    return best.get("commands_by_type", {}) if best else {}


def analyse(tag, files):
    stats = load_json(files["stats"])
    periods = [p for p in stats.get("period_us", []) if p > 0]
    waits = stats.get("wait_us", [])
    bench = bench_row(files["bench"])
    if not periods or not bench:
        print(f"{tag}: no data")
        return None
    reps = len(bench["samples_ns"])
    # The measured repetitions are the last reps * n_gen round trips (one per
    # token); the model load and warm-up come before them.
    tail = reps * bench["n_gen"]
    periods, waits = periods[-tail:], waits[-tail:]
    token = statistics.median(periods)
    wait = statistics.median(waits)
    extra = sum(p - token for p in periods if p > 1.5 * token) / reps
    med, count = server_recent(files["metrics"])
    row = {"tps": bench["avg_ts"], "token_us": token, "client_us": token - wait,
           "wait_us": wait, "extra_per_rep_ms": extra / 1000.0}
    if med:
        us = lambda k: med[k] / 1000.0
        row.update({"server_us": us("replay_ns") + us("build_ns") + us("send_ns"),
                    "readback_us": us("readback_ns"), "replay_other_us": us("replay_ns") - us("readback_ns"),
                    "build_us": us("build_ns"), "send_us": us("send_ns"), "gap_us": us("gap_ns")})
        row["link_us"] = wait - row["server_us"]
        # The replay before the read-back, by part (servers before session
        # 11 report no parts: all of it is "other" then).
        for part in ("upload", "launch", "sync"):
            row[part + "_us"] = us(part + "_ns") if part + "_ns" in med else 0.0
        row["replay_rest_us"] = (row["replay_other_us"] - row["upload_us"] - row["launch_us"]
                                 - row["sync_us"])
    print(f"\n{tag}: {row['tps']:.1f} t/s; steady-state decode token, medians over {len(periods)} tokens"
          f" (server: {count} round trips)")
    print(f"  token      {token:8.1f} us  (1/t/s with warm-up spread in: {1e6 / row['tps']:.1f} us)")
    print(f"  client     {row['client_us']:8.1f} us  application work + issuing")
    print(f"  wait       {wait:8.1f} us")
    if med:
        print(f"    server   {row['server_us']:8.1f} us  = replay {row['replay_other_us']:.1f}"
              f" + read-back/GPU {row['readback_us']:.1f} + build {row['build_us']:.1f} + send {row['send_us']:.1f}")
        print(f"      replay {row['replay_other_us']:8.1f} us  = uploads {row['upload_us']:.1f}"
              f" + launches {row['launch_us']:.1f} + syncs {row['sync_us']:.1f}"
              f" + other commands and the executor {row['replay_rest_us']:.1f}")
        print(f"    link     {row['link_us']:8.1f} us  transport and wake-ups, both ways"
              f" (server-side gap {row['gap_us']:.1f} us)")
    print(f"  extra/rep  {row['extra_per_rep_ms']:8.2f} ms above steady state per repetition")
    timed = [ns / 1e6 - bench["n_gen"] * token / 1000.0 for ns in bench["samples_ns"]]
    row["timed_extra_per_rep_ms"] = timed
    print("  timed/rep  " + " ".join(f"{t:.2f}" for t in timed) + " ms (llama-bench's clock)")
    n_gen = bench["n_gen"]
    slow = [(i // n_gen, i % n_gen, p) for i, p in enumerate(periods) if p > 1.5 * token]
    row["slow_tokens"] = slow
    for r in range(reps):
        mine = [f"{i}:{p:.0f}" for rr, i, p in slow if rr == r]
        print(f"  slow tokens of rep {r}: " + (" ".join(mine[:12]) or "none") + (" ..." if len(mine) > 12 else ""))
    by_type = server_by_type(files["metrics"])
    row["server_by_type"] = by_type
    print("  server ms  " + ", ".join(f"{k} {v['ns'] / 1e6:.1f} ({v['count']})"
                                      for k, v in sorted(by_type.items(), key=lambda kv: -kv[1]["ns"])[:10]))
    return row


def analyse_runs(directory, prefix, suffix, names, analyse_one, out_name):
    """Every run in `directory`: one per file `<prefix><tag><suffix>`; names
    maps a file role to its name pattern ("{tag}" filled in). Runs missing
    a file are skipped; the rows go to `out_name` as JSON."""
    out = {}
    for p in sorted(glob.glob(os.path.join(directory, f"{prefix}*{suffix}"))):
        tag = os.path.basename(p)[len(prefix):-len(suffix)]
        files = {role: os.path.join(directory, name.format(tag=tag)) for role, name in names.items()}
        if all(os.path.exists(f) for f in files.values()):
            row = analyse_one(tag, files)
            if row:
                out[tag] = row
    with open(os.path.join(directory, out_name), "w") as f:
        json.dump(out, f, indent=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    args = ap.parse_args()
    analyse_runs(args.dir, "stats-", ".json",
                 {"stats": "stats-{tag}.json", "metrics": "metrics-{tag}.json",
                  "bench": "bench-{tag}.jsonl"},
                 analyse, "profile.json")


if __name__ == "__main__":
    main()
