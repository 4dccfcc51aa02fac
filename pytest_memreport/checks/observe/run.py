"""Running one observation in a temporary worktree of the target at the pin.

:func:`run_observation` checks the pin out into a temporary detached
worktree (the user's clone and working tree are never touched), runs the
command there (:mod:`.process`, with :mod:`.environment`), under
coverage.py for ``covers: true`` (:mod:`.coverage`), removes the worktree
whatever happens and returns an :class:`~.results.ObservationResult`.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import signal
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from ...errors import MemreportError
from ...model import LineRange
from . import linehits, process
from .coverage import coverage_argv, coverage_report, covers_message, require_coverage
from .environment import environment, working_directory
from .promotion import axis_problem
from .results import ERROR, FAILED, NOT_FOUND, PASSED, TIMEOUT, CannotRun, ObservationResult, display_command


class Terminated(KeyboardInterrupt):
    """SIGTERM, SIGHUP or SIGQUIT arrived during an observation: unwinds like Ctrl-C so every ``finally`` runs."""


#: Signals that end a run from outside (``kill``, a closed terminal, Ctrl-\\):
#: each is turned into :class:`Terminated` while an observation runs.
TERMINATING_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


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
    removed whatever happens, including Ctrl-C, SIGTERM, SIGHUP and SIGQUIT (turned
    into :class:`Terminated` for the duration and re-raised after cleanup).
    Never raises for a problem of the observation itself: that is a result.
    """
    command = display_command(observation.run)
    origin = f"{observation.file}:{observation.line}" if getattr(observation, "file", None) else ""
    date = _dt.datetime.now(_dt.timezone.utc).date().isoformat()
    started = time.monotonic()
    workdir = ""
    ran_for: float | None = None  # the command's own time, once it ran

    def result(status: str, message: str, exit_code: int | None = None, tail: str = "",
               coverage: dict | None = None) -> ObservationResult:
        duration = time.monotonic() - started if ran_for is None else ran_for
        return ObservationResult(
            status, command, pin_sha, exit_code, duration, date, tail, coverage,
            message, observation.record_id, observation.axis, origin, workdir,
        )

    where = f"{origin}: " if origin else ""
    try:
        problem = axis_problem(observation.axis)
        if problem:
            raise CannotRun(ERROR, problem)
        argv = _argv(observation.run)
        covers_file = getattr(observation, "covers_file", None)
        # with covers_file the command writes its own line hits (any language): run it as written
        measure = observation.covers and not covers_file
        if measure:
            require_coverage()
            coverage_argv(observation.run, Path("data"), Path("rc"))  # refuse before any checkout
        with _sigterm_raises(), contextlib.ExitStack() as stack:
            scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="memreport-observe-")))
            tree = Path(stack.enter_context(_checkout(store, pin_sha)))
            workdir = str(tree)
            cwd = working_directory(tree, observation.cwd)
            data_file = scratch / "coverage.data"
            if measure:
                rcfile = scratch / "coveragerc"
                rcfile.write_text(f"[run]\ninclude =\n    {tree}/*\n", encoding="utf-8")
                argv = coverage_argv(observation.run, data_file, rcfile)
            outcome = process.run_process(argv, cwd, environment(observation), observation.timeout)
            tail = process.tail(outcome)
            ran_for = outcome.seconds
            if outcome.timed_out or outcome.exit_code is None:  # no exit code: it timed out
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
                return result(FAILED, f"{where}`{command}` failed ({how}){process.last_line(tail)}",
                              outcome.exit_code, tail)
            if not observation.covers:
                return result(PASSED, f"`{command}` passed", 0, tail)
            if covers_file:
                if not quoted:
                    return result(PASSED, f"{where}`{command}` passed, but the record quotes no code for "
                                          "covers_file to check", 0, tail,
                                  linehits.linehits_report({}, (), covers_file))
                hits = linehits.read_lcov(linehits.read_covers_file(tree, cwd, covers_file), tree, cwd)
                coverage = linehits.linehits_report(hits, quoted, covers_file)
                return result(PASSED, covers_message(command, coverage, where), 0, tail, coverage)
            coverage = coverage_report(data_file, rcfile, tree, quoted)
            return result(PASSED, covers_message(command, coverage, where), 0, tail, coverage)
    except CannotRun as err:
        return result(err.status, f"{where}{err.message}")
    except _CheckoutError as err:
        return result(ERROR, f"{where}{err}")


class _CheckoutError(MemreportError):
    """The pin could not be checked out into a temporary worktree."""

    code = "MR302"


@contextlib.contextmanager
def _checkout(store, pin_sha: str) -> Iterator[Path]:
    """``store.worktree(pin_sha)``, with git's refusals turned into :class:`_CheckoutError`.

    Only errors raised while creating the worktree are translated; whatever
    the body raises passes through untouched.
    """
    from ...gitstore import RepoError, RevisionError

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
    """While open, SIGTERM, SIGHUP and SIGQUIT raise :class:`Terminated` (main thread only; restored after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_signal(signum, frame):  # noqa: ARG001 - signal handler signature
        name = signal.Signals(signum).name
        raise Terminated(f"terminated ({name}) while running an observation")

    previous = {sig: signal.signal(sig, on_signal) for sig in TERMINATING_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _argv(run: Sequence[str] | str) -> list[str]:
    if isinstance(run, str):
        return ["/bin/sh", "-c", run]
    if not run:
        raise CannotRun(ERROR, "the observation's run list is empty; give the test command")
    return list(run)


def _not_found_message(command: str, tail: str) -> str:
    words = command.split()
    first = words[0] if words else command
    said = process.last_line(tail)
    return f"command not found: {first!r} (the shell exited 127{said.replace(': ', ' saying: ', 1)})"

