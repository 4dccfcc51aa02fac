"""Running the target's own tests to observe a record's operation; promotion rules.

An *observation* (declared in a claims file, :class:`~pytest_memreport.dialects.claims.Observation`)
is a command, usually the target's test suite or one test of it, that would
show a record's behaviour actually happening. :func:`run_observation` runs it
in a temporary detached worktree of the target at the pinned commit (the
user's clone and working tree are never touched) and returns an
:class:`ObservationResult`. :func:`decide` turns a record's results into a
:class:`Promotion` (``uninspected``/``claimed``/``afforded`` → ``observed`` on
the operation axis) or a :class:`Regression`, following the method's rule:
never upgrade implementation to observed operation without the evidence for
it, and never upgrade past ``observed`` (causality needs more than a passing
test).

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
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import importlib.util
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..model import LineRange, Record, Status
from ..text.layout import bullet_prefix, is_table_row

PASSED = "passed"
FAILED = "failed"
TIMEOUT = "timeout"
NOT_FOUND = "not-found"
ERROR = "error"

#: How much output an :class:`ObservationResult` keeps.
TAIL_LINES = 40
_TAIL_BYTES = 64 * 1024
#: After SIGTERM to a timed-out process group, how long before SIGKILL.
_KILL_GRACE = 1.0

#: Statuses an observation may promote to ``observed`` (canonical spellings;
#: the legacy ``wired``/``implemented`` are ``afforded``).
PROMOTABLE = ("uninspected", "claimed", "afforded")
OBSERVED = "observed"
#: Statuses a failing observation contradicts.
_RESTS_ON_OBSERVATION = ("observed", "causally supported")

#: Inherited variables that belong to the outer pytest run, not to the target's:
#: PYTEST_ADDOPTS could carry ``--memreport`` into the target's run (recursion).
_OUTER_RUN_VARIABLES = ("PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST", "PYTEST_XDIST_WORKER",
                        "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID")
#: Set in every observation's environment (to the record ID): lets the plugin
#: notice it is running inside an observation.
OBSERVATION_ENV = "MEMREPORT_OBSERVATION"

_PYTHON_PROGRAM = re.compile(r"python(?:\d+(?:\.\d+)?)?")
_PYTEST_PROGRAMS = ("pytest", "py.test")
_SHELL_OPERATORS = frozenset("();<>|&")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON_SUFFIXES = (".py", ".pyw")


class PromotionError(ValueError):
    """A promotion the method forbids (e.g. on the implementation axis); one-line message."""


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived during an observation: unwinds like Ctrl-C so every ``finally`` runs."""


# -- results -------------------------------------------------------------------------


@dataclass(frozen=True)
class ObservationResult:
    """What running one observation at the pin showed.

    ``status`` is ``passed`` (exit 0), ``failed``, ``timeout``, ``not-found``
    (the command does not exist) or ``error`` (it could not be run: bad cwd,
    unusable ``covers``, the pin cannot be checked out). ``output_tail`` is
    the last lines of combined stdout/stderr. ``coverage`` is set for
    ``covers: true``: ``{"exercised", "lines", "missed", "not_executable"}``
    (see the module docstring for the rule).
    """

    status: str
    command: str
    pin: str
    exit_code: int | None
    duration: float
    date: str
    output_tail: str
    coverage: dict | None
    message: str
    record_id: str = ""
    axis: str = "operation"
    #: where the observation is declared, ``claims.yaml:12``
    origin: str = ""
    #: the temporary worktree it ran in (removed by the time you see this)
    workdir: str = ""

    @property
    def ok(self) -> bool:
        """Passed, and with ``covers`` also executed the quoted code."""
        if self.status != PASSED:
            return False
        return self.coverage is None or bool(self.coverage.get("exercised"))

    @classmethod
    def from_json(cls, data: dict) -> ObservationResult:
        """The inverse of :meth:`as_json` (results travel as JSON between xdist workers)."""
        return cls(
            status=data["status"], command=data["command"], pin=data["pin"], exit_code=data.get("exit_code"),
            duration=float(data.get("duration", 0.0)), date=data.get("date", ""),
            output_tail=data.get("output_tail", ""), coverage=data.get("coverage"), message=data.get("message", ""),
            record_id=data.get("record", ""), axis=data.get("axis", "operation"), origin=data.get("origin", ""),
        )

    def as_json(self) -> dict:
        out: dict = {
            "status": self.status,
            "ok": self.ok,
            "command": self.command,
            "pin": self.pin,
            "exit_code": self.exit_code,
            "duration": round(self.duration, 3),
            "date": self.date,
            "message": self.message,
            "output_tail": self.output_tail,
        }
        if self.record_id:
            out["record"] = self.record_id
        out["axis"] = self.axis
        if self.origin:
            out["origin"] = self.origin
        if self.coverage is not None:
            out["coverage"] = self.coverage
        return out


