#!/usr/bin/env python3
"""Splits llama-bench's decode time into the steady-state token and what
each repetition adds, for runs of bench/token-clock.sh (local and remote
alike, from bench/token_clock.c's stamps).

A run is one llama-bench process: -p 0 -n N -r INNER; its stamps are one
warm-up token, then N a repetition. Per configuration (runs pooled):

  t/s          llama-bench's own mean, median over runs
  token        median period between consecutive tokens of a repetition
  host         of which the host prepares the token: from the previous
               token's end to its graph launch (median)
  wait         and waits for it: from the graph launch to its end (median;
               host + wait need not add up to the token's median)
  p90          their 90th percentile (this machine's slow-token spikes)
  first        a repetition's first token: llama-bench's time for the
               repetition minus the span of its N stamps (median, ms)
  spikes       the rest of a repetition above N-1 median tokens (median, ms)
  slow         tokens a repetition over 1.5 medians (median), and of their
               time above the median, the share spent before the graph
               launch (host) rather than after it
  vs local     remote / local of the token's rate and of t/s
  paired       the same ratios taken run by run (each remote run against
               the local run of its round, which ran minutes apart at most)
               and their median: this machine drifts 1-2 % between rounds,
               more than the differences the ratios are read for
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys


def load_run(stamps_path, bench_path, n, inner):
    with open(stamps_path) as f:
        rows = [[int(x) for x in line.split()] for line in f if line.strip()]
    stamps = [r[0] for r in rows]
    launches = [r[1] for r in rows]
    samples = []
    with open(bench_path) as f:
        for line in f:
            if line.startswith("{"):
                row = json.loads(line)
                samples, avg_ts = row["samples_ns"], row["avg_ts"]
    expected = 1 + n * inner
    if len(stamps) != expected or len(samples) != inner:
        raise ValueError(f"{stamps_path}: {len(stamps)} stamps and {len(samples)} repetitions,"
                         f" expected {expected} and {inner} (-n {n} -r {inner} with one warm-up token)")
    reps = [stamps[1 + r * n: 1 + (r + 1) * n] for r in range(inner)]
    host, wait, tokens = [], [], []
    for r in range(inner):
        for k in range(2 + r * n, 1 + (r + 1) * n):
            # (period, host part or None): the slow tokens' split needs both.
            h = launches[k] - stamps[k - 1] if launches[k] else None
            tokens.append((r, stamps[k] - stamps[k - 1], h))
            if h is not None:
                host.append(h)
                wait.append(stamps[k] - launches[k])
    return {"avg_ts": avg_ts, "samples_ns": samples, "host": host, "wait": wait, "tokens": tokens,
            "periods": [[b - a for a, b in zip(rep, rep[1:])] for rep in reps],
            "spans": [rep[-1] - rep[0] for rep in reps]}


def summarise(runs, n):
    periods = sorted(p for run in runs for rep in run["periods"] for p in rep)
    token = statistics.median(periods)
    firsts, spikes = [], []
    for run in runs:
        for sample, span, rep in zip(run["samples_ns"], run["spans"], run["periods"]):
            firsts.append(sample - span)
            spikes.append(sum(rep) - (n - 1) * token)
    host = [h for run in runs for h in run["host"]]
    wait = [w for run in runs for w in run["wait"]]
    host_median = statistics.median(host) if host else 0
    slow_per_rep, slow_excess, slow_host_excess = [], 0, 0
    for run in runs:
        counts = {}
        for rep, period, h in run["tokens"]:
            if period > 1.5 * token:
                counts[rep] = counts.get(rep, 0) + 1
                if h is not None:
                    slow_excess += period - token
                    slow_host_excess += max(0, h - host_median)
        slow_per_rep += [counts.get(r, 0) for r in range(len(run["samples_ns"]))]
    return {"runs": len(runs),
            "tps": statistics.median(run["avg_ts"] for run in runs),
            "token_us": token / 1e3,
            "host_us": statistics.median(host) / 1e3 if host else float("nan"),
            "wait_us": statistics.median(wait) / 1e3 if wait else float("nan"),
            "p90_us": periods[int(0.9 * (len(periods) - 1))] / 1e3,
            "first_ms": statistics.median(firsts) / 1e6,
            "spikes_ms": statistics.median(spikes) / 1e6,
            "slow_per_rep": statistics.median(slow_per_rep),
            "slow_host_share": slow_host_excess / slow_excess if slow_excess else float("nan")}


def paired_ratios(remote_runs, local_runs):
    """Medians of remote/local per round (runs of one round are adjacent)."""
    local = {run["round"]: run for run in local_runs}
    tps, token = [], []
    for run in remote_runs:
        ref = local.get(run["round"])
        if ref is None:
            continue
        tps.append(run["avg_ts"] / ref["avg_ts"])
        mine = statistics.median(p for rep in run["periods"] for p in rep)
        theirs = statistics.median(p for rep in ref["periods"] for p in rep)
        token.append(theirs / mine)
    if not tps:
        return {}
    return {"paired_tps_ratio": statistics.median(tps),
            "paired_token_ratio": statistics.median(token)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--inner", type=int, required=True)
    ap.add_argument("--out", help="also write OUT/token-clock/<date>-<gpu>"
                    "[-<config>].json with the commit and machine")
    ap.add_argument("--gpu", default="unknown GPU")
    ap.add_argument("--config", default="")
    ap.add_argument("--command", default="bash bench/token-clock.sh")
    args = ap.parse_args()

    groups = {}
    for path in sorted(glob.glob(os.path.join(args.dir, "stamps-*.txt"))):
        tag = os.path.basename(path)[len("stamps-"):-len(".txt")]
        key = re.sub(r"-run\d+$", "", tag)
        round_no = int(re.search(r"-run(\d+)$", tag).group(1))
        try:
            run = load_run(path, os.path.join(args.dir, f"bench-{tag}.jsonl"), args.n, args.inner)
        except (OSError, ValueError, KeyError) as err:
            print(f"token-clock: skipping {tag}: {err}", file=sys.stderr)
            continue
        run["round"] = round_no
        groups.setdefault(key, []).append(run)
    if not groups:
        sys.exit("token-clock: no complete run")

    rows = {key: summarise(runs, args.n) for key, runs in groups.items()}
    print(f"decode, -p 0 -n {args.n} -r {args.inner}; medians over runs and tokens")
    print(f"{'config':<22} {'runs':>4} {'t/s':>8} {'token us':>9} {'host us':>8} {'wait us':>8}"
          f" {'p90 us':>8} {'first ms':>9}"
          f" {'spikes ms':>9} {'slow':>5} {'host share':>10} {'token vs local':>14} {'t/s vs local':>12}"
          f" {'paired token':>12} {'paired t/s':>10}")
    for key in sorted(rows):
        row = rows[key]
        local = rows.get(key.split("-")[0] + "-local")
        if local and local is not row:
            row["token_ratio"] = local["token_us"] / row["token_us"]
            row["tps_ratio"] = row["tps"] / local["tps"]
            row.update(paired_ratios(groups[key], groups[key.split("-")[0] + "-local"]))
        print(f"{key:<22} {row['runs']:>4} {row['tps']:>8.1f} {row['token_us']:>9.1f}"
              f" {row['host_us']:>8.1f} {row['wait_us']:>8.1f} {row['p90_us']:>8.1f}"
              f" {row['first_ms']:>9.2f} {row['spikes_ms']:>9.2f} {row['slow_per_rep']:>5.1f}"
              f" {row['slow_host_share']:>10.2f}"
              f" {row.get('token_ratio', float('nan')):>14.4f} {row.get('tps_ratio', float('nan')):>12.4f}"
              f" {row.get('paired_token_ratio', float('nan')):>12.4f}"
              f" {row.get('paired_tps_ratio', float('nan')):>10.4f}")
    with open(os.path.join(args.dir, "report.json"), "w") as f:
        json.dump(rows, f, indent=1)
    if args.out:
        write_results_file(args, rows)


def write_results_file(args, rows):
    """The run as bench/results/ keeps it (bench/results_doc.py's layout)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from results_doc import provenance, results_base
    import datetime
    gpu = args.gpu or "unknown GPU"
    doc = {"benchmark": "token-clock",
           "date": datetime.date.today().isoformat(), "gpu": gpu}
    doc.update(provenance(gpu))
    doc.update({"config": args.config or "default", "command": args.command,
                "rows": rows})
    base = results_base(args.out, "token-clock", gpu, args.config)
    with open(base + ".json", "w") as f:
        # NaN (a ratio without a local run) is not JSON: write null.
        f.write(json.dumps(doc, indent=1).replace("NaN", "null") + "\n")


if __name__ == "__main__":
    main()
