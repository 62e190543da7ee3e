#!/usr/bin/env python3
"""Tests of the layering checks: each finds what it should, where it is,
and passes a tree without it."""

import json
import os
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_class_sizes  # noqa: E402
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


class ClassSizes(unittest.TestCase):
    def test_ceilings_are_read_and_bad_lines_named(self):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, {"c.txt": "# comment\nrc::A 50  # why\n"
                                       "rc::B many\n"})
            ceilings, problems = check_class_sizes.parse_ceilings(
                os.path.join(root, "c.txt"))
        self.assertEqual(ceilings, {"rc::A": 50})
        self.assertEqual(len(problems), 1)
        self.assertIn("c.txt:3: not `NAME COUNT`", problems[0])

    def test_judge_is_a_ratchet(self):
        classes = {("rc::Big", "/r/a.h"): 41, ("rc::Ok", "/r/a.h"): 40,
                   ("rc::Listed", "/r/b.h"): 60,
                   ("rc::Shrunk", "/r/b.h"): 45}
        ceilings = {"rc::Listed": 59, "rc::Shrunk": 50, "rc::Gone": 70}
        problems, notes = check_class_sizes.judge(classes, ceilings, "/r")
        self.assertEqual(problems, [
            "rc::Big (a.h): 41 member functions, more than 40: split it",
            "rc::Listed (b.h): 60 member functions, over its ceiling of 59: "
            "move the new work into a class of its own",
            "ceiling list: rc::Gone is no class of the checked folders any "
            "more: remove its line",
        ])
        self.assertEqual(notes, ["rc::Shrunk: 45 member functions, under its "
                                 "ceiling of 50: lower the ceiling to 45"])

    def test_counts_from_the_ast(self):
        cindex = check_class_sizes.load_clang()
        self.assertIsNotNone(cindex, "libclang's Python bindings are missing "
                                     "(scripts/setup.sh)")
        methods = "".join(f"  void m{i}();\n" for i in range(38))
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, {
                "lib/big.h": "namespace rc {\nclass Big {\npublic:\n"
                             "  Big();\n  ~Big();\n"
                             "  Big(const Big &) = delete;\n"
                             "  template <class T> void each(T t);\n"
                             + methods +
                             "  struct Inner { void a(); void b(); };\n"
                             "};\n}\n",
                "lib/use.cpp": '#include "big.h"\n'
                               "void rc::Big::m0() {}\n"
                               "namespace { struct Local { int f(); }; }\n",
                "other/skip.cpp": "struct NotChecked { void f(); };\n",
            })
            db = [{"directory": root, "file": f"{root}/{f}",
                   "arguments": ["c++", "-std=c++17", "-c", f"{root}/{f}"]}
                  for f in ("lib/use.cpp", "other/skip.cpp")]
            with open(os.path.join(root, "compile_commands.json"), "w") as f:
                json.dump(db, f)
            classes, parsed, problems = check_class_sizes.measure(
                root, root, ["lib/"], cindex)
        counts = {name: n for (name, _), n in classes.items()}
        # constructor, destructor, the member template, 38 methods; not the
        # deleted copy constructor, not Inner's two.
        self.assertEqual(counts, {"rc::Big": 41, "rc::Big::Inner": 2,
                                  "(anonymous)::Local": 1})
        self.assertEqual((parsed, problems), (1, []))


if __name__ == "__main__":
    unittest.main()
