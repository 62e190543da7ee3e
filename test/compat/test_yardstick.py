#!/usr/bin/env python3
"""Tests of compat/yardstick.py, the harness, without a GPU and without any
third-party suite (their definitions are kept outside this repository):
masks and comparison on canned outputs, loading and checking a suite
definition, the nvcc wrapper's argument handling, and, with --rc-server
and --build-dir, both halves end to end on stand-in suites this test
writes itself: the build half builds a small CUDA program with
remote-clang and collects it; the GPU half runs stand-in programs locally
and through `rc-server --test-device` over tcp and shm, merged into a
results file.

    test_yardstick.py [--rc-server BIN] [--build-dir DIR] [unittest options]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(REPO, "compat", "yardstick.py")
sys.path.insert(0, os.path.join(REPO, "compat"))

import yardstick  # noqa: E402

OPTIONS = {"--rc-server": None, "--build-dir": None}


def text(*path):
    with open(os.path.join(*path)) as f:
        return f.read()


def scratch(test):
    folder = tempfile.mkdtemp(prefix="rc-yardstick-test-")
    test.addCleanup(shutil.rmtree, folder, True)
    return folder


def write_suite(folder, name, body):
    """A suite definition file, as a user keeps one outside the repository."""
    path = os.path.join(folder, "suite_%s.py" % name)
    with open(path, "w") as f:
        f.write(textwrap.dedent(body))
    return path


def tool(*args, env=None):
    """yardstick.py run as a user runs it: (exit status, output)."""
    p = subprocess.run([sys.executable, TOOL] + list(args), env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


# Masks as definitions write them, on what such programs print: phase
# timings, a time and share breakdown, a results table of measurements.
PHASES = yardstick.Mask(r"^(?:Init|Exec|Total): (\S+)$", "phase times")
BREAKDOWN = yardstick.Mask(r"^\s*(\S+) s, +(\S+) |^(\S+) s$", "time and share of each phase")
TABLE = yardstick.Mask(r"^[^\t\n]+\t[^\t\n]*\t[^\t\n]*\t((?:[^\t\n]*\t)+)$", "measurements")
PROGRESS = yardstick.Mask(r"^\s*(\d+)% done$", "progress")

# (masks, first output, second output, equal after the masks?)
CANNED = [
    ([PHASES], "Kernel Executed 12 times\nInit: 0.100\nExec: 2.512\nTotal: 9.1\n",
     "Kernel Executed 12 times\nInit: 0.320\nExec: 0.951\nTotal: 4.7\n", True),
    ([PHASES], "Kernel Executed 12 times\nExec: 2.5\n", "Kernel Executed 13 times\nExec: 2.5\n",
     False),
    ([BREAKDOWN], " 0.000123456789 s,  1.234567890123 % : GPU: KERNEL\n0.010000000000 s\n",
     " 0.000223456789 s,  2.234567890123 % : GPU: KERNEL\n0.020000000000 s\n", True),
    ([BREAKDOWN], " 0.1 s,  1.2 % : GPU: KERNEL\n", " 0.1 s,  1.2 % : GPU: COPY\n", False),
    ([TABLE, PROGRESS], "Passed\ntest\tatts\tunits\tmedian\t\nRate\t\tGB/s\t1.2\t1.3\t0.1\t\n"
     "  10% done\n", "Passed\ntest\tatts\tunits\tmedian\t\nRate\t\tGB/s\t0.2\t0.3\t0.01\t\n"
     "  20% done\n", True),
    ([TABLE], "Rate\t\tGB/s\t1.2\t1.3\t\n", "Rate\t\tGB/s\tN/A\tN/A\t\n", False),
    ([TABLE], "Passed\n", "Failed\n", False),
    ([], "The final solution is: \n1.25 2.5 \n", "The final solution is: \n1.25 3.5 \n", False),
]


class Masks(unittest.TestCase):
    def test_canned_outputs(self):
        for masks, first, second, equal in CANNED:
            why = yardstick.compare(first, second, masks, 1e-5)
            self.assertEqual(why == "", equal, "%r vs %r: %r" % (first, second, why))

    def test_every_mask_is_exercised(self):
        """A mask no canned output needs would be one no one checked."""
        used = {m.pattern for masks, first, second, _ in CANNED for m in masks
                if m.apply(first) != first or m.apply(second) != second}
        for m in (PHASES, BREAKDOWN, TABLE, PROGRESS):
            self.assertIn(m.pattern, used)

    def test_masks_hide_numbers_only(self):
        m = yardstick.Mask(r"^x (.*)$", "")
        self.assertEqual(m.apply("x 1.5 apples, N/A, -2e-3\ny 3\n"),
                         "x # apples, N/A, #\ny 3\n")
        self.assertEqual(yardstick.Mask(r"t=\d+", "").apply("t=5 u=6"), "t=# u=6")

    def test_difference_names_the_line(self):
        why = yardstick.compare("a\nb 1\n", "a\nb 2\n", [], 1e-5)
        self.assertEqual(why, "output line 2: expected 'b 1', got 'b 2'")
        self.assertEqual(yardstick.compare("a\n", "a\nb\n", [], 0), "output: 1 lines expected, "
                                                                      "2 got")


class Files(unittest.TestCase):
    def test_text_files_as_text_others_byte_for_byte(self):
        p = yardstick.Program("p", ".", ("p",), masks=[yardstick.Mask(r"^t (\S+)$", "")])
        self.assertEqual(yardstick.compare_file("a", b"x 1\nt 5\n", b"x 1\nt 9\n", p), "")
        self.assertIn("a line 1", yardstick.compare_file("a", b"x 1\n", b"x 2\n", p))
        self.assertEqual(yardstick.compare_file("r", b"\xff\x01", b"\xff\x02", p),
                         "r differs from byte 1 on")
        self.assertEqual(yardstick.compare_file("r", b"\xff", b"\xff\x00", p),
                         "r: 1 bytes expected, 2 got")


class Numbers(unittest.TestCase):
    def test_integers_exactly(self):
        self.assertTrue(yardstick.numbers_equal("12", "12", 0.5))
        self.assertFalse(yardstick.numbers_equal("12", "13", 0.5))

    def test_floats_within_tolerance_or_last_digit(self):
        self.assertTrue(yardstick.numbers_equal("1.000001", "1.000002", 1e-5))
        self.assertTrue(yardstick.numbers_equal("1.0", "1.1", 1e-5))  # 1.0499 and 1.0501
        self.assertFalse(yardstick.numbers_equal("1.0", "1.2", 1e-5))
        self.assertTrue(yardstick.numbers_equal("0.000000", "0.000001", 0))
        self.assertFalse(yardstick.numbers_equal("0.000000", "0.000002", 0))
        self.assertTrue(yardstick.numbers_equal("1.5e-3", "1.6e-3", 0))
        self.assertFalse(yardstick.numbers_equal("1.5e-3", "1.7e-3", 0))

    def test_nan_and_inf(self):
        self.assertTrue(yardstick.numbers_equal("nan", "-nan", 0))
        self.assertFalse(yardstick.numbers_equal("nan", "1.0", 0))
        self.assertFalse(yardstick.numbers_equal("inf", "1e30", 1e-5))
        self.assertTrue(yardstick.lines_equal("a 1.0 b", "a 1.0000001 b", 1e-5))
        self.assertFalse(yardstick.lines_equal("a 1.0 b", "a 1.0 c", 1e-5))


SMALL_SUITE = """
    from yardstick import Program, Run

    NAME = "small"
    PORTS = 28000
    TITLE = "Small"
    TREE = ()
    PROGRAMS = [Program("one", "one", ("one",), [Run("one", [])], answer="what it prints")]
