#!/usr/bin/env python3
"""Runs the cuda-samples that remote-clang built (compat/build_samples.py
--collect) on the GPU machine: remotely through rc-server over tcp and over
shm, and locally as built by nvcc there (device-run.sh compat-local), and
fills the results' run columns.

    compat/run_samples.py --samples SRC --remote DIR --local DIR --rc DIR
        --out FILE.json [--jobs N] [--timeout SECONDS] [--only REGEX]

SRC is the cuda-samples tree (each sample runs in its own source folder,
where it finds its data, with the arguments of the tag's test_args.json);
DIR of --remote holds rows.json and <category>/<sample>/<executables>;
--local is the nvcc build of SRC's top-level CMakeLists.txt; --rc the
unpacked remote-clang bundle (bin/rc-server, lib/). A run passes when every
executable of the sample exits 0 for every argument set; samples that print
from the GPU also compare those lines with the local run's. Python 3 stdlib
only.
"""
import argparse
import concurrent.futures
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

# Samples whose device code prints: the lines a regular expression picks
# from their output must be the same, in any order, remote and local.
DEVICE_PRINTF = {
    "simplePrintf": re.compile(r"(?m)^\[\d+, \d+\]:.*$"),
}


def gpu_count():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, text=True).stdout
        return sum(1 for line in out.splitlines() if line.startswith("GPU "))
    except OSError:
        return 0


def executables_in(folder):
    if not os.path.isdir(folder):
        return []
    return sorted(os.path.join(folder, f) for f in os.listdir(folder)
                  if not f.endswith(".rcm") and os.path.isfile(os.path.join(folder, f))
                  and os.access(os.path.join(folder, f), os.X_OK))


def argument_sets(test_args, exe):
    """The argument lists test_args.json gives an executable (one run
    without arguments if it names none)."""
    entry = test_args.get(os.path.basename(exe), {})
    if "runs" in entry:
        return [r.get("args", []) for r in entry["runs"]]
    return [entry.get("args", [])]


