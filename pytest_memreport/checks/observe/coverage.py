"""Whether an observation executed the quoted code: ``covers: true`` under coverage.py.

Coverage (``covers: true``, Python targets): the command is rerun under
coverage.py and every quoted span of a Python file must have executed. The
rule for a span ``path:a-b``: it is *executed* when any of its lines ran,
counting a line that continues a multi-line statement as that statement.
A function's ``def`` line (and its decorators) runs when the module is
imported, so it counts only if the function was called (a line of its body
ran): quoting a whole function that no test calls is not exercised. A
span with no executable line at all (only comments, blank lines or a
docstring) can never run and is listed as ``not_executable`` rather than
missed. ``exercised`` holds when at least one quoted span is executable and
every executable quoted span executed. Quoted spans of non-Python files are
not measured.

:func:`coverage_argv` rewrites the command to run under coverage.py;
:func:`coverage_report` judges the quoted spans from the data it wrote.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ...model import LineRange
from .results import ERROR, CannotRun, display_command

_PYTHON_PROGRAM = re.compile(r"python(?:\d+(?:\.\d+)?)?")
_PYTEST_PROGRAMS = ("pytest", "py.test")
_SHELL_OPERATORS = frozenset("();<>|&")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON_SUFFIXES = (".py", ".pyw")


def require_coverage() -> None:
    if importlib.util.find_spec("coverage") is None:
        raise CannotRun(ERROR, "covers: true needs coverage.py; install it (pip install coverage)")


def coverage_argv(run: Sequence[str] | str, data_file: Path, rcfile: Path) -> list[str]:
    """The command rewritten to run under coverage.py with our data file and settings.

    Only ``python -m MODULE ...``, ``python SCRIPT ...`` and ``pytest ...`` can be
    rewritten; they run under this interpreter (which has coverage installed).
    Our own rc file replaces the target's coverage settings, whose ``omit`` or
    ``parallel`` would hide or move the data.
    """
    words = _words(run)
    program = os.path.basename(words[0]) if words else ""
    head = [sys.executable, "-m", "coverage", "run", f"--rcfile={rcfile}", f"--data-file={data_file}"]
    rest = words[1:]
    if program in _PYTEST_PROGRAMS:
        return head + ["-m", "pytest", *rest]
    if _PYTHON_PROGRAM.fullmatch(program):
        if rest[:1] == ["-m"] and len(rest) >= 2:
            return head + rest
        if rest and rest[0].startswith("-m") and len(rest[0]) > 2:
            return head + ["-m", rest[0][2:], *rest[1:]]
        if rest and not rest[0].startswith("-"):
            return head + rest
    raise CannotRun(
        ERROR,
        f"covers: true needs a python or pytest command (`python -m pytest ...`, `python script.py`, "
        f"`pytest ...`); got `{display_command(run)}`",
    )


def covers_problem(observation) -> str | None:
    """Why ``covers: true`` cannot measure this observation (said at load time), or ``None``."""
    if not observation.covers or getattr(observation, "covers_file", None):
        return None
    try:
        coverage_argv(observation.run, Path("data"), Path("rc"))
    except CannotRun as err:
        return (f"{err.message}; for other languages let the command write LCOV and name the file with "
                "covers_file: (e.g. covers_file: coverage/lcov.info)")
    return None


def _words(run: Sequence[str] | str) -> list[str]:
    """argv of a command; a string is split like a shell would, refusing shell syntax."""
    if not isinstance(run, str):
        return list(run)
    if "$" in run or "`" in run:
        raise CannotRun(ERROR, "covers: true runs the command without a shell: remove $ and ` expansions")
    lexer = shlex.shlex(run, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError as err:
        raise CannotRun(ERROR, f"cannot split the command `{run}`: {err}") from None
    for word in words:
        if set(word) <= _SHELL_OPERATORS:
            raise CannotRun(
                ERROR, f"covers: true runs one command without a shell; `{word}` is shell syntax: give one command"
            )
    if words and _ASSIGNMENT.match(words[0]):
        raise CannotRun(ERROR, "covers: true runs the command without a shell: set variables with env: instead")
    return words


def coverage_report(data_file: Path, rcfile: Path, tree: Path, quoted: Sequence[tuple[str, LineRange]]) -> dict:
    """Which quoted spans executed, from the coverage data of the run."""
    import coverage

    data = coverage.CoverageData(basename=str(data_file))
    data.read()
    root = tree.resolve()
    executed: dict[str, set[int]] = {}
    for measured in data.measured_files():
        rel = _relative(root, measured)
        if rel is not None:
            executed[rel] = set(data.lines(measured) or ())
    report: dict = {"exercised": False, "lines": {}, "missed": [], "not_executable": []}
    executable_spans = 0
    for path, lines in quoted:
        if not path.endswith(_PYTHON_SUFFIXES):
            continue
        span = {"path": path, "lines": [lines.start, lines.end]}
        shape = _PythonShape.of(root / path)
        wanted = range(lines.start, lines.end + 1)
        if not any(shape.first_line(n) in shape.statements for n in wanted):
            report["not_executable"].append(span)
            continue
        executable_spans += 1
        ran = shape.really_ran(executed.get(path, set()))
        hit = sorted({n for n in wanted if n in ran or shape.first_line(n) in ran})
        if hit:
            report["lines"].setdefault(path, []).extend(_runs(hit))
        else:
            report["missed"].append(span)
    report["exercised"] = executable_spans > 0 and not report["missed"]
    return report


def _relative(root: Path, measured: str) -> str | None:
    try:
        return Path(measured).resolve().relative_to(root).as_posix()
    except (ValueError, OSError):
        return None


@dataclass(frozen=True)
class _PythonShape:
    """What coverage needs to know about one Python file to judge a quoted span.

    ``statements`` are the executable lines and ``first_line`` maps a line to
    the first line of its statement (coverage.py's own parser, so executable
    means what coverage measures). ``headers`` maps each line of a function's
    ``def`` (decorators and signature) to the lines of its body: a ``def``
    runs when the module is imported, so it only counts as executed when the
    function was actually called.
    """

    statements: frozenset[int]
    first_line_of: dict[int, int]
    headers: dict[int, range]

    @classmethod
    def of(cls, path: Path) -> _PythonShape:
        try:
            source = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return cls(frozenset(), {}, {})
        statements: frozenset[int] = frozenset()
        first: dict[int, int] = {}
        try:
            from coverage.parser import PythonParser

            parser = PythonParser(text=source, filename=str(path))
            parser.parse_source()
            statements = frozenset(parser.statements)
            line_count = source.count("\n") + 1
            first = {n: parser.first_line(n) for n in range(1, line_count + 1) if parser.first_line(n) != n}
        except Exception:  # noqa: BLE001 - unparsable file, or coverage internals changed
            pass
        return cls(statements, first, _function_headers(source))

    def first_line(self, line: int) -> int:
        return self.first_line_of.get(line, line)

    def really_ran(self, executed: set[int]) -> set[int]:
        """``executed`` without ``def`` lines of functions that were never called."""
        return {
            n for n in executed
            if n not in self.headers or any(m in executed for m in self.headers[n])
        }


def _function_headers(source: str) -> dict[int, range]:
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    headers: dict[int, range] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            body_start = node.body[0].lineno
            if body_start <= node.lineno:
                continue  # ``def f(): return 1`` on one line: header and body cannot be told apart
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            body = range(body_start, (node.end_lineno or body_start) + 1)
            for line in range(first, body_start):
                headers[line] = body
    return headers


def _runs(numbers: list[int]) -> list[list[int]]:
    """Sorted line numbers as ``[[a, b], ...]`` runs of consecutive lines."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return runs


def covers_message(command: str, coverage: dict, where: str) -> str:
    if coverage["exercised"]:
        return f"`{command}` passed and executed the quoted code"
    spans = [f"{s['path']}:{LineRange(*s['lines'])}" for s in coverage["missed"]]
    if not spans and not coverage["not_executable"]:
        return f"{where}`{command}` passed, but the record quotes no Python code for covers: true to check"
    if not spans:
        return f"{where}`{command}` passed, but no quoted line is executable code (comments or docstrings only)"
    if not coverage["lines"]:
        return f"{where}the test passed without executing the quoted code: {', '.join(spans)}"
    return f"{where}the test passed but did not execute the quoted code at {', '.join(spans)}"
