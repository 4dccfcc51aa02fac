#!/usr/bin/env python
"""What reading the working tree from disk costs (a script, not a test).

    python benchmarks/bench_worktree_diff.py [--files 5000 --lines 200 --edited 20 --rounds 5]

``--memreport-against worktree`` line counts compare the pin with a tree of the
working tree's bytes, hashed by pytest-memreport itself (git never reads the
working tree: its attributes and filters would apply). Builds, deterministically,
a target of ``--files`` files of ``--lines`` lines with ``--edited`` of them edited
on disk after the commit, then times, in turn, per round:

(g) ``git diff --numstat -M <pin>``: git's own answer, which trusts the index's
    stat cache and reads no unchanged file (and would run the target's filters);
(d) a fresh GitStore's ``line_counts(pin, "worktree", ...)``: every tracked file
    read and hashed, only the changed blobs and trees written to a scratch folder;

and prints the medians and the median of the rounds' ``(d)/(g)``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pytest_memreport.gitstore import GitStore  # noqa: E402


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout


def build(root: Path, files: int, lines: int, edited: int) -> Path:
    repo = root / "repo"
    git(root, "init", "-q", str(repo))
    for index in range(files):
        path = repo / f"pkg{index % 50}" / f"module_{index}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text("".join(f"value_{index}_{line} = compute({line}, {index})\n" for line in range(lines)),
                        encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", "commit", "-qm", "pin")
    for index in range(0, files, max(1, files // max(1, edited))):
        path = repo / f"pkg{index % 50}" / f"module_{index}.py"
        path.write_text("# edited\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    return repo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--edited", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-worktree-") as scratch:
        repo = build(Path(scratch), options.files, options.lines, options.edited)
        pin = git(repo, "rev-parse", "HEAD").decode().strip()
        git(repo, "status", "-s")  # git's stat cache as a developer's checkout has it
        cited = "pkg0/module_0.py"
        floors, ours, ratios = [], [], []
        for _ in range(options.rounds):
            began = time.perf_counter()
            git(repo, "diff", "--numstat", "-M", pin)
            floor = time.perf_counter() - began
            began = time.perf_counter()
            with GitStore.open(repo) as store:
                counts = store.line_counts(pin, "worktree", cited)
            own = time.perf_counter() - began
            floors.append(floor)
            ours.append(own)
            ratios.append(own / floor)
        print(f"{options.files} files x {options.lines} lines, {options.edited} edited; {cited}: {counts}")
        print(f"(g) git diff --numstat over the working tree   {statistics.median(floors):.3f} s")
        print(f"(d) disk tree + diff-tree (memreport)           {statistics.median(ours):.3f} s")
        print(f"(d)/(g) median of {options.rounds} rounds: {statistics.median(ratios):.1f}")


if __name__ == "__main__":
    main()
