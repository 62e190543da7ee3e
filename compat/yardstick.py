#!/usr/bin/env python3
"""Builds and runs a public GPU benchmark suite other than cuda-samples the
way cuda-samples is measured: every program built with remote-clang here,
built again with nvcc on the GPU machine as the reference, run locally
there, then remotely over tcp and over shm, each remote run through an
rc-server of its own.

What a suite's programs are, how each is built and run and what of its
output is masked comes from the suite's definition, a Python file
(suite_<name>.py) given by path, or by name from the folder
$RC_YARDSTICK_SUITES. Definitions say how to build third-party code, so
they are kept outside this repository, like the suites themselves;
docs/yardsticks.md ("Rodinia and SHOC") gives their format.

Such suites rarely check themselves, so a remote run passes when it exits
as the local run did and its output (stdout and the files the program
writes) equals the local run's after the program's masks, which hide the
numbers that legitimately differ between runs (timings, throughput). Masks
hide numbers only, never words: a "Failed" or "N/A" still shows. Floats are
equal within the program's relative tolerance plus one unit of their last
printed digit. The local program runs twice: output that differs
between two local runs after masking is the local run's failure (a mask is
missing), so that no remote run is blamed for it.

    here:        yardstick.py build --suite S --src DIR --out FILE.json
                     [--only REGEX] [--collect DEST]
                 yardstick.py collect --suite S --src DIR --out FILE.json --dest DEST
    GPU machine: yardstick.py local-build --suite S --src DIR --work DIR
                 yardstick.py run --suite S --src DIR --remote DIR
                     --local DIR --rc DIR --work DIR --out RUN.json
    either:      yardstick.py merge --out FILE.json --run RUN.json [--suite S]
                 yardstick.py report --out FILE.json [--suite S]

S is a definition's path, or a name found in $RC_YARDSTICK_SUITES. Python 3
stdlib only.
"""
import argparse
import concurrent.futures
import dataclasses
import datetime
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Callable, Optional

import build_samples
import run_samples

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
ARCH = os.environ.get("RC_COMPAT_ARCH", "90")


@dataclasses.dataclass
class Mask:
    """Numbers a program prints that legitimately differ from run to run.
    Every number inside the pattern's groups (the whole match where it has
    none) becomes '#'; the words around them are still compared."""
    pattern: str
    why: str

    def apply(self, text):
        regex = re.compile(self.pattern, re.M)
        out, last = [], 0
        for m in regex.finditer(text):
            spans = ([m.span(g) for g in range(1, regex.groups + 1) if m.start(g) >= 0]
                     if regex.groups else [m.span()])
            for start, end in spans:
                out.append(text[last:start])
                out.append(NUMBER.sub("#", text[start:end]))
                last = end
        out.append(text[last:])
        return "".join(out)


@dataclasses.dataclass
class Run:
    """One invocation: the executable (relative to the program's build
    folder), its arguments, the files it writes that hold its answer
    (glob patterns, relative to its working folder), and how its inputs are
    made. `inputs(root, src)` writes them under root, the folder that
    stands for the suite's root; the run's working folder is `cwd` below it
    (the program's own folder, where its relative data paths lead)."""
    exe: str
    args: list
    files: tuple = ()
    inputs: Optional[Callable] = None
    cwd: str = "."
    timeout: int = 120
    # The program seeds its random numbers from time(): the runs get a
    # time() that always answers the same second (compat/fixed_time.c).
    fixed_time: bool = False


@dataclasses.dataclass
class Program:
    """A program of the suite: where its build runs (`make` in `path`, with
    `target` and `make_vars`), the executables it makes, how it runs, what
    of its output is masked, and what its answer is (for the docs)."""
    name: str
    path: str
    exes: tuple
    runs: list = dataclasses.field(default_factory=list)
    target: str = ""
    make_vars: dict = dataclasses.field(default_factory=dict)
    masks: list = dataclasses.field(default_factory=list)
    rtol: float = 1e-5
    answer: str = ""
    no_run_reason: str = ""
    # The program's own check: a line of its output this matches fails the
    # run in every configuration, with or without a local run to compare.
    fails_if: str = ""


# Integers, decimals, exponents, nan and inf, as printf writes them.
NUMBER = re.compile(r"[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|(?:nan|inf)(?:inity)?)",
                    re.I)


