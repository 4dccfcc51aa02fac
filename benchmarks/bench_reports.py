#!/usr/bin/env python
"""Many small reports in one folder (a script, not a test).

    python benchmarks/bench_reports.py                    # 1,000 and 4,000 reports
    python benchmarks/bench_reports.py --sizes 200 800    # a quick run
    python benchmarks/bench_reports.py --profile 800      # cProfile one run in-process (top functions)

A knowledge base written as one report per finding is a folder of thousands of
small files, each with one quotation. What such a folder costs must grow with
the number of reports, never with its square: 4x the reports may cost at most
4.4x the time and the peak memory.

For each size the script builds (deterministically, cached under the work
folder) a folder of one-quotation record reports pinned at the first commit of
a small real target repository (a second commit edits some quoted files, so
drift has work), then runs, each in a fresh interpreter:

``(r)``  ``pytest --memreport reports-N/ --memreport-repo repo`` (cold: no cache; with
         ``--inside``, the reports lie in the target's working tree and pytest's cache
         is on, emptied before each run);
``(e)``  pytest with as many no-op items as ``(r)`` ran, in one module: what
         pytest itself pays per item, the floor of ``(r)``.

Each run's wall time, and its peak memory from ``getrusage(RUSAGE_CHILDREN)``
of a fresh wrapper process whose only child is that pytest run, are printed
with the ratios: largest size over smallest for ``(r)`` and ``(e)`` (the
target: at most 4.4x for 4x the reports) and ``(r)/(e)`` per size.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: bump when the generated data changes, so cached inputs are rebuilt
GENERATOR_VERSION = 1
FILES = 40
AUTHOR_ENV = {
    "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "1700000000 +0000", "GIT_COMMITTER_DATE": "1700000000 +0000",
}


def module_text(index: int, shifted: bool = False) -> str:
    """A small Python module whose every line is distinct across the repository."""
    lines = [f'"""Module {index} of the benchmark target."""', ""]
    if shifted:
        lines += [f"# inserted above everything in module {index}", ""]
    for fn in range(30):
        lines += [f"def step_{index}_{fn}(value):",
                  f"    total_{index}_{fn} = value * {index * 100 + fn}",
                  f"    return total_{index}_{fn} + {fn}", ""]
    return "\n".join(lines) + "\n"


def git(repo: Path, *args: str) -> str:
    env = dict(os.environ, **AUTHOR_ENV)
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def build_target(work: Path) -> tuple[Path, str]:
    """The target: FILES modules at the pin; then a commit shifting every fourth one's lines
    and changing a quoted number in every tenth (so drift reads, follows and fails some)."""
    repo = work / "repo"
    if (repo / ".git").is_dir():
        return repo, git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "pkg").mkdir()
    for index in range(FILES):
        (repo / "pkg" / f"mod_{index}.py").write_text(module_text(index), encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the pinned state")
    pin = git(repo, "rev-parse", "HEAD").strip()
    for index in range(0, FILES, 4):
        (repo / "pkg" / f"mod_{index}.py").write_text(module_text(index, shifted=True), encoding="utf-8")
    for index in range(1, FILES, 10):
        path = repo / "pkg" / f"mod_{index}.py"
        path.write_text(path.read_text(encoding="utf-8").replace(f"* {index * 100 + 3}\n", "* 7\n"),
                        encoding="utf-8")
    git(repo, "commit", "-q", "-am", "later edits")
    return repo, pin


def report_text(number: int, pin: str) -> str:
    """One record report with one quotation (FORMAT.md's records dialect)."""
    index, fn = number % FILES, (number // FILES) % 30
    return (
        f"Finding {number}\n\n"
        "Boundary and evidence\n\n"
        f"The target is the benchmark package at SRC-1 commit {pin}.\n\n"
        "Operative objects\n\n"
        f"MEM-OBJ-finding-{number}\n\n"
        f"Label: Finding {number}\n\n"
        f"The step multiplies its input. SRC-1: pkg/mod_{index}.py.\n\n"
        f"total_{index}_{fn} = value * {index * 100 + fn} --- pkg/mod_{index}.py\n"
    )


def build_reports(work: Path, size: int, pin: str, inside: bool = False) -> Path:
    folder = (work / "repo" / "notes" if inside else work) / f"reports-{size}"
    done = folder / ".complete"
    if done.exists():
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for number in range(size):
        (folder / f"finding-{number:05d}.md").write_text(report_text(number, pin), encoding="utf-8")
    done.write_text("", encoding="utf-8")
    return folder


def noop_module(work: Path, items: int) -> Path:
    path = work / f"test_noop_{items}.py"
    if not path.exists():
        path.write_text("import pytest\n\n\n@pytest.mark.parametrize('i', range(%d))\n"
                        "def test_noop(i):\n    pass\n" % items, encoding="utf-8")
    return path


def environment(work: Path) -> dict:
    """Bytecode cached in the work folder (as on a CI machine: compiled by the first run
    only), the project first on the path, and no outside pytest options."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(work / "pycache"),
               PYTHONPATH=os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")]))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTEST_ADDOPTS", None)
    return env


def measure(work: Path, pytest_args: list[str]) -> dict:
    """One pytest run in a fresh wrapper interpreter: wall time and the peak memory of the
    wrapper's children (the pytest process and the git processes it ran)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--workdir", str(work), "--", *pytest_args]
    done = subprocess.run(cmd, cwd=work, env=environment(work), capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def child(work: Path, pytest_args: list[str]) -> None:
    """The wrapper's side of :func:`measure` (runs as ``--child``)."""
    log = work / "last-run.log"
    with open(log, "wb") as sink:
        start = time.perf_counter()
        code = subprocess.call([sys.executable, "-m", "pytest", *pytest_args], cwd=work, stdout=sink,
                               stderr=subprocess.STDOUT, env=os.environ)
        seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    summary = next((line for line in reversed(tail) if re.search(r" in [\d.]+s\b", line)), "")
    if code not in (0, 1):
        raise SystemExit(f"pytest exited {code}: {' '.join(pytest_args)}\n" + "\n".join(tail[-30:]))
    items = sum(int(n) for n, _ in re.findall(r"(\d+) (passed|failed|skipped|xfailed|xpassed)\b", summary))
    print(json.dumps({"seconds": seconds, "rss_mb": peak, "items": items, "summary": summary.strip("= ")}))


def reports_args(repo: Path, folder: Path, cache: Path | None = None) -> list[str]:
    """The reports' run: cold, without pytest's cache, or with an empty one at ``cache``."""
    cached = ["-o", f"cache_dir={cache}"] if cache else ["-p", "no:cacheprovider"]
    return ["-q", *cached, "--memreport", str(folder.relative_to(repo.parent)), "--memreport-repo", str(repo)]


def fresh(cache: Path | None) -> Path | None:
    if cache is not None:
        shutil.rmtree(cache, ignore_errors=True)
    return cache


def profile(work: Path, repo: Path, folder: Path, cache: Path | None, top: int = 40) -> None:
    """cProfile one run in this process (cumulative and own time of the top functions)."""
    import cProfile
    import pstats

    import pytest

    os.chdir(work)
    sys.path.insert(0, str(HERE.parent))
    profiler = cProfile.Profile()
    profiler.enable()
    pytest.main(reports_args(repo, folder, cache))
    profiler.disable()
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument("--workdir", default=str(HERE / "_work" / "reports"))
    parser.add_argument("--rounds", type=int, default=2, help="measure every size this many times (medians)")
    parser.add_argument("--inside", action="store_true",
                        help="reports in the target's working tree (untracked), with pytest's cache on (emptied "
                             "before each run): results are then keyed by the reports inside the target")
    parser.add_argument("--profile", type=int, default=None, metavar="N", help="cProfile a run of N reports")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("rest", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    work = Path(args.workdir).resolve()
    if args.child:
        child(work, args.rest)
        return
    work.mkdir(parents=True, exist_ok=True)
    if not (work / "pytest.ini").exists():  # keeps any enclosing project's configuration out
        (work / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    stamp = work / f"generator-{GENERATOR_VERSION}"
    if not stamp.exists():
        for old in work.iterdir():
            if old.name != "pycache":
                shutil.rmtree(old) if old.is_dir() else old.unlink()
        (work / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        stamp.write_text("", encoding="utf-8")
    repo, pin = build_target(work)
    cache = work / "cache" if args.inside else None
    if args.profile:
        profile(work, repo, build_reports(work, args.profile, pin, args.inside), fresh(cache))
        return
    sizes = sorted(args.sizes)
    folders = {size: build_reports(work, size, pin, args.inside) for size in sizes}
    measure(work, ["-q", "--co", "-p", "no:cacheprovider", noop_module(work, 10).name])  # warms bytecode
    scale = sizes[-1] / sizes[0]
    rounds: list[dict] = []
    for number in range(1, args.rounds + 1):
        # Each round measures every size and its floor back to back: this machine's speed
        # drifts within minutes, so a ratio is taken from runs of one round only.
        results = {}
        for size in sizes:
            r = measure(work, reports_args(repo, folders[size], fresh(cache)))
            e = measure(work, ["-q", "-p", "no:cacheprovider", noop_module(work, r["items"]).name])
            results[size] = {"reports": r, "noop": e}
            print(f"round {number}, {size:>5} reports: (r) {r['seconds']:7.2f} s {r['rss_mb']:7.1f} MB  "
                  f"{r['summary']}\n{'':>24}(e) {e['seconds']:7.2f} s {e['rss_mb']:7.1f} MB  {e['summary']}   "
                  f"(r)/(e): time {r['seconds'] / e['seconds']:.2f}x, memory {r['rss_mb'] / e['rss_mb']:.2f}x",
                  flush=True)
        small, large = results[sizes[0]], results[sizes[-1]]
        ratios = {f"{name} {what}": large[name][what] / small[name][what]
                  for name in ("reports", "noop") for what in ("seconds", "rss_mb")}
        # (r)'s growth over its own floor's growth: what the plugin adds beyond pytest's items
        ratios["relative seconds"] = ratios["reports seconds"] / ratios["noop seconds"]
        rounds.append({"results": results, "ratios": ratios})
        print(f"round {number}: {scale:g}x the reports costs (r) {ratios['reports seconds']:.2f}x the time and "
              f"{ratios['reports rss_mb']:.2f}x the peak memory; (e) {ratios['noop seconds']:.2f}x and "
              f"{ratios['noop rss_mb']:.2f}x; (r)'s time growth over (e)'s {ratios['relative seconds']:.2f}", flush=True)
    medians = {key: statistics.median(r["ratios"][key] for r in rounds) for key in rounds[0]["ratios"]}
    print(f"medians of {len(rounds)} round(s): {scale:g}x the reports costs {medians['reports seconds']:.2f}x the "
          f"time and {medians['reports rss_mb']:.2f}x the peak memory (target <= {scale * 1.1:.1f}x); pytest's own "
          f"no-op items {medians['noop seconds']:.2f}x and {medians['noop rss_mb']:.2f}x; (r)'s time growth over "
          f"(e)'s {medians['relative seconds']:.2f}")
    (work / "results.json").write_text(json.dumps({"rounds": rounds, "medians": medians}, indent=2),
                                       encoding="utf-8")

if __name__ == "__main__":
    main()
