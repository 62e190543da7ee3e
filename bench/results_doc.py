"""The results file pair every bench report writes: <date>-<gpu>-<kind>.json
({date, gpu, setup, rows}) and a markdown table beside it. Imported by
bulk_report.py, session_start_report.py and multiclient_report.py (run by
path, so this folder is on their import path)."""
import datetime
import json
import os
import re


def write_results(out_dir, gpu, kind, title, setup, rows, columns):
    """Writes both files; `columns` is a list of (header, cell) where
    cell(row) gives the row's text in that column. Returns the files' path
    without its extension."""
    date = datetime.date.today().isoformat()
    slug = re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-")
    base = os.path.join(out_dir, "%s-%s-%s" % (date, slug, kind))
    with open(base + ".json", "w") as f:
        json.dump({"date": date, "gpu": gpu, "setup": setup, "rows": rows}, f,
                  indent=1)
        f.write("\n")
    with open(base + ".md", "w") as f:
        f.write("# %s, %s, %s\n\n%s.\n\n" % (title, gpu, date, setup))
        f.write("| %s |\n" % " | ".join(h for h, _ in columns))
        f.write("|%s\n" % ("---|" * len(columns)))
        for r in rows:
            f.write("| %s |\n" % " | ".join(cell(r) for _, cell in columns))
    return base