class Toolchain:
    """The CUDA a build uses: remote-clang's toolkit overlay here, or the
    GPU machine's nvcc behind compat/nvcc-one-arch.sh (a toolkit folder of
    links whose nvcc keeps one architecture). A build finds it as a
    toolkit: its bin/ first in PATH and its root passed as the suite's
    toolkit variable (Rodinia's CUDA_DIR)."""

    def __init__(self, kind, cuda_dir, rc_link=None):
        self.kind, self.cuda_dir, self.rc_link = kind, cuda_dir, rc_link
        self.env = dict(os.environ, PATH=os.path.join(cuda_dir, "bin") + ":" + os.environ["PATH"])

    @staticmethod
    def remote_clang(build_dir):
        overlay = os.path.join(build_dir, "cuda-overlay")
        if not os.path.isfile(os.path.join(overlay, "bin", "nvcc")):
            sys.exit("yardstick.py: no %s/bin/nvcc (build remote-clang first)" % overlay)
        return Toolchain("remote-clang", overlay, os.path.join(build_dir, "bin", "rc-link"))

    @staticmethod
    def nvcc(work):
        """A toolkit folder of links to the machine's CUDA whose bin/nvcc is
        compat/nvcc-one-arch.sh: old suites ask for sm_13 ... sm_35, which
        CUDA 13 refuses, and the GPU runs one architecture anyway; and which
        declares the calls CUDA 13 removed (compat/cuda13-aliases.h)."""
        real = shutil.which("nvcc")
        if not real:
            sys.exit("yardstick.py: no nvcc in PATH")
        root = os.path.dirname(os.path.dirname(os.path.realpath(real)))
        shadow = os.path.join(work, "cuda")
        shutil.rmtree(shadow, ignore_errors=True)
        os.makedirs(os.path.join(shadow, "bin"))
        for entry in os.listdir(root):
            if entry != "bin":
                os.symlink(os.path.join(root, entry), os.path.join(shadow, entry))
        for tool in os.listdir(os.path.join(root, "bin")):
            if tool != "nvcc":
                os.symlink(os.path.join(root, "bin", tool), os.path.join(shadow, "bin", tool))
        # compat/cuda13-aliases.h: the cudaThread* calls CUDA 13 removed.
        with open(os.path.join(shadow, "bin", "nvcc"), "w") as f:
            f.write("#!/bin/sh\nRC_COMPAT_NVCC='%s' exec '%s' -include '%s' \"$@\"\n" %
                    (os.path.join(root, "bin", "nvcc"), os.path.join(HERE, "nvcc-one-arch.sh"),
                     os.path.join(HERE, "cuda13-aliases.h")))
        os.chmod(os.path.join(shadow, "bin", "nvcc"), 0o755)
        return Toolchain("nvcc", shadow)


SUITES_FOLDER = "RC_YARDSTICK_SUITES"


def load_suite(spec):
    """The suite definition `spec` names: a path to its file, or a name
    whose suite_<name>.py is in the folder $RC_YARDSTICK_SUITES names. The
    definition's folder joins the import path, so that it may import
    helpers kept beside it (its input makers). A definition that cannot be
    used stops the tool with what is wrong with it."""
    path = spec
    if not spec.endswith(".py") and os.sep not in spec:
        folder = os.environ.get("RC_YARDSTICK_SUITES", "")
        if not folder:
            sys.exit("yardstick.py: suite '%s' is a name, and %s names no folder of suite "
                     "definitions: give the definition's path (.../suite_%s.py) or set %s"
                     % (spec, SUITES_FOLDER, spec, SUITES_FOLDER))
        path = os.path.join(folder, "suite_%s.py" % spec)
    if not os.path.isfile(path):
        sys.exit("yardstick.py: no suite definition %s" % path)
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    loader = importlib.util.spec_from_file_location(
        os.path.splitext(os.path.basename(path))[0], path)
    suite = importlib.util.module_from_spec(loader)
    try:
        loader.loader.exec_module(suite)
    except Exception as e:  # the definition's own error, named with its file
        sys.exit("yardstick.py: suite definition %s: %s: %s" % (path, type(e).__name__, e))
    for hook, default in DEFAULT_HOOKS.items():
        if not hasattr(suite, hook):
            setattr(suite, hook, default)
    problems = suite_problems(suite, path)
    if problems:
        sys.exit("yardstick.py: suite definition %s: %s" % (path, "; ".join(problems)))
    return suite


# What a definition may leave out: no make variables, nothing to prepare
# before the programs' builds, no build failure put down to nvcc too.
DEFAULT_HOOKS = {
    "make_vars": lambda toolchain: {},
    "prepare": lambda tree, toolchain, timeout: (True, "", ""),
    "fails_with_nvcc_too": lambda error: "",
}


