"""Anchors: the citation forms of analysis runs (docs/FORMATS.md §3), read from one cell or sentence.

A *unit* is what a reader takes in at once: a table cell, a paragraph, a
fenced line. :func:`scan` reads its words and returns every citation written
there, one :class:`Citation` per cited range or path:

* ``src/a.ts:1349-1379,1549-1556`` and ``propose.ts:25–34, 58–84`` (a range
  after a comma belongs to the citation before it), en dashes, ``#L10-L20``;
* ``SRC-1:96–101``, ``SRC-1a:185``, and register entries of any upper-case
  prefix, ``PROPOSED-SRC-24:495–500`` (the file comes from the entry's row,
  possibly in another file of the run); ``SRC-5:package-lock.json:808`` (a file
  inside a folder entry);
* continuations: ``:505``; right after a citation and a comma, ``249``; after
  "line(s)", ``L40-L52`` or, backticked, `` `512-520` ``: bound to the last file
  of the same unit, whatever form named it (a plain ``src/schema.sql`` in prose,
  a link to the file), never across a cell boundary nor past the end of a sentence;
* brace expansion ``src/core/{queue,worker}.ts:12``, ``src/{handlers/,queue.ts}``:
  one citation per path, a folder where a choice ends in ``/``;
* elided paths ``.../widgets/README.md`` and absolute paths, the repository
  root's (``/.github/workflows/``, "repo-root `` `package.json` ``") or the
  analyst's checkout's (``/home/ana/src/widgets/src/a.ts``): the pinned tree
  decides later;
* folders with or without a trailing slash (``docs/``, `` `src/widgets` ``; in
  running prose, unquoted, only with it: ``src/``, ``packages/``).

:func:`quotes` finds the short inline quotations of a unit: a double-quoted
phrase of three or more words followed, in the same sentence, by a citation.
Nothing here knows the tree: whether a path-shaped word names a file of the
target is decided at the pin.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...model import LineRange
from .citations import BARE_FILES, looks_like_path
from .extensions import KNOWN_EXTENSIONS
from .grammar import (
    BARE_RANGES,
    BRACE,
    CONTINUATION,
    ENTRY_CITATION,
    ENTRY_ID,
    HOST_NAME,
    LINES_ONLY,
    PROPOSED_BEFORE,
    RANGE_DASH,
    RANGES_ONLY,
    SOURCE_IN_TEXT,
    SOURCE_RANGES,
    SOURCE_REF,
    TRAILING_RANGES,
)
from .links import parse_repository_link

#: words that announce the line numbers after them: ``lines 512-520``, ``line 40``
LINE_WORDS = frozenset({"line", "lines", "l.", "ll.", "lines:", "line:", "line(s)", "line(s):"})
#: ``repo-root `README.md```, ``root `package.json```: the word before a path at the top level
_ROOT_WORDS = frozenset({"root", "repo-root", "repository-root", "root-level", "top-level"})
_ELISION = ("...", "…")
#: what wraps a word without being part of it
_LEADING = "([{<\"'“‘*_"
_TRAILING = ".,;:)]}>!?\"'”’*_"
#: words that may sit between quotations and the citation that sources them
_LINKING = frozenset({"and", "or", "/", "&", "—", "–", "-", "see", "at", "in", "cf.", "e.g.", "per"})
#: a quoted phrase: in curly quotes (which may hold straight ones: “x = "a"”), else in
#: straight or mixed quotes
_QUOTED = re.compile(r"“([^“”\n]{3,400}?)”|[\"“]([^\"“”\n]{3,400}?)[\"”]")
_WORD = re.compile(r"[A-Za-z0-9_]+")
_SENTENCE_END = re.compile(r"[.!?]$")


def source_id(number: str, sub: str = "", prefix: str = "SRC-") -> str:
    """The normal spelling of a register ID: ``SRC-01`` → ``SRC-1``, ``SRC-1a`` kept,
    ``PROPOSED-SRC-07`` → ``PROPOSED-SRC-7``."""
    return f"{prefix}{int(number)}{sub}"


def entry_id(text: str) -> str | None:
    """``text`` as a register ID in its normal spelling, or ``None``."""
    match = ENTRY_ID.fullmatch(text)
    return source_id(match.group(2), match.group(3), match.group(1)) if match else None


def is_source_register(entry: str) -> bool:
    """Whether a register ID names a source register's row (``SRC-1``, ``PROPOSED-SRC-22``):
    an ID of another prefix (``OBJ-5``) cites lines only where its row names a file."""
    return "SRC-" in entry


def parse_ranges(text: str) -> tuple[tuple[LineRange, ...], str | None]:
    """``10-20,30`` → line ranges, and the first part written backwards or from 0."""
    ranges: list[LineRange] = []
    bad = None
    for part in text.split(","):
        numbers = [int(n) for n in RANGE_DASH.split(part.replace("L", "")) if n]
        if not numbers:
            continue
        start, end = numbers[0], numbers[-1]
        if start < 1 or end < start:
            bad = bad or part
        else:
            ranges.append(LineRange(start, end))
    return tuple(ranges), bad


@dataclass(frozen=True)
class Word:
    """A whitespace-separated word of a unit; ``code`` when inside backticks."""

    text: str
    line: int
    code: bool
    start: int
    end: int
    #: a link's target: the word is the link as the reader sees it (read as a link, not here)
    href: str = ""
    #: a code word that is its code span's whole text (`` `512-520` ``), not a word of a
    #: command written in one span (`` `cut a.txt --pages 1-3` ``)
    whole: bool = True


@dataclass(frozen=True)
class Citation:
    """One cited path or register row, with the ranges written for it.

    ``path`` is as written (repo-relative, partial, elided or absolute), or
    ``None`` for ``SRC-n:lines`` (then ``source`` names the register row).
    ``form`` says how it was written: ``path``, ``source``, ``continuation``,
    ``brace``, ``elided`` or ``absolute``. ``start``/``end`` are character
    offsets in the unit's text (for binding quotations).
    """

    line: int
    path: str | None
    source: str | None
    ranges: tuple[LineRange, ...]
    form: str
    code: bool
    start: int
    end: int
    bad_range: str | None = None
    #: the ``SRC-n`` written before a path in the same unit (``SRC-2 `lib/a.rb:2```)
    context: str | None = None
    #: written by the report's words, not inside a command or statement of one code span
    #: (what :func:`continues` may continue)
    spoken: bool = True

    @property
    def is_directory(self) -> bool:
        return self.path is not None and self.path.endswith("/")


@dataclass(frozen=True)
class Quote:
    """A short inline quotation and the citation that sources it.

    ``grouped``: further citations follow that one with only linking words between
    (``(`SRC-1:206`, `SRC-1a:170`)``): the phrase attests to the group, so no single
    range of it is the quotation's cited range."""

    text: str
    line: int
    citation: Citation | None
    start: int
    end: int
    grouped: bool = False