"""


class Definitions(unittest.TestCase):
    """A definition is found by path or by name, and one that the harness
    could not use is refused up front with what is wrong with it."""

    def refused(self, spec, env=None):
        """load_suite's message for a definition it refuses."""
        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update(env if env is not None else saved)
        try:
            with self.assertRaises(SystemExit) as refused:
                yardstick.load_suite(spec)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        return str(refused.exception.code)

    def test_by_path_with_defaults_for_the_hooks(self):
        suite = yardstick.load_suite(write_suite(scratch(self), "small", SMALL_SUITE))
        self.assertEqual((suite.NAME, [p.name for p in suite.PROGRAMS]), ("small", ["one"]))
        self.assertIsInstance(suite.PROGRAMS[0], yardstick.Program)
        self.assertEqual(suite.make_vars(None), {})
        self.assertEqual(suite.prepare("tree", None, 1), (True, "", ""))
        self.assertEqual(suite.fails_with_nvcc_too("error: x"), "")

    def test_by_name_from_the_folder_of_definitions(self):
        folder = scratch(self)
        write_suite(folder, "small", SMALL_SUITE)
        saved = os.environ.get(yardstick.SUITES_FOLDER)
        os.environ[yardstick.SUITES_FOLDER] = folder
        try:
            self.assertEqual(yardstick.load_suite("small").TITLE, "Small")
        finally:
            if saved is None:
                del os.environ[yardstick.SUITES_FOLDER]
            else:
                os.environ[yardstick.SUITES_FOLDER] = saved
        env = {k: v for k, v in os.environ.items() if k != yardstick.SUITES_FOLDER}
        self.assertIn("RC_YARDSTICK_SUITES names no folder", self.refused("small", env))
        self.assertIn("no suite definition %s/suite_other.py" % folder,
                      self.refused("other", dict(env, RC_YARDSTICK_SUITES=folder)))

    def test_helpers_beside_a_definition_are_importable(self):
        folder = scratch(self)
        with open(os.path.join(folder, "small_inputs.py"), "w") as f:
            f.write("WORDS = ('made', 'beside')\n")
        path = write_suite(folder, "small", SMALL_SUITE + "    import small_inputs\n"
                           "    TITLE = ' '.join(small_inputs.WORDS)\n")
        self.assertEqual(yardstick.load_suite(path).TITLE, "made beside")

    def test_unusable_definitions_are_refused_with_the_reason(self):
        folder = scratch(self)
        broken = write_suite(folder, "broken", """
            from yardstick import Mask, Program, Run

            NAME = "broken"
            PORTS = 28100
            TITLE = "Broken"
            TREE = ()
            PROGRAMS = [
                Program("a", "a", ("a",), [Run("b", [])], answer="x"),
                Program("a", "a2", ("a2",), no_run_reason="twice"),
                Program("c", "c", (), [Run("c", [])], answer="x"),
                Program("d", "d", ("d",), answer="x"),
                Program("e", "e", ("e",), [Run("e", [])]),
                Program("f", "f", ("f",), [Run("f", [])], answer="x",
                        masks=[Mask("(unclosed", "")]),
            ]
        """)
        why = self.refused(broken)
        for problem in ("a: run of b, which is not one of its exes", "two programs named a",
                        "c: no executables", "d: runs or a no_run_reason, one of them",
                        "e: no answer", "f: pattern '(unclosed'"):
            self.assertIn(problem, why)
        self.assertIn("PROGRAMS is not a list of Program",
                      self.refused(write_suite(folder, "bare", "NAME = 'bare'\nPORTS = 1\n"
                                                               "TITLE = 'x'\nTREE = ()\n")))
        misnamed = write_suite(folder, "misnamed", SMALL_SUITE)
        self.assertIn("NAME is 'small', so the file must be suite_small.py",
                      self.refused(misnamed))
        failing = write_suite(folder, "failing", "import no_such_module_here\n")
        self.assertIn("suite_failing.py: ModuleNotFoundError", self.refused(failing))


