"""What the document checks share: which files make up the repository, and
how a check reports to CTest."""

import os
import subprocess


def repo_files(root):
    """The repository's files, relative and '/'-separated: those git tracks
    plus the untracked ones it does not ignore (so a new file is checked
    before its first commit); outside a git checkout, every file below
    `root` except in hidden and build folders."""
    try:
        out = subprocess.run(
            ["git", "-C", root, "ls-files", "-z", "--cached", "--others",
             "--exclude-standard"],
            check=True, capture_output=True).stdout
        files = [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs
                       if not d.startswith(".") and d != "build"]
            for n in names:
                path = os.path.relpath(os.path.join(folder, n), root)
                files.append(path.replace(os.sep, "/"))
    # A file deleted but not yet staged is still listed by git.
    return sorted(f for f in files if os.path.isfile(os.path.join(root, f)))


def run(argv, check, name, failure_hint, success):
    """Runs `check(root)` -> (problems, count) on argv[1] (default: the
    repository this file is in), prints each problem and a summary line,
    and returns the exit status: 0 without problems, 1 with."""
    root = argv[1] if len(argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    problems, count = check(os.path.abspath(root))
    for p in problems:
        print(p)
    if problems:
        print(f"{name}: {len(problems)} problem(s); {failure_hint}")
        return 1
    print(f"{name}: {success.format(count=count)}")
    return 0
