"""Ties: which file a quotation in running prose quotes (docs/FORMATS.md §4).

A reader ties a phrase in quotation marks to the target in one of three ways, and
:func:`ties` reads them from one paragraph (its markdown-it pieces, :mod:`.layout`):

* **beside a link**: ``the design "keeps every rewrite reversible" ([DESIGN.md](...))``,
  the phrase bound to the link right after it (or right before it, only joiners
  between) exactly as an analysis run binds a phrase to its citation
  (:func:`.anchors.quotes_in`);
* **in a sentence that names files**: `` `docs/DESIGN.md` calls this "a two-phase commit" ``,
  a phrase the sentence attributes (:data:`SAYS`) to its links or backticked paths quotes
  one of them; with no word of attribution it is only :data:`NEAR` them (a quotation of
  one of them where found, else possibly the note's own term);
* **attributed to the project** (``the docs state "..."``) or **to nothing**: a phrase
  whose sentence names no file quotes the project if the sentence attributes it
  (:data:`ATTRIBUTION`), else it may be a term of the note's own.

Which strings are files, and what a link points at, is the dialect's to say
(``file_of``): this module only reads the prose. Every pattern is linear.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from . import anchors
from .grammar import PLAIN_PATH_CITATION

#: how a phrase is tied, strongest first
BESIDE, SENTENCE, NEAR, PROJECT, UNTIED = "beside", "sentence", "near", "project", "untied"

#: the project (or a part of it) said to state, call or describe something
ATTRIBUTION = re.compile(
    r"(?i)\b(?:the|its|their|this|our)\s+(?:project|docs?|documentation|readme|design(?:\s+doc(?:ument)?)?|"
    r"code(?:base)?|source(?:\s+code)?|repository|repo|comments?|authors?|maintainers?|changelog|"
    r"spec(?:ification)?|manual|guide|website|tutorial|docstrings?|help\s+text)(?:'s)?\b"
    r"[^.!?\"“”]{0,40}?\b(?:says?|said|states?|stated|calls?|called|describes?|described|puts?\s+it|reads?|"
    r"notes?|noted|writes?|wrote|explains?|explained|claims?|claimed|promises?|promised|warns?|warned|"
    r"documents?|documented|defines?|defined|insists?|admits?|advertises?|mentions?|labels?|terms?|termed|"
    r"refers?\s+to)\b"
    r"|\b(?:described|documented|advertised|billed|labell?ed)\s+(?:[a-z]+\s+){0,3}?as\b"
)
#: a sentence that attributes words to what it names: a verb of saying, "in its words", or a
#: colon right before the quotation (not a word of a compound: "pre-defined", "user-listed")
SAYS = re.compile(
    r"(?i)\b(?<!-)(?:says?|said|states?|stated|calls?|called|describes?|described|puts?\s+it|reads?|notes?|noted|"
    r"writes?|wrote|explains?|explained|claims?|claimed|promises?|promised|warns?|warned|documents?|documented|"
    r"defines?|defined|insists?|admits?|advertises?|mentions?|labels?|terms?|termed|refers?\s+to|quotes?|"
    r"words|phrases?|wording|verbatim|literally|"
    # what a file holds, as code is quoted (`` `a.pyi` declares "def quote(s: str) -> str" ``)
    r"declares?|declared|contains?|contained|shows?|showed|prints?|printed|lists?|listed|has|holds?|"
    r"(?:begins?|starts?|opens?|ends?)\s+with)\b|:\s*$"
)
#: how far before and after a phrase, within its sentence, what names or attributes it is looked for
REACH = 300
#: a sentence ends at ``.``, ``!`` or ``?`` followed by whitespace (a path's dot is not followed by one)
_SENTENCE_END = re.compile(r"[.!?][\"”')\]*_]*\s+")


@dataclass(frozen=True)
class Named:
    """A file named in the paragraph: a link (``href``) or a backticked path (``href`` empty)."""

    text: str
    href: str
    line: int
    start: int
    end: int


@dataclass(frozen=True)
class Tie:
    """One phrase in quotation marks and what it is tied to: ``how`` (:data:`BESIDE`,
    :data:`SENTENCE`, :data:`NEAR`, :data:`PROJECT` or :data:`UNTIED`) and ``files``, the
    named files of its tie, nearest first (empty for the last two)."""

    text: str
    line: int
    how: str
    files: tuple[Named, ...] = ()


@dataclass(frozen=True)
class Paragraph:
    """A paragraph's text as read (link texts in place, code spans without backticks), its
    first line, the files it names, its code spans' ``(start, end)`` and the ``(offset,
    line)`` each of its pieces starts at (what :func:`.anchors.quotes_in` asks of it: a
    paragraph is read for its quotations, not word by word)."""

    text: str
    line: int
    named: tuple[Named, ...]
    code_spans: tuple[tuple[int, int], ...] = ()
    line_marks: tuple[tuple[int, int], ...] = ()

    @functools.cached_property
    def bounds(self) -> list[int]:
        """Where its sentences start (read once)."""
        return _sentence_bounds(self.text)

    def clause_at(self, position: int) -> str:
        """The clause holding ``position``: its sentence, cut at semicolons (within :data:`REACH`)."""
        text = self.text
        start, end = _sentence_of(self.bounds, position, len(text))
        start, end = max(start, position - REACH), min(end, position + REACH)
        cut = text.rfind(";", start, position)
        start = cut + 1 if cut >= 0 else start
        cut = text.find(";", position, end)
        return text[start:cut if cut >= 0 else end]

    def last_sentence_start(self) -> int:
        """Where its last sentence starts."""
        return _sentence_of(self.bounds, max(0, len(self.text.rstrip()) - 1), len(self.text))[0]


#: the marks a quoted path stands between (the empty string: none there, at a piece's edge)
_QUOTE_MARKS = frozenset({'"', "“", "”", "'", "‘", "’"})


def paragraph(pieces, is_file: Callable[[str, str], bool]) -> Paragraph:
    """Read a paragraph's pieces; ``is_file(href, text)`` says whether a link or a backticked
    span (``href`` empty) names a file of the target."""
    text, starts = anchors.laid_out(pieces)
    named: list[Named] = []
    codes: list[tuple[int, int]] = []
    marks: list[tuple[int, int]] = []
    for piece, offset in zip(pieces, starts):
        end = offset + len(piece.text)
        if piece.kind == "link":
            if is_file(piece.href, piece.text):
                named.append(Named(piece.text, piece.href, piece.line, offset, end))
            continue
        if piece.text.strip():  # what a quotation may start in (links are not words)
            marks.append((offset, piece.line))
        if piece.kind == "code":
            codes.append((offset, end))
            if is_file("", piece.text):
                named.append(Named(piece.text, "", piece.line, offset, end))
        elif "/" in piece.text and "." in piece.text:
            # (a file's place in plain words, ``(src/a.ts:43)``, names it as a backticked one does)
            # (not one in quotation marks: ``import "lib/a.sol"`` quotes the path, it is no tie)
            named.extend(Named(found.group(1), "", piece.line, offset + found.start(1), offset + found.end(1))
                         for found in PLAIN_PATH_CITATION.finditer(piece.text)
                         if piece.text[found.start(1) - 1:found.start(1)] not in _QUOTE_MARKS
                         and piece.text[found.end(1):found.end(1) + 1] not in _QUOTE_MARKS
                         and is_file("", found.group(1)))
    return Paragraph(text, pieces[0].line if pieces else 0, tuple(named), tuple(codes), tuple(marks))


def _citation(named: Named) -> anchors.Citation:
    """A named file as the citation :func:`.anchors.quotes` binds phrases to."""
    return anchors.Citation(named.line, named.text, None, (), "link", not named.href, named.start, named.end)


def ties(para: Paragraph) -> list[Tie]:
    """Every phrase in quotation marks of three or more words, with its tie."""
    citations = [_citation(named) for named in para.named]
    by_start = {named.start: named for named in para.named}
    starts = [named.start for named in para.named]
    text = para.text
    out = []
    for quote in anchors.quotes_in(text, para.line, para.code_spans, para.line_marks, citations):
        start, end = _sentence_of(para.bounds, quote.start, len(text))
        if quote.citation is not None:
            if _project_says(text, max(start, quote.start - REACH), quote, (quote.citation.start,)):
                out.append(Tie(quote.text, quote.line, PROJECT))
            else:
                out.append(Tie(quote.text, quote.line, BESIDE, (by_start[quote.citation.start],)))
            continue
        # What stands near it in its sentence (a bounded reach keeps a run-on paragraph linear).
        start, end = max(start, quote.start - REACH), min(end, quote.end + REACH)
        inside = list(para.named[bisect.bisect_left(starts, start):bisect.bisect_left(starts, end)])
        before, after = text[start:quote.start], text[quote.end:end]
        if inside and _project_says(text, start, quote, tuple(n.start for n in inside)):
            out.append(Tie(quote.text, quote.line, PROJECT))
            continue
        if inside:
            inside.sort(key=lambda n: min(abs(n.start - quote.end), abs(quote.start - n.end)))
            # Attributed to them, the phrase quotes one of them; else it may be the note's own term.
            said = SAYS.search(before) or SAYS.search(after)
            out.append(Tie(quote.text, quote.line, SENTENCE if said else NEAR, tuple(inside)))
            continue
        sentence = f"{before} {after}"
        how = PROJECT if ATTRIBUTION.search(sentence) else UNTIED
        out.append(Tie(quote.text, quote.line, how))
    return out


def _project_says(text: str, start: int, quote, files: tuple[int, ...]) -> bool:
    """Whether the project says the quotation (``The docs state "..."`` from ``start``) and
    every file named in its sentence (by where each starts) comes after it, other words
    between: "The docs state "...", and parcels wait in `a.ts`" is the project's, the file the
    sentence's next thought (looked in first all the same)."""
    return bool(ATTRIBUTION.search(text[start:quote.start])) and all(
        begin >= quote.end and _WORD.search(text[quote.end:begin]) for begin in files)


