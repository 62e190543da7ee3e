#!/usr/bin/env python3
"""bench/multiclient.sh's numbers.

One run (--run DIR --tag TAG --clients N --t0 NS --failed F --mode M):
reads the token stamps of the run's clients (bench/token_clock.c, or
bench/server_clients.py for mode server: one line per decoded token, its
end first, CLOCK_MONOTONIC ns) and prints one JSON line:
the window in which every client decodes (from the last client's first
token to the first client's last), all clients' tokens in it over its
length (aggregate_tps), and the median client's time from the launch (t0)
to its first token (ttft_ms). TAG is MODEL-CONFIG-rREP-nCLIENTS; CONFIG
local, local-mps or ISOLATION-TRANSPORT[-SHARING] (bench/multiclient.sh).

The report (--raw RAW --out DIR --gpu NAME --tokens T --server-tokens S):
the runs' lines into multiclient/<date>-<gpu>.json, whose `rows` are
{model, mode (bench|server), clients, transport, isolation, sharing
(timeslice, mps or auto: rc-server's default), reps, aggregate_tps (the
median of the reps), min_tps, max_tps, local_aggregate_tps,
local_mps_aggregate_tps, ratio, ratio_mps, ttft_ms}, a markdown table and,
where
matplotlib is installed, a chart. ttft_ms: for bench, from the launch of
the processes (model load included); for server, from the requests'
sending (the model is loaded once, before). --merge FILE keeps FILE's rows
that this run did not measure.
"""
import argparse
import json
import os
import re
import statistics

from results_doc import write_results


def read_stamps(path):
    ends = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if parts:
                ends.append(int(parts[0]))
    return sorted(ends)


def one_run(args):
    clients = []
    for i in range(args.clients):
        path = os.path.join(args.run, "%s-c%d.stamps" % (args.tag, i))
        if os.path.exists(path):
            ends = read_stamps(path)
            if ends:
                clients.append(ends)
    shape, rest = args.tag.split("-", 1)
    config, n = rest.rsplit("-n", 1)
    rep = 0
    numbered = re.match(r"(.*)-r(\d+)$", config)
    if numbered:
        config, rep = numbered.group(1), int(numbered.group(2))
    if config in ("local", "local-mps"):
        isolation, transport = "-", "local"
        sharing = "mps" if config == "local-mps" else "timeslice"
    else:
        parts = config.split("-")
        isolation, transport = parts[0], parts[1]
        sharing = parts[2] if len(parts) > 2 else "auto"
    row = {"model": shape, "mode": args.mode, "clients": args.clients,
           "transport": transport, "isolation": isolation,
           "sharing": sharing, "rep": rep,
           "failed_clients": args.failed + args.clients - len(clients)}
    if len(clients) == args.clients:
        start = max(c[0] for c in clients)
        end = min(c[-1] for c in clients)
        tokens = sum(sum(1 for e in c if start < e <= end) for c in clients)
        row["window_s"] = round((end - start) / 1e9, 3)
        # None: the first client finished before the last began (their
        # starts spread wider than a client's decode; a larger T helps).
        row["aggregate_tps"] = round(tokens / ((end - start) / 1e9), 1) \
            if end > start else None
        row["ttft_ms"] = round(statistics.median(
            (c[0] - args.t0) / 1e6 for c in clients), 1)
    print(json.dumps(row))


def config_key(r):
    # Rows of reports from before --gpu-sharing time-sliced.
    return (r["model"], r.get("mode", "bench"), r["clients"], r["transport"],
            r["isolation"], r.get("sharing", "timeslice"))


def median_or_none(values):
    return round(statistics.median(values), 1) if values else None