def display_command(run: Sequence[str] | str) -> str:
    """The command as a shell would read it: the string itself, or the argv shell-quoted."""
    return run if isinstance(run, str) else shlex.join(run)


def axis_problem(axis: str) -> str | None:
    """Why an observation cannot speak for ``axis``, or ``None`` when it can."""
    if axis.strip().lower() == "implementation":
        return (
            "an observation cannot promote the implementation axis: running the code shows "
            "operation, not what the code affords; use axis: operation"
        )
    return None


# -- running -------------------------------------------------------------------------


class _CannotRun(Exception):
    """The observation cannot be started; ``status`` and a one-line message."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class _Outcome:
    exit_code: int | None
    timed_out: bool


def run_observation(
    observation,
    store,
    pin_sha: str,
    quoted: Sequence[tuple[str, LineRange]] = (),
) -> ObservationResult:
    """Run ``observation`` in a temporary worktree of ``store`` at ``pin_sha``.

    ``observation`` is a :class:`~pytest_memreport.dialects.claims.Observation`;
    ``store`` a :class:`~pytest_memreport.gitstore.GitStore`. ``quoted`` lists
    the record's quotations as located at the pin (repo-relative path, lines),
    used when the observation has ``covers: true``.

    The command runs with the worktree (or ``cwd`` inside it) as working
    directory, the environment plus ``observation.env``, in its own process
    session: on timeout the whole process group is terminated, then killed.
    A string runs through ``/bin/sh -c``, a sequence as argv. The worktree is
    removed whatever happens, including Ctrl-C and SIGTERM (which is turned
    into :class:`Terminated` for the duration and re-raised after cleanup).
    Never raises for a problem of the observation itself: that is a result.
    """
    command = display_command(observation.run)
    origin = f"{observation.file}:{observation.line}" if getattr(observation, "file", None) else ""
    date = _dt.datetime.now(_dt.timezone.utc).date().isoformat()
    started = time.monotonic()
    workdir = ""

    def result(status: str, message: str, exit_code: int | None = None, tail: str = "",
               coverage: dict | None = None) -> ObservationResult:
        return ObservationResult(
            status, command, pin_sha, exit_code, time.monotonic() - started, date, tail, coverage,
            message, observation.record_id, observation.axis, origin, workdir,
        )

    where = f"{origin}: " if origin else ""
    try:
        problem = axis_problem(observation.axis)
        if problem:
            raise _CannotRun(ERROR, problem)
        argv = _argv(observation.run)
        if observation.covers:
            _require_coverage()
            _coverage_argv(observation.run, Path("data"), Path("rc"))  # refuse before any checkout
        with _sigterm_raises(), contextlib.ExitStack() as stack:
            scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="memreport-observe-")))
            output = stack.enter_context(tempfile.TemporaryFile(dir=scratch))
            tree = Path(stack.enter_context(_checkout(store, pin_sha)))
            workdir = str(tree)
            cwd = _working_directory(tree, observation.cwd)
            data_file = scratch / "coverage.data"
            if observation.covers:
                rcfile = scratch / "coveragerc"
                rcfile.write_text(f"[run]\ninclude =\n    {tree}/*\n", encoding="utf-8")
                argv = _coverage_argv(observation.run, data_file, rcfile)
            started = time.monotonic()  # the run itself, not the checkout
            outcome = _run(argv, cwd, _environment(observation), observation.timeout, output)
            tail = _tail(output)
            if outcome.timed_out:
                return result(
                    TIMEOUT,
                    f"{where}`{command}` did not finish within {observation.timeout:g} s; its process group was killed",
                    None, tail,
                )
            if outcome.exit_code == 127 and isinstance(observation.run, str):
                return result(NOT_FOUND, f"{where}{_not_found_message(command, tail)}", 127, tail)
            if outcome.exit_code != 0:
                how = (f"killed by signal {-outcome.exit_code}" if outcome.exit_code < 0
                       else f"exit {outcome.exit_code}")
                return result(FAILED, f"{where}`{command}` failed ({how}){_last_line(tail)}", outcome.exit_code, tail)
            if not observation.covers:
                return result(PASSED, f"`{command}` passed", 0, tail)
            coverage = _coverage_report(data_file, rcfile, tree, quoted)
            return result(PASSED, _covers_message(command, coverage, where), 0, tail, coverage)
    except _CannotRun as err:
        return result(err.status, f"{where}{err.message}")
    except _CheckoutError as err:
        return result(ERROR, f"{where}{err}")


class _CheckoutError(Exception):
    """The pin could not be checked out into a temporary worktree."""


@contextlib.contextmanager
def _checkout(store, pin_sha: str) -> Iterator[Path]:
    """``store.worktree(pin_sha)``, with git's refusals turned into :class:`_CheckoutError`.

    Only errors raised while creating the worktree are translated; whatever
    the body raises passes through untouched.
    """
    from ..gitstore import RepoError, RevisionError

    manager = store.worktree(pin_sha)
    try:
        tree = manager.__enter__()
    except (RepoError, RevisionError) as err:
        raise _CheckoutError(f"cannot check out the pin {pin_sha[:12]}: {err}") from None
    except OSError as err:
        raise _CheckoutError(f"cannot create a temporary worktree: {err}") from None
    with contextlib.ExitStack() as stack:
        stack.push(manager)  # the worktree is removed however the body ends
        yield tree


@contextlib.contextmanager
def _sigterm_raises() -> Iterator[None]:
    """While open, SIGTERM raises :class:`Terminated` (main thread only; restored after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_sigterm(signum, frame):  # noqa: ARG001 - signal handler signature
        raise Terminated("terminated (SIGTERM) while running an observation")

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _argv(run: Sequence[str] | str) -> list[str]:
    if isinstance(run, str):
        return ["/bin/sh", "-c", run]
    if not run:
        raise _CannotRun(ERROR, "the observation's run list is empty; give the test command")
    return list(run)


def _working_directory(tree: Path, cwd: str | None) -> Path:
    """``cwd`` inside the worktree; refuse one that leaves it (``..``, absolute, a symlink out)."""
    if not cwd or cwd == ".":
        return tree
    if os.path.isabs(cwd):
        raise _CannotRun(ERROR, f"cwd {cwd!r} is absolute; give a folder relative to the repository root")
    target = (tree / cwd).resolve()
    if target != tree and tree not in target.parents:
        raise _CannotRun(ERROR, f"cwd {cwd!r} leaves the repository; give a folder inside it")
    if not target.is_dir():
        raise _CannotRun(ERROR, f"cwd {cwd!r} is not a folder of the repository at the pin")
    return target


def _environment(observation) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _OUTER_RUN_VARIABLES}
    env.update(observation.env or {})
    env[OBSERVATION_ENV] = observation.record_id or "1"
    return env


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float, output: IO[bytes]) -> _Outcome:
    """Run ``argv`` in its own session, output to ``output``; kill its whole group when done."""
    try:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise _CannotRun(NOT_FOUND, f"command not found: {argv[0]!r} (not on PATH, or no such file)") from None
    except PermissionError:
        raise _CannotRun(ERROR, f"{argv[0]!r} is not executable (permission denied)") from None
    except OSError as err:
        raise _CannotRun(ERROR, f"cannot run {argv[0]!r}: {err.strerror or err}") from None
    try:
        try:
            return _Outcome(proc.wait(timeout=timeout), False)
        except subprocess.TimeoutExpired:
            _stop_group(proc)
            return _Outcome(None, True)
    except BaseException:
        _stop_group(proc)  # Ctrl-C / SIGTERM: leave nothing running in the worktree
        raise
    finally:
        # Background children the command left behind would keep writing into
        # a worktree that is about to be removed.
        _signal_group(proc.pid, signal.SIGKILL)


