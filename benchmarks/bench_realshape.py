#!/usr/bin/env python
"""The cost structure of real workloads, against floors run in the same process (a script, not a test).

    python benchmarks/bench_realshape.py [--rounds 3] [--workdir /tmp/memreport-realshape] [--only c,s,q]

Builds once (deterministic, cached in the work folder; git fast-import, one
process) a target shaped like the users' own:

- 4,200 Python files in 12 folders, one initial commit (the pin) and 720
  first-parent commits after it: each edits a few files; every 6th renames a
  file (half of them edited too), every 120th moves a whole folder;
- 150 functions the reports cite by line range leave their file for another
  one on the way (half of them edited as they move): the ranges that left
  their file, which the drift check searches the against-revision for;
- ``src/core/machine.py``: one class of 10,000 lines, edited by 30 of the
  commits, cited by a backticked symbol (``StateMachine``);
- 7 run reports of 30 records, each citing 8 line ranges and quoting one line
  (about 1,900 pieces of evidence), checked at the pin and against HEAD;
- 20 more reports holding 10,000 quotations of the pin, 500 of them altered
  (missing), checked at the pin only.

Then, round after round, it times (``time.perf_counter`` around each process):

(f)  git's own answer for the pair: ``git diff -M pin HEAD`` + ``git log --first-parent -M --raw pin..HEAD``;
(n)  pytest running as many no-op items as the drift run has;
(c)  the drift run cold (``--cache-clear``), (w) warm (the result cache answers);
(s)  the drift check of the 10,000-line symbol alone, in one process (pin check, then drift; the
     pair's listings and log, asked once per run for all evidence, asked first and untimed);
(q)  the 10,000 quotations, an item per evidence, pin only; (nq) as many no-op items;
(r)  the same, ``--memreport-items=record``; (fr) one ``git cat-file --batch`` pass over
     the cited blobs + as many no-op items as the records;
(x)  the real sample of ``../shared/samples`` (or ``--samples DIR``) when present (skipped
     otherwise), against HEAD; (fx) git's own diff and log for its pair; (nx) as many no-op items.

and prints the medians of the rounds' own ratios: cold ``(c)/((f)+(n))`` (target
2.5x), warm ``(w)/(n)`` (1.5x), ``(s)`` (under 1 s), ``(q)/(nq)`` (1.5x),
``(r)/(fr)`` (3x), ``(x)/((fx)+(nx))`` (2.5x, as cold), and the git processes of the drift run (the JSON's
``timing.git_processes``). ``--code DIR`` runs another checkout of the
package (to measure before and after a change, paired). See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bench_history  # beside this script

HERE = Path(__file__).resolve().parent
GENERATOR_VERSION = 1
SEED = 20261202
AUTHOR = "Bench Author <bench@example.invalid> 1700000000 +0000"
DIRS = ("core", "net", "store", "api", "sched", "util", "cli", "web", "proto", "infra", "auth", "jobs")
FILES = 4200
COMMITS = 720
MOVED = 150
REPORTS, RECORDS, RANGES = 7, 30, 8
QUOTES, ALTERED, QUOTE_REPORTS = 10_000, 500, 20
HUGE_PATH = "src/core/machine.py"
HUGE_METHODS = 1250  # of 8 lines each: a 10,000-line class
#: the real sample, beside the checkout (``../shared/samples``), or where --samples says
SAMPLES = HERE.parent.parent / "shared" / "samples"


def gen_file(rng: random.Random, index: int) -> list[str]:
    """The history benchmark's modules, a little shorter (the same draws, so the same target)."""
    return bench_history.gen_file(rng, index, functions=(6, 12), body=(4, 10))


def gen_huge() -> list[str]:
    lines = ['"""The state machine."""', "", "", "class StateMachine:"]
    for m in range(HUGE_METHODS):
        lines += [f"    def on_event_{m}(self, event):",
                  f"        state = self.states[{m % 97}]",
                  f"        if event.kind == 'kind_{m}':",
                  f"            state = transition_{m % 13}(state, event, {m})",
                  f"        self.trace.append(('on_event_{m}', state))",
                  "        self.states.append(state)",
                  "        return state",
                  ""]
    return lines


