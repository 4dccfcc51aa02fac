#!/usr/bin/env python
"""What 250,000 kept results cost a one-quotation run (a script, not a test).

    python benchmarks/bench_cache.py [--results 250000 --rounds 3 --workdir DIR]

Fills a result cache with ``--results`` results through the real API
(``ResultCache.key``/``put``/``save``, so in the real format): pin and drift
results of 1,000 quotations at each of many pins, as a team rerunning reports at
many revisions leaves them, up to the cache's cap. Then runs, as users do,
``pytest --memreport report.md`` on a report of one quotation, in a subprocess, with
pytest's cache folder holding a copy of the filled cache, and with an empty one:
each twice (the quotation computed and kept, then read back). Rounds alternate the
two, and the medians of each round's ratios are printed, with each run's peak
memory (``ru_maxrss``).

Target (issue 31): the filled cache's run within 1.2x of the empty cache's. Before
the per-pair store, every run read every kept result: 7-14 s and 825 MB.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from pytest_memreport.checks.drift.results import DriftResult, Place  # noqa: E402
from pytest_memreport.checks.verify import PinResult  # noqa: E402
from pytest_memreport.model import Evidence, EvidenceKind, LineRange  # noqa: E402
from pytest_memreport.options import RunOptions  # noqa: E402
from pytest_memreport.resultcache import FILE_NAME, ResultCache, evidence_key  # noqa: E402
from pytest_memreport.text.syntax.definitions import Definition  # noqa: E402

PER_PIN = 1000
SOURCE = "".join(f"def step_{i}(state):\n    return state + {i}\n\n\n" for i in range(200))

_RUN = ("import resource, sys, pytest\n"
        "code = pytest.main(sys.argv[1:])\n"
        "print('MAXRSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(int(code))\n")


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "B", "GIT_AUTHOR_EMAIL": "b@example.invalid",
           "GIT_COMMITTER_NAME": "B", "GIT_COMMITTER_EMAIL": "b@example.invalid"}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


def build_target(work: Path) -> tuple[Path, Path]:
    repo = work / "target"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "steps.py").write_text(SOURCE, encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "steps")
    pin = git(repo, "rev-parse", "HEAD").strip()
    report = work / "report.md"
    report.write_text(f"Steps report\n\nThe target is at SRC-1 commit {pin}.\n\nMEM-OBJ-steps\n\nLabel: Steps\n\n"
                      f"SRC-1: src/steps.py.\n\ndef step_7(state): --- src/steps.py\n", encoding="utf-8")
    return repo, report


def fill(folder: Path, results: int) -> float:
    """``results`` pin and drift results at ``results / 2 / PER_PIN`` pins, kept through the real API."""
    start = time.perf_counter()
    cache = ResultCache(folder, options=RunOptions())
    pins = max(1, results // (2 * PER_PIN))
    for p in range(pins):
        pin, against = f"{p:040x}", f"{p + 1:040x}"
        for n in range(PER_PIN):
            evidence = Evidence(EvidenceKind.QUOTE, f"src/module_{n % 97}.py", 10 + n, 10 + n,
                                text=f"value_{n} = compute({n}, {p})", cited_lines=LineRange(n + 1, n + 2))
            digest = evidence_key(evidence)
            lines = LineRange(n + 1, n + 1)
            symbol = Definition("function", f"compute_{n}", LineRange(n + 1, n + 9), 40 * n, 40 * n + 300)
            cache.put(cache.key("pin", pin, digest, True, 5 * 1024 * 1024),
                      PinResult("found", pin, evidence.path, lines=lines, in_cited_range=True, symbol=symbol,
                                occurrences=(lines,), oid=f"{n:040x}",
                                message=f"found in {evidence.path} at lines {lines}"))
            cache.put(cache.key("drift", pin, against, digest, True, 5 * 1024 * 1024, []),
                      DriftResult("shifted", against, evidence.path, LineRange(n + 3, n + 3), lines,
                                  candidates=(Place(evidence.path, LineRange(n + 3, n + 3)),), symbol=symbol,
                                  old_path=evidence.path, message=f"now at {evidence.path}:{n + 3}"))
        if (p + 1) % 25 == 0:  # a save per batch of pins, as many runs would have made them
            cache.save(fold=True)
    cache.save(fold=True)
    return time.perf_counter() - start


def one_run(cache_dir: Path, repo: Path, report: Path) -> tuple[float, int]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _RUN, "--memreport", str(report), f"--memreport-repo={repo}",
                           "-q", "-p", "no:randomly", "-o", f"cache_dir={cache_dir}", "--rootdir", str(report.parent)],
                          cwd=report.parent, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"the run failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    rss = next(int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("MAXRSS_KB"))
    return seconds, rss


def cache_cost(folder: Path, pin: str, repeats: int = 15) -> float:
    """The cache's own part of a one-quotation run, in this process: open the file, look
    the quotation's pin and drift results up (a miss), keep them, save. Median seconds."""
    evidence = Evidence(EvidenceKind.QUOTE, "src/steps.py", 11, 11, text="def step_7(state):")
    times = []
    for n in range(repeats):
        start = time.perf_counter()
        cache = ResultCache(folder, options=RunOptions())
        key = cache.key("pin", pin, evidence_key(evidence), n, True)
        drift_key = cache.key("drift", pin, pin, evidence_key(evidence), n, True)
        assert cache.get(key, ResultCache.MISS) is ResultCache.MISS
        cache.get(drift_key, ResultCache.MISS)
        cache.put(key, PinResult("found", pin, evidence.path, lines=LineRange(29, 29)))
        cache.put(drift_key, DriftResult("unchanged", pin, evidence.path, LineRange(29, 29), LineRange(29, 29)))
        cache.save(fold=True)
        cache.release()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=int, default=250_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    if args.workdir is not None:
        args.workdir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="bench-cache-", dir=args.workdir))
    try:
        repo, report = build_target(work)
        filled = work / "filled"
        seconds = fill(filled, args.results)
        kept = ResultCache(filled, options=RunOptions()).kept()
        size = (filled / FILE_NAME).stat().st_size
        print(f"filled: {kept:,} results kept, {size / 1e6:.0f} MB, in {seconds:.1f} s (through the real API)")
        pin = git(repo, "rev-parse", "HEAD").strip()
        for name in ("empty", "filled"):
            folder = work / f"inprocess-{name}"
            folder.mkdir()
            if name == "filled":
                shutil.copyfile(filled / FILE_NAME, folder / FILE_NAME)
            print(f"the cache's own cost of a one-quotation run, {name}: {cache_cost(folder, pin) * 1000:.1f} ms")
            shutil.rmtree(folder)
        ratios: dict[str, list[float]] = {"first run (quotation computed)": [], "rerun (quotation kept)": []}
        memory: list[float] = []
        rows = []
        for round_ in range(args.rounds):
            measured = {}
            for name in ("empty", "filled"):  # alternated each round: this machine's speed drifts
                cache_dir = work / f"cache-{name}-{round_}"
                results = cache_dir / "d" / "memreport-results"
                results.mkdir(parents=True)
                if name == "filled":
                    shutil.copyfile(filled / FILE_NAME, results / FILE_NAME)
                measured[name] = [one_run(cache_dir, repo, report), one_run(cache_dir, repo, report)]
                shutil.rmtree(cache_dir)
            for index, label in enumerate(ratios):
                ratios[label].append(measured["filled"][index][0] / measured["empty"][index][0])
            memory.append(measured["filled"][0][1] / measured["empty"][0][1])
            rows.append(measured)
            print(f"round {round_ + 1}: empty {measured['empty'][0][0]:.2f} s / {measured['empty'][1][0]:.2f} s, "
                  f"{measured['empty'][0][1] / 1024:.0f} MB; filled {measured['filled'][0][0]:.2f} s / "
                  f"{measured['filled'][1][0]:.2f} s, {measured['filled'][0][1] / 1024:.0f} MB")
        for label, values in ratios.items():
            verdict = "within" if statistics.median(values) <= 1.2 else "OVER"
            print(f"{label}: filled / empty cache = {statistics.median(values):.2f}x "
                  f"(target <= 1.2x: {verdict}; rounds {', '.join(f'{v:.2f}' for v in values)})")
        print(f"peak memory: filled / empty cache = {statistics.median(memory):.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
