#!/usr/bin/env python3
"""Tests of bench/results_index.py on small trees: files outside the
layout, a .json without its provenance and a stale index are each
reported, and a tree that keeps the layout gets an index that lists its
current figure and every run."""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench"))
import results_index  # noqa: E402

RUN = {"benchmark": "soak", "date": "2026-01-02", "gpu": "GPU X",
       "machine": "GPU X, 8 CPU cores", "commit": "abc123",
       "config": "isolation-none", "command": "bash bench/soak.sh",
       "rows": [{"model": "1b", "runs": 10, "failed": 0}]}


def tree(root, files):
    for path, content in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(content if isinstance(content, str) else
                    json.dumps(content))


class ResultsIndex(unittest.TestCase):
    def check(self, files):
        with tempfile.TemporaryDirectory() as root:
            tree(root, files)
            first = results_index.main(["x", "--results", root])
            second = results_index.main(["x", "--check", "--results", root])
            with open(os.path.join(root, "README.md")) as f:
                return first, second, f.read()

    def test_a_tree_in_the_layout_gets_a_current_index(self):
        first, second, text = self.check({
            "soak/2026-01-02-gpu-x-isolation-none.json": RUN,
            "soak/2026-01-02-gpu-x-isolation-none.md": "# table\n",
        })
        self.assertEqual((first, second), (0, 0))
        self.assertIn("10 runs, 0 failed", text)
        self.assertIn("(soak/2026-01-02-gpu-x-isolation-none.md)", text)

    def test_files_outside_the_layout_and_missing_fields_fail(self):
        old = dict(RUN)
        del old["commit"]
        first, second, _ = self.check({
            "2026-01-01-gpu-x.json": RUN,  # outside a benchmark folder
            "soak/2026-01-02-gpu-x-isolation-none.json": old,
            "soak/notes.txt": "x",
            "soak/2026-01-03-gpu-x.txt": "raw",
        })
        self.assertEqual((first, second), (1, 1))

    def test_a_stale_index_fails_the_check(self):
        with tempfile.TemporaryDirectory() as root:
            tree(root, {"soak/2026-01-02-gpu-x-isolation-none.json": RUN})
            results_index.main(["x", "--results", root])
            tree(root, {"soak/2026-01-05-gpu-x-isolation-none.json":
                        dict(RUN, date="2026-01-05")})
            self.assertEqual(
                results_index.main(["x", "--check", "--results", root]), 1)


if __name__ == "__main__":
    unittest.main()
