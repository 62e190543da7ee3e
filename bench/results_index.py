#!/usr/bin/env python3
"""Writes bench/results/README.md, the index of the benchmark results.

    results_index.py            # write the index
    results_index.py --check    # exit 1 if the index is stale or a file
                                # breaks the layout

Layout (what bench/results_doc.py writes): bench/results/<benchmark>/
<date>-<gpu>[-<config>].json, with .md, .png or .txt beside it where the
benchmark makes them. Every .json carries benchmark, date, gpu, machine,
commit and config ("unknown" where the run did not record it); a .txt of
raw output has a .json of the same name (or one that names it in "data").
The index shows each benchmark's current figure (its newest run of each
GPU in a current configuration) and links every run, newest first.
"""

import argparse
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})-([a-z0-9][a-z0-9-]*)\.(json|md|png|txt)$")
REQUIRED = ("benchmark", "date", "gpu", "machine", "commit", "config")
# Configurations that measure the defaults; the others are A/B runs or
# parts of a run, kept because a design record cites them.
CURRENT = ("default", "reps4-10", "isolation-none", "isolation-process",
           "clear, sealed, lanes256k")


def ratio(value):
    return "%.3f" % value if isinstance(value, (int, float)) and \
        not math.isnan(value) else "?"


def figure_llama_bench(doc):
    parts = []
    for test in ("tg128", "pp512"):
        for model in ("1b", "7b"):
            cells = ["%s %s" % (r["transport"], ratio(r["ratio"]))
                     for r in doc["rows"]
                     if r["model"] == model and r["test"] == test]
            if cells:
                parts.append("%s %s: %s" % (model.upper(), test,
                                            ", ".join(sorted(cells))))
    return "remote/local " + "; ".join(parts)


def figure_bulk(doc):
    cells = ["%s %s %s %s (%sx)" % (r["case"], r["transport"], r["value"],
                                    r["unit"], ratio(r.get("ratio")))
             for r in doc["rows"] if r.get("bench") == "copy" and
             r.get("case") in ("h2d-pinned", "d2h-pinned") and
             r.get("transport") in ("shm", "tcp", "shm-multipath")]
    return "; ".join(cells) or "%d rows" % len(doc["rows"])


def figure_token_clock(doc):
    cells = ["%s %s" % (k, ratio(v.get("tps_ratio")))
             for k, v in sorted(doc["rows"].items()) if "tps_ratio" in v]
    return "t/s of local's: " + "; ".join(cells)


def figure_session_start(doc):
    cells = ["%s %s %s manifests %s %s" % (r["isolation"], r["transport"],
                                           r["manifests"], r["value"],
                                           r["unit"])
             for r in doc["rows"]]
    return "first kernel: " + "; ".join(cells)


def figure_soak(doc):
    runs = sum(r["runs"] for r in doc["rows"])
    failed = sum(r["failed"] for r in doc["rows"])
    return "%d runs, %d failed" % (runs, failed)


def figure_seal(doc):
    cells = ["%s %s %s" % (r["config"], r["measurement"], r["median"])
             for r in doc["rows"] if "bulk" in r.get("measurement", "")]
    return "; ".join(cells[:6])


def figure_multiclient(doc):
    best = {}
    for r in doc["rows"]:
        if r.get("transport") == "local":
            continue
        key = (r["model"], r.get("mode", ""), r["transport"], r["isolation"])
        if key not in best or r["clients"] > best[key]["clients"]:
            best[key] = r
    cells = ["%s %s %s/%s x%d %s" % (k[0], k[1], k[2], k[3], r["clients"],
                                     ratio(r["ratio"]))
             for k, r in sorted(best.items())]
    return "aggregate t/s of local's, most clients: " + "; ".join(cells)


FIGURES = {"llama-bench": figure_llama_bench, "bulk": figure_bulk,
           "token-clock": figure_token_clock,
           "session-start": figure_session_start, "soak": figure_soak,
           "seal": figure_seal, "multiclient": figure_multiclient}