class NvccWrapper(unittest.TestCase):
    def wrapped(self, *args):
        fake = os.path.join(scratch(self), "nvcc")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\nfor a; do echo \"$a\"; done\n")
        os.chmod(fake, 0o755)
        out = subprocess.run(["bash", os.path.join(REPO, "compat", "nvcc-one-arch.sh")] +
                             list(args), stdout=subprocess.PIPE, text=True, check=True,
                             env=dict(os.environ, RC_COMPAT_NVCC=fake, RC_COMPAT_ARCH="90"))
        return out.stdout.split()

    def test_old_architectures_become_the_gpus(self):
        ours = "--generate-code=arch=compute_90,code=[compute_90,sm_90]"
        self.assertEqual(self.wrapped("-arch", "sm_20", "-O2", "a.cu"), ["-O2", "a.cu", ours])
        self.assertEqual(self.wrapped("-arch=sm_13", "a.cu"), ["a.cu", ours])
        self.assertEqual(self.wrapped("--gpu-architecture=compute_20",
                                      "--gpu-code=compute_20", "x.cu"), ["x.cu", ours])

    def test_the_gpus_own_and_plain_commands_stay(self):
        self.assertEqual(self.wrapped("-gencode=arch=compute_90,code=sm_90", "-c", "s.cu"),
                         ["-gencode=arch=compute_90,code=sm_90", "-c", "s.cu"])
        self.assertEqual(self.wrapped("--generate-code=arch=compute_50,code=[compute_50,sm_50]",
                                      "-gencode", "arch=compute_90,code=sm_90", "y.cu"),
                         ["-gencode", "arch=compute_90,code=sm_90", "y.cu"])
        self.assertEqual(self.wrapped("-c", "plain.cu"), ["-c", "plain.cu"])