def report(args):
    runs = [json.loads(l) for l in open(args.raw) if l.strip()]
    groups = {}
    for r in runs:
        groups.setdefault(config_key(r), []).append(r)
    rows = []
    for key, reps in groups.items():
        tps = [r["aggregate_tps"] for r in reps if r.get("aggregate_tps")]
        first = reps[0]
        rows.append({"model": first["model"], "mode": first["mode"],
                     "clients": first["clients"],
                     "transport": first["transport"],
                     "isolation": first["isolation"],
                     "sharing": first.get("sharing", "timeslice"),
                     "reps": len(reps), "aggregate_tps": median_or_none(tps),
                     "min_tps": min(tps) if tps else None,
                     "max_tps": max(tps) if tps else None,
                     "ttft_ms": median_or_none(
                         [r["ttft_ms"] for r in reps if r.get("ttft_ms")]),
                     "window_s": median_or_none(
                         [r["window_s"] for r in reps if r.get("window_s")]),
                     "failed_clients": sum(r["failed_clients"]
                                           for r in reps)})
    if args.merge:
        # Rows of an earlier report this run did not measure (another mode
        # run in a device call of its own) are kept as they were.
        measured = {config_key(r) for r in rows}
        with open(args.merge) as f:
            rows += [r for r in json.load(f)["rows"]
                     if config_key(r) not in measured]
    baseline = {}
    for r in rows:
        if r["transport"] == "local":
            baseline[(r["model"], r.get("mode", "bench"), r["clients"],
                      r.get("sharing", "timeslice"))] = r["aggregate_tps"]
    for r in rows:
        at = (r["model"], r.get("mode", "bench"), r["clients"])
        tps = r["aggregate_tps"]
        for name, sharing in (("", "timeslice"), ("_mps", "mps")):
            ref = baseline.get(at + (sharing,))
            r["local%s_aggregate_tps" % name] = ref
            r["ratio" + name] = round(tps / ref, 3) if tps and ref else None
    setup = ("bench: N concurrent llama-bench decode clients (-p 0 -n %d);"
             " local: N nvcc-built processes on the GPU (local+MPS: under "
             "an MPS daemon). server: one "
             "llama-server -np N answering N concurrent streamed requests "
             "(%d tokens each); local: the nvcc-built llama-server. "
             "Aggregate tokens/s over the window in which all N decode "
             "(bench/multiclient.sh); the median of the reps, with their "
             "min and max" % (args.tokens, args.server_tokens))
    base = write_results(args.out, args.gpu, "multiclient", "Many clients",
                         setup, rows, [
        ("model", lambda r: r["model"]),
        ("mode", lambda r: r["mode"]),
        ("clients", lambda r: "%d" % r["clients"]),
        ("transport", lambda r: r["transport"]),
        ("isolation", lambda r: r["isolation"]),
        ("sharing", lambda r: r.get("sharing", "timeslice")),
        ("tokens/s", lambda r: str(r["aggregate_tps"] or "no common window")),
        ("min-max", lambda r: "%s-%s" % (r.get("min_tps"), r.get("max_tps"))),
        ("reps", lambda r: "%d" % r.get("reps", 1)),
        ("local tokens/s", lambda r: str(r["local_aggregate_tps"])),
        ("/ local", lambda r: "%.3f" % r["ratio"] if r["ratio"] else "-"),
        ("/ local+MPS",
         lambda r: "%.3f" % r["ratio_mps"] if r.get("ratio_mps") else "-"),
        ("ttft ms", lambda r: str(r["ttft_ms"])),
        ("failed", lambda r: "%d" % r["failed_clients"]),
    ])
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("multiclient_report: no matplotlib: no chart")
    else:
        models = sorted({r["model"] for r in rows})
        fig, axes = plt.subplots(1, len(models), figsize=(6 * len(models), 4))
        axes = axes if len(models) > 1 else [axes]
        for ax, model in zip(axes, models):
            series = lambda r: (r["mode"], r["transport"], r["isolation"],
                                r.get("sharing", "timeslice"))
            for key in sorted({series(r) for r in rows
                               if r["model"] == model}):
                # A run without a common window has no point.
                pts = sorted((r["clients"], r["aggregate_tps"])
                             for r in rows if r["model"] == model and
                             series(r) == key and r["aggregate_tps"])
                label = "%s local, %s" % (key[0], key[3]) \
                    if key[1] == "local" else "%s %s, %s, %s" % key
                ax.plot([p[0] for p in pts], [p[1] for p in pts],
                        "o-" if key[0] == "bench" else "s--", label=label)
            ax.set_title(model)
            ax.set_xlabel("clients")
            ax.set_ylabel("aggregate tokens/s")
            ax.legend()
        fig.tight_layout()
        fig.savefig(base + ".png", dpi=100)
    print("multiclient_report: wrote %s.json and .md (%d rows)" %
          (base, len(rows)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run")
    ap.add_argument("--tag")
    ap.add_argument("--clients", type=int)
    ap.add_argument("--t0", type=int)
    ap.add_argument("--failed", type=int, default=0)
    ap.add_argument("--raw")
    ap.add_argument("--out")
    ap.add_argument("--gpu")
    ap.add_argument("--tokens", type=int)
    ap.add_argument("--server-tokens", type=int)
    ap.add_argument("--mode", default="bench")
    ap.add_argument("--merge", help="an earlier report: keep its other rows")
    args = ap.parse_args()
    if args.run:
        one_run(args)
    else:
        report(args)


if __name__ == "__main__":
    main()