def function_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """``(first, last)`` 0-based line indexes of each ``def ... return value`` block."""
    out, start = [], None
    for i, line in enumerate(lines):
        if line.startswith("def "):
            start = i
        elif line == "    return value" and start is not None:
            out.append((start, i))
            start = None
    return out


class Stream:
    """A git fast-import stream: blobs and commits on ``main``."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.mark = 0
        self.last = 0

    def blob(self, lines: list[str]) -> int:
        payload = ("\n".join(lines) + "\n").encode()
        self.mark += 1
        self.data.extend(b"blob\nmark :%d\ndata %d\n" % (self.mark, len(payload)) + payload + b"\n")
        return self.mark

    def commit(self, message: str, ops: list[bytes]) -> None:
        self.mark += 1
        msg = message.encode()
        self.data.extend(b"commit refs/heads/main\nmark :%d\n" % self.mark)
        self.data.extend(f"author {AUTHOR}\ncommitter {AUTHOR}\n".encode())
        self.data.extend(b"data %d\n%s\n" % (len(msg), msg))
        if self.last:
            self.data.extend(b"from :%d\n" % self.last)
        for op in ops:
            self.data.extend(op)
        self.data.extend(b"\n")
        self.last = self.mark


def pinned_tree(rng: random.Random) -> tuple[dict[str, list[str]], list[tuple[str, int, int]]]:
    """The target's files at the pin, and the cited functions that will leave their file
    (``(pin path, first, last)``, 0-based): the generator's first draws, so that another
    benchmark can write other reports of the same target (``pinned_tree(Random(SEED))``)."""
    files = {f"src/{DIRS[i % len(DIRS)]}/mod_{i}.py": gen_file(rng, i) for i in range(FILES)}
    files[HUGE_PATH] = gen_huge()
    movable = [p for p in sorted(files) if p != HUGE_PATH]
    moving = []
    for path in rng.sample(movable, MOVED):
        first, last = rng.choice(function_blocks(files[path]))
        moving.append((path, first, last))
    return files, moving


def build(root: Path) -> dict:
    rng = random.Random(SEED)
    repo = root / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    files, moving = pinned_tree(rng)
    pin_files = {p: list(lines) for p, lines in files.items()}
    stream = Stream()
    stream.commit("initial", [b"M 100644 :%d %s\n" % (stream.blob(lines), p.encode()) for p, lines in files.items()])
    where = {p: p for p in files}  # pin path -> current path
    move_at = {n: moving[k] for k, n in enumerate(sorted(rng.sample(range(COMMITS), MOVED)))}
    counts = {"renames": 0, "moved_folders": 0, "moved_functions": 0, "huge_edits": 0}
    for n in range(COMMITS):
        ops: list[bytes] = []
        changed: set[str] = set()
        for path in rng.sample(sorted(p for p in files if p != HUGE_PATH), rng.randint(1, 3)):
            lines = files[path]
            at = rng.randrange(len(lines))
            what = rng.random()
            if what < 0.5:
                lines[at:at] = [f"# note {n}.{k}: revisit" for k in range(rng.randint(1, 3))]
            elif what < 0.75:
                del lines[at : at + rng.randint(1, 2)]
            else:
                lines[at] = lines[at] + f"  # changed in {n}"
            changed.add(path)
        if n in move_at:
            pin_path, first, last = move_at[n]
            source = where.get(pin_path)
            block = pin_files[pin_path][first : last + 1]
            lines = files.get(source, [])
            at = next((i for i, line in enumerate(lines) if line == block[0]), None)
            if at is not None and lines[at : at + len(block)] == block:
                del lines[at : at + len(block)]
                lines.insert(0, f"# step moved out in change {n}")
                if counts["moved_functions"] % 2:
                    block = block[:1] + [block[1] + f"  # edited while moving in {n}"] + block[2:]
                target = rng.choice(sorted(p for p in files if p not in (source, HUGE_PATH)))
                files[target] += [""] + block
                changed.update((source, target))
                counts["moved_functions"] += 1
        if n % 24 == 11:
            huge = files[HUGE_PATH]
            at = 4 + 8 * rng.randrange(HUGE_METHODS) + 3
            huge[at] = huge[at].replace(")", f", {n})", 1)
            changed.add(HUGE_PATH)
            counts["huge_edits"] += 1
        if n % 6 == 5:
            old = rng.choice(sorted(p for p in files if p != HUGE_PATH and p not in changed))
            new = f"src/{rng.choice(DIRS)}/renamed_{n}_{old.rsplit('/', 1)[1]}"
            files[new] = files.pop(old)
            if rng.random() < 0.5:
                files[new][0:0] = [f"# renamed in {n}"]
            ops.append(b"D %s\n" % old.encode())
            changed.add(new)
            _repoint(where, old, new)
            counts["renames"] += 1
        if n % 120 == 60:
            folder = DIRS[(n // 120) % len(DIRS)]
            prefix = f"src/{folder}/"
            for old in [p for p in sorted(files) if p.startswith(prefix) and p != HUGE_PATH]:
                new = f"lib/{folder}_{n}/" + old[len(prefix):]
                files[new] = files.pop(old)
                ops.append(b"D %s\n" % old.encode())
                changed.discard(old)
                changed.add(new)
                _repoint(where, old, new)
                counts["renames"] += 1
            counts["moved_folders"] += 1
        for path in sorted(changed):
            if path in files:
                ops.append(b"M 100644 :%d %s\n" % (stream.blob(files[path]), path.encode()))
        stream.commit(f"change {n}", ops)
    subprocess.run(["git", "-C", str(repo), "fast-import", "--quiet"], input=bytes(stream.data), check=True)
    subprocess.run(["git", "-C", str(repo), "reset", "-q", "--hard", "main"], check=True)
    pin = subprocess.run(["git", "-C", str(repo), "rev-list", "--max-parents=0", "main"], capture_output=True,
                         text=True, check=True).stdout.strip()
    drift_reports = write_drift_reports(rng, root, pin, pin_files, moving)
    quote_reports, cited_blobs = write_quote_reports(rng, root, pin, pin_files)
    return {"pin": pin, "files": len(pin_files), "commits": COMMITS + 1, **counts,
            "drift_reports": drift_reports, "quote_reports": quote_reports, "cited_paths": cited_blobs}


def _repoint(where: dict, old: str, new: str) -> None:
    for pin_path, current in where.items():
        if current == old:
            where[pin_path] = new


def write_drift_reports(rng: random.Random, root: Path, pin: str, pin_files: dict, moving: list) -> list[str]:
    """Run reports citing line ranges (150 of them the functions that move) and quoting lines."""
    folder = root / "drift"
    folder.mkdir()
    paths = sorted(p for p in pin_files if p != HUGE_PATH)
    moved = [f"{path}:{first + 1}-{last + 1}" for path, first, last in moving]
    names = []
    for r in range(REPORTS):
        lines = [f"Run report {r}", "", f"The target is at SRC-1 commit {pin}.", ""]
        for rec in range(RECORDS):
            lines += [f"MEM-OBJ-r{r}-{rec}", "", f"Label: record {r}.{rec}", ""]
            cited = []
            for _ in range(RANGES):
                if moved and rng.random() < 0.15:
                    cited.append(moved.pop())
                    continue
                path = rng.choice(paths)
                size = len(pin_files[path])
                start = rng.randint(1, max(1, size - 8))
                cited.append(f"{path}:{start}-{min(size, start + rng.randint(0, 8))}")
            lines += [f"The record cites its code. SRC-1: {', '.join(cited)}.", ""]
            path = rng.choice(paths)
            at = rng.choice([i for i, line in enumerate(pin_files[path]) if "combine_" in line])
            lines += [f"{pin_files[path][at].strip()} --- {path}:{at + 1}", ""]
            if r == 0 and rec == 0:
                lines += [f"`StateMachine` keeps every state. SRC-1: {HUGE_PATH}:4.", ""]
            lines += ["• implementation conclusion status: afforded", "• operation conclusion status: uninspected", ""]
        if r == REPORTS - 1 and moved:  # whatever the draw left over
            lines += [f"MEM-OBJ-r{r}-rest", "", "Label: the rest", "", f"The rest. SRC-1: {', '.join(moved)}.", ""]
        name = f"drift/run-{r}.md"
        (root / name).write_text("\n".join(lines), encoding="utf-8")
        names.append(name)
    return names


def write_quote_reports(rng: random.Random, root: Path, pin: str, pin_files: dict) -> tuple[list[str], list[str]]:
    """10,000 quotations of the pin (500 altered: missing there), ten per record."""
    folder = root / "quotes"
    folder.mkdir()
    candidates = [(p, i) for p in sorted(pin_files) if p != HUGE_PATH
                  for i, line in enumerate(pin_files[p]) if "combine_" in line]
    chosen = rng.sample(candidates, QUOTES)
    altered = set(rng.sample(range(QUOTES), ALTERED))
    names, cited = [], set()
    per_report = QUOTES // QUOTE_REPORTS
    for r in range(QUOTE_REPORTS):
        quotations = []
        for n in range(r * per_report, (r + 1) * per_report):
            path, at = chosen[n]
            text = pin_files[path][at].strip()
            if n in altered:
                text = text.replace("value, ", "value2, ", 1)
            quotations.append((text, path, at))
            cited.add(path)
        lines = quote_report(r, pin, quotations)
        name = f"quotes/quotes-{r}.md"
        (root / name).write_text("\n".join(lines), encoding="utf-8")
        names.append(name)
    return names, sorted(cited)


def quote_report(r: int, pin: str, quotations: list[tuple[str, str, int]]) -> list[str]:
    """The lines of quotation report ``r`` pinning ``pin``: one line per ``(text, path,
    0-based line)``, ten to a record."""
    lines = [f"Quote report {r}", "", f"The target is at SRC-1 commit {pin}.", ""]
    for k, (text, path, at) in enumerate(quotations):
        if k % 10 == 0:
            lines += [f"MEM-OBJ-q{r}-{k // 10}", "", f"Label: quotes {r}.{k // 10}", ""]
        lines += [f"{text} --- {path}:{at + 1}", ""]
    return lines


def ensure_input(workdir: Path) -> tuple[Path, dict]:
    return cached_input(workdir, "realshape", [GENERATOR_VERSION, SEED, FILES, COMMITS, MOVED, QUOTES], build)


def cached_input(workdir: Path, stem: str, parameters: list, build_into) -> tuple[Path, dict]:
    """The input ``build_into(root)`` writes (returning its manifest), built once into
    ``<workdir>/<stem>-<hash of parameters>/`` and read back from there afterwards."""
    key = hashlib.sha1(json.dumps(parameters).encode()).hexdigest()[:10]
    root = workdir.resolve() / f"{stem}-{key}"
    manifest_path = root / "manifest.json"
    if manifest_path.exists():
        return root, json.loads(manifest_path.read_text())
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    began = time.perf_counter()
    manifest = build_into(root)
    manifest["build_seconds"] = round(time.perf_counter() - began, 1)
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    return root, manifest


def environment(root: Path, code: Path) -> dict:
    """Bytecode cached in the work folder (as on a CI machine); the measured checkout's package first."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(root / "pycache"), PYTHONPATH=str(code))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTEST_ADDOPTS", None)
    return env


