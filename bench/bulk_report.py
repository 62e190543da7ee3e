#!/usr/bin/env python3
"""Turns bench/bulk.sh's raw lines ("<config>: H2D pinned   51.87 GB/s";
copy_streams' "<config>: sweep h2d pinned 65536 B 2 streams 12.34 GB/s" and
"<config>: overlap 4 streams 268435456 B 45.67 GB/s") and bench/load.sh's
("shm cold rep 2: load time 612.3 ms") into
bulk/<date>-<gpu>.json with a top-level `rows` list of
{bench, case, transport, value, unit, local_value, ratio} (ratio: remote /
local; higher is better for a bandwidth, lower for a load time) and a
markdown table beside it.

    bulk_report.py --raw bulk-raw.txt [--load-raw load-raw.txt] --out DIR
                   --gpu NAME --mib N --reps N [--model 7b]
"""
import argparse
import re
import statistics

from results_doc import write_results

LINE = re.compile(r"^(\S+): (H2D|D2H) (pageable|pinned)\s+([0-9.]+) GB/s$")
# rc_transport_bench's read-backs: "readback-lanes4: read-back by RMA
# 268435456 B: median ... us (31.2 GB/s ..." and "... plain tcp socket ...".
READBACK = re.compile(r"^readback-lanes(\d+): (read-back by RMA|plain tcp "
                      r"socket)\s+(\d+) B: median\s+[0-9.]+ us \(([0-9.]+) GB/s")
LOAD = re.compile(r"^(\S+) (\S+) rep \d+: load time ([0-9.]+) ms$")
# bench/copy_streams.cu's sweep and overlap lines.
SWEEP = re.compile(r"^(\S+): sweep (h2d|d2h) (pageable|pinned) (\d+) B "
                   r"(\d+) streams ([0-9.]+) GB/s$")
OVERLAP = re.compile(r"^(\S+): overlap (\d+) streams (\d+) B ([0-9.]+) GB/s$")


def size_name(nbytes):
    """64kib below 1 MiB, else 1mib, 256mib, 1024mib."""
    if nbytes < 1 << 20:
        return "%dkib" % (nbytes >> 10)
    return "%dmib" % (nbytes >> 20)


def stream_values(lines):
    """copy_streams' GB/s per (config, case), in the order of the lines:
    h2d-pinned-64kib-2streams, d2h-pageable-1024mib-1streams,
    overlap-4streams-256mib."""
    values = {}
    for line in lines:
        line = line.strip()
        m = SWEEP.match(line)
        if m:
            case = "%s-%s-%s-%sstreams" % (m.group(2), m.group(3),
                                           size_name(int(m.group(4))),
                                           m.group(5))
            values[(m.group(1), case)] = float(m.group(6))
        m = OVERLAP.match(line)
        if m:
            case = "overlap-%sstreams-%s" % (m.group(2),
                                             size_name(int(m.group(3))))
            values[(m.group(1), case)] = float(m.group(4))
    return values


def copy_rows(lines):
    """The copy rows of bulk.sh's raw lines: the transport's read-backs,
    copy_bandwidth's cases (sorted), then copy_streams' (in run order), each
    remote one against the local value of its case."""
    values = {}  # (config, case) -> GB/s
    streams = {}  # transport -> GB/s of a transport-level read-back
    for line in lines:
        m = LINE.match(line.strip())
        if m:
            case = "%s-%s" % (m.group(2).lower(), m.group(3))
            values[(m.group(1), case)] = float(m.group(4))
        m = READBACK.match(line.strip())
        if m:
            mib = int(m.group(3)) >> 20
            name = ("tcp-%s-lanes" % m.group(1)
                    if m.group(2).startswith("read-back")
                    else "plain-tcp-socket")
            streams[(name, "readback-%dmib" % mib)] = float(m.group(4))
    rows = []
    for (name, case), value in sorted(streams.items()):
        rows.append({"bench": "copy", "case": case, "transport": name,
                     "value": value, "unit": "GB/s", "local_value": None,
                     "ratio": None})
    rows += against_local(sorted(values.items()))
    rows += against_local(stream_values(lines).items())
    return rows


def against_local(items):
    """Rows of ((config, case), GB/s) items other than local's, each with
    the local value of its case and the ratio to it."""
    local = {case: value for (config, case), value in items
             if config == "local"}
    rows = []
    for (config, case), value in items:
        if config == "local":
            continue
        base = local.get(case)
        rows.append({"bench": "copy", "case": case, "transport": config,
                     "value": value, "unit": "GB/s", "local_value": base,
                     "ratio": round(value / base, 3) if base else None})
    return rows


