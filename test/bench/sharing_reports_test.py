#!/usr/bin/env python3
"""Tests of the multi-client reports' handling of GPU sharing:
bench/gpu_sharing_report.py (medians of reps with min and max, ratios to
local and local+MPS at the same count) and bench/multiclient_report.py
(tags with a rep and a sharing mode, each row against local and
local+MPS)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "bench")


def run(script, *args):
    subprocess.run([sys.executable, os.path.join(BENCH, script)] +
                   list(args), check=True, stdout=subprocess.PIPE)


def rows_of(out_dir):
    """The rows of the one results file a report wrote, which lies in its
    benchmark's folder (<out>/<benchmark>/<date>-<gpu>.json)."""
    [path] = [os.path.join(root, f) for root, _, files in os.walk(out_dir)
              for f in files if f.endswith(".json")]
    with open(path) as f:
        return json.load(f)["rows"]


class GpuSharingReport(unittest.TestCase):
    def test_medians_spread_and_ratios(self):
        with tempfile.TemporaryDirectory() as d:
            raw = os.path.join(d, "raw.jsonl")
            # kernels per client per rep; 2 clients, 2 s.
            runs = {("local", 0): 100, ("local", 1): 120, ("local", 2): 110,
                    ("local-mps", 0): 400, ("process-mps", 0): 380,
                    ("process-timeslice", 0): 105}
            for (config, rep), kernels in runs.items():
                for i in range(2):
                    with open(os.path.join(d, "%s-n2-r%d-c%d.json" %
                                           (config, rep, i)), "w") as f:
                        f.write('{"kernels": %d, "seconds": 2.0, '
                                '"late_ms": %d}\n' % (kernels, 3 * i))
                with open(raw, "a") as f:
                    f.flush()
                    subprocess.run(
                        [sys.executable,
                         os.path.join(BENCH, "gpu_sharing_report.py"),
                         "--runs", d, "--config", config, "--clients", "2",
                         "--rep", str(rep), "--seconds", "2"],
                        check=True, stdout=f)
            out = os.path.join(d, "out")
            os.mkdir(out)
            run("gpu_sharing_report.py", "--raw", raw, "--out", out, "--gpu",
                "Test GPU")
            rows = {r["config"]: r for r in rows_of(out)}
            self.assertEqual(rows["local"]["kernels_per_s"], 110.0)
            self.assertEqual((rows["local"]["min"], rows["local"]["max"]),
                             (100.0, 120.0))
            self.assertEqual(rows["local"]["reps"], 3)
            self.assertEqual(rows["process-mps"]["vs_local"], 3.455)
            self.assertEqual(rows["process-mps"]["vs_local_mps"], 0.95)
            self.assertEqual(rows["process-timeslice"]["max_late_ms"], 3)

    def test_a_failed_client_leaves_no_number(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "none-mps-n2-r0-c0.json"), "w") as f:
                f.write('{"kernels": 10, "seconds": 1.0, "late_ms": 0}\n')
            line = subprocess.run(
                [sys.executable, os.path.join(BENCH, "gpu_sharing_report.py"),
                 "--runs", d, "--config", "none-mps", "--clients", "2",
                 "--rep", "0", "--seconds", "1"],
                check=True, stdout=subprocess.PIPE).stdout
            row = json.loads(line)
            self.assertIsNone(row["kernels_per_s"])
            self.assertEqual(row["failed_clients"], 1)


class MulticlientReport(unittest.TestCase):
    def test_sharing_modes_reps_and_both_baselines(self):
        with tempfile.TemporaryDirectory() as d:
            raw = os.path.join(d, "raw.jsonl")
            # Tokens 10 ms apart per client: 100 tokens/s each, times `k`.
            tags = {"1b-local-r0-n2": 1, "1b-local-r1-n2": 3,
                    "1b-local-mps-r0-n2": 4, "1b-process-shm-r0-n2": 4,
                    "1b-process-shm-timeslice-r0-n2": 2}
            for tag, k in tags.items():
                for i in range(2):
                    with open(os.path.join(d, "%s-c%d.stamps" % (tag, i)),
                              "w") as f:
                        for t in range(200):
                            f.write("%d\n" % (10**9 + t * 10**7 // k))
                with open(raw, "a") as f:
                    subprocess.run(
                        [sys.executable,
                         os.path.join(BENCH, "multiclient_report.py"),
                         "--run", d, "--tag", tag, "--clients", "2",
                         "--t0", str(10**9 - 10**8)], check=True, stdout=f)
            out = os.path.join(d, "out")
            os.mkdir(out)
            run("multiclient_report.py", "--raw", raw, "--out", out, "--gpu",
                "Test GPU", "--tokens", "200", "--server-tokens", "10")
            rows = {(r["transport"], r["isolation"], r["sharing"]): r
                    for r in rows_of(out)}
            local = rows[("local", "-", "timeslice")]
            self.assertEqual(local["reps"], 2)
            self.assertEqual((local["min_tps"], local["max_tps"]),
                             (200.0, 600.0))
            self.assertEqual(local["aggregate_tps"], 400.0)
            remote = rows[("shm", "process", "auto")]
            self.assertEqual(remote["local_mps_aggregate_tps"], 800.0)
            self.assertEqual(remote["ratio_mps"], 1.0)
            self.assertEqual(remote["ratio"], 2.0)
            sliced = rows[("shm", "process", "timeslice")]
            self.assertEqual(sliced["ratio_mps"], 0.5)


if __name__ == "__main__":
    unittest.main()