def run_one(exe, args, cwd, env, timeout, argv0=None):
    """(exit status, stdout, stderr). A run that hangs is killed with its
    process group: status 124, as timeout(1) says. The two streams are kept
    apart: into a pipe stdout is flushed only at exit, after the error a
    sample printed on stderr, which would be lost above the tail. argv0,
    where given, is the name the program sees as its own (programs that
    print it then print the same whichever build runs)."""
    p = subprocess.Popen([argv0 or exe] + args, executable=exe, cwd=cwd, env=env,
                         stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        rc = 124
    return rc, out.decode(errors="replace"), err.decode(errors="replace")


def run_config(exes, cwd, env, test_args, timeout):
    """("pass" | "fail", detail, full output of the last run)."""
    output = ""
    for exe in exes:
        for args in argument_sets(test_args, exe):
            rc, output, errors = run_one(exe, args, cwd, env, timeout)
            if rc != 0:
                tail = " | ".join(errors.strip().splitlines()[-3:] +
                                  output.strip().splitlines()[-4:])
                why = "timed out after %d s" % timeout if rc == 124 else "exit %d" % rc
                return "fail", "%s %s: %s: %s" % (os.path.basename(exe), " ".join(args), why,
                                                  tail[-600:]), output
    return "pass", "", output


def printf_lines(sample, output):
    pattern = DEVICE_PRINTF.get(sample)
    return sorted(pattern.findall(output)) if pattern else None


class Server:
    """rc-server for one sample over one transport, with that sample's
    manifests: a manifest the server refuses, or a crash, stays that
    sample's failure."""

    def __init__(self, rc_dir, manifests, transport, tag, logs, extra_args=()):
        url = ("tcp://127.0.0.1:%d" % (23600 + tag) if transport == "tcp"
               else "shm://rc-compat-%d-%d" % (os.getpid(), tag))
        self.log = os.path.join(logs, "rc-server-%d-%s.log" % (tag, transport))
        args = [os.path.join(rc_dir, "bin", "rc-server"), "--listen", url] + list(extra_args)
        for m in manifests:
            args += ["--manifest", m]
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT,
                                         env=dict(os.environ,
                                                  LD_LIBRARY_PATH=os.path.join(rc_dir, "lib")))
        self.url, self.error = url, ""
        deadline = time.time() + 60
        while not self.listening() and self.proc.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        if not self.listening():
            with open(self.log) as f:
                self.error = "rc-server did not start: " + " | ".join(f.read().strip().splitlines()[-3:])

    def listening(self):
        with open(self.log) as f:
            return "listening on" in f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", required=True, help="cuda-samples source tree")
    ap.add_argument("--remote", required=True, help="build_samples.py --collect's folder")
    ap.add_argument("--local", required=True, help="nvcc build of --samples")
    ap.add_argument("--rc", required=True, help="remote-clang bundle (bin/, lib/)")
    ap.add_argument("--out", required=True, help="results JSON with the run columns")
    ap.add_argument("--jobs", type=int, default=4, help="samples run at once")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per run")
    ap.add_argument("--only", default="", help="regex on category/sample")
    args = ap.parse_args()

    with open(os.path.join(args.remote, "rows.json")) as f:
        rows = json.load(f)
    test_args = {}
    if os.path.isfile(os.path.join(args.samples, "test_args.json")):
        with open(os.path.join(args.samples, "test_args.json")) as f:
            test_args = json.load(f)
    gpus = gpu_count()
    logs = tempfile.mkdtemp(prefix="rc-compat-")
    local_env = dict(os.environ)
    tags = iter(range(10 ** 6))  # tcp ports and shm names, one per server

    def one(row):
        where = os.path.join(row["category"], row["sample"])
        cwd = os.path.join(args.samples, "Samples", where)
        local_exes = executables_in(os.path.join(args.local, "Samples", where))
        remote_exes = executables_in(os.path.join(args.remote, where))
        entry = test_args.get(row["sample"], {})
        needed = entry.get("min_gpus", 1)
        if needed > 1 and needed > gpus:
            return row, {"run_skip_reason": "hardware: needs %d GPUs, this machine has %d"
                         % (needed, gpus)}
        if entry.get("skip"):
            return row, {"run_skip_reason": "test_args.json skips it"}
        result = {}
        local_out = ""
        if local_exes:
            result["local"], result["local_detail"], local_out = run_config(
                local_exes, cwd, local_env, test_args, args.timeout)
        else:
            result["local"], result["local_detail"] = "no-build", ""
        manifests = [e + ".rcm" for e in remote_exes if os.path.isfile(e + ".rcm")]
        for transport in ("tcp", "shm"):
            key = "remote_" + transport
            if not remote_exes:
                result[key], result[key + "_detail"] = "no-build", ""
                continue
            server = Server(args.rc, manifests, transport, next(tags), logs)
            try:
                if server.error:
                    state, detail, out = "fail", server.error, ""
                else:
                    # Several samples and their servers at once share the
                    # CPUs: a connect may wait longer than the default 5 s.
                    env = dict(os.environ, RC_SERVER=server.url,
                               LD_LIBRARY_PATH=os.path.join(args.rc, "lib") + ":" +
                               os.path.join(args.remote, "lib"))
                    env.setdefault("RC_CONNECT_TIMEOUT_MS", "30000")
                    state, detail, out = run_config(remote_exes, cwd, env, test_args,
                                                    args.timeout)
            finally:
                server.stop()
            mine, theirs = printf_lines(row["sample"], out), printf_lines(row["sample"], local_out)
            if state == "pass" and mine is not None and result["local"] == "pass" and mine != theirs:
                state, detail = "fail", "device printf: %d lines, local %d" % (len(mine), len(theirs))
            result[key], result[key + "_detail"] = state, detail
        return row, result

    # Only the samples carried this time (the largest travel apart).
    todo = [r for r in rows if r["builds"] and not r["skip_reason"]
            and os.path.isdir(os.path.join(args.remote, r["category"], r["sample"]))
            and (not args.only or re.search(args.only, r["category"] + "/" + r["sample"]))]
    # The output lists only the rows run here: merged into a results JSON
    # (build_samples.py --merge-run), the others keep their earlier runs.
    done = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for row, result in pool.map(one, todo):
            row.update(result)
            done.append(row)
            with open(args.out, "w") as f:  # after each sample: a cut-off run is kept
                json.dump({"rows": done, "summary": summary(todo)}, f, indent=1)
            print("%-40s local %-8s tcp %-8s shm %-8s %s" % (
                row["sample"], row.get("local"), row.get("remote_tcp"), row.get("remote_shm"),
                row.get("run_skip_reason") or row.get("remote_shm_detail") or
                row.get("remote_tcp_detail") or row.get("local_detail") or ""), flush=True)
    with open(args.out, "w") as f:
        json.dump({"rows": done, "summary": summary(todo)}, f, indent=1)
    print(summary(todo))
    print("server logs: %s" % logs)


def summary(rows):
    """The run's numbers; rows not run (no "local" column) do not count."""
    rows = [r for r in rows if r.get("local") or r.get("run_skip_reason")]
    ran = [r for r in rows if not r.get("run_skip_reason")]
    local = [r for r in ran if r.get("local") == "pass"]
    both = {t: sum(1 for r in local if r.get("remote_" + t) == "pass") for t in ("tcp", "shm")}
    return ("ran %d samples (%d not run: hardware or test_args.json); %d pass locally; of those "
            "%d pass over tcp (%.1f %%) and %d over shm (%.1f %%)" %
            (len(ran), len(rows) - len(ran), len(local), both["tcp"],
             100.0 * both["tcp"] / max(len(local), 1), both["shm"],
             100.0 * both["shm"] / max(len(local), 1)))


if __name__ == "__main__":
    main()
