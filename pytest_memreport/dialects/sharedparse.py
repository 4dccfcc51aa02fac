"""A folder's reports parsed in two processes: this one takes its planned members from the
front, a helper process from the back, one at a time, until they meet.

Each planned member parses on its own, a pure function of its plan
(:func:`.parse_member`), and parsing is Python's own work, which one process
does on one core. On a large report set it is a third of a cold run; a helper (the same
interpreter and package, started with this process's ``sys.path``) does its share on
another core. It is worth its start, an interpreter importing the dialects (this module
imports nothing else), only for a
large folder on a machine with a second core (:func:`worth_a_helper`), and never where a
third party's form readers take part (their code is not sent to another process). Whether
the cores are this run's to share (not in a pytest-xdist worker) is the caller's to say.

The helper is started as soon as the run knows its reports are large (:class:`Helper`), so
that its start overlaps pytest's own, and serves one folder at a time. Whatever it does not
answer (it could not start, it died, an answer did not load, its parse raised) this
process parses itself: the reports are the same either way. It reads nothing but the
members sent to it and writes nothing but its answers; it is stopped once the run's
reports are parsed, and killed when the run ends.
"""

from __future__ import annotations

import errno
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from ..model import Report
from ..runcaches import RunCaches
from . import parse_member
from .runs import MemberParse

#: the bytes a run's report files add up to, at least, for a helper to pay for its start
#: (about a fifth of a second on another core; this much Markdown takes this process about
#: half a second to parse)
HELPER_TEXT = 512 * 1024

#: what the helper runs: this process's import path, then :func:`serve`
_BOOT = ("import pickle, sys\n"
         "sys.path[:] = pickle.load(sys.stdin.buffer)\n"
         "from pytest_memreport.dialects.sharedparse import serve\n"
         "serve(sys.stdin.buffer, sys.stdout.buffer)\n")

#: the index that ends a folder's members
_DONE = -1


def worth_a_helper(sizes: Sequence[int], readers: Sequence = ()) -> bool:
    """Whether a helper process would parse some of the reports of these ``sizes`` (their
    files' bytes) sooner than this process alone."""
    return not readers and len(sizes) >= 2 and _cores() >= 2 and sum(sizes) >= HELPER_TEXT


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@dataclass(frozen=True)
class SharedParse:
    """What a shared parse did: the reports in member order, and how many the helper gave."""

    reports: tuple[Report, ...]
    by_helper: int = 0


def parse_shared(members: Sequence[MemberParse], parse: Callable[[MemberParse], Report],
                 helper: Helper | None, reserve: int = 0) -> SharedParse:
    """``members`` parsed, this process's share by ``parse``, the rest by ``helper`` (when
    there is one and it is alive). The last ``reserve`` members are the helper's from the
    start (parsed here only if it fails): the rest go to whichever process asks first."""
    ends = _Ends(len(members), reserve)
    if helper is not None and (len(members) < 2 or not helper.share(members, ends)):
        helper = None  # this process parses them all
    reports: dict[int, Report] = {}
    try:
        while (at := ends.take_front()) is not None:
            reports[at] = parse(members[at])
    except BaseException:
        if helper is not None:
            helper.stop()
        raise
    answered = helper.collect() if helper is not None else {}
    reports.update(answered)
    for at in range(len(members)):
        if at not in reports:  # what the helper did not answer
            reports[at] = parse(members[at])
    return SharedParse(tuple(reports[at] for at in range(len(members))), len(answered))


@dataclass
class _Ends:
    """The members not yet taken: this process takes from the front, the helper from the back."""

    count: int
    reserve: int
    front: int = 0
    back: int = field(init=False)
    #: the member the helper is parsing (``None``: none)
    pending: int | None = None
    closed: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.back = self.count - 1

    def take_front(self) -> int | None:
        with self.lock:
            if self.front > self.back - self.reserve:
                return None
            self.front += 1
            return self.front - 1

    def take_back(self) -> int | None:
        with self.lock:
            self.pending = None
            if self.back < self.front or (self.closed and not self.reserve):
                return None
            self.back -= 1
            self.reserve = max(0, self.reserve - 1)
            self.pending = self.back + 1
            return self.pending

    def close(self) -> bool:
        """No more members for the helper but its reserve; whether it has one to answer."""
        with self.lock:
            self.closed = True
            return self.pending is not None or self.reserve > 0

    def fail(self) -> None:
        """The helper is gone: what it had not answered is this process's."""
        with self.lock:
            self.closed, self.pending = True, None