def load_rows(path, model):
    """Median load time per (transport, case) against the local median."""
    times = {}  # (config, case) -> [ms]
    with open(path) as f:
        for line in f:
            m = LOAD.match(line.strip())
            if m:
                times.setdefault((m.group(1), m.group(2)), []).append(
                    float(m.group(3)))
    local = times.get(("local", model))
    local_ms = statistics.median(local) if local else None
    rows = []
    for (config, case), ms in sorted(times.items()):
        if config == "local":
            continue
        value = statistics.median(ms)
        rows.append({"bench": "load", "case": "%s-%s" % (model, case),
                     "transport": config, "value": round(value, 1),
                     "unit": "ms", "local_value": local_ms,
                     "ratio": round(value / local_ms, 3) if local_ms else None,
                     "runs": len(ms)})
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--load-raw")
    ap.add_argument("--model", default="7b")
    ap.add_argument("--out", required=True)
    ap.add_argument("--gpu", required=True)
    ap.add_argument("--mib", type=int, required=True)
    ap.add_argument("--reps", type=int, required=True)
    args = ap.parse_args()
    with open(args.raw) as f:
        lines = f.readlines()
    rows = copy_rows(lines)
    setup = ("synchronous cudaMemcpy of %d MiB, median of %d, one stream "
             "(bench/copy_bandwidth.cu)" % (args.mib, args.reps))
    if stream_values(lines):
        setup += ("; cudaMemcpyAsync of 64 KiB to %d MiB over 1, 2 and 4 "
                  "streams (pinned) and cudaMemcpy (pageable), and 4 streams "
                  "overlapping copies in, a kernel and copies out (GB/s of "
                  "bytes in + out), median of %d (bench/copy_streams.cu)"
                  % (args.mib, args.reps))
    if args.load_raw:
        rows += load_rows(args.load_raw, args.model)
        setup += ("; llama-completion's load time of the %s Q4_0 model, "
                  "median of each case's runs (bench/load.sh): nocache "
                  "RC_CACHE=0, cold a fresh rc-server --cache, warm the "
                  "run after it; rpc-cache ggml-rpc-server -c" % args.model)
    title = "Bulk copies and model loads" if args.load_raw else "Bulk copies"
    base = write_results(args.out, args.gpu, "bulk", title, setup,
                         rows, [
        ("case", lambda r: r["case"]),
        ("transport", lambda r: r["transport"]),
        ("value", lambda r: "%.2f %s" % (r["value"], r["unit"])),
        ("local", lambda r: "%.2f %s" % (r["local_value"], r["unit"])
         if r["local_value"] else "-"),
        ("remote / local", lambda r: "%.3f" % r["ratio"] if r["ratio"] else "-"),
    ])
    chart(base, rows)
    print("bulk_report: wrote %s.json and .md (%d rows)" % (base, len(rows)))


def chart(base, rows):
    """Remote / local per case and transport, copies and loads side by side
    (a PNG beside the JSON; skipped without matplotlib)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bulk_report: no matplotlib: no chart")
        return
    benches = [b for b in ("copy", "load") if any(r["bench"] == b for r in rows)]
    # copy_streams' sweep adds some 40 cases: wider panels, steeper labels.
    most = max((len({r["case"] for r in rows if r["bench"] == b})
                for b in benches), default=0)
    panel = max(7, 0.3 * most)
    fig, axes = plt.subplots(1, len(benches),
                             figsize=(panel * len(benches), 4.5))
    axes = axes if len(benches) > 1 else [axes]
    for ax, bench in zip(axes, benches):
        mine = [r for r in rows if r["bench"] == bench and r["ratio"]]
        cases = sorted({r["case"] for r in mine})
        transports = sorted({r["transport"] for r in mine})
        width = 0.8 / max(1, len(transports))
        for i, t in enumerate(transports):
            ratio = {r["case"]: r["ratio"] for r in mine if r["transport"] == t}
            ax.bar([c + i * width for c in range(len(cases))],
                   [ratio.get(c, 0) for c in cases], width, label=t)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks([c + 0.4 - width / 2 for c in range(len(cases))])
        if len(cases) <= 8:
            ax.set_xticklabels(cases, rotation=20)
        else:
            ax.set_xticklabels(cases, rotation=70, ha="right", fontsize=7)
        ax.set_ylabel("remote / local (%s)" % ("bandwidth: higher is better"
                      if bench == "copy" else "load time: lower is better"))
        ax.set_title(bench)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(base + ".png", dpi=100)


if __name__ == "__main__":
    main()
