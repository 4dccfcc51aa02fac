#!/usr/bin/env python
"""How an analysis run reads: its citations by kind and by result at the pin (a script, not a test).

    python benchmarks/run_reading.py RUN_FOLDER --repo owner/name=PATH [--reader lines=440 quote=52 ...]
    python benchmarks/run_reading.py RUN_FOLDER --repo owner/name=PATH --list missing

Parses the folder's run as the plugin does (``parse_folder``), resolves loosely written paths
at the pin (``Engine.checkable``) and checks each piece of evidence there (``Engine.pin_result``),
without pytest. Prints, per kind of evidence, how many were found, failed (missing, misplaced,
ambiguous, unreadable) and are "not evidence", and, with ``--reader``, a careful reader's count of the
same kind beside the product's found count, as a ratio. ``--list STATUS`` prints each piece
of evidence with that status (``found``, ``missing``, ``not-evidence``, ``all``).
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

from pytest_memreport.dialects import parse_folder, read_report
from pytest_memreport.dialects.runs import RunFile
from pytest_memreport.engine import Engine
from pytest_memreport.options import RunOptions


def measure(folder: Path, repos: dict[str, str]):
    files = [RunFile(str(path), read_report(path)[0]) for path in sorted(folder.glob("*.md"))]
    engine = Engine(RunOptions(repos=repos, against="none", rootdir=folder))
    rows = []
    for run in parse_folder(str(folder), files):
        for report in run.reports:
            for evidence in engine.checkable(report, tuple(report.all_evidence())):
                reason = engine.not_evidence(report, evidence)
                if reason:
                    status = "not-evidence"
                else:
                    result = engine.pin_result(report, evidence)
                    status = "misplaced" if result.misplaced else result.status
                rows.append((Path(report.path).name, evidence, status))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--repo", action="append", default=[], help="owner/name=PATH")
    parser.add_argument("--reader", nargs="*", default=[], help="kind=count, a careful reader's count")
    parser.add_argument("--list", default=None)
    args = parser.parse_args(argv)
    repos = dict(item.split("=", 1) for item in args.repo)
    rows = measure(args.folder, repos)
    counts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for _, evidence, status in rows:
        counts[evidence.kind.value][status] += 1
    statuses = sorted({s for c in counts.values() for s in c})
    print(f"{'kind':<10}" + "".join(f"{s:>14}" for s in statuses))
    for kind in sorted(counts):
        print(f"{kind:<10}" + "".join(f"{counts[kind][s]:>14}" for s in statuses))
    reader = {k: int(v) for k, v in (item.split("=", 1) for item in args.reader)}
    for kind, expected in sorted(reader.items()):
        found = counts[kind]["found"]
        print(f"reader {kind}: {expected}, product found {found} (ratio {found / expected:.3f})")
    if args.list:
        for name, evidence, status in rows:
            if args.list in ("all", status):
                where = f":{evidence.cited_lines}" if evidence.cited_lines else ""
                text = f' "{evidence.text}"' if evidence.text else ""
                print(f"{status:<13} {name}:{evidence.line} {evidence.kind.value} {evidence.path}{where}{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