@dataclass(frozen=True)
class Unit:
    """A cell, paragraph or fenced line: its text as the reader sees it and its words."""

    text: str
    words: tuple[Word, ...]
    line: int


def laid_out(pieces) -> tuple[str, list[int]]:
    """The text of markdown-it pieces (:class:`.layout.Piece`) as a reader sees it, a soft
    line break between two pieces read as a space, and where each piece starts in it."""
    text_parts: list[str] = []
    starts: list[int] = []
    offset = 0
    previous = pieces[0].line if pieces else 0
    for piece in pieces:
        if piece.line != previous and text_parts and not text_parts[-1][-1:].isspace() and not piece.text[:1].isspace():
            text_parts.append(" ")
            offset += 1
        previous = piece.line
        starts.append(offset)
        text_parts.append(piece.text)
        offset += len(piece.text)
    return "".join(text_parts), starts


def unit(pieces) -> Unit:
    """A unit from markdown-it pieces (:class:`.layout.Piece`); links are skipped (read as links)."""
    text, starts = laid_out(pieces)
    words: list[Word] = []
    for piece, offset in zip(pieces, starts):
        if piece.kind == "link":
            if piece.href:  # a link to a file anchors the continuations after it
                words.append(Word(piece.text, piece.line, False, offset, offset + len(piece.text), piece.href))
            continue
        found = list(re.finditer(r"\S+", piece.text))
        for match in found:
            words.append(Word(match.group(), piece.line, piece.kind == "code",
                              offset + match.start(), offset + match.end(), whole=len(found) == 1))
    return Unit(text, tuple(words), pieces[0].line if pieces else 0)


