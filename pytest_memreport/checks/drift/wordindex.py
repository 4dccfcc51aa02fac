"""Which files of a snapshot a whole-tree search must read: the word index.

A quote that left its file is searched for in every file of the
against-revision; reading them all costs too much, so :class:`WordIndex`
narrows them to the files holding the quote's rarest compound names
(:func:`probes`), asking ``git grep`` for the words of every announced quote
in one pass. One index lives per snapshot (:func:`word_index`).
"""

from __future__ import annotations

import posixpath
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ... import runcaches
from ...gitstore import RepoError
from ...gitstore.grep import StartedGrep
from ...text import match


@dataclass(frozen=True)
class _Asked:
    """Searches started and not yet taken in: the words (or lines) asked, their search, and
    (the first time words are asked) the one for backticks inside words."""

    words: set[str]
    search: StartedGrep
    spliced: StartedGrep | None

    def close(self) -> None:
        """Stop whichever still runs (one answered is closed already)."""
        self.search.close()
        if self.spliced is not None:
            self.spliced.close()


class WordIndex:
    """Which files of one snapshot a tree search must read.

    For a quote with names: the files holding them as whole words. ``git
    grep`` answers for many words in one pass over the snapshot, so words
    announced by :meth:`expect` are asked for together with the first word
    some search needs, or before any search, by :meth:`ask_ahead` (git then
    searches while the caller goes on). Files where a backtick splits a word (which a quote
    shows joined) hold every word as far as this index says. For a quote of
    plain words: the files passing its test in one pass over every file
    (:meth:`scan`), shared by every scan announced by :meth:`expect_scan`.
    Only answers are kept (sets of paths), never the tree's texts.
    """

    def __init__(self, against) -> None:
        # Weakly: the index is the value of a dict keyed weakly by this snapshot, and a
        # strong reference from the value would keep both alive for the process's life.
        self._snapshot = weakref.ref(against)
        self._paths: dict[str, set[str]] = {}
        self._expected: set[str] = set()
        self._spliced: set[str] | None = None
        self._unavailable = False
        #: the searches started and not yet taken in
        self._asked: _Asked | None = None
        self._scanned: dict[object, set[str]] = {}
        #: key -> (test(path, text, reduced), words git is asked for, words the postings name)
        self._expected_scans: dict[object, tuple[Callable[..., Any], tuple[str, ...], tuple[str, ...]]] = {}
        self._line_paths: dict[str, set[str]] = {}
        self._expected_lines: set[str] = set()
        self._lines_unavailable = False
        #: the line search started and not yet taken in (its ``words`` are lines)
        self._lines_asked: _Asked | None = None
        #: every word of the tree's texts -> the files holding it whole (:func:`words_of`),
        #: made by the first scan of a test that names its words, in its one pass
        self._postings: dict[str, list[str]] | None = None
        self._files: frozenset[str] | None = None
        self._folders: dict[str, frozenset[str]] | None = None
        #: files scans read, and (scan, file) pairs whose test ran (what the index saves)
        self.files_read = 0
        self.files_tested = 0
        #: whether a pass over every file was made without gathering the tree's postings
        self._read_whole = False
        #: files the pass over every file could not read (an object the clone lacks)
        self.unreadable: list[str] = []

    def _against(self):
        """The snapshot (alive: whoever asks this index holds it)."""
        return self._snapshot()

    def expect(self, words) -> None:
        self._expected.update(w for w in words if w not in self._paths)

    def expect_scan(self, key, test, needs=(), words=()) -> None:
        """Announce a :meth:`scan`, so that the first scan answers it too (and the
        first word search asks for its ``needs`` along with every other word)."""
        if key not in self._scanned:
            self._expected_scans[key] = (test, tuple(needs), tuple(words))
            self.expect(needs)

    def scan(self, key, test, needs=(), words=()) -> set[str]:
        """The files for which ``test(path, text, reduced)`` holds (``reduced``
        gives the text's :func:`.match.reduced` form, made once per file).
        ``words``: words every such file holds whole (as :func:`words_of` reads
        them), if any are known; ``needs``: such words of ``git grep``'s kind
        (:func:`scan_needs`), for a test without ``words``.

        One pass answers every scan announced so far. A test naming its words runs
        only on the files holding them all: the first such scan reads every file
        once and keeps which files hold each word (the tree's postings, not its
        texts), so that each later search costs its candidate files, never the
        tree. A test without words reads the files ``git grep`` says hold its
        ``needs`` (those a backtick splits a word in, which hold every word once it
        is dropped, among them), or every file.
        """
        if key in self._scanned:
            return self._scanned[key]
        tests = {**self._expected_scans, key: (test, tuple(needs), tuple(words))}
        self._expected_scans = {}
        found: dict[object, set[str]] = {k: set() for k in tests}
        allowed: dict[object, set[str] | None] = {}
        if self._postings is None:
            # Before the tree's postings are made, git names the files holding each test's
            # needs (the words of all of them in one search). A few tests without needs run
            # on every file in the same pass, once: gathering the postings (every word of
            # every file) would cost more than a few tests, and one such quotation among
            # hundreds would make it the price of all of them.
            needless = [k for k, v in tests.items() if not v[1]]
            by_needs = None
            if len(needless) <= _FEW_NEEDLESS and not self._read_whole:
                by_needs = self._holding_needs({k: v for k, v in tests.items() if v[1]})
            if by_needs is not None:
                allowed = {**by_needs, **dict.fromkeys(needless)}
            else:
                # Every file is read anyway: its words are gathered in that pass, and the
                # tests without words run in it; the others then read their candidates.
                unworded = {k: v for k, v in tests.items() if not v[2]}
                self._gather(unworded, found)
                tests = {k: v for k, v in tests.items() if v[2]}
        if self._postings is not None:
            unworded = {k: v for k, v in tests.items() if not v[2]}
            by_needs = self._holding_needs(unworded) if unworded else {}
            allowed = {**(by_needs or dict.fromkeys(unworded)),
                       **{k: self._holding_words(v[2]) for k, v in tests.items() if v[2]}}
        if tests:
            self._test(tests, allowed, found)
        self._scanned.update(found)
        return found[key]

    def _test(self, tests: dict, allowed: dict[object, set[str] | None], found: dict[object, set[str]]) -> None:
        """Run each of ``tests`` on its ``allowed`` files (``None``: every file), reading
        each file they need once."""
        listed = self._listed()
        everywhere = [k for k, among in allowed.items() if among is None]
        # Each file's tests, so that a file costs its own tests (not a look at every test's files).
        by_path: dict[str, list[object]] = {}
        for k, among in allowed.items():
            for path in among or ():
                by_path.setdefault(path, []).append(k)
        paths = sorted(listed if everywhere else by_path.keys() & listed)
        self._read_whole = self._read_whole or bool(everywhere)
        for path, textfile in self._against().read_many(paths):
            if textfile is None or not textfile.is_text:
                continue
            self.files_read += 1
            text, reduced = textfile.text, _Once(match.reduced, textfile.text)
            for k in (*everywhere, *by_path.get(path, ())):
                self.files_tested += 1
                if tests[k][0](path, text, reduced):
                    found[k].add(path)

    def _gather(self, tests: dict, found: dict[object, set[str]]) -> None:
        """One pass over every file: the words each holds gathered into the tree's
        postings, and ``tests`` (which name no words) run on it. A file the clone cannot
        give (a missing object) is left out of them, and the pass goes on: it stopped the
        pass, so each later scan read the whole tree again up to it (a finding's thousand
        code blocks, a thousand passes), and what a run found depended on which search
        came first."""
        made: dict[str, list[str]] = {}
        remaining = sorted(self._listed())
        while remaining:
            done = 0
            try:
                for path, textfile in self._against().read_many(remaining):
                    done += 1
                    if textfile is None or not textfile.is_text:
                        continue
                    self.files_read += 1
                    text, reduced = textfile.text, _Once(match.reduced, textfile.text)
                    for word in match.words_of(text):
                        made.setdefault(word, []).append(path)
                    for k, (check, _, _) in tests.items():
                        self.files_tested += 1
                        if check(path, text, reduced):
                            found[k].add(path)
            except RepoError:
                self.unreadable.append(remaining[done])  # (the file being read when it raised)
                remaining = remaining[done + 1:]
                continue
            break
        self._postings = made

    def in_folder(self, folder: str) -> frozenset[str]:
        """The snapshot's files directly in ``folder`` (``""``: the top level), from one
        grouping of its listing."""
        if self._folders is None:
            grouped: dict[str, set[str]] = {}
            for path in self._listed():
                grouped.setdefault(posixpath.dirname(path), set()).add(path)
            self._folders = {name: frozenset(paths) for name, paths in grouped.items()}
        return self._folders.get(folder, frozenset())

    def _listed(self) -> frozenset[str]:
        """The snapshot's files, as a set made once."""
        if self._files is None:
            self._files = frozenset(self._against().files())
        return self._files

    def _holding_words(self, words: tuple[str, ...]) -> set[str]:
        """The files holding every one of ``words`` whole, by the postings: the
        rarest few intersected (a superset: the scan's own test decides)."""
        postings = self._postings
        assert postings is not None, "asked before the tree's postings were made"
        lists = sorted((postings.get(word, ()) for word in set(words)), key=len)
        out = set(lists[0])
        for more in lists[1:_SCAN_NEEDS]:
            if not out:
                break
            out.intersection_update(more)
        return out

    def _holding_needs(self, tests: dict) -> dict[object, set[str]] | None:
        """For each scan, the files holding the words it needs, from the word search
        (one ``git grep`` however many scans: the words of all of them are asked
        together); ``None`` when some scan needs none, or git cannot answer (read
        every file then, once for all of them)."""
        if not all(needs for _, needs, _ in tests.values()):
            return None
        out = {}
        for k, (_, needs, _) in tests.items():
            found = self.holding(needs)
            if found is None:
                return None
            out[k] = found
        return out

    def holding(self, words: tuple[str, ...]) -> set[str] | None:
        """The files holding every one of ``words``; ``None`` when the index
        cannot tell (no words, or git cannot search): read every file then."""
        self._take_in()
        if not words or self._unavailable:
            return None
        missing = {w for w in words if w not in self._paths}
        if missing:
            self._ask((self._expected | missing) - self._paths.keys())
            self._take_in()
            if self._unavailable:
                return None
        first, *rest = words
        spliced = self._spliced
        assert spliced is not None, "asked before any word's files were kept"
        return self._paths[first].intersection(*(self._paths[w] for w in rest)) | spliced

    @property
    def asking(self) -> bool:
        """Whether a search :meth:`ask_ahead` started is under way (not yet taken in)."""
        return self._asked is not None or self._lines_asked is not None

    def ask_ahead(self, renew: bool = False) -> None:
        """Start the search for every word announced so far, taken in by the next
        :meth:`holding`, and for every line announced, taken in by the next
        :meth:`holding_line`: git searches on another core while the caller goes on.
        ``renew``: a search started before is taken in first (waited for), so that the
        words announced since are asked now rather than by the search that needs them."""
        if renew and self._asked is not None and self._expected - self._paths.keys() - self._asked.words:
            self._take_in()
        if self._asked is None and not self._unavailable and self._expected - self._paths.keys():
            self._ask(self._expected - self._paths.keys())
        if self._lines_asked is None and not self._lines_unavailable:
            self._ask_lines()

    def stop_asking(self) -> None:
        """Stop a search :meth:`ask_ahead` started and nothing took in (its words stay
        announced: a later :meth:`holding` asks for them again)."""
        asked, self._asked = self._asked, None
        if asked is not None:
            self._expected |= asked.words
            asked.close()
        lines_asked, self._lines_asked = self._lines_asked, None
        if lines_asked is not None:
            self._expected_lines |= lines_asked.words
            lines_asked.close()

    def _ask(self, wanted: set[str]) -> None:
        """Start one ``git grep`` for ``wanted`` (the announced words are then asked) and,
        the first time, the one for backticks inside words: two processes at once."""
        self._expected = set()
        if not wanted:
            return
        against = self._against()
        spliced = against.start_files_with_spliced_words() if self._spliced is None else None
        try:
            self._asked = _Asked(wanted, against.start_files_with_words(wanted), spliced)
        except BaseException:
            if spliced is not None:
                spliced.close()
            raise

    def _take_in(self) -> None:
        """The answers of the searches started (:meth:`_ask`), kept."""
        asked, self._asked = self._asked, None
        if asked is None:
            return
        try:
            found = asked.search.result()
            if asked.spliced is not None:
                self._spliced = asked.spliced.result()
        finally:
            asked.close()
        if found is None or self._spliced is None:
            self._unavailable = True  # word searches cannot answer: read every file
        else:
            self._paths.update(found)

    def expect_line(self, line: str) -> None:
        """Announce a :meth:`holding_line`, so that the first one answers it too."""
        if line not in self._line_paths:
            self._expected_lines.add(line)

    def holding_line(self, line: str) -> set[str] | None:
        """The files some line of which holds ``line`` (see :func:`probe_line`): one
        ``git grep`` for every line announced; ``None`` when git cannot search."""
        self._take_in_lines()
        if not self._lines_unavailable and line not in self._line_paths:
            self._expected_lines.add(line)
            self._ask_lines()
            self._take_in_lines()
        return None if self._lines_unavailable else self._line_paths[line]

    def _ask_lines(self) -> None:
        """Start one ``git grep`` for every line announced and not answered yet."""
        wanted, self._expected_lines = self._expected_lines - self._line_paths.keys(), set()
        if wanted:
            self._lines_asked = _Asked(wanted, self._against().start_files_with_lines(wanted), None)

    def _take_in_lines(self) -> None:
        """The answer of the line search started (:meth:`_ask_lines`), kept."""
        asked, self._lines_asked = self._lines_asked, None
        if asked is None:
            return
        found = asked.search.result()
        if found is None:
            self._lines_unavailable = True
        else:
            self._line_paths.update(found)