class Helper:
    """A helper process, started before the members it will parse are known (its start
    overlaps this process's own work), then given one folder's members at a time."""

    def __init__(self, process: subprocess.Popen) -> None:
        self._process = process
        self._thread: threading.Thread | None = None
        self._ends: _Ends | None = None
        #: the members were sent (the helper is past its start), for the folder shared last
        self._sent = threading.Event()
        self._answered: dict[int, Report] = {}
        self.alive = True
        #: its exit status once stopped
        self.exit_status: int | None = None

    @classmethod
    def start(cls, command: Sequence[str] = ()) -> Helper | None:
        """A helper running ``command`` (empty: this interpreter running :func:`serve`), or
        ``None`` when it cannot start."""
        if not command and not sys.executable:
            return None  # an embedded interpreter: nothing to start
        try:
            process = subprocess.Popen(list(command) or [sys.executable, "-c", _BOOT], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError:
            return None
        helper = cls(process)
        try:
            _send(process.stdin, list(sys.path))  # (a pipe's buffer holds it: nothing waits here)
        except OSError:
            helper.alive = False  # it died at once: this process parses everything
        return helper

    def share(self, members: Sequence[MemberParse], ends: _Ends) -> bool:
        """Offer it ``members``, taken from the back of ``ends``; whether it is there to take them."""
        if not self.alive:
            return False
        self._ends, self._answered = ends, {}
        self._sent.clear()
        self._thread = threading.Thread(target=self._talk, args=(list(members), ends),
                                        name="memreport parse helper", daemon=True)
        self._thread.start()
        return True

    def _talk(self, members: list[MemberParse], ends: _Ends) -> None:
        send, receive = self._process.stdin, self._process.stdout
        assert send is not None and receive is not None
        try:
            _send(send, members)
            self._sent.set()
            while (at := ends.take_back()) is not None:
                _send(send, at)
                answered_at, report = pickle.load(receive)
                if answered_at == at and isinstance(report, Report):
                    self._answered[at] = report
            _send(send, _DONE)
        except Exception:  # noqa: BLE001 - it died or answered nonsense: this process parses the rest
            self.alive = False
            ends.fail()

    def collect(self) -> dict[int, Report]:
        """Its answers for the folder shared last, once the member it is parsing (if any) is answered."""
        assert self._ends is not None and self._thread is not None
        if not self._ends.close() and not self._sent.is_set():
            self.stop()  # still starting when this process has parsed everything: of no more use
        self._thread.join()
        return self._answered

    def stop(self) -> None:
        """Stop it (now, whatever it is doing) and wait for it to exit."""
        self.alive = False
        if self._ends is not None:
            self._ends.fail()
        if self._process.poll() is None:
            self._process.kill()
        if self._thread is not None:
            self._thread.join()
        self._close_pipes()
        self.exit_status = self._process.wait()

    def close(self) -> None:
        """No more folders: once it has answered the last one's, stop it (it keeps nothing,
        and one still starting would make this process wait for its imports)."""
        if self._thread is not None:
            self._thread.join()
        self.stop()

    def _close_pipes(self) -> None:
        for stream in (self._process.stdin, self._process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass


def _send(stream: IO[bytes] | None, value: Any) -> None:
    """``value`` pickled onto ``stream``, every byte of it.

    Written piece by piece until all is taken: under ``PYTHONUNBUFFERED`` (or ``-u``) the
    helper's stdout is a raw file, and a write to a full pipe that a stop signal cuts short
    (Ctrl-Z then ``fg``, a sampling profiler pausing the process) takes only part of the
    data and says how much; ``pickle.dump`` does not look, so the rest was lost and the
    other process waited for it forever."""
    assert stream is not None
    data = memoryview(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    while data:
        taken = stream.write(data)
        if taken is None:  # a non-blocking stream that would block: not a pipe this module made
            raise BlockingIOError(errno.EAGAIN, "the helper's pipe took nothing")
        data = data[taken:]
    stream.flush()


def serve(asked: IO[bytes], answers: IO[bytes]) -> None:
    """The helper's side: a folder's members, then for each index received its report
    (``None`` when its parse raised: the other process parses it and says why), until the
    folder is done; then the next folder's, until its input ends."""
    caches = RunCaches()
    while True:
        try:
            members: list[MemberParse] = pickle.load(asked)
        except EOFError:
            return
        while (at := pickle.load(asked)) != _DONE:
            try:
                report: Report | None = caches.call(parse_member, members[at])
            except Exception:  # noqa: BLE001 - said by the other process, which parses it again
                report = None
            _send(answers, (at, report))
        caches.clear()
