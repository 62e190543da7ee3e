#!/usr/bin/env python3
"""Whole-process time of short CUDA programs, as a user waits for them:
from exec to exit, locally (nvcc's build) and remotely (remote-clang's
build, through rc-server over shm and tcp, with and without --isolation
process), one configuration after another in one run on the GPU machine.
Short programs pay a session's start in full, so this is where a remote
start that is slower than a local context shows.

    bench/short_programs.py --samples SRC --remote DIR --local DIR --rc DIR
        --out DIR --gpu NAME [--reps N] [--gap S] [--only a,b,c]

SRC: the cuda-samples tree (each sample runs in its own folder, where it
finds its data); --remote: compat/build_samples.py --collect's folder
(<category>/<sample>/<exe> with <exe>.rcm); --local: the nvcc build of SRC
(device-run.sh compat-local); --rc: the unpacked remote-clang bundle.
Writes <date>-<gpu>-short-programs.{json,md} (bench/results_doc.py): per
sample and configuration the median and p90 wall time of --reps runs and
the ratio to local. Python 3 stdlib only.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

from results_doc import write_results

# Samples that do one short piece of GPU work and exit (the ones a user
# meets first), with where they live in the cuda-samples tree.
SAMPLES = {
    "vectorAdd": "0_Introduction/vectorAdd",
    "matrixMul": "0_Introduction/matrixMul",
    "reduction": "2_Concepts_and_Techniques/reduction",
    "deviceQuery": "1_Utilities/deviceQuery",
}


def find_exe(root, rel, name):
    for folder in (os.path.join(root, rel), os.path.join(root, "Samples", rel)):
        path = os.path.join(folder, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def timed_run(cmd, cwd, env):
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=120)
    elapsed = (time.perf_counter() - start) * 1e3
    if proc.returncode != 0:
        raise RuntimeError("%s exited %d:\n%s" % (cmd[0], proc.returncode,
                                                  proc.stdout[-2000:]))
    return elapsed


class Server:
    """An rc-server holding the samples' manifests, for one configuration."""

    def __init__(self, rc, url, manifests, isolation, log):
        self.log = open(log, "w")
        env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(rc, "lib"))
        cmd = [os.path.join(rc, "bin", "rc-server"), "--listen", url,
               "--isolation", isolation]
        for m in manifests:
            cmd += ["--manifest", m]
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + 120
        while time.time() < deadline:
            with open(log) as f:
                if "listening on" in f.read():
                    return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError("rc-server did not start (see %s)" % log)

    def stop(self):
        self.proc.send_signal(2)
        self.proc.wait(timeout=60)
        self.log.close()


def p90(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def main():
    ap = argparse.ArgumentParser()
    for flag in ("--samples", "--remote", "--local", "--rc", "--out", "--gpu"):
        ap.add_argument(flag, required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--gap", type=float, default=1.0)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    names = [n for n in SAMPLES if not args.only or n in args.only.split(",")]
    local, remote, cwd = {}, {}, {}
    for n in names:
        rel = SAMPLES[n]
        local[n] = find_exe(args.local, rel, n)
        remote[n] = find_exe(args.remote, rel, n)
        cwd[n] = os.path.join(args.samples, "Samples", rel)
        if not local[n] or not remote[n]:
            print("short_programs: %s: no %s build, left out" %
                  (n, "local" if not local[n] else "remote"), file=sys.stderr)
    names = [n for n in names if local[n] and remote[n]]
    if not names:
        sys.exit("short_programs: nothing to run")
    times = {}  # (sample, config) -> [ms]

    def measure(config, exe_of, env):
        for n in names:
            for _ in range(args.reps):
                times.setdefault((n, config), []).append(
                    timed_run([exe_of[n]], cwd[n], env))
                time.sleep(args.gap)

    measure("local", local, dict(os.environ))
    # A program without kernels (deviceQuery) has no manifest.
    manifests = [remote[n] + ".rcm" for n in names
                 if os.path.isfile(remote[n] + ".rcm")]
    rc_env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(args.rc, "lib"))
    for isolation in ("none", "process"):
        for transport in ("shm", "tcp"):
            url = ("shm://rc-short-%d" % os.getpid() if transport == "shm"
                   else "tcp://127.0.0.1:%d" % (20000 + os.getpid() % 20000))
            log = os.path.join(args.out, "short-programs-server-%s-%s.log" %
                               (isolation, transport))
            server = Server(args.rc, url, manifests, isolation, log)
            try:
                time.sleep(args.gap)
                measure("%s-%s" % (isolation, transport), remote,
                        dict(rc_env, RC_SERVER=url))
            finally:
                server.stop()
    rows = []
    for (n, config), values in sorted(times.items()):
        if config == "local":
            continue
        isolation, transport = config.split("-")
        base = statistics.median(times[(n, "local")])
        value = statistics.median(values)
        rows.append({"case": n, "isolation": isolation, "transport": transport,
                     "value": round(value, 1), "p90": round(p90(values), 1),
                     "min": round(min(values), 1), "unit": "ms",
                     "local_value": round(base, 1),
                     "local_p90": round(p90(times[(n, "local")]), 1),
                     "ratio": round(value / base, 3)})
    setup = ("whole-process wall time (exec to exit) of short cuda-samples, "
             "median of %d runs %.1f s apart; local: nvcc's build, remote: "
             "remote-clang's through rc-server on the same machine" %
             (args.reps, args.gap))
    base = write_results(args.out, args.gpu, "short-programs",
                         "Short programs", setup, rows, [
        ("sample", lambda r: r["case"]),
        ("isolation", lambda r: r["isolation"]),
        ("transport", lambda r: r["transport"]),
        ("ms (median)", lambda r: "%.1f" % r["value"]),
        ("p90", lambda r: "%.1f" % r["p90"]),
        ("local ms (p90)", lambda r: "%.1f (%.1f)" % (r["local_value"],
                                                     r["local_p90"])),
        ("remote / local", lambda r: "%.3f" % r["ratio"]),
    ])
    print("short_programs: wrote %s.json and .md (%d rows)" % (base, len(rows)))


if __name__ == "__main__":
    main()
