#!/usr/bin/env python
"""Instructions, not seconds: the prose record run of bench_realrepos.py (its (r)) and as
many no-op items, each counted under valgrind's callgrind (a script, not a test).

    python benchmarks/bench_instructions.py --prose-repo CLONE [--code DIR [--code DIR]]
        [--workdir /tmp/memreport-realrepos]

or with ``MEMREPORT_BENCH_PROSE_REPO`` set. It reads the input bench_realrepos.py builds (the
same clone, pin and seed give the same folder under ``--workdir``; built here when absent).

On a shared machine a process's time moves by a third from one minute to the next, and a
change worth a few per cent cannot be told from that. The instructions a process executes
do not move: the hash seed is fixed and every checkout's bytecode is compiled by an
uncounted run first. Each process is counted alone (``--trace-children=no``): git's own
work is not counted, nor is the floor's ``cat-file`` pass, so the ratio printed is the
record run's Python against pytest's for as many no-op items, not the issue's wall-clock
bound. Given two checkouts (``--code`` twice, the package of each measured), it prints the
second's count over the first's: a speed-up checked before it is claimed. Give two worktrees
of one folder (``/tmp/a``, ``/tmp/b``): the same code counted 2.4% fewer instructions at
``/tmp/base`` than at ``/work/main`` (why was not looked into).

Callgrind runs code about fifty times slower: the record run takes some minutes. Without
valgrind or without the clone, it says so in one line and measures nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from bench_realrepos import build_prose, git_dir, pinned_input, quote_command  # beside this script
from bench_realshape import collected, environment, noop_file

HERE = Path(__file__).resolve().parent


def counted(valgrind: str, cwd: Path, env: dict, cmd: list[str], out: Path) -> int:
    """The instructions ``cmd`` executes (its own process), after one uncounted run that
    compiles its bytecode (compiling is not what is measured)."""
    for prefix in ([], [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}"]):
        proc = subprocess.run([*prefix, *cmd], cwd=cwd, env=env, capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd[:6])} ... exited {proc.returncode}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    for line in out.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise SystemExit(f"{out}: no instruction total in callgrind's output")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prose-repo", default=os.environ.get("MEMREPORT_BENCH_PROSE_REPO"))
    parser.add_argument("--prose-back", type=int, default=15_000, help="first-parent commits from the pin to HEAD")
    parser.add_argument("--code", action="append", help="a checkout whose package is measured (twice: compared)")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "memreport-realrepos"))
    args = parser.parse_args()
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("skipped: no valgrind on this machine (its callgrind counts the instructions)")
        return
    if not args.prose_repo or not Path(args.prose_repo).is_dir():
        print("skipped: no prose clone (--prose-repo or MEMREPORT_BENCH_PROSE_REPO)")
        return
    codes = [Path(code).resolve() for code in (args.code or [str(HERE.parent)])]
    repo = git_dir(Path(args.prose_repo).resolve())
    root, manifest, pin, _ = pinned_input(Path(args.workdir), repo, "prose", args.prose_back, build_prose)
    command = [*quote_command(repo, manifest["quotes"]), "--memreport-items=record"]
    counts = []
    for number, code in enumerate(codes):
        env = dict(environment(root, code), PYTHONHASHSEED="0")
        if number == 0:
            items = collected(root, env, command)
            floor = counted(valgrind, root, env, noop_file(root, "test_noop_instructions.py", items),
                            root / "noop.callgrind")
            print(f"prose: {repo} pin {pin[:12]}; {items} record items")
            print(f"no-op items     {floor / 1e9:7.3f} G instructions")
        count = counted(valgrind, root, env, command, root / f"records-{number}.callgrind")
        counts.append(count)
        print(f"records ({code}) {count / 1e9:7.3f} G instructions: {count / floor:.2f}x the no-op items'", flush=True)
    if len(counts) == 2:
        print(f"second checkout over first: {counts[1] / counts[0]:.4f}")


if __name__ == "__main__":
    main()
