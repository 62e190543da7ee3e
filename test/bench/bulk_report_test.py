#!/usr/bin/env python3
"""Tests of bench/bulk_report.py's parsing: bench/bulk.sh's raw lines of
copy_bandwidth, copy_streams and rc_transport_bench become the rows the
results files hold, each remote case against the local value of its case."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench"))
import bulk_report  # noqa: E402


def row(case, transport, value, local, ratio):
    return {"bench": "copy", "case": case, "transport": transport,
            "value": value, "unit": "GB/s", "local_value": local,
            "ratio": ratio}


class CopyRows(unittest.TestCase):
    def test_copy_bandwidth_and_readback_lines(self):
        rows = bulk_report.copy_rows([
            "local: 1024 MiB, median of 5\n",
            "local: H2D pinned    55.43 GB/s\n",
            "local: D2H pageable  15.12 GB/s\n",
            "shm: H2D pinned    55.03 GB/s\n",
            "shm: D2H pageable  22.99 GB/s\n",
            "tcp-3gbps: H2D pinned     2.96 GB/s\n",
            "readback-lanes8: read-back by RMA 268435456 B: median 13000.0 us"
            " (19.7 GB/s, 1 run)\n",
            "readback-lanes0: plain tcp socket 268435456 B: median 80000.0 us"
            " (3.4 GB/s, 1 run)\n",
        ])
        self.assertEqual(rows, [
            row("readback-256mib", "plain-tcp-socket", 3.4, None, None),
            row("readback-256mib", "tcp-8-lanes", 19.7, None, None),
            row("d2h-pageable", "shm", 22.99, 15.12, 1.521),
            row("h2d-pinned", "shm", 55.03, 55.43, 0.993),
            row("h2d-pinned", "tcp-3gbps", 2.96, 55.43, 0.053),
        ])

    def test_copy_streams_lines_follow_in_run_order(self):
        rows = bulk_report.copy_rows([
            "local: H2D pinned    50.00 GB/s\n",
            "local: sweep h2d pinned 65536 B 2 streams 10.00 GB/s\n",
            "local: sweep d2h pageable 1073741824 B 1 streams 20.00 GB/s\n",
            "local: overlap 4 streams 268435456 B 40.00 GB/s\n",
            "shm: H2D pinned    25.00 GB/s\n",
            "shm: sweep h2d pinned 65536 B 2 streams 5.00 GB/s\n",
            "shm: sweep d2h pageable 1073741824 B 1 streams 30.00 GB/s\n",
            "shm: overlap 4 streams 268435456 B 36.00 GB/s\n",
            "tcp: sweep h2d pinned 16777216 B 4 streams 3.00 GB/s\n",
        ])
        self.assertEqual(rows, [
            row("h2d-pinned", "shm", 25.0, 50.0, 0.5),
            row("h2d-pinned-64kib-2streams", "shm", 5.0, 10.0, 0.5),
            row("d2h-pageable-1024mib-1streams", "shm", 30.0, 20.0, 1.5),
            row("overlap-4streams-256mib", "shm", 36.0, 40.0, 0.9),
            row("h2d-pinned-16mib-4streams", "tcp", 3.0, None, None),
        ])

    def test_other_lines_are_ignored(self):
        self.assertEqual(bulk_report.copy_rows([
            "shm: 1024 MiB, median of 5\n",
            "shm: overlap: element 0 is 0, expected 1\n",
            "shm: sweep h2d pinned 65536 B 2 streams\n",
        ]), [])

    def test_size_names(self):
        self.assertEqual([bulk_report.size_name(b) for b in
                          (65536, 1 << 20, 16 << 20, 1 << 30)],
                         ["64kib", "1mib", "16mib", "1024mib"])


if __name__ == "__main__":
    unittest.main()
