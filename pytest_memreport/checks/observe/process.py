"""Running a command in its own process group, stopping all it started, keeping its output's tail.

On timeout, Ctrl-C or a terminating signal the group is terminated, then
killed: nothing the command started keeps running in a worktree about to be
removed. The output goes through a pipe of which only the last
:data:`TAIL_BYTES` are kept, however much the command prints. A process
that leaves the group (``setsid``, a daemon) is caught by :mod:`.reaper`.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from . import reaper
from .results import ERROR, NOT_FOUND, CannotRun

#: How much output an :class:`~.results.ObservationResult` keeps.
TAIL_LINES = 40
#: The most output bytes held at any time while a command runs.
TAIL_BYTES = 64 * 1024
#: After SIGTERM to a timed-out process group, how long before SIGKILL.
_KILL_GRACE = 1.0
#: How long to keep reading what is already in the pipe once the command exited.
_DRAIN_SECONDS = 1.0


@dataclass(frozen=True)
class Outcome:
    exit_code: int | None
    timed_out: bool
    #: the last :data:`TAIL_BYTES` bytes of the output (stdout and stderr together)
    output: bytes = b""
    #: whether more was printed than ``output`` holds
    cut: bool = False
    #: from start to exit (or timeout), without the cleanup after it
    seconds: float = 0.0


class _Tail:
    """The last ``limit`` bytes written, in bounded memory."""

    def __init__(self, limit: int = TAIL_BYTES) -> None:
        self.limit = limit
        self.data = bytearray()
        self.cut = False

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        if len(self.data) > self.limit:
            del self.data[: len(self.data) - self.limit]
            self.cut = True


def run_process(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> Outcome:
    """Run ``argv`` in its own session; kill its whole group, and what left it, when done."""
    read_end, write_end = os.pipe()
    try:
        with reaper.adopting() as adopted:
            try:
                proc = subprocess.Popen(
                    argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=write_end, stderr=write_end,
                    start_new_session=True,
                )
            except FileNotFoundError:
                raise CannotRun(NOT_FOUND, f"command not found: {argv[0]!r} (not on PATH, or no such file)") from None
            except PermissionError:
                raise CannotRun(ERROR, f"{argv[0]!r} is not executable (permission denied)") from None
            except OSError as err:
                raise CannotRun(ERROR, f"cannot run {argv[0]!r}: {err.strerror or err}") from None
            os.close(write_end)
            write_end = -1
            tail = _Tail()
            began = time.monotonic()
            try:
                code = _wait_reading(proc, read_end, tail, timeout)
                seconds = time.monotonic() - began
            finally:
                # Timed out, finished or interrupted: nothing it started survives.
                _stop_group(proc)
                adopted.kill_all()
            _drain(read_end, tail)
            return Outcome(code, code is None, bytes(tail.data), tail.cut, seconds)
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


def _wait_reading(proc: subprocess.Popen, fd: int, tail: _Tail, timeout: float) -> int | None:
    """Read the output into ``tail`` until the command exits (its code) or ``timeout`` passes (None)."""
    os.set_blocking(fd, False)
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        open_pipe = True
        while True:
            code = proc.poll()
            if code is not None:
                break
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            if not open_pipe:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=min(remaining, 0.2))
                continue
            if selector.select(min(remaining, 0.2)):
                open_pipe = _read_some(fd, tail)
        return code


def _drain(fd: int, tail: _Tail) -> None:
    """Read what is left in the pipe, for at most :data:`_DRAIN_SECONDS` (a writer may have escaped)."""
    until = time.monotonic() + _DRAIN_SECONDS
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while time.monotonic() < until and selector.select(max(0.0, until - time.monotonic())):
            if not _read_some(fd, tail):
                return


def _read_some(fd: int, tail: _Tail) -> bool:
    """Read what the pipe holds into ``tail``; False at end of output."""
    try:
        chunk = os.read(fd, TAIL_BYTES)
    except BlockingIOError:
        return True
    if not chunk:
        return False
    tail.add(chunk)
    return True


def _stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM the process group if it still runs, give it a moment, then SIGKILL it; reap the leader."""
    if proc.poll() is None:
        _signal_group(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=_KILL_GRACE)
    # Background children the command left in its group would keep writing
    # into a worktree that is about to be removed.
    _signal_group(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def tail(outcome: Outcome, lines: int = TAIL_LINES) -> str:
    """The last ``lines`` lines of the command's output."""
    text = outcome.output.decode("utf-8", "replace").replace("\r\n", "\n")
    kept = text.split("\n")
    if outcome.cut:
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