def suite_problems(suite, path):
    """What makes a definition unusable, each said in a few words: the
    attributes the harness reads, and programs that could not be built,
    run or compared as written."""
    problems = []
    for attribute, kinds, what in (("NAME", str, "a name"), ("TITLE", str, "a title"),
                                   ("PORTS", int, "the first tcp port"),
                                   ("TREE", (tuple, list), "a tuple of folders"),
                                   ("PROGRAMS", list, "a list of Program")):
        if not isinstance(getattr(suite, attribute, None), kinds):
            problems.append("%s is not %s" % (attribute, what))
    if problems:
        return problems
    # device-run.sh finds a suite's definition by the name its results carry.
    if os.path.basename(path) != "suite_%s.py" % suite.NAME:
        problems.append("NAME is '%s', so the file must be suite_%s.py" % (suite.NAME, suite.NAME))
    names = set()
    for p in suite.PROGRAMS:
        if not isinstance(p, Program):
            problems.append("a PROGRAMS entry is not a yardstick.Program: %r" % (p,))
            continue
        if p.name in names:
            problems.append("two programs named %s" % p.name)
        names.add(p.name)
        if not p.exes:
            problems.append("%s: no executables" % p.name)
        if bool(p.runs) == bool(p.no_run_reason):
            problems.append("%s: runs or a no_run_reason, one of them" % p.name)
        if not (p.answer or p.no_run_reason):
            problems.append("%s: no answer (what its runs are compared by)" % p.name)
        problems += ["%s: run of %s, which is not one of its exes" % (p.name, r.exe)
                     for r in p.runs if r.exe not in p.exes]
        for pattern in [m.pattern for m in p.masks] + ([p.fails_if] if p.fails_if else []):
            try:
                re.compile(pattern)
            except re.error as e:
                problems.append("%s: pattern %r: %s" % (p.name, pattern, e))
    return problems


# --- building ---------------------------------------------------------------

def copy_tree(suite, src, dest):
    """The suite's folders that builds and runs need (suite.TREE), copied
    fresh: the builds write into their source folders."""
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    for part in suite.TREE:
        if os.path.isdir(os.path.join(src, part)):
            shutil.copytree(os.path.join(src, part), os.path.join(dest, part), symlinks=True,
                            dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))
        elif os.path.isfile(os.path.join(src, part)):
            shutil.copy2(os.path.join(src, part), os.path.join(dest, part))


def build_program(suite, program, tree, toolchain, timeout):
    """(builds, first error line, log) of one program, in the copied tree."""
    cmd = ["make", "-C", os.path.join(tree, program.path)]
    cmd += [program.target] if program.target else []
    variables = dict(suite.make_vars(toolchain), **program.make_vars)
    cmd += ["%s=%s" % kv for kv in sorted(variables.items())]
    rc, log = build_samples.run(cmd, timeout, toolchain.env)
    log = " ".join(cmd) + "\n" + log
    missing = [e for e in program.exes if not is_executable(os.path.join(tree, program.path, e))]
    if rc != 0:
        return False, first_error(log), log
    if missing:
        return False, "no executable %s was built" % ", ".join(missing), log
    if toolchain.kind == "remote-clang":
        for exe in program.exes:
            ok, why = ensure_manifest(os.path.join(tree, program.path, exe), toolchain)
            if not ok:
                return False, why, log
    return True, "", log


def first_error(log):
    """build_samples.py's first error line, or, where the compilers said
    none, make's own reason (a file a Makefile includes that is missing)."""
    line = build_samples.first_error(log)
    if re.search(r"error|undefined|fatal", line, re.I):
        return line
    m = re.search(r"(?m)^.*(?:No such file or directory|No rule to make target).*$", log)
    return m.group(0).strip()[:400] if m else line


def is_executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def ensure_manifest(exe, toolchain):
    """A program linked by gcc rather than remote-clang's drivers keeps its
    manifest fragments in the binary; `rc-link merge --binary` writes the
    .rcm from them, as docs/manifest.md tells a user to."""
    if os.path.isfile(exe + ".rcm"):
        return True, ""
    rc, log = build_samples.run([toolchain.rc_link, "merge", "--binary", exe], 120)
    if rc != 0:
        return False, "rc-link merge --binary: " + build_samples.first_error(log)
    return True, ""


def build_all(suite, programs, tree, toolchain, timeout, jobs, logs):
    """{program name: (builds, error)}; the suite's preparation (SHOC's
    configure) first, its failure each program's. Programs that build in
    the same folder build one after the other (they share objects there)."""
    results = {}
    ok, error, log = suite.prepare(tree, toolchain, timeout)
    with open(os.path.join(logs, "prepare.log"), "w") as f:
        f.write(log)
    if not ok:
        return {p.name: (False, error) for p in programs}
    groups = {}
    for p in programs:
        groups.setdefault(p.path, []).append(p)
    lock = threading.Lock()

    def build_group(group):
        for p in group:
            built, err, plog = build_program(suite, p, tree, toolchain, timeout)
            with open(os.path.join(logs, p.name + ".log"), "w") as f:
                f.write(plog)
            with lock:
                results[p.name] = (built, err)
                print("%-5s %s %s" % ("ok" if built else "FAIL", p.name, err), flush=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(build_group, groups.values()))
    return results


