"""Running a command in its own process group, stopping the whole group, keeping its output's tail.

On timeout, Ctrl-C or SIGTERM the group is terminated, then killed: nothing
the command started keeps running in a worktree about to be removed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .results import ERROR, NOT_FOUND, CannotRun

#: How much output an :class:`~.results.ObservationResult` keeps.
TAIL_LINES = 40
_TAIL_BYTES = 64 * 1024
#: After SIGTERM to a timed-out process group, how long before SIGKILL.
_KILL_GRACE = 1.0


@dataclass(frozen=True)
class Outcome:
    exit_code: int | None
    timed_out: bool


def run_process(argv: list[str], cwd: Path, env: dict[str, str], timeout: float, output: IO[bytes]) -> Outcome:
    """Run ``argv`` in its own session, output to ``output``; kill its whole group when done."""
    try:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise CannotRun(NOT_FOUND, f"command not found: {argv[0]!r} (not on PATH, or no such file)") from None
    except PermissionError:
        raise CannotRun(ERROR, f"{argv[0]!r} is not executable (permission denied)") from None
    except OSError as err:
        raise CannotRun(ERROR, f"cannot run {argv[0]!r}: {err.strerror or err}") from None
    try:
        try:
            return Outcome(proc.wait(timeout=timeout), False)
        except subprocess.TimeoutExpired:
            _stop_group(proc)
            return Outcome(None, True)
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


def tail(output: IO[bytes], lines: int = TAIL_LINES) -> str:
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


def last_line(tail: str) -> str:
    for line in reversed(tail.splitlines()):
        if line.strip():
            text = line.strip()
            return ": " + (text if len(text) <= 160 else text[:157] + "...")
    return ""