def _stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM the process group, give it a moment, then SIGKILL it; reap the leader."""
    _signal_group(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=_KILL_GRACE)
    except subprocess.TimeoutExpired:
        pass
    _signal_group(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _tail(output: IO[bytes], lines: int = TAIL_LINES) -> str:
    """The last ``lines`` lines of the captured output (reads at most 64 KiB)."""
    output.flush()
    size = output.seek(0, os.SEEK_END)
    output.seek(max(0, size - _TAIL_BYTES))
    data = output.read()
    text = data.decode("utf-8", "replace").replace("\r\n", "\n")
    kept = text.split("\n")
    if size > _TAIL_BYTES:
        kept = kept[1:]  # the first one is probably cut
    while kept and not kept[-1].strip():
        kept.pop()
    return "\n".join(kept[-lines:])


def _last_line(tail: str) -> str:
    for line in reversed(tail.splitlines()):
        if line.strip():
            text = line.strip()
            return ": " + (text if len(text) <= 160 else text[:157] + "...")
    return ""


def _not_found_message(command: str, tail: str) -> str:
    words = command.split()
    first = words[0] if words else command
    said = _last_line(tail)
    return f"command not found: {first!r} (the shell exited 127{said.replace(': ', ' saying: ', 1)})"


# -- coverage --------------------------------------------------------------------------


def _require_coverage() -> None:
    if importlib.util.find_spec("coverage") is None:
        raise _CannotRun(ERROR, "covers: true needs coverage.py; install it (pip install coverage)")


def _coverage_argv(run: Sequence[str] | str, data_file: Path, rcfile: Path) -> list[str]:
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
    raise _CannotRun(
        ERROR,
        f"covers: true needs a python or pytest command (`python -m pytest ...`, `python script.py`, "
        f"`pytest ...`); got `{display_command(run)}`",
    )


def _words(run: Sequence[str] | str) -> list[str]:
    """argv of a command; a string is split like a shell would, refusing shell syntax."""
    if not isinstance(run, str):
        return list(run)
    if "$" in run or "`" in run:
        raise _CannotRun(ERROR, "covers: true runs the command without a shell: remove $ and ` expansions")
    lexer = shlex.shlex(run, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError as err:
        raise _CannotRun(ERROR, f"cannot split the command `{run}`: {err}") from None
    for word in words:
        if set(word) <= _SHELL_OPERATORS:
            raise _CannotRun(
                ERROR, f"covers: true runs one command without a shell; `{word}` is shell syntax: give one command"
            )
    if words and _ASSIGNMENT.match(words[0]):
        raise _CannotRun(ERROR, "covers: true runs the command without a shell: set variables with env: instead")
    return words


def _coverage_report(data_file: Path, rcfile: Path, tree: Path, quoted: Sequence[tuple[str, LineRange]]) -> dict:
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
        span = {"path": path, "lines": lines.as_list()}
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


def _covers_message(command: str, coverage: dict, where: str) -> str:
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


# -- promotion -------------------------------------------------------------------------


@dataclass(frozen=True)
class Promotion:
    """Raise ``status`` from ``old`` to ``new`` and write ``evidence_line`` under the record.

    ``evidence_line`` may hold several lines (one per observation), ``\\n``-separated.
    """

    record_id: str
    status: Status
    old: str
    new: str
    evidence_line: str


@dataclass(frozen=True)
class Regression:
    """A record says its operation was observed, but an observation now fails."""

    record_id: str
    status: Status
    message: str


def decide(
    record: Record,
    results: Sequence[ObservationResult],
    pin_results: Sequence,
    axis: str = "operation",
    *,
    report_text: str | None = None,
) -> Promotion | Regression | None:
    """What the observations of ``record`` change about its status on ``axis``.

    * Promotion to ``observed`` when the status is ``uninspected``, ``claimed``
      or ``afforded`` (legacy ``wired``/``implemented``), there is at least one
      result and every result is ok (passed; with ``covers``, exercised), and
      every quotation of the record is found at the pin (``pin_results``).
    * Regression when the status is ``observed`` or ``causally supported`` and
      an observation is not ok (failed, timed out, or could not run).
    * ``None`` otherwise: no results (reading alone promotes nothing), no
      status line on ``axis``, already ``observed`` or beyond, a quotation
      missing at the pin, or a status such as ``absent`` an observation cannot
      overrule.

    Raises :class:`PromotionError` for the implementation axis. With
    ``report_text`` the evidence line copies the indentation and bullet of the
    status line (``  • `` in text renderings, ``- `` in Markdown).
    """
    problem = axis_problem(axis)
    if problem:
        raise PromotionError(problem)
    mine = [r for r in results if not r.axis or r.axis == axis]
    if not mine:
        return None
    status = _axis_status(record, axis)
    if status is None:
        return None
    failing = [r for r in mine if not r.ok]
    if status.canonical in _RESTS_ON_OBSERVATION:
        if not failing:
            return None
        first = failing[0]
        more = f" (and {len(failing) - 1} more not ok)" if len(failing) > 1 else ""
        return Regression(
            record.id, status,
            f"{record.id} says {axis} {status.value} (report line {status.line}), but an observation "
            f"is {_verdict(first)}: {first.message}{more}",
        )
    if failing or status.canonical not in PROMOTABLE:
        return None
    if not all(getattr(p, "ok", False) for p in pin_results):
        return None
    prefix, in_table = _evidence_prefix(report_text, status.line)
    # Below a table the line no longer sits next to its record: it names it.
    named = f"{record.id} " if in_table else ""
    lines = "\n".join(prefix + named + evidence_text(r, axis) for r in mine)
    return Promotion(record.id, status, status.value, OBSERVED, lines)


def _verdict(result: ObservationResult) -> str:
    if result.status == PASSED:
        return "passing without executing the quoted code"
    return {FAILED: "failing", TIMEOUT: "timing out", NOT_FOUND: "not runnable"}.get(result.status, "not runnable")


def _axis_status(record: Record, axis: str) -> Status | None:
    """The record's status line on ``axis``: the unqualified one when there are several."""
    on_axis = [s for s in record.statuses if s.axis == axis]
    for status in on_axis:
        if not status.qualifier:
            return status
    return on_axis[0] if on_axis else None


