#!/usr/bin/env python
"""A run-shaped benchmark: a long history, many renames, line-range citations (a script, not a test).

    python benchmarks/bench_history.py [--files 1500 --commits 730 --reports 7 --workdir benchmarks/_work]

Builds, deterministically (fixed seed, cached in the work folder by
parameters), a target repository with one initial commit of ``--files``
Python files and ``--commits`` first-parent commits after it, each editing a
few files (lines inserted, deleted, changed), every 6th renaming a file (some
renamed and edited), every 120th moving a whole folder; and ``--reports``
record reports pinned at the first commit citing line ranges
(``SRC-1: src/a/m.py:40-52.``) and quoting lines (``code --- path:L``). Then
times, in one run and one after another:

(f) git's floor for the question: one ``git diff -M -U0 pin HEAD`` plus one
    first-parent ``git log -M --name-status pin..HEAD``;
(n) pytest alone with as many no-op items as the memreport run has;
(c) ``pytest --memreport ...`` cold (``--cache-clear``: nothing cached);
(w) the same again, warm (the result cache under pytest's cache answers);
(u) the same with ``-p no:cacheprovider`` (no result cache at all),

and prints ``(c)/((f)+(n))`` and ``(w)/(n)`` (the targets). ``--rounds N`` (default 3) times every
line N times, in turn, and prints the medians (of the times, and of each round's own
ratios: the machine's speed drifts between rounds). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
GENERATOR_VERSION = 1
SEED = 20261201
AUTHOR = "Bench Author <bench@example.invalid> 1700000000 +0000"
DIRS = ("core", "net", "store", "api", "sched", "util", "cli", "web", "proto", "infra")


def gen_file(rng: random.Random, index: int, functions: tuple[int, int] = (6, 14),
             body: tuple[int, int] = (4, 12)) -> list[str]:
    """A module of small functions whose every line is distinct (so each citation says one
    thing): ``functions`` and ``body`` bound how many functions, and lines in each."""
    lines = [f'"""Module {index}."""', "", f"LIMIT_{index} = {rng.randint(10, 999)}", ""]
    for fn in range(rng.randint(*functions)):
        lines.append(f"def step_{index}_{fn}(value, extra={rng.randint(0, 99)}):")
        for k in range(rng.randint(*body)):
            lines.append(f"    value = combine_{rng.randint(0, 50)}(value, {index}, {fn}, {k})  # {rng.randint(0, 9999)}")
        lines.append("    return value")
        lines.append("")
    return lines


def build(args, root: Path) -> dict:
    rng = random.Random(SEED)
    repo = root / "repo"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    files = {f"src/{DIRS[i % len(DIRS)]}/mod_{i}.py": gen_file(rng, i) for i in range(args.files)}
    pin_files = {p: list(lines) for p, lines in files.items()}
    stream = bytearray()
    mark = 0

    def blob(lines: list[str]) -> int:
        nonlocal mark
        data = ("\n".join(lines) + "\n").encode()
        mark += 1
        stream.extend(b"blob\nmark :%d\ndata %d\n" % (mark, len(data)) + data + b"\n")
        return mark

    def commit(message: str, ops: list[bytes], first: bool = False) -> None:
        nonlocal mark
        marks_ops = bytearray()
        for op in ops:
            marks_ops.extend(op)
        mark += 1
        msg = message.encode()
        stream.extend(b"commit refs/heads/main\nmark :%d\n" % mark)
        stream.extend(f"author {AUTHOR}\ncommitter {AUTHOR}\n".encode())
        stream.extend(b"data %d\n%s\n" % (len(msg), msg))
        if not first:
            stream.extend(b"from :%d\n" % last_commit[0])
        stream.extend(marks_ops)
        stream.extend(b"\n")
        last_commit[0] = mark

    last_commit = [0]
    ops = []
    for path, lines in files.items():
        ops.append(b"M 100644 :%d %s\n" % (blob(lines), path.encode()))
    commit("initial", ops, first=True)
    pin_mark = last_commit[0]
    renames = edited = moved_dirs = 0
    touched: set[str] = set()
    for n in range(args.commits):
        ops = []
        paths = sorted(files)
        for path in rng.sample(paths, rng.randint(1, 4)):
            lines = files[path]
            at = rng.randrange(len(lines))
            what = rng.random()
            if what < 0.5:
                lines[at:at] = [f"# note {n}.{k}: revisit" for k in range(rng.randint(1, 4))]
            elif what < 0.75:
                del lines[at : at + rng.randint(1, 2)]
            else:
                lines[at] = lines[at] + f"  # changed in {n}"
            ops.append(b"M 100644 :%d %s\n" % (blob(lines), path.encode()))
            touched.add(path)
            edited += 1
        if n % 6 == 5:
            old = rng.choice(sorted(files))
            new = f"src/{rng.choice(DIRS)}/renamed_{n}_{old.rsplit('/', 1)[1]}"
            files[new] = files.pop(old)
            if rng.random() < 0.5:
                files[new][0:0] = [f"# moved in {n}"]
            ops.append(b"D %s\n" % old.encode())
            ops.append(b"M 100644 :%d %s\n" % (blob(files[new]), new.encode()))
            renames += 1
        if n % 120 == 60:
            folder = DIRS[(n // 120) % len(DIRS)]
            prefix = f"src/{folder}/"
            for old in [p for p in sorted(files) if p.startswith(prefix)][:40]:
                new = f"lib/{folder}_{n}/" + old[len(prefix):]
                files[new] = files.pop(old)
                ops.append(b"D %s\n" % old.encode())
                ops.append(b"M 100644 :%d %s\n" % (blob(files[new]), new.encode()))
                renames += 1
            moved_dirs += 1
        commit(f"change {n}", ops)
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input=bytes(stream), check=True)
    subprocess.run(["git", "-C", str(repo), "reset", "-q", "--hard", "main"], check=True)
    pin = subprocess.run(["git", "-C", str(repo), "rev-list", "--max-parents=0", "main"], capture_output=True,
                         text=True, check=True).stdout.strip()
    del pin_mark
    reports = write_reports(rng, root, pin, pin_files, args)
    return {"pin": pin, "files": args.files, "commits": args.commits + 1, "renames": renames, "edits": edited,
            "moved_folders": moved_dirs, "changed_files": len(touched), **reports}


def write_reports(rng: random.Random, root: Path, pin: str, pin_files: dict, args) -> dict:
    folder = root / "reports"
    folder.mkdir()
    paths = sorted(pin_files)
    names, ranges, quotes = [], 0, 0
    for r in range(args.reports):
        lines = [f"Run report {r}", "", f"The target is at SRC-1 commit {pin}.", ""]
        for rec in range(args.records):
            lines += [f"MEM-OBJ-r{r}-{rec}", "", f"Label: record {r}.{rec}", ""]
            cited = []
            for _ in range(args.ranges):
                path = rng.choice(paths)
                size = len(pin_files[path])
                start = rng.randint(1, max(1, size - 8))
                cited.append(f"{path}:{start}-{min(size, start + rng.randint(0, 8))}")
                ranges += 1
            lines += [f"The record cites its code. SRC-1: {', '.join(cited)}.", ""]
            path = rng.choice(paths)
            candidates = [i for i, line in enumerate(pin_files[path]) if "combine_" in line]
            at = rng.choice(candidates)
            lines += [f"{pin_files[path][at].strip()} --- {path}:{at + 1}", ""]
            quotes += 1
            lines += ["• implementation conclusion status: afforded", "• operation conclusion status: uninspected", ""]
        name = f"run-{r}.md"
        (folder / name).write_text("\n".join(lines), encoding="utf-8")
        names.append(name)
    return {"reports": names, "ranges": ranges, "quotes": quotes}


def ensure_input(args) -> tuple[Path, dict]:
    key = hashlib.sha1(json.dumps([GENERATOR_VERSION, args.files, args.commits, args.reports, args.records,
                                   args.ranges]).encode()).hexdigest()[:10]
    root = Path(args.workdir).resolve() / f"history-{key}"
    manifest_path = root / "manifest.json"
    if manifest_path.exists():
        return root, json.loads(manifest_path.read_text())
    if root.exists():
        subprocess.run(["rm", "-rf", str(root)], check=True)
    root.mkdir(parents=True)
    began = time.perf_counter()
    manifest = build(args, root)
    manifest["build_seconds"] = round(time.perf_counter() - began, 1)
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    return root, manifest


def environment(root: Path) -> dict:
    """Bytecode cached in the work folder (as on a CI machine); this checkout's package first."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(root.parent / "pycache"), PYTHONPATH=os.pathsep.join([str(HERE), str(HERE.parent)]))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTEST_ADDOPTS", None)
    return env


