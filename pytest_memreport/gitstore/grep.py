"""Word search over a snapshot: one ``git grep`` for many words, instead of reading every file.

A scope is ``[<commit sha>]`` for a commit or ``["--untracked"]`` for the
working tree. ``None`` answers mean git could not search (e.g. a partial clone
lacking blobs, which grep must not fetch); callers then read the files themselves.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Collection, Iterator
from typing import Generic, TypeVar

from .process import GitRunner, StartedGit
from .paths import git_path

Answer = TypeVar("Answer")

#: whole words, only the matched word printed; paths never quoted (``-z``)
_GREP_WORDS = ("-E", "-w", "-o", "-z", "-a")
#: each file's name once (ended by a newline, even under ``-z``), then its words, a line
#: each, then an empty line; without it, ``<path>\0<word>`` per occurrence
_GREP_HEADED = ("--heading", "--break")
#: one ``path\0word\n`` of ``git grep -z -o`` (a path may hold a newline, never a NUL)
_GREP_PAIR = re.compile(rb"([^\0]+)\0([^\0\n]+)\n")
#: what a POSIX extended regular expression gives a meaning to (escaped to match itself)
_ERE_SPECIAL = re.compile(r"[.^$*+?()\[\]{}|\\]")
#: a backtick between word characters (git's, which are ASCII)
_SPLICED_WORD = re.compile(rb"[A-Za-z0-9_]`+[A-Za-z0-9_]")
#: alternations per ``-e`` and per process stay well under the kernel's limits
#: on one argument (128 KiB) and on all of them
_GREP_ALTERNATION_CHARS = 60_000
_GREP_PROCESS_CHARS = 600_000


def grep_words(runner: GitRunner, words: Collection[str], scope: list[str],
               headed: bool = True) -> dict[str, set[str]] | None:
    """``git grep -w -o`` for many words at once: one alternation is one pass
    over the files (one ``-e`` per word would be one pass per word).

    ``headed``: no path of the scope holds a newline, so each file's name may be printed
    once above its matches (``--heading``): a tree's common names occur hundreds of
    thousands of times, and a ``<sha>:path`` before each of them is most of the output."""
    return start_words(runner, words, scope, headed).result()


class StartedGrep(Generic[Answer]):
    """A search started now (:func:`start_words`, :func:`start_spliced`) and answered by
    :meth:`result`: git searches on another core meanwhile."""

    def __init__(self, started: StartedGit | None, answer: Callable[[bytes | None], Answer]) -> None:
        self._started = started
        self._answer = answer

    def result(self) -> Answer:
        started, self._started = self._started, None
        return self._answer(_grep_output(started.result()) if started is not None else None)

    def close(self) -> None:
        """Stop the search (its answer is no longer wanted)."""
        started, self._started = self._started, None
        if started is not None:
            started.close()


def start_words(runner: GitRunner, words: Collection[str], scope: list[str],
                headed: bool = True) -> StartedGrep[dict[str, set[str]] | None]:
    """:func:`grep_words`, started: its first ``git grep`` runs until :meth:`~StartedGrep.result`
    (a word list too long for one process asks the others then, one at a time)."""
    found: dict[str, set[str]] = {word: set() for word in words}
    form, read = (_GREP_HEADED, _headed_words) if headed else ((), _paired_words)
    commands = [[*_GREP_WORDS, *form, *(arg for alternation in chunk for arg in ("-e", f"({alternation})"))]
                for chunk in _word_chunks(sorted(found))]

    def answer(first: bytes | None) -> dict[str, set[str]] | None:
        for number, command in enumerate(commands):
            out = first if number == 0 else _grep(runner, command, scope)
            if out is None:
                return None
            # One occurrence per file counts: each file's words are made unique first, and each
            # path and word is decoded once.
            by_word: dict[bytes, set[str]] = {}
            for path, words_there in read(out):
                name = _grep_path(path, scope)
                for word in words_there:
                    holders = by_word.get(word)
                    if holders is None:
                        holders = by_word[word] = set()
                    holders.add(name)
            for word, holders in by_word.items():
                found.setdefault(word.decode("ascii"), set()).update(holders)
        return found

    if not commands:
        return StartedGrep(None, lambda _: found)
    return StartedGrep(runner.start(_grep_command(commands[0], scope)), answer)


def start_lines(runner: GitRunner, lines: Collection[str], scope: list[str]) -> StartedGrep[dict[str, set[str]] | None]:
    """For each of ``lines`` (ASCII, no newline), the files where some line holds it, by
    one ``git grep`` for all of them, started: it runs until :meth:`~StartedGrep.result`
    (lines too many for one process are asked then, one process at a time).

    The lines are asked as one alternation of escaped strings (``-E``): given as many
    fixed strings (``-F -e a -e b ...``), git tries each on every line of the tree in
    turn, several times slower for a hundred of them. A superset of the files holding
    it as a whole line, so that a file whose lines end in carriage returns (which the
    checks' texts drop) is not missed; the caller then tests each file's text."""
    found: dict[str, set[str]] = {line: set() for line in lines}
    escaped = {_ERE_SPECIAL.sub(r"\\\g<0>", line): line for line in found if line}
    # (each alternation stays under the kernel's bound on one argument)
    chunks = [(chunk, ["-z", "-a", "-E", *(arg for group in _word_chunks(chunk) for alternation in group
                                          for arg in ("-e", alternation))])
              for chunk in _line_chunks(sorted(escaped))]

    def answer(first: bytes | None) -> dict[str, set[str]] | None:
        for number, (chunk, command) in enumerate(chunks):
            out = first if number == 0 else _grep(runner, command, scope)
            if out is None:
                return None
            wanted = [(escaped[pattern], escaped[pattern].encode("ascii")) for pattern in chunk]
            for path, content in _path_lines(out):
                for line, raw in wanted:
                    if raw in content:
                        found[line].add(_grep_path(path, scope))
        return found

    if not chunks:
        return StartedGrep(None, lambda _: found)
    return StartedGrep(runner.start(_grep_command(chunks[0][1], scope)), answer)


def _line_chunks(lines: list[str]) -> Iterator[list[str]]:
    """Groups of ``lines`` whose arguments fit one ``git grep``."""
    group: list[str] = []
    size = 0
    for line in lines:
        if group and size + len(line) > _GREP_PROCESS_CHARS:
            yield group
            group, size = [], 0
        group.append(line)
        size += len(line) + 4
    if group:
        yield group


def start_spliced(runner: GitRunner, scope: list[str]) -> StartedGrep[set[str] | None]:
    """Files where a backtick sits between word characters (see
    :meth:`Snapshot.files_with_spliced_words`), by one ``git grep``, started."""
    # The lines holding a backtick, tested here: a fixed string is one fast
    # pass, where git's regex engine is several times slower on a class.
    # (A path with a newline in it is misread here: such a file is then
    # only searched when its words are, which fails safe.)
    def answer(out: bytes | None) -> set[str] | None:
        if out is None:
            return None
        return {_grep_path(path, scope) for path, content in _path_lines(out) if _SPLICED_WORD.search(content)}

    return StartedGrep(runner.start(_grep_command(["-z", "-a", "-F", "-e", "`"], scope)), answer)


def _path_lines(out: bytes) -> Iterator[tuple[bytes, bytes]]:
    r"""``(path, line)`` from ``git grep -z`` output without ``-o``: ``path\0line\n`` per
    matching line. A path holding a newline is misread: its file is missed by a line
    search, and searched for backticks only when its words are."""
    for row in out.split(b"\n"):
        path, _, content = row.partition(b"\0")
        if path and content:
            yield path, content


def _grep(runner: GitRunner, args: list[str], scope: list[str]) -> bytes | None:
    """``git grep`` output; ``b""`` when nothing matched, ``None`` when git failed
    (e.g. a partial clone lacking blobs, which grep must not fetch)."""
    return _grep_output(runner.timed(_grep_command(args, scope)))


def _grep_command(args: list[str], scope: list[str]) -> list[str]:
    return ["grep", "--no-color", "--no-line-number", "--no-column", "--full-name", *args, *scope]


def _grep_output(result: subprocess.CompletedProcess[bytes]) -> bytes | None:
    if result.returncode == 1 and not result.stderr:
        return b""
    return result.stdout if result.returncode == 0 else None


def _grep_path(raw: bytes, scope: list[str]) -> str:
    """A repository path from a grep line (``<sha>:`` prefixed for a commit)."""
    if scope and scope[0] != "--untracked":
        raw = raw[len(scope[0]) + 1 :]
    return git_path(raw)


def _headed_words(out: bytes) -> Iterator[tuple[bytes, set[bytes]]]:
    r"""``(path, words)`` from ``git grep -o --heading --break`` output: per file its
    name, then a word per match, then an empty line (no path holds a newline here)."""
    for block in out.split(b"\n\n"):
        path, _, words = block.partition(b"\n")
        found = set(words.split(b"\n"))
        found.discard(b"")  # the output's last newline
        if path and found:
            yield path, found


def _paired_words(out: bytes) -> Iterator[tuple[bytes, set[bytes]]]:
    r"""``(path, words)`` from ``git grep -z -o`` output, ``path\0word\n`` per match. A
    path may hold a newline (``-z`` does not quote it, but never a NUL); a word never
    holds either, so each match is everything up to a NUL, then the word up to its newline."""
    by_path: dict[bytes, set[bytes]] = {}
    for path, word in _GREP_PAIR.findall(out):
        by_path.setdefault(path, set()).add(word)
    return iter(by_path.items())


def _word_chunks(words: list[str]) -> Iterator[list[str]]:
    """``a|b|c`` alternations, grouped so that each group fits one ``git grep``."""
    group: list[str] = []
    current: list[str] = []
    current_chars = group_chars = 0
    for word in words:
        if current and current_chars + len(word) + 1 > _GREP_ALTERNATION_CHARS:
            group.append("|".join(current))
            group_chars += current_chars
            current, current_chars = [], 0
            if group_chars > _GREP_PROCESS_CHARS:
                yield group
                group, group_chars = [], 0
        current.append(word)
        current_chars += len(word) + 1
    if current:
        group.append("|".join(current))
    if group:
        yield group