#: the words of a plain-text rendering's line: a link whose text is a code span, whole
#: (`` [`a.py#L9`](url) ``: the link reader's, not a file its text names); a code span; a run
#: of other characters; a stray backtick. A code span is a word of its own wherever it
#: stands, as in markdown-it's pieces: `` (`a.py`) `` is three words.
_PLAIN_WORD = re.compile(r"(?<!\S)[^\s`]*`[^`]*`\][(\[]\S*|`[^`]*`|[^\s`]+|`")


def plain_unit(text: str, line: int) -> Unit:
    """A unit of plain text (a fenced line, a plain-text rendering's line);
    backticked spans are code words."""
    words: list[Word] = []
    for match in _PLAIN_WORD.finditer(text):
        word = match.group()
        if word.startswith("`") and word.endswith("`") and len(word) > 1:
            inside = list(re.finditer(r"\S+", word[1:-1]))
            for inner in inside:
                start = match.start() + 1 + inner.start()
                words.append(Word(inner.group(), line, True, start, start + len(inner.group()), whole=len(inside) == 1))
            continue
        words.append(Word(word, line, False, match.start(), match.end()))
    return Unit(text, tuple(words), line)


def _strip(word: str) -> str:
    text = word.lstrip(_LEADING)
    # trailing punctuation, but not the ``}`` closing a brace group (``a/{b/,c.ts}``); counted
    # once, so a word of many closing braces costs its length, not its square
    opens, closes = text.count("{"), text.count("}")
    end = len(text)
    while end and text[end - 1] in _TRAILING:
        if text[end - 1] == "}":
            if opens and opens >= closes:
                break  # it closes a group opened before it
            closes -= 1
        end -= 1
    return text[:end].strip("`")


def expand_braces(path: str) -> list[str]:
    """``a/{b,c}.ts`` → ``a/b.ts``, ``a/c.ts`` (one group; nested groups are not read)."""
    match = BRACE.search(path)
    if match is None:
        return [path]
    head, tail = path[: match.start()], path[match.end():]
    return [head + choice + tail for choice in match.group(1).split(",") if choice]


def _path(word: str) -> tuple[str, tuple[LineRange, ...], str | None, str] | None:
    """A word read as a path citation: ``(path, ranges, bad_range, form)``, or ``None``."""
    text = word
    ranges: tuple[LineRange, ...] = ()
    bad = None
    # ``src/a.ts:27:14``: a line and a column, as compilers and editors write them
    match = TRAILING_RANGES.search(text)
    if match:
        if HOST_NAME.fullmatch(text[: match.start()]):
            return None  # a host and its port
        ranges, bad = parse_ranges(match.group(1))
        text = text[: match.start()]
    form = "path"
    if text.startswith(_ELISION):
        text = text.lstrip(".…").lstrip("/")
        form = "elided"
        if "/" not in text.rstrip("/") and not ranges:
            return None  # ``.../x`` with nothing but a name: too little to find
    elif text.startswith("/") and not text.startswith("//"):
        form = "absolute"
    elif text.startswith("./"):
        text = text[2:]
    if "{" in text:
        if not BRACE.search(text):
            return None
        form = "brace"
        probe = expand_braces(text)[0]
    else:
        probe = text
    probe = probe.lstrip("/")
    if not probe or "://" in probe or ".." in probe.split("/"):
        return None
    if not looks_like_path(probe):
        return None
    return text, ranges, bad, form