class _Once:
    """``function(argument)``, computed on the first call and kept."""

    __slots__ = ("_function", "_argument", "_value")

    def __init__(self, function, argument) -> None:
        self._function, self._argument, self._value = function, argument, None

    def __call__(self):
        if self._value is None:
            self._value = self._function(self._argument)
        return self._value


#: a probe word: ASCII (git's word characters), long enough to be telling
_PROBE_WORD = re.compile(r"[A-Za-z0-9_]{4,}")
#: scans without needs run on every file in one pass before the tree's postings are
#: gathered instead (a handful of tests per file cost less than every word of it)
_FEW_NEEDLESS = 4
#: probes per quote: a file must hold them all to be read
_PROBES = 3


def probes(words) -> tuple[str, ...]:
    """The longest compound identifiers among ``words`` (``load_entry``,
    ``scanQuota``): a handful of files hold each. Plain words are left out:
    their every copy in the tree would be a line of ``git grep`` output, and
    a quote of plain words only (prose, comments) reads every file instead."""
    names = (w for w in words if _PROBE_WORD.fullmatch(w) and match.is_compound(w))
    return match.rarest_words(names, _PROBES)


#: words a scan's files are asked for by (a file passing holds them all)
_SCAN_NEEDS = 3


def scan_needs(words) -> tuple[str, ...]:
    """The words among ``words`` (each one every occurrence holds whole, such as
    :attr:`.match.QuotePattern.whole_words`) likeliest to be rare, at most
    :data:`_SCAN_NEEDS`: what the word search narrows a scan by. Only words
    ``git grep -w`` reads as Python does (ASCII letters, digits, ``_``) and long
    enough to be telling (:data:`_PROBE_WORD`): the search's output is a line
    per occurrence, and ``a`` or ``be`` occur everywhere."""
    return match.rarest_words((w for w in words if _PROBE_WORD.fullmatch(w)), _SCAN_NEEDS)


#: a probe line must be this long (without its indentation) to be telling
_PROBE_LINE_CHARS = 16


def probe_line(block: list[str]) -> str | None:
    """The line of a cited block that a file holding the block must hold, chosen to be
    rare: the longest ASCII one. ``None`` when every line is short or not ASCII
    (git searches bytes, and a Latin-1 file's bytes are not the text's UTF-8)."""
    lines = [line for line in block if line.isascii() and len(line.strip()) >= _PROBE_LINE_CHARS]
    return max(lines, key=lambda line: len(line.strip()), default=None)


#: one word index per snapshot, dropped with the snapshot; the run's (:mod:`...runcaches`)
_WORD_INDEXES: weakref.WeakKeyDictionary = runcaches.PerRun(weakref.WeakKeyDictionary)  # type: ignore[assignment]


def word_index(against) -> WordIndex:
    found = _WORD_INDEXES.get(against)
    if found is None:
        found = _WORD_INDEXES[against] = WordIndex(against)
    return found


def stop_asking(against) -> None:
    """Stop the search the snapshot's index started ahead, if it has one and nothing took it in."""
    found = _WORD_INDEXES.get(against)
    if found is not None:
        found.stop_asking()