def load_runs(results):
    """{benchmark: [run]} where a run is its .json document plus 'name'
    (the file name without extension) and 'files' (every file of it);
    and the layout problems found."""
    benchmarks, problems = {}, []
    for entry in sorted(os.listdir(results)):
        path = os.path.join(results, entry)
        if entry == "README.md":
            continue
        if not os.path.isdir(path):
            problems.append("bench/results/%s: results go in "
                            "bench/results/<benchmark>/" % entry)
            continue
        files = sorted(os.listdir(path))
        runs = {}
        for f in files:
            if f == "README.md":
                continue
            m = NAME.match(f)
            if not m:
                problems.append("bench/results/%s/%s: not <date>-<gpu>"
                                "[-<config>].json|md|png|txt" % (entry, f))
                continue
            runs.setdefault(f.rsplit(".", 1)[0], []).append(f)
        docs = []
        for name, group in sorted(runs.items()):
            if name + ".json" not in group:
                continue
            with open(os.path.join(path, name + ".json")) as fh:
                doc = json.load(fh)
            missing = [k for k in REQUIRED if k not in doc]
            if missing:
                problems.append("bench/results/%s/%s.json: lacks %s" %
                                (entry, name, ", ".join(missing)))
                continue
            if doc["benchmark"] != entry:
                problems.append("bench/results/%s/%s.json: says benchmark "
                                "%r" % (entry, name, doc["benchmark"]))
            if not name.startswith(doc["date"]):
                problems.append("bench/results/%s/%s.json: its date is %s"
                                % (entry, name, doc["date"]))
            data = doc.get("data")
            extra = [data] if data and data in files else []
            doc["name"], doc["files"] = name, sorted(set(group + extra))
            docs.append(doc)
        described = {f for d in docs for f in d["files"]}
        for name, group in sorted(runs.items()):
            for f in group:
                if f not in described:
                    problems.append("bench/results/%s/%s: no .json says "
                                    "what it measured" % (entry, f))
        benchmarks[entry] = sorted(docs, key=lambda d: (d["date"], d["name"]),
                                   reverse=True)
    return benchmarks, problems


def figure(benchmark, doc):
    make = FIGURES.get(benchmark)
    if make and "rows" in doc:
        try:
            return make(doc)
        except (KeyError, TypeError, AttributeError):
            pass
    return "raw output: see the file"


def render(benchmarks):
    out = ["# Benchmark results", "",
           "Generated by `bench/results_index.py` from the files below; do "
           "not edit by hand (a test checks it is current). Each run is "
           "`<benchmark>/<date>-<gpu>[-<config>]` with a `.json` that says "
           "what was measured, the commit (`unknown` where the run did not "
           "record it), the configuration, the command and the machine; "
           "`.md`, `.png` and `.txt` beside it where the benchmark makes "
           "them. The scripts that make them: "
           "[scripts/README.md](../../scripts/README.md); what the numbers "
           "mean: [docs/performance.md](../../docs/performance.md) and the "
           "design records ([docs/design/](../../docs/design/)). A new run: "
           "copy its `<benchmark>/` folder from the bench's output here, "
           "run `python3 bench/results_index.py`, and keep only the newest "
           "run of each benchmark, GPU and configuration unless a document "
           "cites an older one.", "",
           "## Current figures", "",
           "The newest run of each benchmark and GPU in a configuration that "
           "measures the defaults.", "",
           "| benchmark | run | machine | commit | figure |",
           "|---|---|---|---|---|"]
    for benchmark, docs in sorted(benchmarks.items()):
        seen = set()
        for doc in docs:
            if doc["config"] not in CURRENT or (doc["gpu"], doc["config"]) in seen:
                continue
            seen.add((doc["gpu"], doc["config"]))
            out.append("| [%s](#%s) | [%s](%s/%s.json) | %s | %s | %s |" % (
                benchmark, benchmark, doc["name"], benchmark, doc["name"],
                doc["machine"], doc["commit"],
                figure(benchmark, doc).replace("|", "/")))
    out += ["", "## History", ""]
    for benchmark, docs in sorted(benchmarks.items()):
        out += ["### %s" % benchmark, "",
                "| date | GPU | config | commit | command | files |",
                "|---|---|---|---|---|---|"]
        for doc in docs:
            files = ", ".join("[%s](%s/%s)" % (f.rsplit(".", 1)[1], benchmark,
                                               f) for f in doc["files"])
            command = doc.get("command", "")
            command = ("`%s`" % command.replace("`", "'").replace("|", "/")
                       if command else "")
            out.append("| %s | %s | %s | %s | %s | %s |" % (
                doc["date"], doc["gpu"], doc["config"], doc["commit"],
                command, files))
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--results", default=RESULTS)
    args = ap.parse_args(argv[1:])
    benchmarks, problems = load_runs(args.results)
    text = render(benchmarks)
    index = os.path.join(args.results, "README.md")
    if args.check:
        try:
            with open(index) as f:
                current = f.read()
        except OSError:
            current = ""
        if current != text:
            problems.append("bench/results/README.md is stale: run "
                            "python3 bench/results_index.py")
        for p in problems:
            print(p)
        if problems:
            print("results_index: %d problem(s)" % len(problems))
            return 1
        print("results_index: %d benchmark(s), %d run(s), index current" % (
            len(benchmarks), sum(len(d) for d in benchmarks.values())))
        return 0
    for p in problems:
        print(p)
    with open(index, "w") as f:
        f.write(text)
    print("results_index: wrote %s" % index)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