def selected(suite, only):
    return [p for p in suite.PROGRAMS if not only or re.search(only, p.name)]


def cmd_build(args):
    """Here: each program built with remote-clang; the results JSON's rows."""
    suite = load_suite(args.suite)
    toolchain = Toolchain.remote_clang(args.build_dir)
    work = os.path.join(args.work, suite.NAME)
    tree, logs = os.path.join(work, "tree"), os.path.join(work, "logs")
    os.makedirs(logs, exist_ok=True)
    programs = selected(suite, args.only)
    if args.only and os.path.isdir(tree):
        # The others' builds stay for --collect; the selected build afresh.
        for p in programs:
            shutil.rmtree(os.path.join(tree, p.path), ignore_errors=True)
            shutil.copytree(os.path.join(args.src, p.path), os.path.join(tree, p.path),
                            symlinks=True)
    else:
        copy_tree(suite, args.src, tree)
    built = build_all(suite, programs, tree, toolchain, args.timeout, args.jobs, logs)
    earlier = {}
    if args.only and os.path.isfile(args.out):
        with open(args.out) as f:
            earlier = {r["program"]: r for r in json.load(f)["rows"]}
    rows = []
    for p in suite.PROGRAMS:
        if p.name not in built:
            if p.name in earlier:
                rows.append(earlier[p.name])
            continue
        ok, error = built[p.name]
        rows.append({"program": p.name, "suite": suite.NAME, "builds": ok, "build_error": error,
                     "local": None, "remote_tcp": None, "remote_shm": None})
    data = {"suite": suite.NAME, "tag": args.tag or suite_tag(args.src),
            "date": datetime.date.today().isoformat(), "rows": rows}
    with open(args.out, "w") as f:
        json.dump(data, f, indent=1)
    report(args.out, args.suite)
    if args.collect:
        collect(suite, rows, tree, args.src, args.collect, toolchain)


def suite_tag(src):
    """The checkout's commit, short, for the results' name and record."""
    out = subprocess.run(["git", "-C", src, "rev-parse", "--short", "HEAD"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    return out.strip() or "unknown"


def collect(suite, rows, tree, src, dest, toolchain):
    """For the GPU machine, under dest/<suite>/: remote/<program>/ with the
    executables and manifests remote-clang built (and remote/lib the client
    libraries the GPU machine lacks), remote/rows.json, and src/, the
    suite's pristine tree for the nvcc build and the runs' data."""
    base = os.path.join(dest, suite.NAME)
    shutil.rmtree(base, ignore_errors=True)
    remote = os.path.join(base, "remote")
    os.makedirs(remote)
    programs = {p.name: p for p in suite.PROGRAMS}
    for r in rows:
        if not r["builds"]:
            continue
        p = programs[r["program"]]
        to = os.path.join(remote, p.name)
        os.makedirs(to, exist_ok=True)
        for exe in p.exes:
            path = os.path.join(tree, p.path, exe)
            shutil.copy2(path, to)
            subprocess.run(["strip", "--strip-debug", os.path.join(to, os.path.basename(exe))])
            if os.path.isfile(path + ".rcm"):
                shutil.copy2(path + ".rcm", to)
            build_samples.client_libraries(path, remote, toolchain.cuda_dir)
    with open(os.path.join(remote, "rows.json"), "w") as f:
        json.dump(rows, f, indent=1)
    copy_tree(suite, src, os.path.join(base, "src"))
    print("collect: %d programs' executables in %s" % (sum(1 for r in rows if r["builds"]), base))


def cmd_collect(args):
    """Here, after build: what built (per --out) to DEST/<suite>/."""
    suite = load_suite(args.suite)
    with open(args.out) as f:
        rows = json.load(f)["rows"]
    collect(suite, rows, os.path.join(args.work, suite.NAME, "tree"), args.src, args.dest,
            Toolchain.remote_clang(args.build_dir))


def cmd_local_build(args):
    """GPU machine: the same sources built with its nvcc, the reference."""
    suite = load_suite(args.suite)
    work = os.path.join(args.work, suite.NAME, "local")
    os.makedirs(work, exist_ok=True)
    toolchain = Toolchain.nvcc(work)
    tree, logs = os.path.join(work, "tree"), os.path.join(work, "logs")
    os.makedirs(logs, exist_ok=True)
    copy_tree(suite, args.src, tree)
    built = build_all(suite, selected(suite, args.only), tree, toolchain, args.timeout,
                      args.jobs, logs)
    with open(os.path.join(work, "built.json"), "w") as f:
        json.dump({name: {"builds": ok, "build_error": err} for name, (ok, err) in built.items()},
                  f, indent=1)
    print("local-build: %d of %d programs built with nvcc" %
          (sum(1 for ok, _ in built.values() if ok), len(built)))


# --- running ----------------------------------------------------------------

def numbers_equal(a, b, rtol):
    """Two numbers as printed: integers exactly; floats within rtol, plus
    one unit of the last digit printed (printing rounds: 1.0 and 1.1 may be
    1.0499 and 1.0501)."""
    if not re.search(r"[.eEnNiI]", a + b):
        return int(a) == int(b)
    x, y = float(a), float(b)
    if x != x or y != y:
        return x != x and y != y
    if x == y:
        return True
    if abs(x) == float("inf") or abs(y) == float("inf"):
        return False

    def last_digit(s):
        mantissa, _, exponent = s.lower().partition("e")
        decimals = len(mantissa.partition(".")[2])
        # A hair over one unit: 1.6e-3 - 1.5e-3 is not 1e-4 in binary.
        return 10.0 ** (int(exponent or 0) - decimals) * (1 + 1e-9)

    return abs(x - y) <= rtol * max(abs(x), abs(y)) + max(last_digit(a), last_digit(b))


def lines_equal(a, b, rtol):
    if a == b:
        return True
    if NUMBER.split(a) != NUMBER.split(b):
        return False
    return all(numbers_equal(x, y, rtol) for x, y in zip(NUMBER.findall(a), NUMBER.findall(b)))


def compare(expected, actual, masks, rtol, what="output"):
    """'' when actual equals expected after the masks, else where not."""
    for m in masks:
        expected, actual = m.apply(expected), m.apply(actual)
    if expected == actual:
        return ""
    want, got = expected.splitlines(), actual.splitlines()
    for i, (a, b) in enumerate(zip(want, got)):
        if not lines_equal(a, b, rtol):
            return "%s line %d: expected '%s', got '%s'" % (what, i + 1, a[:120], b[:120])
    if len(want) != len(got):
        return "%s: %d lines expected, %d got" % (what, len(want), len(got))
    return ""


@dataclasses.dataclass
class Outcome:
    status: int
    stdout: str
    stderr: str
    files: dict


def answer_files(cwd, patterns):
    """{name: bytes} of the files a run wrote that hold its answer."""
    found = {}
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(cwd, pattern))):
            with open(path, "rb") as f:
                found[os.path.relpath(path, cwd)] = f.read()
    return found


