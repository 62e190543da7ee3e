#!/usr/bin/env python3
"""bench/multiclient.sh's numbers.

One run (--run DIR --tag TAG --clients N --t0 NS --failed F --mode M):
reads the token stamps of the run's clients (bench/token_clock.c, or
bench/server_clients.py for mode server: one line per decoded token, its
end first, CLOCK_MONOTONIC ns) and prints one JSON line:
the window in which every client decodes (from the last client's first
token to the first client's last), all clients' tokens in it over its
length (aggregate_tps), and the median client's time from the launch (t0)
to its first token (ttft_ms).

The report (--raw RAW --out DIR --gpu NAME --tokens T --server-tokens S):
the runs' lines into multiclient/<date>-<gpu>.json, whose `rows` are
{model, mode (bench|server), clients, transport, isolation, aggregate_tps,
local_aggregate_tps, ratio, ttft_ms}, a markdown table and, where
matplotlib is installed, a chart. ttft_ms: for bench, from the launch of
the processes (model load included); for server, from the requests'
sending (the model is loaded once, before). --merge FILE keeps FILE's rows
that this run did not measure.
"""
import argparse
import json
import os
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
    isolation, transport = ("-", "local") if config == "local" else \
        config.split("-", 1)
    row = {"model": shape, "mode": args.mode, "clients": args.clients,
           "transport": transport, "isolation": isolation,
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


def report(args):
    runs = [json.loads(l) for l in open(args.raw) if l.strip()]
    local = {(r["model"], r["mode"], r["clients"]): r.get("aggregate_tps")
             for r in runs if r["transport"] == "local"}
    rows = []
    for r in runs:
        ref = local.get((r["model"], r["mode"], r["clients"]))
        tps = r.get("aggregate_tps")
        rows.append({"model": r["model"], "mode": r["mode"],
                     "clients": r["clients"], "transport": r["transport"],
                     "isolation": r["isolation"], "aggregate_tps": tps,
                     "local_aggregate_tps": ref,
                     "ratio": round(tps / ref, 3) if tps and ref else None,
                     "ttft_ms": r.get("ttft_ms"),
                     "window_s": r.get("window_s"),
                     "failed_clients": r["failed_clients"]})
    if args.merge:
        # Rows of an earlier report this run did not measure (another mode
        # run in a device call of its own) are kept as they were.
        measured = {(r["model"], r["mode"], r["clients"], r["transport"],
                     r["isolation"]) for r in rows}
        with open(args.merge) as f:
            rows += [r for r in json.load(f)["rows"]
                     if (r["model"], r.get("mode", "bench"), r["clients"],
                         r["transport"], r["isolation"]) not in measured]
    setup = ("bench: N concurrent llama-bench decode clients (-p 0 -n %d);"
             " local: N nvcc-built processes on the GPU. server: one "
             "llama-server -np N answering N concurrent streamed requests "
             "(%d tokens each); local: the nvcc-built llama-server. "
             "Aggregate tokens/s over the window in which all N decode "
             "(bench/multiclient.sh)" % (args.tokens, args.server_tokens))
    base = write_results(args.out, args.gpu, "multiclient", "Many clients",
                         setup, rows, [
        ("model", lambda r: r["model"]),
        ("mode", lambda r: r["mode"]),
        ("clients", lambda r: "%d" % r["clients"]),
        ("transport", lambda r: r["transport"]),
        ("isolation", lambda r: r["isolation"]),
        ("tokens/s", lambda r: str(r["aggregate_tps"] or "no common window")),
        ("local tokens/s", lambda r: str(r["local_aggregate_tps"])),
        ("remote / local", lambda r: "%.3f" % r["ratio"] if r["ratio"] else "-"),
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
            for key in sorted({(r["mode"], r["transport"], r["isolation"])
                               for r in rows if r["model"] == model}):
                # A run without a common window has no point.
                pts = sorted((r["clients"], r["aggregate_tps"])
                             for r in rows if r["model"] == model and
                             (r["mode"], r["transport"], r["isolation"]) ==
                             key and r["aggregate_tps"])
                label = "%s local" % key[0] if key[1] == "local" else \
                    "%s %s, %s" % key
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
