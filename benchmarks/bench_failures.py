#!/usr/bin/env python
"""What pytest's failure summary costs per failure as items grow (a script, not a test).

    python benchmarks/bench_failures.py [--quotes 4000 8000 --failing 400 --workdir benchmarks/_work]

Builds a small target (one commit, 40 files) and, for each quotation count N,
one record report quoting N single lines of it, ``--failing`` of them with a
digit changed (missing at the pin). Runs ``pytest --memreport ... --memreport-against
none -p no:cacheprovider`` twice per N, with pytest's failure summary (``--tb=short``)
and without it (``--tb=no``), and prints the difference per failure.

pytest looks up every failing item's teardown reports in the list of all
passed setup and teardown reports (``TerminalReporter._get_teardown_reports``),
so without the plugin's help the per-failure cost grows with the number of
items: the cost per failure at 2N is then about twice that at N. The plugin
keeps its own items' empty setup and teardown reports out of that list; the
ratio printed as ``per-failure growth`` should stay near 1.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILES = 40
LINES = 250


def build(root: Path) -> str:
    repo = root / "repo"
    if (repo / ".git").exists():
        return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    (repo / "src").mkdir(parents=True)
    for f in range(FILES):
        body = "".join(f"value_{f}_{i} = compute({f}, {i}, {i * 7 + f})  # step {i}\n" for i in range(LINES))
        (repo / "src" / f"mod{f}.py").write_text(body, encoding="utf-8")
    env = {**os.environ, "GIT_AUTHOR_NAME": "B", "GIT_AUTHOR_EMAIL": "b@example.invalid",
           "GIT_COMMITTER_NAME": "B", "GIT_COMMITTER_EMAIL": "b@example.invalid"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "one"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, env=env)
    return build(root)


def write_report(root: Path, pin: str, quotes: int, failing: int) -> Path:
    lines = ["Failures benchmark", "", f"The target is at SRC-1 commit {pin}.", ""]
    per_record = 20
    step = max(1, quotes // failing) if failing else 0
    for n in range(quotes):
        if n % per_record == 0:
            lines += [f"MEM-OBJ-r{n // per_record}", "", f"Label: record {n // per_record}", "",
                      "SRC-1: src/mod0.py.", ""]
        f, i = n % FILES, (n // FILES) % LINES
        digit = i * 7 + f + (1 if step and n % step == 0 and n // step < failing else 0)
        lines += [f"value_{f}_{i} = compute({f}, {i}, {digit}) --- src/mod{f}.py", ""]
    path = root / f"report-{quotes}-{failing}.txt"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def timed(root: Path, report: Path, tb: str) -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "--memreport", str(report), f"--memreport-repo={root / 'repo'}",
                    "--memreport-against", "none", "-q", "-p", "no:cacheprovider", f"--tb={tb}"],
                   cwd=root, capture_output=True, check=False)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quotes", type=int, nargs="+", default=[4000, 8000])
    parser.add_argument("--failing", type=int, default=400)
    parser.add_argument("--workdir", type=Path, default=HERE / "_work")
    args = parser.parse_args()
    root = args.workdir / "failures"
    root.mkdir(parents=True, exist_ok=True)
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    pin = build(root)
    per_failure = []
    print(f"load: {os.getloadavg()[0]:.2f} (1-minute average)")
    for quotes in args.quotes:
        report = write_report(root, pin, quotes, args.failing)
        timed(root, report, "no")  # warm the bytecode and the page cache
        quiet = min(timed(root, report, "no") for _ in range(2))
        full = min(timed(root, report, "short") for _ in range(2))
        cost = (full - quiet) / args.failing
        per_failure.append(cost)
        print(f"{quotes} quotations, {args.failing} failing: --tb=no {quiet:.2f} s, --tb=short {full:.2f} s, "
              f"summary {full - quiet:.2f} s ({cost * 1000:.2f} ms per failure)")
    if len(per_failure) > 1 and per_failure[0] > 0:
        print(f"per-failure growth from {args.quotes[0]} to {args.quotes[-1]} items: "
              f"{per_failure[-1] / per_failure[0]:.2f}x (items grew {args.quotes[-1] / args.quotes[0]:.1f}x)")


if __name__ == "__main__":
    main()