def compare_file(name, expected, actual, program):
    """Text files as compare() does; others (dwt2d writes raw samples)
    byte for byte."""
    if expected == actual:
        return ""
    try:
        want, got = expected.decode(), actual.decode()
    except UnicodeDecodeError:
        if len(expected) != len(actual):
            return "%s: %d bytes expected, %d got" % (name, len(expected), len(actual))
        first = next(i for i, (a, b) in enumerate(zip(expected, actual)) if a != b)
        return "%s differs from byte %d on" % (name, first)
    return compare(want, got, program.masks, program.rtol, name)


def differences(program, expected, actual):
    """'' when two outcomes of a program agree, else the first difference."""
    if actual.status != expected.status:
        return "exit %d, expected %d" % (actual.status, expected.status)
    why = compare(expected.stdout, actual.stdout, program.masks, program.rtol, "stdout")
    if why:
        return why
    for name in sorted(set(expected.files) | set(actual.files)):
        if name not in actual.files:
            return "%s was not written" % name
        if name not in expected.files:
            return "%s was written, the local run did not write it" % name
        why = compare_file(name, expected.files[name], actual.files[name], program)
        if why:
            return why
    return ""


class Runner:
    """Runs one suite's programs on the GPU machine: inputs made once per
    program, each run in a fresh folder of its own (a program writes its
    answer into its working folder), the same command line everywhere."""

    def __init__(self, suite, args):
        self.suite, self.args = suite, args
        self.work = os.path.join(args.work, suite.NAME, "runs")
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.logs = tempfile.mkdtemp(prefix="rc-yardstick-")
        self.tags = iter(range(10 ** 6))
        self.lock = threading.Lock()
        self.fixed_time = None
        self.deadline = time.time() + args.deadline

    def timeout(self, run):
        """A run's limit, cut so that no run ends more than a minute after
        the deadline: the whole half fits one device call."""
        return max(5, min(run.timeout, int(self.deadline + 60 - time.time())))

    def next_tag(self):
        """run_samples.Server's tag: its tcp port is 23600 + tag, so the
        suite's PORTS (both suites run at once) minus that."""
        with self.lock:
            return self.suite.PORTS - 23600 + next(self.tags)

    def fixed_time_library(self):
        """compat/fixed_time.c, built here once (the GPU machine has gcc:
        nvcc needs it)."""
        with self.lock:  # programs run in threads: built by the first
            if self.fixed_time is None:
                library = os.path.join(self.work, "fixed_time.so")
                subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", library,
                                os.path.join(HERE, "fixed_time.c")], check=True)
                self.fixed_time = library
        return self.fixed_time

    def inputs(self, program, run, index):
        """The run's input files, made once: <work>/<program>/inputs<index>."""
        folder = os.path.join(self.work, program.name, "inputs%d" % index)
        if not os.path.isdir(folder):
            os.makedirs(folder)
            if run.inputs:
                run.inputs(folder, self.args.src)
        return folder

    def run_once(self, program, run, index, exe, config, env):
        """The Outcome of one run, in a fresh copy of its inputs."""
        root = os.path.join(self.work, program.name, "%s-%d" % (config, index))
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(self.inputs(program, run, index), root, symlinks=True)
        cwd = os.path.join(root, run.cwd)
        os.makedirs(cwd, exist_ok=True)
        if run.fixed_time:
            env = dict(env, LD_PRELOAD=self.fixed_time_library())
        argv0 = "./" + os.path.basename(run.exe)
        rc, out, err = run_samples.run_one(exe, run.args, cwd, env, self.timeout(run),
                                           argv0=argv0)
        return Outcome(rc, out, err, answer_files(cwd, run.files))

    def config(self, program, name, folder, env):
        """The outcomes of every run of the program in one configuration
        (local, local-again, tcp, shm). folder holds its executables: the
        program's build folder (local), or its collected ones (remote)."""
        remote = name in ("tcp", "shm")
        return [self.run_once(program, run, i,
                              os.path.join(folder, os.path.basename(run.exe) if remote else run.exe),
                              name, env) for i, run in enumerate(program.runs)]

    def one(self, row):
        """A row's run columns: the local runs, then each transport's."""
        program = {p.name: p for p in self.suite.PROGRAMS}[row["program"]]
        if program.no_run_reason or not program.runs:
            return {"run_skip_reason": program.no_run_reason or "no run defined"}
        if time.time() > self.deadline:
            return {"run_skip_reason": "out of time (--deadline %d s)" % self.args.deadline}
        result, expected = self.local(program)
        for transport in ("tcp", "shm"):
            key = "remote_" + transport
            if not row["builds"]:
                result[key], result[key + "_detail"] = "no-build", ""
            elif time.time() > self.deadline:  # the local runs stay, for the record
                result["run_skip_reason"] = "out of time (--deadline %d s)" % self.args.deadline
                break
            else:
                result[key], result[key + "_detail"] = judge(program,
                                                             self.remote(program, transport),
                                                             expected)
        return result

    def local(self, program):
        """({local, local_detail}, the outcomes remote runs must equal, or
        None): the nvcc build run twice, which must agree after masking."""
        folder = os.path.join(self.args.local, "tree", program.path)
        if not all(is_executable(os.path.join(folder, e)) for e in program.exes):
            return {"local": "no-build", "local_detail": ""}, None
        first = self.config(program, "local", folder, dict(os.environ))
        again = self.config(program, "local-again", folder, dict(os.environ))
        for run, a, b in zip(program.runs, first, again):
            if a.status != 0 or own_check(program, run, a):
                return {"local": "fail",
                        "local_detail": own_check(program, run, a) or failure(run, a)}, None
            why = differences(program, a, b)
            if why:
                return {"local": "fail", "local_detail": "%s: two local runs differ after "
                        "masking (a mask is missing): %s" % (run.exe, why)}, None
        return {"local": "pass", "local_detail": ""}, first

    def remote(self, program, transport):
        """The outcomes of the remote-clang build through an rc-server of
        its own with the program's manifests (a refused manifest or a crash
        stays this program's failure)."""
        folder = os.path.join(self.args.remote, program.name)
        manifests = [os.path.join(folder, os.path.basename(e) + ".rcm") for e in program.exes]
        server = run_samples.Server(self.args.rc, [m for m in manifests if os.path.isfile(m)],
                                    transport, self.next_tag(), self.logs,
                                    self.args.server_args.split())
        try:
            if server.error:
                return [Outcome(1, "", server.error, {})]
            env = dict(os.environ, RC_SERVER=server.url,
                       LD_LIBRARY_PATH=os.path.join(self.args.rc, "lib") + ":" +
                       os.path.join(self.args.remote, "lib"))
            # Several programs and their servers at once share the CPUs: a
            # connect may wait longer than the default 5 s.
            env.setdefault("RC_CONNECT_TIMEOUT_MS", "30000")
            return self.config(program, transport, folder, env)
        finally:
            server.stop()


