#!/usr/bin/env python3
"""Per-kernel times of two Nsight Compute runs of the same program.

  kernel_compare.py LOCAL.csv REMOTE.csv [--top N]

Each file is `ncu --csv --page raw --print-kernel-base mangled --metrics
gpu__time_duration.sum[,...]` output (bench/kernel-profile.sh). Kernels are
matched by mangled name (static kernels: clang's _ZL = nvcc's _Z); the
table lists, largest local total first, each kernel's launches and total
microseconds on both sides and the ratio local/remote (below 1: the remote build's kernel is slower), then the
totals, and the kernels that only one side ran. Registers, achieved
occupancy and DRAM throughput, where the files have them, are shown as
local/remote columns.
"""
import argparse
import csv
import statistics
from collections import defaultdict


def normalized(name):
    """clang mangles a static kernel _ZL..., nvcc _Z...: the same kernel."""
    return "_Z" + name[3:] if name.startswith("_ZL") else name


# Optional columns (kernel-profile.sh asks for them; older files lack them):
# metric -> short heading; each is shown as its mean over a kernel's launches.
EXTRA = {
    "launch__registers_per_thread": "regs",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occ%",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram%",
}


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def load(path):
    """mangled name -> list of durations (ns), and -> {heading: [values]}."""
    times = defaultdict(list)
    extras = defaultdict(lambda: defaultdict(list))
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]  # ncu's own messages start with ==
    reader = csv.reader(lines)
    header = next(reader, None)
    if not header:
        return times, extras
    name_col = header.index("Kernel Name")
    time_col = header.index("gpu__time_duration.sum")
    extra_cols = {header.index(m): h for m, h in EXTRA.items() if m in header}
    for r in reader:
        if not r or not r[0].isdigit():
            continue  # the units row
        name = normalized(r[name_col])
        t = number(r[time_col])
        if t is None:
            continue
        times[name].append(t)
        for col, heading in extra_cols.items():
            v = number(r[col])
            if v is not None:
                extras[name][heading].append(v)
    return times, extras


def pair(extras_l, extras_r, heading):
    """'local/remote' means of one optional metric, or '' without it."""
    vl, vr = extras_l.get(heading), extras_r.get(heading)
    if not vl or not vr:
        return ""
    return f"{statistics.mean(vl):.0f}/{statistics.mean(vr):.0f}"


def short(name, width=70):
    return name if len(name) <= width else name[: width - 3] + "..."


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("local")
    ap.add_argument("remote")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    (local, extra_l), (remote, extra_r) = load(args.local), load(args.remote)
    if not local or not remote:
        print(f"kernel_compare: no kernels in {args.local if not local else args.remote}")
        return 1
    both = [k for k in local if k in remote]
    both.sort(key=lambda k: -sum(local[k]))
    tl = sum(sum(local[k]) for k in both)
    tr = sum(sum(remote[k]) for k in both)
    headings = [h for h in EXTRA.values() if any(h in extra_l[k] for k in both)]
    print(f"{'kernel (mangled)':70} {'n loc':>6} {'n rem':>6} {'us loc':>10} {'us rem':>10} {'loc/rem':>7} {'share':>6}"
          + "".join(f" {h + ' l/r':>10}" for h in headings))
    for k in both[: args.top]:
        sl, sr = sum(local[k]) / 1e3, sum(remote[k]) / 1e3
        print(f"{short(k):70} {len(local[k]):6} {len(remote[k]):6} {sl:10.1f} {sr:10.1f}"
              f" {sl / sr if sr else 0:7.3f} {100 * sl / (tl / 1e3):5.1f}%"
              + "".join(f" {pair(extra_l[k], extra_r[k], h):>10}" for h in headings))
    if not tr:
        print("kernel_compare: no kernel ran on both sides")
        return 1
    print(f"\nkernels on both sides: {len(both)}; total us local {tl / 1e3:.1f}, remote {tr / 1e3:.1f},"
          f" local/remote {tl / tr:.4f}")
    # Where the difference is: the kernels that add most remote time.
    worst = sorted(both, key=lambda k: sum(local[k]) - sum(remote[k]))[:10]
    print("largest remote excess (us): " + ", ".join(
        f"{short(k, 40)} +{(sum(remote[k]) - sum(local[k])) / 1e3:.1f}" for k in worst))
    for side, a, b in (("local", local, remote), ("remote", remote, local)):
        only = [k for k in a if k not in b]
        if only:
            us = sum(sum(a[k]) for k in only) / 1e3
            print(f"only {side}: {len(only)} kernels, {us:.1f} us: " + ", ".join(short(k, 50) for k in only[:5]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