def scan(unit: Unit, *, prose: bool = False) -> tuple[list[Citation], list[tuple[str, int]]]:
    """The citations of a unit, and the ``SRC-n`` it mentions (``(id, line)``).

    In ``prose`` a path without line numbers counts only in backticks, or as a folder
    written with its slash (running text names files it only talks about); in a table
    cell it counts as written. A file named in running text still anchors the
    continuations after it (``src/schema.sql at lines 512-520``).
    """
    citations: list[Citation] = []
    mentions: list[tuple[str, int]] = []
    last: Citation | None = None
    maybe_file: Citation | None = None  # an extension-less path, for the next word (or two) only
    after_comma = False
    worded = False  # the last citation is of a list of lines a line word began
    chain = 0  # where in ``citations`` that list begins
    context: list[str | None] = [None]
    previous_found = False
    previous = ""
    words = list(unit.words)
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        raw = word.text
        if last is not None and not last.spoken and not (word.code and not word.whole):
            last = None  # past the code span that named it
        if word.href:
            linked = _linked_file(word)
            if linked is not None:
                last = linked
            previous = ""
            continue
        # A brace group written with spaces (``{queue, worker}.ts``) is one word.
        if "{" in raw and "}" not in raw:
            joined, end = raw, word.end
            while index < len(words) and "}" not in joined and len(joined) < 300:
                joined += words[index].text
                end = words[index].end
                index += 1
            raw = joined
            word = Word(joined, word.line, word.code, word.start, end, whole=word.whole)
        text = _strip(raw)
        # (``ll.`` abbreviates "lines": its dot ends no sentence, ``see a.ts, ll. 3-9``)
        ends_sentence = bool(_SENTENCE_END.search(raw.rstrip(")]}\"'”*_`"))) and not raw.endswith("...") \
            and raw.lower().strip("*_(") not in LINE_WORDS
        comma = raw.rstrip("`*_").endswith(",")
        found: list[Citation] = []
        if text:
            found = _read_word(text, word, last or maybe_file, after_comma, prose, mentions, context, previous)
            listed = worded and after_comma and len(found) == 1 and found[0].form in ("continuation", UNBOUND)
            if previous in LINE_WORDS:
                chain = len(citations)  # (where a list of lines the line word begins starts)
            if (previous in LINE_WORDS or listed) and len(found) == 1 and found[0].ranges:
                # ``lines 27 to 34``, ``lines 6 and 11``, ``Lines 27-34 of `src/a.ts```; and the
                # last of a list the line word began (``lines 43, 45 and 50-52``)
                found[0], index = _worded_range(found[0], words, index)
                if listed and found[0].form == "path":
                    # (``lines 4, 5 and 6 of `a.ts```: the list's numbers before are that file's too)
                    citations[chain:] = [replace(c, path=found[0].path, source=None, form="path", code=found[0].code)
                                         if c.form == UNBOUND and c.path is None else c for c in citations[chain:]]
            if word.code and not word.whole:
                # A file named inside a statement or command in one code span (`` `import x from
                # "lib/a.sol";` ``) is that code's: no line word after the span continues it.
                found = [replace(citation, spoken=False) for citation in found]
        cites = any(c.form != MENTION for c in found)
        citations.extend(c for c in found if c.form != MENTION)
        # An extension-less path may be a file only for the range right after it
        # (`` `stdlib/VERSIONS` (L21-L23)``, ``(lines 21-23)``): `` `tools/call` `` is a name.
        if text.lower() not in LINE_WORDS:
            maybe_file = None
        for citation in found:
            # A continuation continues a file, not ``acquisition/import``, nor another
            # continuation that had nothing to continue (the caller may bind both).
            if _continuable(citation):
                last = citation
            elif _maybe_a_file(citation):
                maybe_file = citation
        # Only a citation directly before ``, 249`` makes a bare number a range of it (the
        # comma may be a word of its own between two code spans: `` `a.ts:1`, `9` ``).
        if not text and "," in raw:
            after_comma = after_comma or previous_found
        else:
            after_comma = comma and cites
        previous_found = cites or (not text and previous_found)
        # (a list of numbers a line word began: ``lines 43, 45``, and what follows its commas)
        worded = bool(found) and (previous in LINE_WORDS or (worded and after_comma)) if text else worded
        previous = raw.lower().strip("*_(")
        if ends_sentence:
            last = None
            after_comma = False
    return citations, mentions


#: words joining two line numbers into one range, or into two
_RANGE_TO = frozenset({"to", "through", "thru", "until"})
_RANGE_AND = frozenset({"and", "&"})
#: words giving a range announced before its file to that file: ``lines 3-9 of `a.ts```
_RANGE_OF = frozenset({"of", "in"})


