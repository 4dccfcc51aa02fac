"""``covers_file``: whether the quoted lines executed, in any language, from a line-hit file.

The observation's command writes the file itself (``c8``/``nyc``/``jest
--coverage`` for JavaScript and TypeScript, ``cargo llvm-cov --lcov`` or
``grcov`` for Rust, ``gcov``/``lcov`` for C, ``coverage lcov`` for Python...),
and it is read after the run. The format is LCOV's tracefile: per source file
an ``SF:<path>`` line, ``DA:<line>,<hits>`` lines, then ``end_of_record``;
other records (``FN``, ``BRDA``, ``LH``...) are ignored. No maintained LCOV
reader exists on PyPI, and the part read here is four line shapes.

The rule for a quoted span ``path:a-b`` is coverage.py's, with the tool's
idea of an executable line: *executed* when a line of it has hits;
*not executable* when no line of it is instrumented (``DA``) although the
file is; *missed* otherwise, and also when the file is not in the tracefile
at all (the tests never loaded it: fail closed). ``exercised`` holds when at
least one span is executable and none is missed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from ...model import LineRange
from .coverage import _runs
from .results import ERROR, CannotRun

#: the largest line-hit file read (a tracefile of a very large project is a few MB)
MAX_BYTES = 64 * 1024 * 1024


def read_lcov(text: str, tree: Path, cwd: Path) -> dict[str, dict[int, int]]:
    """Hits per line per file, keyed by repository-relative path (files outside ``tree`` dropped)."""
    root = tree.resolve()
    hits: dict[str, dict[int, int]] = {}
    current: dict[int, int] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("SF:"):
            rel = _relative(line[3:].strip(), root, cwd)
            current = hits.setdefault(rel, {}) if rel is not None else None
        elif line.startswith("DA:") and current is not None:
            fields = line[3:].split(",")
            try:
                number, count = int(fields[0]), int(float(fields[1]))
            except (ValueError, IndexError):
                continue
            if number >= 1:
                current[number] = max(current.get(number, 0), count)
        elif line == "end_of_record":
            current = None
    return hits


def _relative(written: str, root: Path, cwd: Path) -> str | None:
    """An ``SF:`` path as a repository path: absolute, or relative to the command's folder or the root."""
    candidates = [Path(written)] if os.path.isabs(written) else [cwd / written, root / written]
    for candidate in candidates:
        try:
            return candidate.resolve().relative_to(root).as_posix()
        except (ValueError, OSError):
            continue
    return None


def read_covers_file(tree: Path, cwd: Path, name: str) -> str:
    """The line-hit file the command wrote, as text; :class:`CannotRun` when it is
    missing, not a regular file inside the worktree, or too large."""
    root = tree.resolve()
    path = (cwd / name)
    try:
        resolved = path.resolve()
        resolved.relative_to(root)
    except (ValueError, OSError):
        raise CannotRun(ERROR, f"covers_file {name!r} leaves the worktree; name a file the command writes in it") \
            from None
    try:
        info = os.lstat(resolved)
    except FileNotFoundError:
        raise CannotRun(ERROR, f"the command passed but wrote no covers_file {name!r}; make it write LCOV there") \
            from None
    if not stat.S_ISREG(info.st_mode):
        raise CannotRun(ERROR, f"covers_file {name!r} is not a regular file")
    if info.st_size > MAX_BYTES:
        raise CannotRun(ERROR, f"covers_file {name!r} is {info.st_size} bytes (at most {MAX_BYTES})")
    return resolved.read_bytes().decode("utf-8", "replace")


def linehits_report(hits: dict[str, dict[int, int]], quoted: Sequence[tuple[str, LineRange]], name: str) -> dict:
    """Which quoted spans executed, by the rule of the module docstring."""
    report: dict = {"exercised": False, "lines": {}, "missed": [], "not_executable": [],
                    "format": "lcov", "file": name}
    executable = 0
    for path, lines in quoted:
        span = {"path": path, "lines": [lines.start, lines.end]}
        measured = hits.get(path)
        wanted = range(lines.start, lines.end + 1)
        if measured is None:
            executable += 1
            report["missed"].append(span)
            continue
        instrumented = [n for n in wanted if n in measured]
        if not instrumented:
            report["not_executable"].append(span)
            continue
        executable += 1
        ran = [n for n in instrumented if measured[n] > 0]
        if ran:
            report["lines"].setdefault(path, []).extend(_runs(ran))
        else:
            report["missed"].append(span)
    report["exercised"] = executable > 0 and not report["missed"]
    return report