def run(cwd: Path, env: dict, cmd: list[str]) -> tuple[float, str]:
    began = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - began
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:8])} ... exited {proc.returncode}:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    summary = next((line for line in reversed(proc.stdout.splitlines()) if re.search(r" in [\d.]+s\b", line)), "")
    return seconds, summary.strip("= ")


def noop_file(folder: Path, name: str, count: int, failing: int = 0) -> list[str]:
    """``count`` no-op items, the first ``failing`` of them failing with one line (``--tb=no``,
    as the measured runs): pytest's own cost of that many items and outcomes."""
    (folder / name).write_text(
        "import pytest\n\n\n@pytest.mark.parametrize('i', range(%d))\ndef test_noop(i):\n"
        "    if i < %d:\n        pytest.fail('no-op failure', pytrace=False)\n" % (count, failing),
        encoding="utf-8")
    return [sys.executable, "-m", "pytest", "-q", "--tb=no", "-p", "no:cacheprovider", name]


def collected(cwd: Path, env: dict, cmd: list[str]) -> int:
    _, summary = run(cwd, env, [*cmd, "--collect-only", "-p", "no:cacheprovider"])
    return int(re.search(r"(\d+) tests? collected", summary).group(1))


def sample_floor(result: dict) -> float:
    """git's own answer for the sample's pairs, as the JSON of its run names them: one
    ``git diff -M`` and one first-parent ``git log`` from each checked pin to the revision
    checked against."""
    pairs = {(source["repo"], source["pin"], report["against"]) for report in result["reports"]
             for source in report["sources"] if source.get("pin_status") == "ok" and report.get("against")}
    began = time.perf_counter()
    for repo, pin, against in sorted(pairs):
        subprocess.run(["git", "-C", repo, "diff", "-M", pin, against], capture_output=True, check=True)
        subprocess.run(["git", "-C", repo, "log", "--first-parent", "-M", "--raw", "--format=%H%x00%an%x00%s",
                        f"{pin}..{against}"], capture_output=True, check=True)
    return time.perf_counter() - began