def _is_range_word(word: str) -> bool:
    """Whether ``word`` is one range of lines and nothing else (``50-52``, ``L50-L52``)."""
    first, dash, last = word.replace("–", "-").partition("-")
    return bool(dash) and all(part.removeprefix("L").isdigit() and len(part) <= 10 for part in (first, last))


def _worded_range(citation: Citation, words: list[Word], index: int) -> tuple[Citation, int]:
    """A range announced by "line(s)" and finished in words: ``lines 27 to 34`` (one range),
    ``lines 6 and 11`` (two), then ``of `src/a.ts``` when no file came before (the file
    after it). ``index`` is the next word's; returns the citation and the index after what
    it read."""
    ranges = list(citation.ranges)
    end = citation.end
    while index + 1 < len(words) and _strip(words[index].text).lower() in (_RANGE_TO | _RANGE_AND):
        joiner, number = _strip(words[index].text).lower(), _strip(words[index + 1].text)
        if joiner in _RANGE_AND and not number.isdigit() and _is_range_word(number):
            last, bad = parse_ranges(number)  # (``lines 43, 45 and 50-52``: the last a range)
            if bad or len(last) != 1:
                break
            ranges.append(last[0])
            end = words[index + 1].end
            index += 2
            continue
        if not number.isdigit() or len(number) > 9:
            break
        value = int(number)
        if joiner in _RANGE_TO:
            if value < ranges[-1].start:
                break
            ranges[-1] = LineRange(ranges[-1].start, value)
        elif value >= 1:
            ranges.append(LineRange(value, value))
        end = words[index + 1].end
        index += 2
    found = replace(citation, ranges=tuple(ranges), end=end)
    # "of `a.ts`" names the range's file, also after another file in the same sentence
    # (``(lines 6-27), and lines 1-4 of `b.ts` ``): not a continuation of the one before
    if found.form in (UNBOUND, "continuation") and index + 1 < len(words) and \
            _strip(words[index].text).lower() in _RANGE_OF:
        named = words[index + 1]
        parsed = _path(_strip(named.text))
        if parsed is not None and not parsed[1] and not parsed[2] and parsed[3] == "path" and (
                named.code or file_shaped(parsed[0])):
            found = replace(found, path=parsed[0], source=None, form="path", code=named.code, end=named.end)
            index += 2
    return found, index


def _read_word(text: str, word: Word, last: Citation | None, after_comma: bool, prose: bool,
               mentions: list[tuple[str, int]], context: list[str | None], previous: str = "") -> list[Citation]:
    if "://" in text:
        return []
    ranged = SOURCE_RANGES.fullmatch(text)
    if ranged:
        sid = source_id(ranged.group(1), ranged.group(2))
        mentions.append((sid, word.line))
        ranges, bad = parse_ranges(ranged.group(3))
        return [Citation(word.line, None, sid, ranges, "source", word.code, word.start, word.end, bad)]
    only = SOURCE_REF.fullmatch(text.rstrip(":"))
    if only:
        sid = source_id(only.group(1), only.group(2))
        context[0] = sid
        mentions.append((sid, word.line))
        return []
    entry = ENTRY_CITATION.fullmatch(text)
    if entry:
        return _entry(entry, word, mentions)
    continued = CONTINUATION.fullmatch(text)
    if continued is None and after_comma and word.code == (last.code if last else False):
        continued = BARE_RANGES.fullmatch(text)
    if continued is None and previous in LINE_WORDS:
        # ``lines 512-520``, ``line 40``, ``Line(s): L43-L59``
        continued = BARE_RANGES.fullmatch(text) or (LINES_ONLY.fullmatch(text) if text.startswith("L") else None)
    if continued is None and last is not None and ((word.code and word.whole) or text.startswith("L")):
        # `` `512-520` `` or ``L40-L52`` after a file; a plain ``3-5`` may count anything else,
        # and so may one inside a command's code span (`` `cut a.txt --pages 1-3` ``)
        continued = LINES_ONLY.fullmatch(text)
    if continued is not None:
        ranges, bad = parse_ranges(continued.group(1) if continued.re is not LINES_ONLY else continued.group())
        if last is None:  # nothing to continue in this unit: the caller may know the row's file
            return [Citation(word.line, None, None, ranges, UNBOUND, word.code, word.start, word.end, bad)]
        return [Citation(word.line, last.path, last.source, ranges, "continuation", word.code,
                         word.start, word.end, bad, last.context)]
    parsed = _path(text)
    if parsed is None:
        return []
    path, ranges, bad, form = parsed
    if form == "path" and previous in _ROOT_WORDS and not ranges:
        path, form = "/" + path, "absolute"  # ``repo-root `README.md```: the top level's, not the subject's
    if not ranges and not bad:
        mention = [Citation(word.line, path, None, (), MENTION, word.code, word.start, word.end, None, context[0])]
        if not _mentions_a_file(path, form):
            mention = []
        if prose and not word.code and not path.endswith("/"):
            # running prose names files it only talks about; a folder with its slash is cited
            return mention
        if not word.code and not path.endswith("/") and ("/" not in path or not file_shaped(path)):
            # ``doctrine/design`` or a bare name in a plain cell is a word, not an anchor
            return mention
    paths = expand_braces(path) if form == "brace" else [path]
    return [Citation(word.line, p, None, ranges, form, word.code, word.start, word.end, bad, context[0])
            for p in paths]