#: a word between a quotation and the file after it: then the file is not beside it
_WORD = re.compile(r"[^\W\d_]{2,}")


def _sentence_bounds(text: str) -> list[int]:
    """Offsets where sentences start (the first is 0); a stop inside quotation marks ends none."""
    quoted = [(m.start(), m.end()) for m in re.finditer(r"[\"“][^\"“”\n]{0,400}[\"”]", text)]
    starts = [start for start, _ in quoted]
    bounds = [0]
    for match in _SENTENCE_END.finditer(text):
        at = bisect.bisect_right(starts, match.start()) - 1
        if at >= 0 and match.start() < quoted[at][1] - 1:
            continue  # a full stop inside a quotation
        bounds.append(match.end())
    return bounds


def _sentence_of(bounds: list[int], position: int, length: int) -> tuple[int, int]:
    index = bisect.bisect_right(bounds, position) - 1
    end = bounds[index + 1] if index + 1 < len(bounds) else length
    return bounds[index], end


def in_own_project(sentence: str) -> bool:
    """Whether a sentence speaks of the reader's own project ("in your repository")."""
    return _OWN_PROJECT.search(sentence) is not None


_OWN_PROJECT = re.compile(r"(?i)\byour\s+(?:own\s+)?(?:repository|repo|project|codebase|checkout|workspace|code)\b")