# The build half's stand-in suite: a tree of three Makefile programs, one a
# real CUDA program, and a definition that prepares the tree, passes make
# variables and puts one failure down to nvcc.
BUILT_SUITE = """
    import os

    from yardstick import Program, Run

    NAME = "built"
    PORTS = 28200
    TITLE = "Built"
    TREE = ("progs", "data.txt")


    def make_vars(toolchain):
        return {"CUDA_DIR": toolchain.cuda_dir}


    def prepare(tree, toolchain, timeout):
        with open(os.path.join(tree, "progs", "prepared.mk"), "w") as f:
            f.write("PREPARED = yes\\n")
        return True, "", "prepared\\n"


    def fails_with_nvcc_too(error):
        return "an old API" if "removed API" in error else ""


    PROGRAMS = [
        Program("twice", "progs/twice", ("twice",), [Run("twice", [])],
                make_vars={"EXTRA": "-DEXTRA=3"}, answer="the doubled numbers"),
        Program("old", "progs/old", ("old",), [Run("old", [])], answer="x"),
        Program("broken", "progs/broken", ("broken",), [Run("broken", [])], answer="x"),
    ]
"""

TWICE_CU = r"""#include <cstdio>
__global__ void twice(int *x) { x[threadIdx.x] *= 2 * EXTRA; }
int main() {
  int *d;
  cudaMalloc(&d, 4 * sizeof(int));
  twice<<<1, 4>>>(d);
  printf("%d\n", (int)cudaDeviceSynchronize());
}
"""

MAKEFILES = {
    # Built only where prepare() ran and CUDA_DIR names the toolkit whose
    # nvcc is first in PATH.
    "twice": "include ../prepared.mk\n"
             "twice: twice.cu\n"
             "\ttest \"$(PREPARED)\" = yes && test \"$$(command -v nvcc)\" = "
             "\"$(CUDA_DIR)/bin/nvcc\"\n"
             "\tnvcc $(EXTRA) -o twice twice.cu\n",
    "old": "old:\n\t@echo 'old.cu:1:1: error: removed API'; exit 1\n",
    "broken": "broken:\n\t@echo 'broken.cu:2:3: error: something else'; exit 1\n",
}


@unittest.skipUnless(OPTIONS["--build-dir"] or "--build-dir" in sys.argv, "needs --build-dir")
class BuildHalf(unittest.TestCase):
    """`build --collect` with remote-clang on a stand-in suite: the rows and
    summary, the definition's hooks, what is collected for the GPU
    machine."""

    def test_build_and_collect(self):
        work = scratch(self)
        src = os.path.join(work, "src")
        for name, makefile in MAKEFILES.items():
            os.makedirs(os.path.join(src, "progs", name))
            with open(os.path.join(src, "progs", name, "Makefile"), "w") as f:
                f.write(makefile)
        with open(os.path.join(src, "progs", "twice", "twice.cu"), "w") as f:
            f.write(TWICE_CU)
        with open(os.path.join(src, "data.txt"), "w") as f:
            f.write("1 2 3\n")
        os.makedirs(os.path.join(src, "not-in-tree"))
        suite = write_suite(work, "built", BUILT_SUITE)
        results = os.path.join(work, "results.json")
        status, out = tool("build", "--suite", suite, "--src", src, "--out", results,
                           "--tag", "t1", "--build-dir", OPTIONS["--build-dir"],
                           "--work", os.path.join(work, "build"),
                           "--collect", os.path.join(work, "collected"))
        self.assertEqual(status, 0, out)
        with open(results) as f:
            data = json.load(f)
        rows = {r["program"]: r for r in data["rows"]}
        self.assertTrue(rows["twice"]["builds"], rows["twice"])
        self.assertEqual(rows["old"]["fails_with_nvcc_too"], "an old API")
        self.assertIn("error: something else", rows["broken"]["build_error"])
        self.assertEqual(data["summary"], "built 1 of 3 programs; 1 fail for a reason nvcc "
                                          "shares here, so 1 of 2 = 50.0 %")
        self.assertIn("| old | no (nvcc too) |", text(work, "results.md"))
        self.assertIn("prepared", text(work, "build", "built", "logs", "prepare.log"))
        collected = os.path.join(work, "collected", "built")
        self.assertTrue(os.access(os.path.join(collected, "remote", "twice", "twice"), os.X_OK))
        manifest = os.path.join(collected, "remote", "twice", "twice.rcm")
        self.assertGreater(os.path.getsize(manifest), 0)
        self.assertEqual([r["program"] for r in json.loads(text(collected, "remote",
                                                                "rows.json"))],
                         ["twice", "old", "broken"])
        # The suite's TREE, pristine, for the nvcc build and the runs' data.
        self.assertEqual(sorted(os.listdir(os.path.join(collected, "src"))), ["data.txt",
                                                                             "progs"])
        self.assertFalse(os.path.exists(os.path.join(collected, "src", "progs", "twice",
                                                     "twice")))