def own_check(program, run, outcome):
    """'' unless the program's own check failed: what it printed then."""
    if not program.fails_if:
        return ""
    m = re.search(program.fails_if, outcome.stdout, re.M)
    return "%s: its own check failed: %s" % (run.exe, m.group(0).strip()[:200]) if m else ""


def failure(run, outcome):
    why = "timed out" if outcome.status == 124 else "exit %d" % outcome.status
    tail = " | ".join(outcome.stderr.strip().splitlines()[-3:] +
                      outcome.stdout.strip().splitlines()[-4:])
    return "%s %s: %s: %s" % (run.exe, " ".join(run.args), why, tail[-600:])


def judge(program, got, expected):
    """A remote configuration's state: it must exit 0 and, where the local
    run passed, agree with it."""
    for run, outcome in zip(program.runs, got):
        if outcome.status != 0:
            return "fail", failure(run, outcome)
        if own_check(program, run, outcome):
            return "fail", own_check(program, run, outcome)
    if expected is None:
        return "pass", "not compared: no passing local run" + (
            "; its own check passed" if program.fails_if else "")
    for run, want, outcome in zip(program.runs, expected, got):
        why = differences(program, want, outcome)
        if why:
            return "fail", "%s: differs from the local run: %s" % (run.exe, why)
    return "pass", ""


