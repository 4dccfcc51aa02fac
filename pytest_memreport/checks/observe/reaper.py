"""Catching what an observation detaches: processes that left its process group.

A command can start a daemon that calls ``setsid`` (its own session and
group) and let its parent exit, so killing the command's group misses it. On
Linux, while a command runs this process is a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``): an orphaned descendant is re-parented to
it instead of to init, so when the command is done every process that became
a child of ours meanwhile, and each one's descendants (from ``/proc``), is
killed and reaped. What this cannot catch is said in SECURITY.md: a process
another program starts on the command's behalf (``systemd-run``, ``at``, a
container daemon, ``ssh localhost``), and, where the subreaper is not
available (not Linux), a daemon whose parent exited before the command ended.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from collections.abc import Iterator

_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
#: rounds of "find new children, kill their trees": each round catches what
#: a dying process forked or orphaned in the meantime
_ROUNDS = 20


def _prctl():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):
        return None


def _subreaper(on: bool) -> bool:
    """Switch this process's child-subreaper flag; whether it worked."""
    prctl = _prctl()
    return prctl is not None and prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0


def _was_subreaper() -> bool:
    prctl = _prctl()
    if prctl is None:
        return False
    flag = ctypes.c_int(0)
    return prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0) == 0 and flag.value != 0


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process ``/proc`` shows (empty without ``/proc``)."""
    found: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue  # gone meanwhile
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1:
            found[int(name)] = int(fields[1])
    return found


def descendants(pid: int, parents: dict[int, int]) -> list[int]:
    """Every process below ``pid`` in ``parents`` (children first, then theirs)."""
    below: list[int] = []
    frontier = [pid]
    while frontier:
        current = frontier.pop()
        children = [child for child, parent in parents.items() if parent == current]
        below += children
        frontier += children
    return below


class Adopted:
    """The processes that became children of this one while a command ran."""

    def __init__(self, before: set[int]) -> None:
        self._before = before

    def kill_all(self) -> None:
        """SIGKILL every new child of ours and all below it, and reap the children."""
        me = os.getpid()
        for _ in range(_ROUNDS):
            parents = _parents()
            new = [pid for pid, parent in parents.items() if parent == me and pid not in self._before]
            if not new:
                return
            for child in new:
                for pid in [child, *descendants(child, parents)]:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, signal.SIGKILL)
            for child in new:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(child, 0)


@contextlib.contextmanager
def adopting() -> Iterator[Adopted]:
    """While open, orphans of what we start become our children (Linux); :meth:`Adopted.kill_all` ends them."""
    already = _was_subreaper()
    switched = not already and _subreaper(True)
    me = os.getpid()
    try:
        yield Adopted({pid for pid, parent in _parents().items() if parent == me})
    finally:
        if switched:
            _subreaper(False)