# The GPU half's stand-in suite: shell scripts and one C program that print
# what a suite's programs print, so that everything but the GPU is
# exercised: inputs, working folders, rc-server per transport, masks, the
# local runs' self-check, the comparison and the results' rows.
DRYRUN_SUITE = """
    import os

    from yardstick import Mask, Program, Run

    NAME = "dryrun"
    PORTS = 27000
    TITLE = "Dry run"
    TREE = ()


    def fails_with_nvcc_too(error):
        return "no nvcc here" if "nvcc too" in error else ""


    def numbers(root, src):
        \"\"\"An input file the program reads from ../data.\"\"\"
        os.makedirs(os.path.join(root, "data"), exist_ok=True)
        with open(os.path.join(root, "data", "numbers.txt"), "w") as f:
            f.write("3\\n4\\n5\\n")


    EXEC = Mask(r"^Exec: (\\S+)$", "time")
    ANSWER = "what it prints"

    PROGRAMS = [
        Program("steady", "steady", ("steady",), [Run("steady", ["7"])], masks=[EXEC],
                answer=ANSWER),
        Program("wrong", "wrong", ("wrong",), [Run("wrong", [])], masks=[EXEC], answer=ANSWER),
        Program("unmasked", "unmasked", ("unmasked",), [Run("unmasked", [])], answer=ANSWER),
        Program("writer", "writer", ("writer",),
                [Run("writer", ["../data/numbers.txt"], files=("result.txt",), inputs=numbers,
                     cwd="work")], answer="result.txt"),
        Program("seeded", "seeded", ("seeded",), [Run("seeded", [], fixed_time=True)],
                answer=ANSWER),
        Program("crash", "crash", ("crash",), [Run("crash", [])], answer=ANSWER),
        Program("nobuild", "nobuild", ("nobuild",), [Run("nobuild", [])], answer=ANSWER),
        Program("norun", "norun", ("norun",), no_run_reason="not runnable here"),
        Program("selfcheck", "selfcheck", ("selfcheck",), [Run("selfcheck", [])],
                fails_if=r"^Failed$", answer=ANSWER),
        Program("noref", "noref", ("noref",), [Run("noref", [])], fails_if=r"^Failed$",
                answer=ANSWER),
    ]
"""

STAND_INS = {
    "steady": 'echo "answer $1"; echo "Exec: 0.$(date +%N)"',
    "wrong": 'if [ -n "$RC_SERVER" ]; then echo "answer 2"; else echo "answer 1"; fi',
    "unmasked": 'echo "value $(date +%N)"',
    "writer": 'awk \'{ s += $1 } END { print "sum", s }\' "$1" > result.txt; echo done',
    "crash": '[ -n "$RC_SERVER" ] && exit 3; echo fine',
    "selfcheck": 'if [ -n "$RC_SERVER" ]; then echo Failed; else echo Passed; fi',
    "noref": 'echo Passed',
}