def cmd_run(args):
    suite = load_suite(args.suite)
    with open(os.path.join(args.remote, "rows.json")) as f:
        rows = json.load(f)
    names = {p.name for p in selected(suite, args.only)}
    todo = [r for r in rows if r["program"] in names]
    runner = Runner(suite, args)
    done = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for row, result in zip(todo, pool.map(runner.one, todo)):
            row.update(result)
            done.append(row)
            with open(args.out, "w") as f:  # after each program: a cut-off run is kept
                json.dump({"suite": suite.NAME, "rows": done}, f, indent=1)
            print("%-20s local %-8s tcp %-8s shm %-8s %s" % (
                row["program"], row.get("local"), row.get("remote_tcp"), row.get("remote_shm"),
                row.get("run_skip_reason") or row.get("remote_shm_detail") or
                row.get("remote_tcp_detail") or row.get("local_detail") or ""), flush=True)
    with open(args.out, "w") as f:
        json.dump({"suite": suite.NAME, "rows": done, "run_summary": run_summary(done)}, f,
                  indent=1)
    print(run_summary(done))
    print("server logs: %s" % runner.logs)


# --- results ----------------------------------------------------------------

RUN_KEYS = build_samples.RUN_KEYS


def cmd_merge(args):
    with open(args.out) as f:
        data = json.load(f)
    with open(args.run) as f:
        ran = {r["program"]: r for r in json.load(f)["rows"]}
    for r in data["rows"]:
        r.update({k: v for k, v in ran.get(r["program"], {}).items() if k in RUN_KEYS})
    with open(args.out, "w") as f:
        json.dump(data, f, indent=1)
    report(args.out, args.suite)


def build_summary(suite, rows):
    for r in rows:
        r["fails_with_nvcc_too"] = "" if r["builds"] else suite.fails_with_nvcc_too(r["build_error"])
    built = sum(1 for r in rows if r["builds"])
    theirs = sum(1 for r in rows if r["fails_with_nvcc_too"])
    counted = len(rows) - theirs
    return ("built %d of %d programs; %d fail for a reason nvcc shares here, so %d of %d = %.1f %%"
            % (built, len(rows), theirs, built, counted, 100.0 * built / max(counted, 1)))


def run_summary(rows):
    """The share that counts: remote runs equal to passing local ones. Those
    without a local run (nvcc did not build them) say only that they exit 0
    and pass their own checks where they have any: counted apart."""
    ran = [r for r in rows if r.get("local") and not r.get("run_skip_reason")]
    local = [r for r in ran if r["local"] == "pass"]
    both = {t: sum(1 for r in local if r.get("remote_" + t) == "pass") for t in ("tcp", "shm")}
    alone = [r for r in ran if r["local"] == "no-build" and r.get("builds")]
    text = ("ran %d programs (%d not run); %d pass locally; of those %d pass over tcp (%.1f %%) "
            "and %d over shm (%.1f %%)" %
            (len(ran), sum(1 for r in rows if r.get("run_skip_reason")), len(local), both["tcp"],
             100.0 * both["tcp"] / max(len(local), 1), both["shm"],
             100.0 * both["shm"] / max(len(local), 1)))
    if alone:
        text += ("; of %d without a local reference (nvcc did not build them), %d run over tcp "
                 "and %d over shm without an error" %
                 (len(alone), sum(1 for r in alone if r.get("remote_tcp") == "pass"),
                  sum(1 for r in alone if r.get("remote_shm") == "pass")))
    return text


