#!/usr/bin/env python3
"""Where a run's CPU time goes, by thread name.

    thread_cpu.py [--also PID]... [--label TEXT] [--out FILE] -- COMMAND...

Runs COMMAND and, while it runs, reads /proc/PID/task/*/stat of it, of
the processes it forks and of every --also process (a server serving it) every --every seconds. At the
end it prints, per process and per thread name with its trailing number
cut ("rc-lane-w3" counts as "rc-lane-w"), the threads seen, their CPU
seconds in the run and how busy they were on average (CPU time over the
run's wall time, per thread), and how many of the host's cores were busy
on average (/proc/stat). The transport names its threads (rc-lane-w/r:
a lane's writer and reader, rc-send-/rc-open-: a sealed lane's stages),
so a lane bound by its cipher shows near 100 % busy, one that waits on
the socket or the peer well under it.

Lines go to --out (appended) or standard error, each starting with
"thread-cpu" and the label; COMMAND's output passes through and its exit
status is this script's.
"""
import argparse
import os
import re
import subprocess
import sys
import time

TICKS = os.sysconf("SC_CLK_TCK")


def thread_times(pid):
    """{tid: (name, cpu seconds)} of one process; {} once it is gone."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue  # the thread ended between the listing and the read
        # The name is in parentheses and may hold spaces; fields after it.
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        utime, stime = int(fields[11]), int(fields[12])
        out[int(tid)] = (name, (utime + stime) / TICKS)
    return out


def children(of):
    """Processes whose parent is in `of` (the command's own forks)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        if ppid in of:
            found.append(int(entry))
    return found


def host_busy():
    """(busy, total) jiffies of all cores from /proc/stat."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    return sum(values) - idle, sum(values)


def group(name):
    return re.sub(r"\d+$", "", name) or name


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--also", type=int, action="append", default=[],
                    help="another process to account for (its threads' "
                         "time during the run only)")
    ap.add_argument("--label", default="")
    ap.add_argument("--out")
    ap.add_argument("--every", type=float, default=0.1)
    ap.add_argument("command", nargs="+")
    args = ap.parse_args()

    # Threads of --also processes that already ran count from here on.
    base = {pid: thread_times(pid) for pid in args.also}
    last = {pid: dict(t) for pid, t in base.items()}
    busy0, total0 = host_busy()
    start = time.monotonic()
    child = subprocess.Popen(args.command)
    last[child.pid] = {}
    base[child.pid] = {}
    while True:
        for pid in children({child.pid}):
            if pid not in last:
                last[pid], base[pid] = {}, {}
        for pid in last:
            last[pid].update(thread_times(pid))
        done, status, usage = os.wait4(child.pid, os.WNOHANG)
        if done:
            break
        time.sleep(args.every)
    # Exact for the whole command (threads that ended between two samples
    # lose their last interval in the per-name lines).
    command_cpu = usage.ru_utime + usage.ru_stime
    returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - start
    busy1, total1 = host_busy()
    for pid in args.also:
        last[pid].update(thread_times(pid))

    lines = []
    cores = os.cpu_count() or 1
    host = (busy1 - busy0) / max(1, total1 - total0) * cores
    lines.append(f"thread-cpu {args.label} wall_s={wall:.2f} "
                 f"host_busy_cores={host:.1f} of {cores} "
                 f"command_cpu_s={command_cpu:.2f}")
    for pid, threads in last.items():
        who = ("command" if pid == child.pid else
               f"pid{pid}" if pid in args.also else f"child{pid}")
        groups = {}
        for tid, (name, cpu) in threads.items():
            spent = cpu - base[pid].get(tid, (name, 0.0))[1]
            n, s = groups.get(group(name), (0, 0.0))
            groups[group(name)] = (n + 1, s + spent)
        for name, (n, spent) in sorted(groups.items(),
                                       key=lambda kv: -kv[1][1]):
            if spent < 0.005:
                continue  # idle the whole run
            lines.append(f"thread-cpu {args.label} {who} {name} threads={n} "
                         f"cpu_s={spent:.2f} "
                         f"busy_pct={100 * spent / wall / n:.0f}")
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "a") as f:
            f.write(text)
    else:
        sys.stderr.write(text)
    return returncode


if __name__ == "__main__":
    sys.exit(main())
