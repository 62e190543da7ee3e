#!/usr/bin/env python3
"""Tests of the include-cycle check: it finds a cycle, where it is, and
passes a tree without one."""

import os
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_include_cycles  # noqa: E402


def write_tree(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent(text))


class IncludeCycles(unittest.TestCase):
    def problems(self, files):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, files)
            return check_include_cycles.check(root, ["src"])

    def test_layers_that_include_downwards_pass(self):
        self.assertEqual(self.problems({
            "src/main.cpp": '#include "session/session.h"\n',
            "src/session/session.h": '#include "executor/executor.h"\n',
            "src/executor/executor.h": '#include "executor/ring.h"\n'
                                       '#include "rc/public.h"\n'
                                       '#include <vector>\n',
            "src/executor/ring.h": "",
        }), [])

    def test_a_cycle_is_reported_with_an_include_per_edge(self):
        problems = self.problems({
            "src/session/session.cpp": '#include "executor/executor.h"\n',
            "src/executor/executor.h": '\n#include "session/ring.h"\n',
            "src/session/ring.h": "",
        })
        self.assertEqual(problems, [
            "src: folders include each other: executor -> session -> "
            "executor",
            '  src/executor/executor.h:2: #include "session/ring.h"',
            '  src/session/session.cpp:1: #include "executor/executor.h"',
        ])

    def test_includes_relative_to_the_file_count_and_the_root_is_a_folder(self):
        problems = self.problems({
            "src/lobby.h": "",
            "src/main.cpp": '#include "admission/gate.h"\n',
            "src/admission/gate.h": '#include "../lobby.h"\n',
        })
        self.assertEqual(problems[0],
                         "src: folders include each other: . -> admission "
                         "-> .")


if __name__ == "__main__":
    unittest.main()
