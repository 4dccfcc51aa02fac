"""The process that parses part of a large report set beside the run (started here, served
by :func:`.dialects.sharedparse.serve`), and the protocol between the two.

This module imports nothing of the package, so that the plugin can start the helper before
the run imports its own modules: the helper's imports (an interpreter importing the dialects,
a few tenths of a second) then run beside this process's, not while it parses. It is worth
its start only for a large report set on a machine with a second core
(:func:`worth_a_helper`), and never where a third party's form readers take part (their
code is not sent to another process). Whether the cores are this run's to share (not in a
pytest-xdist worker) is the caller's to say.

It reads nothing but the members sent to it and writes nothing but its answers. Whatever it
does not answer (it could not start, it died, an answer did not load) the run parses itself.
"""

from __future__ import annotations

import errno
import os
import pickle
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

try:
    import fcntl
except ImportError:  # not on a POSIX system
    fcntl = None  # type: ignore[assignment]

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
DONE = -1


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


def folders_of(paths: Iterable[Path]) -> dict[Path, list[Path]]:
    """The reports, resolved, by folder: each once, in the order given (a run parses a
    folder's members together, :func:`.dialects.sharedparse.parse_shared`)."""
    folders: dict[Path, dict[Path, None]] = {}
    for path in paths:
        resolved = Path(path).resolve()
        folders.setdefault(resolved.parent, {})[resolved] = None
    return {folder: list(members) for folder, members in folders.items()}


def shareable(folders: dict[Path, list[Path]]) -> list[Path]:
    """The reports of ``folders`` (:func:`folders_of`) a helper may parse: those with another
    report of the run in their folder (a folder of one is this process's whole)."""
    return [path for members in folders.values() if len(members) >= 2 for path in members]


def start_for(folders: dict[Path, list[Path]], readers: Sequence = ()) -> Helper | None:
    """A helper for a run of the reports of ``folders`` (:func:`folders_of`), when it is
    worth its start (else ``None``)."""
    sizes = []
    for path in shareable(folders):
        try:
            sizes.append(path.stat().st_size)
        except OSError:  # its parse says why
            sizes.append(0)
    return Helper.start() if worth_a_helper(sizes, readers) else None


@dataclass
class MemberEnds:
    """The members not yet taken: this process takes from the front, the helper from the back."""

    count: int
    reserve: int
    front: int = 0
    back: int = field(init=False)
    #: the members the helper was asked for and has not answered
    pending: set[int] = field(default_factory=set)
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

    def take_back(self, ahead: int = 0) -> int | None:
        """The helper's next member; with ``ahead``, only while more than that many others
        are still to be taken (a member asked for before the helper is free, that this
        process would have parsed sooner near the ends' meeting, would keep it waiting)."""
        with self.lock:
            if self.back < self.front or (self.closed and not self.reserve):
                return None
            if ahead and not self.reserve and self.back - self.front <= ahead:
                return None
            self.back -= 1
            self.reserve = max(0, self.reserve - 1)
            self.pending.add(self.back + 1)
            return self.back + 1

    def answered(self, at: int) -> None:
        with self.lock:
            self.pending.discard(at)

    def close(self) -> bool:
        """No more members for the helper but its reserve; whether it has one to answer."""
        with self.lock:
            self.closed = True
            return bool(self.pending) or self.reserve > 0

    def fail(self) -> None:
        """The helper is gone: what it had not answered is this process's."""
        with self.lock:
            self.closed = True
            self.pending.clear()


#: while more members than this are left between the ends, the helper is asked for one more
#: beyond the one it is parsing, so that it never waits for this process's thread (which
#: shares the interpreter with the run's own parse) to read an answer before it goes on
_AHEAD = 3


class Helper:
    """A helper process, started before the members it will parse are known (its start
    overlaps this process's own work), then given one folder's members at a time."""

    def __init__(self, process: subprocess.Popen) -> None:
        self._process = process
        self._thread: threading.Thread | None = None
        self._ends: MemberEnds | None = None
        #: the members were sent (the helper is past its start), for the folder shared last
        self._sent = threading.Event()
        #: its answers (each a report, or what it sent instead: the caller tells them apart)
        self._answered: dict[int, Any] = {}
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
        _widen(process.stdout)
        helper = cls(process)
        try:
            send_message(process.stdin, list(sys.path))  # (a pipe's buffer holds it: nothing waits here)
        except OSError:
            helper.alive = False  # it died at once: this process parses everything
        return helper

    def share(self, members: Sequence[Any], ends: MemberEnds) -> bool:
        """Offer it ``members``, taken from the back of ``ends``; whether it is there to take them."""
        if not self.alive:
            return False
        self._ends, self._answered = ends, {}
        self._sent.clear()
        self._thread = threading.Thread(target=self._talk, args=(list(members), ends),
                                        name="memreport parse helper", daemon=True)
        self._thread.start()
        return True

    def _talk(self, members: list[Any], ends: MemberEnds) -> None:
        send, receive = self._process.stdin, self._process.stdout
        assert send is not None and receive is not None
        try:
            send_message(send, members)
            self._sent.set()
            asked: deque[int] = deque()

            def ask(ahead: int = 0) -> None:
                at = ends.take_back(ahead)
                if at is not None:
                    send_message(send, at)
                    asked.append(at)

            ask()
            while asked:
                if len(asked) == 1:
                    # Its next member waits in the pipe while it parses this one: it goes on as
                    # soon as it has answered, not once this thread has read the answer.
                    ask(ahead=_AHEAD)
                answered_at, body = pickle.load(receive)
                at = asked.popleft()
                if not asked:
                    ask()  # before this answer is read into a report (it waits meanwhile)
                if answered_at == at and isinstance(body, bytes):
                    self._answered[at] = pickle.loads(body)
                ends.answered(at)
            send_message(send, DONE)
        except Exception:  # noqa: BLE001 - it died or answered nonsense: this process parses the rest
            self.alive = False
            ends.fail()

    def collect(self) -> dict[int, Any]:
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


#: a pipe's buffer, widened to hold a report's answer whole (Linux's limit for any process)
_PIPE_BYTES = 1024 * 1024


def _widen(stream: IO[bytes] | None) -> None:
    """The helper's answers' pipe widened to :data:`_PIPE_BYTES` (Linux; elsewhere as it is):
    with 64 KiB, its write of an answer (about 100 KiB for 500 quotations) waits until this
    process, whose thread reading it shares the interpreter with the run's own parse, has
    read the first part."""
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None) if fcntl is not None else None
    if stream is None or set_size is None:
        return
    try:
        fcntl.fcntl(stream.fileno(), set_size, _PIPE_BYTES)
    except OSError:  # above a lowered limit: the pipe keeps its size
        pass


def send_message(stream: IO[bytes] | None, value: Any) -> None:
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