#: names of libraries that read like a file in running text (``Node.js``, ``Vue.js``)
_LIBRARY_NAME = re.compile(r"[A-Z][\w-]*\.js")


def _mentions_a_file(path: str, form: str) -> bool:
    """Whether a plain word names a file that continuations after it may continue
    (``src/schema.sql at lines 512-520``), not a library (``Node.js``) or a member."""
    return form != "brace" and file_shaped(path) and ("/" in path or not _LIBRARY_NAME.fullmatch(path))


def _entry(match: re.Match, word: Word, mentions: list[tuple[str, int]]) -> list[Citation]:
    """``PROPOSED-SRC-24:495–500`` (lines of a register entry) or ``SRC-5:package-lock.json:808``
    (a file inside a folder entry): the entry resolves through the run's register later."""
    entry = source_id(match.group(2), match.group(3), match.group(1))
    rest = match.group(4)
    if RANGES_ONLY.fullmatch(rest):
        ranges, bad = parse_ranges(rest)
        if entry.startswith("SRC-"):
            mentions.append((entry, word.line))
        return [Citation(word.line, None, entry, ranges, "source", word.code, word.start, word.end, bad)]
    parsed = _path(rest)
    if parsed is None or parsed[3] != "path":
        return []
    if entry.startswith("SRC-"):
        mentions.append((entry, word.line))
    path, ranges, bad, _form = parsed
    return [Citation(word.line, path, entry, ranges, INSIDE, word.code, word.start, word.end, bad)]


def _linked_file(word: Word) -> Citation | None:
    """A link to a file of a repository as the anchor of later continuations (``[a.ts](...)`` ``:40``)."""
    link = parse_repository_link(word.href)
    if link is None or link.kind != "blob" or not link.path:
        return None
    ranges = (link.lines,) if link.lines else ()
    return Citation(word.line, link.path, None, ranges, MENTION, False, word.start, word.end)


def range_cell(unit: Unit, plain: bool = False) -> list[Citation]:
    """A cell that holds nothing but line ranges (`` `512-520` ``; with ``plain``, under a
    Lines column, also ``512-520``, ``L40``, ``lines 3-5, 9``): unbound continuations, for the
    caller to bind to the one file of the row. Anything else in the cell: ``[]``."""
    words = [w for w in unit.words if _strip(w.text) and _strip(w.text).lower() not in LINE_WORDS]
    if not words or not (plain or all(w.code for w in words)):
        return []
    found = []
    for word in words:
        text = _strip(word.text)
        match = RANGES_ONLY.fullmatch(text)
        if match is None:
            return []
        ranges, bad = parse_ranges(text)
        found.append(Citation(word.line, None, None, ranges, UNBOUND, word.code, word.start, word.end, bad))
    return found


