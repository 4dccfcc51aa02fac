#!/usr/bin/env python
"""What ``--memreport-affected BASE..HEAD`` costs: the diff's size, not the knowledge base's (a script, not a test).

    python benchmarks/bench_affected.py [--reports 200 --files 400 --rounds 3 --workdir DIR]

Builds, deterministically, a target of ``--files`` Python files and a knowledge base of
``--reports`` reports pinned at its first commit, each with four records quoting a line
of a file and a ``contains`` predicate on it (every file is cited by a few reports); then
branches from the base with ranges that edit 1 and 100 cited files, and one that edits
only an uncited file. Each run is pytest as a target's CI runs it (``--memreport kb
--memreport-repo PATH --memreport-affected BASE..<branch>``, a fresh process, no result
cache), timed per round:

(n)   the range touching nothing cited: the floor (the plugin, parsing the reports, one diff)
(d1)  the range editing 1 file          (d100) the range editing 100 files
(q1)  the 1-file range with a quarter of the reports (the knowledge base 4x smaller)
(a)   for scale, a normal run of the whole knowledge base against the 1-file branch

and prints the medians, the rounds' ratios (d100)/(d1), (d1)/(n), (d1)/(q1), (d1)/(a), and each
run's items, blobs read and git processes (from its JSON): what a range checks grows
with the files it changes, and a knowledge base 4x larger costs only its parse.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

FUNCTIONS = 6  # per target file
RECORDS = 4  # per report


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    done = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)
    return done.stdout.decode().strip()


def module(index: int, edited: bool = False) -> str:
    body = []
    for k in range(FUNCTIONS):
        value = f"value_{index}_{k} * 2" if edited and k == 1 else f"value_{index}_{k} + {k}"
        body.append(f"def step_{index}_{k}(value_{index}_{k}):\n    return {value}\n\n\n")
    return "".join(body)


def build_target(root: Path, files: int) -> tuple[Path, str]:
    repo = root / "target"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for index in range(files):
        path = repo / f"pkg{index % 20}" / f"m{index}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(module(index), encoding="utf-8")
    (repo / "README.md").write_text("# target\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "pin")
    base = git(repo, "rev-parse", "HEAD")
    return repo, base


def branch(repo: Path, base: str, name: str, edited: list[int]) -> None:
    git(repo, "checkout", "-q", "-b", name, base)
    if edited:
        for index in edited:
            (repo / f"pkg{index % 20}" / f"m{index}.py").write_text(module(index, edited=True), encoding="utf-8")
    else:
        (repo / "README.md").write_text("# target\n\nUsage.\n", encoding="utf-8")
    git(repo, "commit", "-qam", f"{name}: {len(edited) or 'no'} cited file(s)")
    git(repo, "checkout", "-q", "main")


def report(number: int, pin: str, files: int) -> tuple[str, str]:
    """A report of :data:`RECORDS` records, each quoting one line of one file, and its claims."""
    records, claims = [], ["schema: memreport-claims/1", "records:"]
    for j in range(RECORDS):
        index = (number * RECORDS + j) * 7 % files
        path = f"pkg{index % 20}/m{index}.py"
        rid = f"MEM-RTE-r{number}x{j}"
        records.append(f"{rid}\n\nLabel: Step {j}\n\nThe step adds. SRC-1: {path}.\n\n"
                       f"return value_{index}_1 + 1 --- {path}\n\n  • implementation conclusion status: afforded\n")
        claims += [f"  {rid}:", "    predicates:", f'      - contains: {{path: {path}, text: "value_{index}_1 + 1"}}']
    text = (f"Report {number}\n\nBoundary and evidence\n\nSRC-1 commit {pin} is the boundary.\n\nRoutes\n\n"
            + "\n".join(records))
    return text, "\n".join(claims) + "\n"


def build_kb(root: Path, name: str, reports: int, pin: str, files: int) -> Path:
    kb = root / name
    kb.mkdir()
    for number in range(reports):
        text, claims = report(number, pin, files)
        (kb / f"r{number:04d}.md").write_text(text, encoding="utf-8")
        (kb / f"r{number:04d}.claims.yaml").write_text(claims, encoding="utf-8")
    return kb


def run(root: Path, kb: Path, repo: Path, base: str, head: str) -> tuple[float, dict]:
    """One pytest process over ``kb``: the range ``base..head`` (``base`` ``None``: a normal run against ``head``)."""
    out = root / "out.json"
    how = f"--memreport-affected={base}..{head}" if base else f"--memreport-against={head}"
    args = [sys.executable, "-m", "pytest", "--memreport", str(kb), f"--memreport-repo={repo}",
            how, f"--memreport-json={out}", "-p", "no:cacheprovider",
            "-p", "no:hypothesispytest", "-q",
            "--rootdir", str(root)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    began = time.perf_counter()
    done = subprocess.run(args, cwd=root, capture_output=True, env=env)
    took = time.perf_counter() - began
    if done.returncode not in (0, 1):
        raise SystemExit(done.stdout.decode() + done.stderr.decode())
    data = json.loads(out.read_text(encoding="utf-8"))
    items = sum(len(r["evidence"]) + sum(len(rec["evidence"]) for rec in r["records"]) + len(r["predicates"])
                for r in data["reports"])
    timing = data["timing"]
    return took, {"items": items, "blobs": int(timing.get("blobs_read", 0)), "parse": timing.get("parse", 0.0),
                  "git": int(timing.get("git_processes", 0)), "reports": len(data["reports"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=200)
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workdir", default=None, help="a folder to build in (default: a temporary one)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-affected-", dir=options.workdir) as scratch:
        root = Path(scratch)
        repo, base = build_target(root, options.files)
        cited = sorted({(n * RECORDS + j) * 7 % options.files for n in range(options.reports) for j in range(RECORDS)})
        branch(repo, base, "none", [])
        branch(repo, base, "one", cited[:1])
        branch(repo, base, "hundred", cited[:: max(1, len(cited) // 100)][:100])
        kb = build_kb(root, "kb", options.reports, base, options.files)
        quarter = build_kb(root, "kb-quarter", options.reports // 4, base, options.files)
        runs = {"n": (kb, "none"), "d1": (kb, "one"), "d100": (kb, "hundred"), "q1": (quarter, "one"),
                "a": (kb, "one")}
        times: dict[str, list[float]] = {key: [] for key in runs}
        counts: dict[str, dict] = {}
        ratios: dict[str, list[float]] = {"(d100)/(d1)": [], "(d1)/(n)": [], "(d1)/(q1)": [], "(d1)/(a)": []}
        for _ in range(options.rounds):
            took = {}
            for key, (folder, head) in runs.items():
                took[key], counts[key] = run(root, folder, repo, None if key == "a" else base, head)
                times[key].append(took[key])
            ratios["(d100)/(d1)"].append(took["d100"] / took["d1"])
            ratios["(d1)/(n)"].append(took["d1"] / took["n"])
            ratios["(d1)/(q1)"].append(took["d1"] / took["q1"])
            ratios["(d1)/(a)"].append(took["d1"] / took["a"])
        print(f"target: {options.files} files; knowledge base: {options.reports} reports x {RECORDS} records "
              f"(a quotation, a cited file, a predicate each); {options.rounds} round(s), medians")
        names = {"n": "touching nothing cited", "d1": "1 file", "d100": "100 files",
                 "q1": f"1 file, {options.reports // 4} reports", "a": "the whole knowledge base, a normal run"}
        for key, name in names.items():
            c = counts[key]
            print(f"({key}) {name}: {statistics.median(times[key]):.2f} s; {c['reports']} report(s), "
                  f"{c['items']} checks, {c['blobs']} blobs read, {c['git']} git processes, parsing {c['parse']:.2f} s")
        for name, values in ratios.items():
            shown = ", ".join(f"{v:.2f}" for v in values)
            print(f"{name}: {statistics.median(values):.2f}x ({shown})")


if __name__ == "__main__":
    main()