#: the symbol's drift check, timed inside one process (imports and opening excluded)
SYMBOL_CHECK = """
import json, sys, time
from pytest_memreport.checks import symbolrefs
from pytest_memreport.gitstore import GitStore
from pytest_memreport.model import Evidence, EvidenceKind
repo, pin, path = sys.argv[1:4]
with GitStore.open(repo) as store:
    # The pair's own questions (both listings, the first-parent log) are asked once per
    # run for all its evidence: asked first, untimed; what is timed is this symbol's own.
    head = store.resolve("HEAD")
    store.snapshot(pin).files(), store.snapshot(head).files(), store.first_parent_log(pin, head)
    began = time.perf_counter()
    evidence = Evidence(EvidenceKind.SYMBOL, path, 1, 1, text="StateMachine")
    found = symbolrefs.at_pin(evidence, store.snapshot(pin))
    result = symbolrefs.classify(evidence, found, store, pin, store.snapshot("HEAD"))
    seconds = time.perf_counter() - began
    print(json.dumps({"seconds": seconds, "status": result.status, "lines": str(found.lines),
                      "broken_by": getattr(result.broken_by, "sha", None), "git_processes":
                      getattr(store, "git_processes", None)}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every measure; medians are printed")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "memreport-realshape"))
    parser.add_argument("--code", default=str(HERE.parent), help="the checkout whose package is measured")
    parser.add_argument("--only", default="c,w,s,q,r,x", help="which measures: c (cold), w (warm), s, q, r, x")
    parser.add_argument("--samples", default=str(SAMPLES), help="the shared samples folder (x is skipped without it)")
    args = parser.parse_args()
    samples = Path(args.samples)
    only = set(args.only.split(","))
    root, m = ensure_input(Path(args.workdir))
    code = Path(args.code).resolve()
    env = environment(root, code)
    repo = root / "repo"
    print(f"input: {m['files']} files, {m['commits']} first-parent commits ({m['renames']} renames, "
          f"{m['moved_folders']} folders moved, {m['moved_functions']} cited functions moved to other files, "
          f"{m['huge_edits']} edits of the 10,000-line class); {len(m['drift_reports'])} drift reports, "
          f"{len(m['quote_reports'])} quotation reports (built in {m['build_seconds']} s); code: {code}")
    print(f"load before: {os.getloadavg()}", flush=True)
    pytest = [sys.executable, "-m", "pytest", "-q", "--tb=no"]
    drift_run = [*pytest, "-o", f"cache_dir={root / 'cache'}",
                 *(a for name in m["drift_reports"] for a in ("--memreport", name)), f"--memreport-repo={repo}",
                 "--memreport-against", "HEAD", "--memreport-json", str(root / "drift.json")]
    quote_run = [*pytest, "-p", "no:cacheprovider", *(a for name in m["quote_reports"] for a in ("--memreport", name)),
                 f"--memreport-repo={repo}", "--memreport-against=none"]
    counts: dict[str, int] = {}
    noop: dict[str, list[str]] = {}
    if "c" in only:
        counts["c"] = collected(root, env, drift_run[:5] + drift_run[7:])
        noop["c"] = noop_file(root, "test_noop_drift.py", counts["c"])
    if "q" in only:
        counts["q"] = collected(root, env, quote_run)
        noop["q"] = noop_file(root, "test_noop_quotes.py", counts["q"])
    if "r" in only:
        counts["r"] = collected(root, env, [*quote_run, "--memreport-items=record"])
        noop["r"] = noop_file(root, "test_noop_records.py", counts["r"])
    sample = None
    if "x" in only and (samples / "runs" / "sequentialthinking").is_dir() and (samples / "repos" / "servers.git").is_dir():
        sample = root / "sample"
        shutil.rmtree(sample, ignore_errors=True)
        shutil.copytree(samples / "runs" / "sequentialthinking", sample / "sequentialthinking")
        sample_run = [*pytest, "-p", "no:cacheprovider", "--memreport", "sequentialthinking",
                      f"--memreport-repo=modelcontextprotocol/servers={samples / 'repos' / 'servers.git'}",
                      "--memreport-against", "HEAD", "--memreport-json", str(sample / "out.json")]
        counts["x"] = collected(sample, env, sample_run)
        noop["x"] = noop_file(sample, "test_noop_sample.py", counts["x"])
    for cmd in noop.values():  # compile, untimed
        run(root if "test_noop_sample.py" not in cmd else sample, env, cmd)

    rows: dict[str, list[float]] = {}
    ratios: dict[str, list[float]] = {}
    notes: dict[str, str] = {}

    def keep(key: str, value: float) -> None:
        rows.setdefault(key, []).append(value)

    def ratio(key: str, value: float) -> None:
        ratios.setdefault(key, []).append(value)

    for round_ in range(1, args.rounds + 1):
        line = []
        if "c" in only:
            began = time.perf_counter()
            subprocess.run(["git", "-C", str(repo), "diff", "-M", m["pin"], "HEAD"], capture_output=True, check=True)
            subprocess.run(["git", "-C", str(repo), "log", "--first-parent", "-M", "--raw", "--format=%H%x00%an%x00%s",
                            f"{m['pin']}..HEAD"], capture_output=True, check=True)
            floor = time.perf_counter() - began
            cold, notes["c"] = run(root, env, drift_run + ["--cache-clear"])
            timing = json.loads((root / "drift.json").read_text())["timing"]
            notes["c_timing"] = json.dumps(timing)
            keep("git_processes", float(timing.get("git_processes", -1)))
            warm, notes["w"] = run(root, env, drift_run) if "w" in only else (float("nan"), "not run")
            items, _ = run(root, env, noop["c"])
            for key, value in (("f", floor), ("c", cold), ("w", warm), ("n", items)):
                keep(key, value)
            ratio("cold", cold / (floor + items))
            ratio("warm", warm / items)
            line.append(f"(f) {floor:.2f} s (c) {cold:.2f} s (w) {warm:.2f} s (n) {items:.2f} s: "
                        f"cold {ratios['cold'][-1]:.2f}x, warm {ratios['warm'][-1]:.2f}x")
        if "s" in only:
            # In the work folder: ``-c`` puts the current folder first on the path.
            out = subprocess.run([sys.executable, "-c", SYMBOL_CHECK, str(repo), m["pin"], HUGE_PATH], env=env,
                                 cwd=root, capture_output=True, text=True)
            if out.returncode:
                raise SystemExit(out.stderr[-3000:])
            found = json.loads(out.stdout.strip().splitlines()[-1])
            notes["s"] = f"status {found['status']}, lines {found['lines']}, broken by {str(found['broken_by'])[:12]}"
            keep("s", found["seconds"])
            line.append(f"(s) {found['seconds']:.2f} s")
        if "q" in only:
            quotes, notes["q"] = run(root, env, quote_run)
            items, _ = run(root, env, noop["q"])
            keep("q", quotes)
            keep("nq", items)
            ratio("quotes", quotes / items)
            line.append(f"(q) {quotes:.2f} s (nq) {items:.2f} s: {ratios['quotes'][-1]:.2f}x")
        if "r" in only:
            records, notes["r"] = run(root, env, [*quote_run, "--memreport-items=record"])
            began = time.perf_counter()
            listed = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", m["pin"], "--", *m["cited_paths"]],
                                    capture_output=True, check=True).stdout
            oids = b"".join(row.split()[2] + b"\n" for row in listed.splitlines())
            subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"], input=oids, capture_output=True, check=True)
            batch = time.perf_counter() - began
            items, _ = run(root, env, noop["r"])
            keep("r", records)
            keep("fr", batch + items)
            ratio("records", records / (batch + items))
            line.append(f"(r) {records:.2f} s (fr) {batch + items:.2f} s: {ratios['records'][-1]:.2f}x")
        if sample is not None:
            seconds, notes["x"] = run(sample, env, sample_run)
            result = json.loads((sample / "out.json").read_text())
            notes["x_timing"] = result["timing"]
            floor = sample_floor(result)
            items, _ = run(sample, env, noop["x"])
            keep("x", seconds)
            keep("fx", floor)
            keep("nx", items)
            ratio("sample", seconds / (floor + items))
            line.append(f"(x) {seconds:.2f} s (fx) {floor:.2f} s (nx) {items:.2f} s: {ratios['sample'][-1]:.2f}x")
        print(f"round {round_}: " + "; ".join(line), flush=True)

    median = statistics.median
    print(f"medians of {args.rounds} round(s):")
    if "c" in only:
        print(f"(f) git floor   {median(rows['f']):7.2f} s  (git diff -M pin HEAD + git log --first-parent -M --raw)")
        print(f"(n) pytest      {median(rows['n']):7.2f} s  ({counts['c']} no-op items)")
        print(f"(c) cold        {median(rows['c']):7.2f} s  ({notes['c']}; git processes "
              f"{median(rows['git_processes']):.0f}; timing {notes['c_timing']})")
        print(f"(w) warm        {median(rows['w']):7.2f} s  ({notes['w']})")
        print(f"    cold (c)/((f)+(n)) = {median(ratios['cold']):.2f}x (target 2.5x); "
              f"warm (w)/(n) = {median(ratios['warm']):.2f}x (target 1.5x)")
    if "s" in only:
        print(f"(s) symbol      {median(rows['s']):7.2f} s  (the 10,000-line class's drift check: {notes['s']}; "
              f"target under 1 s)")
    if "q" in only:
        print(f"(q) quotations  {median(rows['q']):7.2f} s  ({notes['q']}); (nq) {median(rows['nq']):.2f} s "
              f"({counts['q']} no-op items): {median(ratios['quotes']):.2f}x (target 1.5x)")
    if "r" in only:
        print(f"(r) records     {median(rows['r']):7.2f} s  ({notes['r']}); (fr) {median(rows['fr']):.2f} s "
              f"(cat-file --batch of the cited blobs + {counts['r']} no-op items): {median(ratios['records']):.2f}x "
              f"(target 3x)")
    if sample is not None:
        print(f"(x) real sample {median(rows['x']):7.2f} s  ({notes['x']}; timing {notes['x_timing']}); (fx) "
              f"{median(rows['fx']):.2f} s (git diff -M + git log --first-parent -M --raw, pin to HEAD); (nx) "
              f"{median(rows['nx']):.2f} s ({counts['x']} no-op items): (x)/((fx)+(nx)) = "
              f"{median(ratios['sample']):.2f}x (target 2.5x, as cold)")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