#: a file named in running text that cites nothing itself but anchors the continuations after it
MENTION = "mention"
#: a file inside a register entry's folder: ``SRC-5:package-lock.json:808–817``
INSIDE = "inside"


#: the form of a continuation with nothing before it in its unit to continue
UNBOUND = "unbound"


def continues(citation: Citation) -> bool:
    """Whether a later continuation (``:94``) may continue this citation: one of a
    file or a register entry, not of a member (``JSON.stringify``) nor unbound, nor one a
    command or statement in a code span names (only the rest of that span continues it)."""
    return citation.spoken and _continuable(citation)


def _continuable(citation: Citation) -> bool:
    return citation.form != UNBOUND and bool(citation.path or citation.source) and bool(
        citation.ranges or citation.source or file_shaped(citation.path))


def _maybe_a_file(citation: Citation) -> bool:
    """A path in backticks with a folder before its name, no slash after it and no
    extension (`` `stdlib/VERSIONS` ``, but also `` `tools/call` ``): a file only if a line
    range follows it at once (:func:`scan`)."""
    path = citation.path or ""
    return (citation.code and citation.form == "path" and not citation.ranges and "/" in path.strip("/")
            and not path.endswith("/") and not _continuable(citation) and citation.spoken)


def file_shaped(path: str | None) -> bool:
    """A path whose last name is a file's: a known file extension (``index.ts``,
    ``README.md``; not ``JSON.stringify`` or ``acquisition/import``)."""
    if not path:
        return False
    name = path.rstrip("/").rsplit("/", 1)[-1]
    if name in BARE_FILES:
        return True
    stem, dot, extension = name.rpartition(".")
    return bool(dot and stem) and extension.lower() in KNOWN_EXTENSIONS


def mentioned_sources(text: str) -> list[str]:
    """Every ``SRC-n`` / ``SRC-na`` a text names."""
    return [source_id(m.group(1), m.group(2)) for m in SOURCE_IN_TEXT.finditer(text)]


def quotes(unit: Unit, citations: list[Citation]) -> list[Quote]:
    """The unit's inline quotations: double-quoted phrases of three or more words,
    each bound to the first citation after it in the same sentence with at most a
    few linking words (``and``, ``/``, other quotations) between, else to the citation
    just before it with only joiners between.

    Linear in the unit (plus a logarithm): every lookup is a bisection, and at most
    :data:`_MAX_LINKED` quotations count as linking material between two things."""
    return quotes_in(unit.text, unit.line, [(w.start, w.end) for w in unit.words if w.code],
                     [(w.start, w.line) for w in unit.words], citations)


def quotes_in(text: str, line: int, code_spans: Sequence[tuple[int, int]], line_marks: Sequence[tuple[int, int]],
              citations: list[Citation]) -> list[Quote]:
    """:func:`quotes` of a text read without words (:mod:`.ties`): ``code_spans`` are its
    code spans' ``(start, end)`` and ``line_marks`` the ``(offset, line)`` each stretch of
    one line starts at, both in order; ``line`` is the text's first."""
    code_starts = [start for start, _ in code_spans]
    # Quote marks inside code (``thought: ""``) open no quotation: masked, offsets kept.
    masked = text
    if code_spans and ('"' in text or "“" in text or "”" in text):
        chars = list(text)
        for start, end in code_spans:
            for at in range(start, min(end, len(chars))):
                if chars[at] in "\"“”":
                    chars[at] = "'"
        masked = "".join(chars)
    mark_starts = [start for start, _ in line_marks]
    found: list[Quote] = []
    for match in _QUOTED.finditer(masked):
        group = match.lastindex or 1
        phrase = text[match.start(group):match.end(group)].strip()
        span = bisect.bisect_right(code_starts, match.start()) - 1
        if len(_WORD.findall(phrase)) < 3 or (span >= 0 and match.start() < code_spans[span][1]):
            continue
        if "://" in phrase and not any(ch.isspace() for ch in phrase):
            continue  # a URL in quotation marks (an HTML link's ``href="..."``) quotes nothing
        if PROPOSED_BEFORE.search(masked, max(0, match.start() - 160), match.start()):
            continue  # what the text should say instead (``should be: "..."``) is no file's
        at = bisect.bisect_right(mark_starts, match.start()) - 1
        found.append(Quote(phrase, line_marks[at][1] if at >= 0 else line, None, match.start(), match.end()))
    links = _Links(text, citations, found)
    bound: list[Quote] = []
    for quote in found:
        index = links.following(quote.end, with_quotes=True)
        grouped = False
        if index is not None:
            # another quotation in between owns the citations after it: not linking material here
            grouped = links.following(citations[index].end, with_quotes=False) is not None
        else:
            # ``SRC-1a:163-164 ("a b c", "d e f")``: the citation just before, when nothing
            # but joiners and other quotations stand between.
            index = links.preceding(quote.start, with_quotes=True)
            if index is not None:
                grouped = links.preceding(citations[index].start, with_quotes=False) is not None
        citation = citations[index] if index is not None else None
        bound.append(Quote(quote.text, quote.line, citation, quote.start, quote.end, grouped))
    return bound


