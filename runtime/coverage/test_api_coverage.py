#!/usr/bin/env python3
"""The coverage checks of api_coverage.py fail when they should: a refused
function without a reason, a row that names nothing declared or only
served functions, an alias of a function that is not served, and a page
that differs from a fresh generation."""

import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "api_coverage.py")

TABLE = ("cudaMalloc\tcuda_runtime_api.h\tserved\t\n"
         "cudaThreadExit\tcuda_runtime_api.h\talias\tcudaDeviceReset\n"
         "cudaDeviceReset\tcuda_runtime_api.h\tserved\t\n"
         "cudaGraphicsMapResources\tcuda_runtime_api.h\tmissing\t\n"
         "cudaIpcGetMemHandle\tcuda_runtime_api.h\tmissing\t\n")

REFUSALS = """[graphics] remote
No display is shared.
cudaGraphics*
[ipc] remote
Handles name memory on the GPU's host.
cudaIpc*
"""


class ApiCoverageTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_tool(self, table, refusals, *extra):
        cmd = [sys.executable, SCRIPT,
               "--coverage", "cudart=" + self.write("cudart.tsv", table),
               "--refusals", self.write("refusals.txt", refusals)]
        return subprocess.run(cmd + list(extra), capture_output=True,
                              text=True)

    def generate(self, table=TABLE, refusals=REFUSALS):
        out = os.path.join(self.dir.name, "page.md")
        run = self.run_tool(table, refusals, "--out", out)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(out) as f:
            return f.read()

    def test_consistent_tables_make_a_page(self):
        page = self.generate()
        self.assertIn("| `cuda_runtime_api.h` | 5 | 2 | 1 | 2 | 0 | 60.0 % "
                      "| 100.0 % |", page)
        self.assertIn("- **ipc** (1): Handles name memory on the GPU's host. "
                      "`cudaIpcGetMemHandle`", page)
        self.assertIn("`cudaThreadExit` → `cudaDeviceReset`", page)

    def test_a_refusal_without_a_reason_fails(self):
        run = self.run_tool(TABLE, REFUSALS.split("[ipc]")[0], "--out",
                            os.devnull)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("cudaIpcGetMemHandle (cudart) is refused for no reason",
                      run.stderr)

    def test_a_row_naming_nothing_declared_fails(self):
        run = self.run_tool(TABLE, REFUSALS + "cudaNoSuchCall\n", "--out",
                            os.devnull)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("cudaNoSuchCall names no function the headers declare",
                      run.stderr)

    def test_a_row_naming_only_served_functions_fails(self):
        run = self.run_tool(TABLE, REFUSALS + "cudaMalloc\n", "--out",
                            os.devnull)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("cudaMalloc names only served functions", run.stderr)

    def test_an_alias_of_a_refused_function_fails(self):
        table = TABLE.replace("cudaDeviceReset\tcuda_runtime_api.h\tserved",
                              "cudaDeviceReset\tcuda_runtime_api.h\tmissing")
        run = self.run_tool(table, REFUSALS + "cudaDeviceReset\n", "--out",
                            os.devnull)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("alias cudaThreadExit: its target cudaDeviceReset is "
                      "not served", run.stderr)

    def test_a_stale_page_fails_the_check(self):
        page = self.generate()
        good = self.write("good.md", page)
        self.assertEqual(self.run_tool(TABLE, REFUSALS, "--check",
                                       good).returncode, 0)
        stale = self.write("stale.md", page.replace("60.0 %", "59.0 %"))
        run = self.run_tool(TABLE, REFUSALS, "--check", stale)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("is not what the tree makes", run.stderr)


if __name__ == "__main__":
    unittest.main()
