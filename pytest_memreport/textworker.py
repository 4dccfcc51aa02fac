"""A second process for pure text work: parsing reports, and work at the pin done
while pytest runs items.

With ``--memreport-json`` every quotation and cited range reports the definition
enclosing it at its pin: a tree-sitter parse of every cited file. On a run citing
a thousand files that is a fifth of a cold run, spent on one core of a machine
that has two, and tree-sitter holds the GIL while it parses, so a thread would
not help. A worker process parses instead: the engine hands it each cited file's
text as soon as it has read the pin's files (one batch), and takes each answer
when that evidence's item asks.

Neither process waits while the other could work. The worker takes the newest job
first; the engine asks in order, and a job it asks for before the worker was sent
it is taken back and done in the engine's own process. So the two work from the
two ends of the batch and meet, wherever the worker's speed and late start put
the meeting; the engine waits only for a job the worker is doing at that moment.

The answer is the one the in-process lookup gives: the worker runs the same
functions on the same text (:func:`.verify.located_lines`, then
:func:`.symbols.enclosing`), and an answer is taken only when the worker placed
the evidence at the lines the engine found. When the worker cannot start or dies,
every lookup falls back to the engine's own process: slower, never different.

The same worker shares one more batch. The first quotation missing at a pin makes
the engine check every other quotation of that pin at once (so that one ``git grep``
says where all the missing ones are instead); with a thousand or more, the worker
checks the later half (:func:`.verify.check_text`, a pure function of the file's
text) while the engine checks the first. These say only whether each quotation is
there; where it sits in a definition is asked when its item runs.

And it searches. A quotation missing at its pin fails at once; where the pinned tree
holds it instead only adds to its failure's text, and finding that (one ``git grep``
for the names of every missing quotation, then reading the files it names) is the
costliest step of such a run. On a pin whose checks were shared, the engine leaves
those searches to the worker (:func:`search`: the same function on the same
repository, opened read-only here too) while its own process runs the items, and
takes the answers when the failures are shown (:meth:`.Engine.settle`). A search
is sent only when no other job waits, and nothing is sent while one runs: the
engine takes back whatever it asks for meanwhile, so no item waits for a search.

And it parses reports. Parsing is pure Python, so the same GIL holds a thread back;
a knowledge base of many reports, or one large run, gives the worker the last
files to parse (:func:`.dialects.parse_member`, each on its own once its run is
planned) while the engine parses the first.

The worker is ``python -m pytest_memreport.textworker``, fed pickled jobs on its
standard input (it is this package's own process; nothing else writes there).
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

#: fewer files than this are parsed in the engine's process: the worker's start costs more
MIN_FILES = 64
#: fewer quotations than this, checked ahead of their items, are all checked in the engine's process
MIN_SHARED_CHECKS = 1000
#: files per job: fewer round trips, and an item waits for at most this many parses (a
#: report is a job of its own: one report parses as long as many pinned files do)
_FILES_PER_JOB = 8
_FRAME = struct.Struct("<Q")

#: seconds without any answer after which the worker is given up on (a job is a few parses)
_PATIENCE = 60.0

#: the kinds of job: enclosing definitions (:func:`answer`), whole pin checks (:func:`check`),
#: parsing reports (:func:`parse`), where missing quotations are instead (:func:`search`)
#: and opening a target for that (:func:`open_target`)
SYMBOLS, CHECKS, PARSE, SEARCH, OPEN = "symbols", "checks", "parse", "search", "open"
_FILES_PER_JOB_OF = {PARSE: 1}

#: what :meth:`TextWorker.symbol` gives for evidence it has no answer for
UNKNOWN = object()


def _write_frame(stream, data) -> None:
    payload = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_FRAME.pack(len(payload)))
    stream.write(payload)


def _read_frame(stream):
    head = stream.read(_FRAME.size)
    if len(head) < _FRAME.size:
        return None
    (size,) = _FRAME.unpack(head)
    payload = stream.read(size)
    if len(payload) < size:
        return None
    return pickle.loads(payload)


class TextWorker:
    """The worker, the jobs sent to it and the answers it gave, by ``(kind, pin, evidence)``.

    :meth:`submit` sends files; :meth:`symbol` and :meth:`checked` wait for one evidence's answer.
    Not thread-safe for callers: the engine asks from one thread.
    """

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None
        self._broken = False
        self._lock = threading.Condition()
        #: (pin, evidence) -> (job id, index in the job)
        self._slots: dict[tuple, tuple[int, int]] = {}
        self._answers: dict[int, list] = {}
        #: the frames not sent yet, by job id in submission order (the worker is sent the
        #: newest first: ``popitem``); a job this process asks for before it was sent is
        #: taken back (``_taken_back``) and done here: neither waits while the other could work
        self._unsent: dict[int, tuple] = {}
        self._taken_back: set[int] = set()
        #: the search job sent and not answered yet: nothing else is sent meanwhile
        self._searching: int | None = None
        self._next_job = 0
        self._threads: list[threading.Thread] = []
        #: seconds the engine spent waiting for answers (JSON's ``timing``)
        self.waited = 0.0
        self._started = False

    @property
    def started(self) -> bool:
        """Whether a worker was started (and so whether :attr:`waited` means anything)."""
        return self._started


    def submit(self, pin: str, files: list[tuple], kind: str = SYMBOLS) -> bool:
        """Send ``files`` to the worker, which it starts on the first call; false when it
        will not run. For :data:`SYMBOLS`: ``(path, text, blob id, [evidence in that
        file])``; for :data:`CHECKS`: ``(path, text file, with_symbol, [evidence])``;
        for :data:`PARSE`: ``(path, member to parse, None, [its key])``, with ``pin`` empty;
        for :data:`SEARCH`: ``(repository path, largest file read, None, [quotations missing
        at pin])``, and for :data:`OPEN` the same with no quotation."""
        if self._broken or not files:
            return False
        if self._process is None and not self._start():
            return False
        with self._lock:
            per_job = _FILES_PER_JOB_OF.get(kind, _FILES_PER_JOB)
            for start in range(0, len(files), per_job):
                job, self._next_job = self._next_job, self._next_job + 1
                chunk = [(*file[:3], tuple(file[3])) for file in files[start:start + per_job]]
                index = 0
                for *_file, evidence in chunk:
                    for item in evidence:
                        self._slots[(kind, pin, item)] = (job, index)
                        index += 1
                self._unsent[job] = (job, kind, pin, chunk)
            self._lock.notify_all()
        return True

    def wants(self, pin: str, evidence, kind: str = SYMBOLS) -> bool:
        """Whether the worker was given ``evidence`` at ``pin`` (and is still running)."""
        return not self._broken and (kind, pin, evidence) in self._slots

    def symbol(self, pin: str, evidence, lines):
        """The definition enclosing ``evidence`` at ``pin``, found by the worker at ``lines``;
        :data:`UNKNOWN` when the worker has no such answer (then look it up yourself)."""
        found = self._answer(SYMBOLS, pin, evidence)
        if found is UNKNOWN:
            return UNKNOWN
        found_lines, definition = found
        return definition if found_lines == lines else UNKNOWN

    def checked(self, pin: str, evidence):
        """The worker's :func:`.verify.check_text` of ``evidence`` at ``pin``, or
        :data:`UNKNOWN` (then check it yourself)."""
        return self._answer(CHECKS, pin, evidence)

    def searched(self, pin: str, evidence):
        """The worker's :func:`.drift.search.found_instead` of ``evidence`` missing at
        ``pin``, or :data:`UNKNOWN` (then search yourself)."""
        return self._answer(SEARCH, pin, evidence)

    def parsed(self, key):
        """The worker's :func:`.dialects.parse_member` of the report submitted under ``key``,
        or :data:`UNKNOWN` (then parse it yourself). Asked once: the slot is forgotten."""
        found = self._answer(PARSE, "", key)
        self._slots.pop((PARSE, "", key), None)
        return found

    def _answer(self, kind: str, pin: str, evidence):
        slot = self._slots.get((kind, pin, evidence))
        if slot is None:
            return UNKNOWN
        job, index = slot
        with self._lock:
            if job in self._taken_back:
                return UNKNOWN
            if self._unsent.pop(job, None) is not None:
                # Not sent yet: this process does the job itself (the engine asks in
                # order; the worker works from the newest job back, so they meet).
                self._taken_back.add(job)
                return UNKNOWN
            if job not in self._answers and not self._broken:
                began = time.perf_counter()
                while job not in self._answers and not self._broken:
                    if not self._lock.wait(timeout=_PATIENCE):
                        self._broken = True  # a worker that stopped answering: look it up here
                self.waited += time.perf_counter() - began
            answer = self._answers.get(job)
        if answer is None or index >= len(answer):
            return UNKNOWN
        return answer[index]

    def close(self) -> None:
        """Stop the worker (it finishes nothing more) and forget every answer."""
        process, self._process = self._process, None
        with self._lock:
            self._broken = True
            self._unsent.clear()
            self._lock.notify_all()
        if process is not None:
            try:
                if hasattr(os, "killpg"):  # with the git processes a search started: its group
                    os.killpg(process.pid, signal.SIGKILL)
                else:
                    process.kill()
            except OSError:
                pass
            process.wait()
            for stream in (process.stdin, process.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
        for thread in self._threads:
            thread.join(timeout=5)
        self._threads = []
        self._slots.clear()
        self._answers.clear()
        self._taken_back.clear()

    # -- the worker's pipes ---------------------------------------------------------------

    def _start(self) -> bool:
        package_parent = str(Path(__file__).resolve().parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH")) if p)
        try:
            # Run from the package's own folder: the report's folder (pytest's working
            # directory) is never on the worker's path.
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, env=env, cwd=package_parent, start_new_session=True)
        except OSError:
            self._broken = True
            return False
        self._started = True
        for target in (self._send, self._receive):
            thread = threading.Thread(target=target, name=f"memreport-textworker-{target.__name__[1:]}", daemon=True)
            thread.start()
            self._threads.append(thread)
        return True

    def _send(self) -> None:
        stream = self._process.stdin
        while True:
            with self._lock:
                while not self._broken and (self._searching is not None or not self._unsent):
                    self._lock.wait()
                if self._broken:
                    return
                job = self._next_to_send()
            try:
                _write_frame(stream, job)
                stream.flush()
            except (OSError, ValueError):
                self._fail()
                return

    def _next_to_send(self) -> tuple:
        """The newest job, searches last: a search runs long, and any job sent after it
        would wait for it (one the engine asks for meanwhile is done by the engine)."""
        number = next((number for number in reversed(self._unsent) if self._unsent[number][1] != SEARCH),
                      None)
        if number is None:
            number = next(reversed(self._unsent))
            self._searching = number
        return self._unsent.pop(number)

    def _receive(self) -> None:
        stream = self._process.stdout
        while True:
            try:
                frame = _read_frame(stream)
            except (OSError, ValueError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
                frame = None
            if frame is None:
                self._fail()
                return
            job, answer = frame
            with self._lock:
                self._answers[job] = answer
                if job == self._searching:
                    self._searching = None
                self._lock.notify_all()

    def _fail(self) -> None:
        with self._lock:
            self._broken = True
            self._lock.notify_all()


# -- the worker ---------------------------------------------------------------------------


def answer(files) -> list:
    """For each evidence of each file (in order): the lines it occupies at the pin and
    the definition enclosing them (``(None, None)`` where it is not found)."""
    from . import text
    from .checks import verify
    from .text import symbols

    out = []
    for path, content, oid, evidence in files:
        for item in evidence:
            lines = verify.located_lines(item, content, path, oid)
            out.append((lines, symbols.enclosing(content, path, lines, key=oid) if lines is not None else None))
        text.release_caches()  # each file is asked about once: keep the worker small
    return out


def check(pin: str, files) -> list:
    """For each evidence of each file (in order): :func:`.verify.check_text` at ``pin``."""
    from . import text
    from .checks import verify

    out = []
    for _path, textfile, with_symbol, evidence in files:
        out.extend(verify.check_text(item, pin, textfile, with_symbol) for item in evidence)
        text.release_caches()
    return out


def parse(files) -> list:
    """Each planned report parsed (:func:`.dialects.parse_member`); ``None`` where parsing
    raised: the engine then parses that one itself, and says what went wrong."""
    from . import dialects

    out = []
    for _path, member, _unused, _paths in files:
        try:
            out.append(dialects.parse_member(member))
        except Exception:  # noqa: BLE001 - the engine's own parse reports it
            out.append(None)
    return out


#: the repositories a search opened, by (path, largest file read): one per target
_stores: dict = {}


def search(pin: str, files) -> list | None:
    """For each quotation missing at ``pin`` (in order): :func:`.drift.search.found_instead`
    in the repository at the given path, opened read-only as the engine opens it; ``None``
    when it will not open (the engine then searches itself, and says why)."""
    from .checks import drift

    out = []
    for path, max_file_bytes, _unused, evidence in files:
        snapshot = open_target(path, max_file_bytes, pin)
        if snapshot is None:
            return None
        drift.search.expect_missing(snapshot, evidence)
        out.extend(drift.search.found_instead(item, snapshot) for item in evidence)
    return out


def open_target(path: str, max_file_bytes: int, pin: str):
    """The pin's tree in the repository at ``path`` (opened once), listed, with the files
    every search asks ``git grep`` for first (where a backtick splits a word); ``None``
    when it will not open. Also a job of its own (:data:`OPEN`), sent while the engine
    reads the pin's files and this process has nothing else to do."""
    from .checks.drift import wordindex
    from .gitstore import GitStore, RepoError

    try:
        store = _stores.get((path, max_file_bytes))
        if store is None:
            store = _stores[(path, max_file_bytes)] = GitStore.open(path, max_file_bytes)
        snapshot = store.snapshot(pin)
        snapshot.files()
    except RepoError:
        return None
    wordindex.word_index(snapshot).spliced()
    return snapshot


def _serve() -> None:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        frame = _read_frame(stdin)
        if frame is None:
            break
        job, kind, pin, files = frame
        if kind == SYMBOLS:
            found = answer(files)
        elif kind == CHECKS:
            found = check(pin, files)
        elif kind == SEARCH:
            found = search(pin, files)
        elif kind == OPEN:
            found = [open_target(path, max_file_bytes, pin) is not None for path, max_file_bytes, *_ in files]
        else:
            found = parse(files)
        try:
            _write_frame(stdout, (job, found))
        except (pickle.PicklingError, TypeError, AttributeError):
            _write_frame(stdout, (job, None))  # an answer that will not travel: the engine does it
        stdout.flush()
    for store in _stores.values():
        store.close()


if __name__ == "__main__":
    _serve()