#: quotations that may stand between a phrase and its citation as linking material
_MAX_LINKED = 16
#: characters of linking material, at most, between a phrase and its citation
_MAX_GAP = 2000


class _Links:
    """Which citation a position of a unit links to (its citations and quotations in order)."""

    def __init__(self, text: str, citations: list[Citation], quotes_: list[Quote]) -> None:
        self.text = text
        self.citations = citations
        self.starts = [c.start for c in citations]
        self.ends = [c.end for c in citations]
        self.quotes = quotes_
        self.quote_starts = [q.start for q in quotes_]

    def _between(self, start: int, end: int, with_quotes: bool) -> str | None:
        """The text from ``start`` to ``end``, quotations in it blanked (``with_quotes``);
        ``None`` when it is too long, or holds too many quotations, to be linking material."""
        if end - start > _MAX_GAP:
            return None
        between = self.text[start:end]
        if with_quotes:
            first = bisect.bisect_left(self.quote_starts, start)
            inside = [q for q in self.quotes[first:first + _MAX_LINKED + 1] if q.end <= end]
            if len(inside) > _MAX_LINKED:
                return None
            for other in inside:
                between = between.replace(self.text[other.start:other.end], " ")
        return between

    def following(self, position: int, with_quotes: bool) -> int | None:
        """The first citation starting at or after ``position``, if only a few linking words
        stand between and no sentence ends there."""
        index = bisect.bisect_left(self.starts, position)
        if index == len(self.citations):
            return None
        between = self._between(position, self.starts[index], with_quotes)
        if between is None or re.search(r"[.!?]\s", between) or "\n\n" in between:
            return None
        words = [w for w in re.split(r"[\s(),;:`*_]+", between) if w]
        return index if len([w for w in words if w.lower() not in _LINKING]) <= 2 else None

    def preceding(self, position: int, with_quotes: bool) -> int | None:
        """The citation ending nearest before ``position`` (the first of several ending
        there: a brace group), if only joiners stand between."""
        index = bisect.bisect_right(self.ends, position) - 1
        if index < 0:
            return None
        while index > 0 and self.ends[index - 1] == self.ends[index]:
            index -= 1
        between = self._between(self.ends[index], position, with_quotes)
        # Only ``(``, ``:``, commas, slashes, dashes and ``and``/``or``: ``SRC-1:249); see "Loop C"``
        # names a section, it quotes nothing of the cited lines.
        return index if between is not None and _ONLY_JOINERS.fullmatch(between) else None


_ONLY_JOINERS = re.compile(r"[\s(:,/—–`*_-]*(?:\b(?:and|or)\b[\s(:,/—–`*_-]*)*")


def quotes_only(unit: Unit) -> list[str]:
    """The quotations of a cell that holds nothing else (``"a b c" / "d e f"``), else ``[]``."""
    phrases = []
    rest = unit.text
    for match in _QUOTED.finditer(unit.text):
        phrases.append(match.group(match.lastindex or 1).strip())
        rest = rest.replace(match.group(0), " ")
    if not phrases or re.sub(r"[\s/,;&*_]+|\band\b|\bor\b", "", rest):
        return []
    return [p for p in phrases if len(_WORD.findall(p)) >= 3]
