"""The results file pair every bench report writes, laid out as
bench/results/ keeps them: <out>/<benchmark>/<date>-<gpu>[-<config>].json
({benchmark, date, gpu, machine, commit, config, setup, rows}) and a
markdown table beside it; copy the folder into bench/results/ and run
bench/results_index.py. Imported by the report scripts (run by path, so
this folder is on their import path)."""
import datetime
import json
import os
import re
import subprocess


def provenance(gpu):
    """What a results file says about where it came from: the commit of the
    checkout the bench ran from ("unknown" outside git, e.g. an unpacked
    bundle) and the machine (the GPU and the host's cores)."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        commit = subprocess.run(
            ["git", "-C", here, "rev-parse", "--short=12", "HEAD"],
            check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = os.environ.get("RC_COMMIT", "unknown")
    return {"commit": commit or "unknown",
            "machine": "%s, %d CPU cores" % (gpu, os.cpu_count() or 0)}


def results_base(out_dir, benchmark, gpu, config=None):
    """<out_dir>/<benchmark>/<date>-<gpu slug>[-<config>], folder made."""
    date = datetime.date.today().isoformat()
    slug = re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-")
    folder = os.path.join(out_dir, benchmark)
    os.makedirs(folder, exist_ok=True)
    name = "%s-%s" % (date, slug) + ("-" + config if config else "")
    return os.path.join(folder, name)


def write_results(out_dir, gpu, benchmark, title, setup, rows, columns,
                  config=None):
    """Writes both files; `columns` is a list of (header, cell) where
    cell(row) gives the row's text in that column. Returns the files' path
    without its extension."""
    date = datetime.date.today().isoformat()
    base = results_base(out_dir, benchmark, gpu, config)
    doc = {"benchmark": benchmark, "date": date, "gpu": gpu}
    doc.update(provenance(gpu))
    doc.update({"config": config or "default", "setup": setup, "rows": rows})
    with open(base + ".json", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with open(base + ".md", "w") as f:
        f.write("# %s, %s, %s\n\n%s.\n\n" % (title, gpu, date, setup))
        f.write("| %s |\n" % " | ".join(h for h, _ in columns))
        f.write("|%s\n" % ("---|" * len(columns)))
        for r in rows:
            f.write("| %s |\n" % " | ".join(cell(r) for _, cell in columns))
    return base