@unittest.skipUnless(OPTIONS["--rc-server"] or "--rc-server" in sys.argv, "needs --rc-server")
class DryRun(unittest.TestCase):
    """The GPU half end to end with stand-ins for the programs and rc-server's
    host test device for the GPU."""

    def stand_ins(self, work, local, remote):
        """The programs' executables, as local-build and collect leave them,
        and build's rows."""
        rows = []
        for name in ("steady", "wrong", "unmasked", "writer", "seeded", "crash", "nobuild",
                     "norun", "selfcheck", "noref"):
            built = name != "nobuild"
            rows.append({"program": name, "suite": "dryrun", "builds": built,
                         "build_error": "" if built else "error: nvcc too",
                         "local": None, "remote_tcp": None, "remote_shm": None})
            if not built:
                continue
            folders = [os.path.join(remote, name)]
            if name != "noref":  # nvcc did not build it: no local reference
                folders.append(os.path.join(local, "tree", name))
            for folder in folders:
                os.makedirs(folder)
                exe = os.path.join(folder, name)
                if name == "seeded":
                    source = os.path.join(work, "seeded.c")
                    # Prints the name it was run by (the same local and
                    # remote) and fails unless time() is the fixed one.
                    with open(source, "w") as f:
                        f.write("#include <stdio.h>\n#include <time.h>\n"
                                "int main(int argc, char **argv) { puts(argv[0]);\n"
                                "  return time(0) == 1700000000 ? 0 : 5; }\n")
                    subprocess.run(["cc", "-o", exe, source], check=True)
                else:
                    with open(exe, "w") as f:
                        f.write("#!/bin/sh\n%s\n" % STAND_INS.get(name, "echo ok"))
                    os.chmod(exe, 0o755)
        return rows

    def test_runs_compare_and_merge(self):
        work = scratch(self)
        suites = os.path.join(work, "suites")
        os.makedirs(suites)
        suite = write_suite(suites, "dryrun", DRYRUN_SUITE)
        local = os.path.join(work, "dryrun", "local")
        remote, rc = os.path.join(work, "remote"), os.path.join(work, "rc")
        os.makedirs(os.path.join(rc, "bin"))
        os.makedirs(os.path.join(rc, "lib"))
        os.symlink(OPTIONS["--rc-server"], os.path.join(rc, "bin", "rc-server"))
        rows = self.stand_ins(work, local, remote)
        os.makedirs(os.path.join(remote, "lib"))
        with open(os.path.join(remote, "rows.json"), "w") as f:
            json.dump(rows, f)
        results = os.path.join(work, "results.json")
        with open(results, "w") as f:
            json.dump({"suite": "dryrun", "tag": "test", "rows": rows}, f)
        status, out = tool("run", "--suite", suite, "--src", work, "--remote", remote,
                           "--local", local, "--rc", rc, "--work", work,
                           "--out", os.path.join(work, "run.json"), "--jobs", "3",
                           "--server-args=--test-device")
        self.assertEqual(status, 0, out)
        # merge finds the definition by the results' suite name.
        status, out = tool("merge", "--out", results, "--run", os.path.join(work, "run.json"),
                           env=dict(os.environ, RC_YARDSTICK_SUITES=suites))
        self.assertEqual(status, 0, out)
        with open(results) as f:
            data = json.load(f)
        got = {r["program"]: r for r in data["rows"]}
        for name in ("steady", "writer", "seeded"):
            self.assertEqual([got[name][k] for k in ("local", "remote_tcp", "remote_shm")],
                             ["pass"] * 3, got[name])
        self.assertEqual(got["wrong"]["remote_tcp"], "fail")
        self.assertIn("stdout line 1: expected 'answer 1', got 'answer 2'",
                      got["wrong"]["remote_shm_detail"])
        self.assertEqual(got["unmasked"]["local"], "fail")
        self.assertIn("two local runs differ", got["unmasked"]["local_detail"])
        self.assertEqual(got["crash"]["remote_tcp"], "fail")
        self.assertIn("exit 3", got["crash"]["remote_tcp_detail"])
        self.assertEqual([got["nobuild"][k] for k in ("local", "remote_tcp")],
                         ["no-build", "no-build"])
        self.assertEqual(got["norun"]["run_skip_reason"], "not runnable here")
        self.assertEqual(got["selfcheck"]["remote_tcp"], "fail")
        self.assertIn("its own check failed: Failed", got["selfcheck"]["remote_tcp_detail"])
        self.assertEqual([got["noref"][k] for k in ("local", "remote_tcp")], ["no-build", "pass"])
        self.assertIn("its own check passed", got["noref"]["remote_tcp_detail"])
        self.assertIn("so 9 of 9", data["summary"])
        self.assertIn("6 pass locally; of those 3 pass over tcp", data["run_summary"])
        self.assertIn("of 1 without a local reference (nvcc did not build them), 1 run over tcp",
                      data["run_summary"])
        table = text(work, "results.md")
        self.assertIn("| wrong | yes | pass | fail | fail |", table)


if __name__ == "__main__":
    for option in OPTIONS:
        if option in sys.argv:
            i = sys.argv.index(option)
            OPTIONS[option] = os.path.abspath(sys.argv[i + 1])
            del sys.argv[i:i + 2]
    unittest.main()