def run(root: Path, cmd: list[str]) -> tuple[float, str]:
    began = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, env=environment(root), capture_output=True, text=True)
    seconds = time.perf_counter() - began
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:6])} ... exited {proc.returncode}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    summary = next((line for line in reversed(proc.stdout.splitlines()) if re.search(r" in [\d.]+s\b", line)), "")
    return seconds, summary.strip("= ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=1500)
    parser.add_argument("--commits", type=int, default=730)
    parser.add_argument("--reports", type=int, default=7)
    parser.add_argument("--records", type=int, default=30, help="records per report")
    parser.add_argument("--ranges", type=int, default=6, help="line-range citations per record")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of (f) (c) (w) (u) (n), one after another; medians are printed")
    parser.add_argument("--workdir", default=str(HERE / "_work"))
    args = parser.parse_args()
    root, m = ensure_input(args)
    repo = root / "repo"
    print(f"input: {m['files']} files, {m['commits']} commits ({m['edits']} file edits over {m['changed_files']} files, "
          f"{m['renames']} renames, {m['moved_folders']} folders moved); {len(m['reports'])} reports with "
          f"{m['ranges']} line-range citations and {m['quotes']} quotations (built in {m['build_seconds']} s)")
    print(f"load before: {os.getloadavg()}", flush=True)
    memreport = [sys.executable, "-m", "pytest", "-q", "--tb=line", "-o", f"cache_dir={root / 'cache'}",
                 *(a for name in m["reports"] for a in ("--memreport", f"reports/{name}")), f"--memreport-repo={repo}",
                 "--memreport-json", str(root / "out.json")]
    _, summary = run(root, memreport[:4] + ["--collect-only", "-p", "no:cacheprovider"] + memreport[7:])  # compile
    count = int(re.search(r"(\d+) tests? collected", summary).group(1))
    (root / "test_noop.py").write_text(
        "import pytest\n\n\n@pytest.mark.parametrize('i', range(%d))\ndef test_noop(i):\n    pass\n" % count,
        encoding="utf-8")
    noop_cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_noop.py"]
    run(root, noop_cmd)  # compile, untimed

    # Rounds, each timing every line once: the machine's speed drifts, and a ratio is
    # taken within a round, so the medians of the per-round ratios are what to quote.
    rows: dict[str, list[float]] = {k: [] for k in ("f", "c", "w", "u", "n")}
    ratios: dict[str, list[float]] = {"cold": [], "warm": [], "none": []}
    for round_ in range(1, args.rounds + 1):
        began = time.perf_counter()
        subprocess.run(["git", "-C", str(repo), "diff", "-M", "-U0", m["pin"], "HEAD"], capture_output=True, check=True)
        subprocess.run(["git", "-C", str(repo), "log", "--first-parent", "-M", "--name-status", "--format=%H",
                        f"{m['pin']}..HEAD"], capture_output=True, check=True)
        floor = time.perf_counter() - began
        cold, cold_summary = run(root, memreport + ["--cache-clear"])
        data = json.loads((root / "out.json").read_text())
        warm, warm_summary = run(root, memreport)
        timing = json.loads((root / "out.json").read_text())["timing"]
        uncached, _ = run(root, memreport + ["-p", "no:cacheprovider"])
        noop, _ = run(root, noop_cmd)
        for key, value in zip("fcwun", (floor, cold, warm, uncached, noop)):
            rows[key].append(value)
        ratios["cold"].append(cold / (floor + noop))
        ratios["warm"].append(warm / noop)
        ratios["none"].append(uncached / (floor + noop))
        print(f"round {round_}: (f) {floor:.2f} s, (c) {cold:.2f} s, (w) {warm:.2f} s, (u) {uncached:.2f} s, "
              f"(n) {noop:.2f} s; cold {ratios['cold'][-1]:.2f}x, warm {ratios['warm'][-1]:.2f}x",
              flush=True)
    statuses: dict = {}
    for rep in data["reports"]:
        for rec in rep["records"]:
            for ev in rec["evidence"]:
                drift = (ev.get("at_against") or {}).get("status")
                statuses[drift] = statuses.get(drift, 0) + 1
    median = statistics.median
    print(f"medians of {args.rounds} round(s):")
    print(f"(f) git floor  {median(rows['f']):6.2f} s  (git diff -M -U0 pin HEAD + git log --first-parent -M --name-status)")
    print(f"(c) cold       {median(rows['c']):6.2f} s  ({cold_summary}; drift {dict(sorted(statuses.items(), key=str))}; "
          f"timing {data['timing']})")
    print(f"(w) warm       {median(rows['w']):6.2f} s  ({warm_summary}; blobs read {timing.get('blobs_read', 0):.0f}, "
          f"results cached {timing.get('results_cached', 0):.0f}, computed {timing.get('results_computed', 0):.0f})")
    print(f"(u) no cache   {median(rows['u']):6.2f} s  (-p no:cacheprovider)")
    print(f"(n) pytest     {median(rows['n']):6.2f} s  ({count} no-op items)")
    print(f"ratios (median of the rounds' own): cold (c)/((f)+(n)) = {median(ratios['cold']):.2f}x (target 2.5x); "
          f"warm (w)/(n) = {median(ratios['warm']):.2f}x (target 1.5x); "
          f"no cache (u)/((f)+(n)) = {median(ratios['none']):.2f}x")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