def _evidence_prefix(report_text: str | None, line: int) -> tuple[str, bool]:
    """The bullet for evidence under the status on report ``line``; whether that is a table row."""
    if report_text is None:
        return "  • ", False
    lines = report_text.splitlines()
    if not 1 <= line <= len(lines):
        return "  • ", False
    status_line = lines[line - 1].lstrip("\ufeff")
    return bullet_prefix(status_line), is_table_row(status_line)


def evidence_text(result: ObservationResult, axis: str = "operation") -> str:
    """One evidence sentence for a report, e.g. ``operation observation: `pytest -q` passed at 1a2b3c4d5e6f
    on 2026-11-29 (exit 0, 3.2 s; quoted lines executed)``."""
    command = " ".join(result.command.split())  # one report line, whatever the command's layout
    fence = "``" if "`" in command else "`"
    pad = " " if fence == "``" else ""
    details = []
    if result.exit_code is not None:
        details.append(f"exit {result.exit_code}")
    details.append(f"{result.duration:.1f} s")
    detail = ", ".join(details)
    if result.coverage is not None:
        detail += "; quoted lines executed" if result.coverage.get("exercised") else "; quoted lines NOT executed"
    return (
        f"{axis} observation: {fence}{pad}{command}{pad}{fence} {result.status} at {result.pin[:12]} "
        f"on {result.date} ({detail})"
    )