def report(out, suite_spec=None):
    """The summary lines into the results JSON, and its markdown table.
    The suite's definition (its TITLE, the failures nvcc shares) is the one
    given, else the one named by the results."""
    with open(out) as f:
        data = json.load(f)
    suite = load_suite(suite_spec or data["suite"])
    rows = data["rows"]
    data["summary"] = build_summary(suite, rows)
    data.pop("run_summary", None)
    if any(r.get("local") or r.get("run_skip_reason") for r in rows):
        data["run_summary"] = run_summary(rows)
    print(data["summary"])
    with open(out, "w") as f:
        json.dump(data, f, indent=1)
    with open(os.path.splitext(out)[0] + ".md", "w") as f:
        f.write(markdown(suite, data))


def markdown(suite, data):
    out = ["# %s %s with remote-clang" % (suite.TITLE, data["tag"]), "",
           "Build: " + data["summary"] + ".", ""]
    if data.get("run_summary"):
        out += ["Run on the GPU machine: " + data["run_summary"] + ".", ""]
    out += ["| program | builds | local | tcp | shm | why not |", "|---|---|---|---|---|---|"]
    for r in data["rows"]:
        state, why = ("yes", "") if r["builds"] else ("**no**", r["build_error"])
        if r.get("fails_with_nvcc_too"):
            state, why = "no (nvcc too)", r["fails_with_nvcc_too"] + ": " + why
        if r.get("run_skip_reason"):
            why = "not run: " + r["run_skip_reason"]
        elif r.get("local") == "fail":
            why = "local: " + (r.get("local_detail") or "")
        elif "fail" in (r.get("remote_tcp"), r.get("remote_shm")):
            why = r.get("remote_shm_detail") or r.get("remote_tcp_detail") or ""
        cells = [r.get(k) or "" for k in ("local", "remote_tcp", "remote_shm")]
        out.append("| %s | %s | %s | %s | %s | %s |" % (
            r["program"], state, cells[0], cells[1], cells[2],
            why.replace("|", "\\|").replace("\n", " ")))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--suite", required=True,
                        help="the suite's definition: its path, or a name N whose suite_N.py is "
                             "in $" + SUITES_FOLDER)
    common.add_argument("--src", required=True, help="the suite's checkout")
    common.add_argument("--only", default="", help="regex on program names")
    common.add_argument("--timeout", type=int, default=600, help="seconds per build")
    b = sub.add_parser("build", parents=[common], help="here: build with remote-clang")
    b.add_argument("--out", required=True, help="results JSON")
    b.add_argument("--tag", help="for the record (default: the checkout's short commit)")
    b.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    b.add_argument("--work", default="/tmp/rc-yardstick-build")
    b.add_argument("--jobs", type=int, default=1, help="programs built at once")
    b.add_argument("--collect", metavar="DEST", help="copy what built to DEST/<suite>/")
    c = sub.add_parser("collect", parents=[common], help="here: what built, for the GPU machine")
    c.add_argument("--out", required=True, help="build's results JSON")
    c.add_argument("--dest", required=True)
    c.add_argument("--build-dir", default=os.path.join(REPO, "build"))
    c.add_argument("--work", default="/tmp/rc-yardstick-build", help="build's --work")
    lb = sub.add_parser("local-build", parents=[common], help="GPU machine: build with nvcc")
    lb.add_argument("--work", required=True)
    lb.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    r = sub.add_parser("run", parents=[common], help="GPU machine: run local and remote")
    r.add_argument("--remote", required=True, help="DEST/<suite>/remote of build --collect")
    r.add_argument("--local", required=True, help="local-build's <work>/<suite>/local")
    r.add_argument("--rc", required=True, help="remote-clang bundle (bin/rc-server, lib/)")
    r.add_argument("--work", required=True, help="where inputs and runs go")
    r.add_argument("--out", required=True, help="run JSON (merge takes it)")
    r.add_argument("--jobs", type=int, default=6, help="programs run at once")
    r.add_argument("--deadline", type=int, default=300,
                   help="seconds after which no further run starts (runs end a minute later "
                        "at the most)")
    r.add_argument("--server-args", default="",
                   help="more rc-server options (a dry run without a GPU: --test-device)")
    m = sub.add_parser("merge", help="take a run JSON's columns into the results")
    m.add_argument("--out", required=True)
    m.add_argument("--run", required=True)
    rep = sub.add_parser("report", help="rewrite the results' summary and table")
    rep.add_argument("--out", required=True)
    for p in (m, rep):
        p.add_argument("--suite", help="the suite's definition (default: the results' suite, "
                                       "by name from $" + SUITES_FOLDER + ")")
    args = ap.parse_args()
    # Definitions import this file as `yardstick`: the same module, not a
    # second copy whose Program would not be this one's.
    sys.modules.setdefault("yardstick", sys.modules[__name__])
    {"build": cmd_build, "collect": cmd_collect, "local-build": cmd_local_build, "run": cmd_run,
     "merge": cmd_merge,
     "report": lambda a: report(a.out, a.suite)}[args.command](args)


if __name__ == "__main__":
    main()
