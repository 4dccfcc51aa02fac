"""How report text cites the target: path tokens with their line ranges
(``src/a.py:10-20,30``, ``#L10-L20``), quotation tails (``<text> --- <path>``)
and the path lists that follow an ``SRC-n`` (``SRC-1: a/b.py, c/d.ts.``).

A path is read strictly first (word characters and ``.@+~-``). Where the
syntax says a path is cited (after `` --- ``, in an ``SRC-n`` list) a token with
any other characters (``app/(auth)/page.tsx``, ``pages/[id].tsx``, ``a b.md``,
emoji, combining accents) is read too, as an :data:`UNUSUAL_PATH`: prose uses
those characters as well, so it is evidence only when the pinned tree has that
path (the engine asks the tree; absent, it is one "not evidence" item).

Every pattern is linear on adversarial input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...model import LineRange
from .grammar import (
    AT_REVISION_SUFFIX,
    INSTALLED_DEPENDENCY,
    NEVER_IN_PATH,
    PATH_EXTENSION,
    PATH_RANGES,
    PATH_TOKEN,
    RANGE_DASH_L,
    SOURCE_PATHS,
    SOURCE_PATHS_AT_END,
)
from .record_ids import RECORD_ID_LINE
from .sources import SOURCE_ID


# --------------------------------------------------------------------------- paths

#: the label of evidence at an :data:`UNUSUAL_PATH`
UNUSUAL_PATH = "unusual path"
#: extension-less file names that are still unmistakably files
_BARE_FILES = frozenset(
    {
        "Makefile", "Dockerfile", "Containerfile", "LICENSE", "README", "NOTICE", "COPYING",
        "Gemfile", "Rakefile", "Procfile", "Justfile", "Vagrantfile", "BUILD", "WORKSPACE",
        "CODEOWNERS", "Jenkinsfile", "Brewfile", "Pipfile", "Caddyfile", "Snakefile",
    }
)
#: the same, for the other core modules
BARE_FILES = _BARE_FILES
#: abbreviations that look like ``name.ext`` once their last full stop is stripped
_ABBREVIATIONS = frozenset({"e.g", "i.e", "a.k.a", "n.b", "p.s", "cf", "etc", "vs"})
_WRAPPING = "`*_\"'“”‘’"
_TRAILING = ".,;:)]}!?" + _WRAPPING
_LEADING = "([{" + _WRAPPING


def looks_like_path(token: str, unusual: bool = False) -> bool:
    """Whether ``token`` reads as a repository path: it has a ``/`` between
    names, a file extension, or is a conventional extension-less file name
    (``Makefile``). URLs, record IDs and ordinary words are not paths.

    ``unusual``: its names may hold any character but a control character or
    a backtick (spaces too), as a file system allows."""
    if not token or len(token) > 4096:
        return False
    if "/" not in token and "." not in token and token not in _BARE_FILES:
        return False  # the common case: an ordinary word
    if unusual:
        if NEVER_IN_PATH.search(token) or token != token.strip() or "//" in token:
            return False
    elif not PATH_TOKEN.fullmatch(token):
        return False
    if token.startswith("//") or not any(map(str.isalpha, token)):
        return False
    if "@" in token and AT_REVISION_SUFFIX.search(token.split(":", 1)[0]):
        return False  # a file at a revision (the forms read it so), not a file of that name
    if RECORD_ID_LINE.fullmatch(token) or SOURCE_ID.fullmatch(token):
        return False
    if ("_modules/" in token or "-packages/" in token) and INSTALLED_DEPENDENCY.search(token):
        return False
    if token.lower() in _ABBREVIATIONS:
        return False
    name = token.rstrip("/").rsplit("/", 1)[-1]
    if "/" in token.strip("/"):
        return True
    if token.endswith("/") and name:
        return True
    return bool(PATH_EXTENSION.search(name)) or name in _BARE_FILES


@dataclass(frozen=True, slots=True)
class PathSpec:
    """A cited path with its optional line ranges: ``src/a.py:10-20,30``.

    ``bad_range`` holds a range written backwards or from line 0 (kept out of
    ``ranges`` so no invalid :class:`LineRange` is ever built).
    """

    path: str
    ranges: tuple[LineRange, ...] = ()
    bad_range: str | None = None
    #: read as an :data:`UNUSUAL_PATH`: evidence only if the pinned tree has it
    unusual: bool = False

    @property
    def is_directory(self) -> bool:
        return self.path.endswith("/")


def _read_ranges(written: str, ranges: list[LineRange]) -> str | None:
    """``10-20,30`` appended to ``ranges``; the last part that is no range (start < 1 or
    end < start), or ``None``."""
    bad = None
    for part in written.split(","):
        numbers = [int(n) for n in RANGE_DASH_L.split(part)]
        start, end = numbers[0], numbers[-1]
        if start < 1 or end < start:
            bad = part
        else:
            ranges.append(LineRange(start, end))
    return bad


def parse_path_spec(token: str) -> PathSpec | None:
    """``path[:start[-end][,start-end...]]`` (also ``#L10-L20``), or ``None``
    when the token is not a path. Wrapping markup and trailing sentence
    punctuation are stripped first."""
    if len(token) > 4096:
        return None
    if "/" not in token and "." not in token:
        # The common case, an ordinary word; only ``Makefile``-like names pass.
        name = token.strip(_LEADING + _TRAILING).split(":", 1)[0].split("#", 1)[0]
        if name not in _BARE_FILES:
            return None
    token = token.strip().lstrip(_LEADING).rstrip(_TRAILING).strip(_WRAPPING)
    ranges: list[LineRange] = []
    bad: str | None = None
    match = PATH_RANGES.search(token)
    if match:
        bad = _read_ranges(match.group(1), ranges)
        token = token[: match.start()]
    if token.startswith("./"):
        token = token[2:]
    if not looks_like_path(token):
        return None
    return PathSpec(token, tuple(ranges), bad)


def cited_path_spec(token: str) -> PathSpec | None:
    """:func:`parse_path_spec`, plus absolute paths and :data:`UNUSUAL_PATH` s, for
    places whose syntax says a path is cited (after `` --- ``, in an ``SRC-n:`` list).

    There an absolute path (``/etc/passwd``) is kept as written, so the checker
    refuses it with its reason instead of the citation silently vanishing (and,
    in a list, taking every later path with it)."""
    spec = parse_path_spec(token)
    if spec is not None:
        return spec
    bare = token.strip().lstrip(_LEADING)
    if bare.startswith("/") and not bare.startswith("//"):
        inner = parse_path_spec(bare[1:])
        if inner is not None:
            return PathSpec("/" + inner.path, inner.ranges, inner.bad_range)
    return unusual_path_spec(token)


#: brackets a path may hold, and around which a sentence may put it
_PARTNER = {"(": ")", "[": "]", "{": "}", ")": "(", "]": "[", "}": "{"}


def _strip_unusual(token: str) -> str:
    """Markup and sentence punctuation around a token, but not the brackets its
    names hold: an opening bracket goes only when it has no partner inside, a
    closing one likewise. One pass from each end (linear)."""
    token = token.strip()
    counts = {bracket: token.count(bracket) for bracket in _PARTNER}
    start, end = 0, len(token)
    while start < end:
        first, last = token[start], token[end - 1]
        if last in _WRAPPING or last in ".,;:!?":
            end -= 1
        elif first in _WRAPPING:
            start += 1
        elif first in "([{" and counts[first] > counts[_PARTNER[first]]:
            counts[first] -= 1
            start += 1
        elif last in ")]}" and counts[last] > counts[_PARTNER[last]]:
            counts[last] -= 1
            end -= 1
        else:
            break
    return token[start:end]


def unusual_path_spec(token: str) -> PathSpec | None:
    """``token`` read as an :data:`UNUSUAL_PATH` (with optional line ranges), or
    ``None``: its names may hold brackets, spaces, ``!$,=%&#``, emoji or combining
    marks. A path the strict reading accepts is not unusual (``None``)."""
    if len(token) > 4096:
        return None
    token = _strip_unusual(token)
    ranges: list[LineRange] = []
    bad: str | None = None
    match = PATH_RANGES.search(token)
    if match and match.start() > 0:
        bad = _read_ranges(match.group(1), ranges)
        token = _strip_unusual(token[: match.start()])
    if token.startswith("./"):
        token = token[2:]
    if token.startswith(("/", "~")) or not looks_like_path(token, unusual=True):
        return None
    if PATH_TOKEN.fullmatch(token):
        return None  # an ordinary path, which the strict reading refused for a reason
    return PathSpec(token, tuple(ranges), bad, unusual=True)


# --------------------------------------------------------------------------- quotations

#: what ends a quotation's text before the path it quotes: ``<text> --- <path>``
QUOTE_MARK = " --- "


@dataclass(frozen=True, slots=True)
class QuotationTail:
    """The end of a quotation line: ``<text> --- <path>[:<start>-<end>]``.

    ``text`` is what precedes the marker on this line (possibly empty: the
    quote then sits in the paragraphs above).
    """

    text: str
    spec: PathSpec
    #: where the path (and its ranges) is written in the line: characters ``[start, end)``
    start: int = -1
    end: int = -1


def split_quotation(line: str) -> QuotationTail | None:
    """The quotation a line ends with, or ``None``.

    The marker is the last `` --- `` of the line (or ``--- `` opening it), and
    everything after it must be one path token, so prose that uses ``---`` as
    a dash is not mistaken for a quotation; a tail of several words (a name
    with spaces) is an :data:`UNUSUAL_PATH`, evidence only if the pinned tree
    has it.
    """
    stripped = line.rstrip()
    cut = stripped.rfind(QUOTE_MARK)
    if cut >= 0:
        text, at = stripped[:cut], cut + len(QUOTE_MARK)
    elif stripped.lstrip().startswith("--- "):
        text, at = "", len(stripped) - len(stripped.lstrip()) + 4
    else:
        return None
    tail = stripped[at:].strip()
    if not tail:
        return None
    spec = cited_path_spec(tail) if len(tail.split(None, 1)) == 1 else unusual_path_spec(tail)
    if spec is None:
        return None
    start = stripped.index(tail, at)
    return QuotationTail(text.strip(), spec, start, start + len(tail))


# --------------------------------------------------------------------------- path citations

_CONNECTIVES = frozenset({"and", "&", "+", "plus", "or"})
#: a word, or a backticked span with what follows it (`` `a b.md`:3, `` is one token: a name with spaces)
_TOKEN = re.compile(r"`[^`\n]{1,4096}`\S*|\S+")


@dataclass(frozen=True)
class PathCitation:
    """A path cited for a source: ``SRC-1: a/b.py, c/d.ts.`` or ``SRC-1 a/b.py``."""

    source: str
    spec: PathSpec
    column: int
    #: where the written token ends in its line (``column`` is where it starts)
    end: int = 0


def find_path_citations(line: str) -> list[PathCitation]:
    """The paths cited after each ``SRC-n`` in ``line``.

    After ``SRC-n:`` (or ``SRC-n`` followed directly by a path), consecutive
    path tokens are taken, separated by commas, semicolons or ``and``; the
    list ends at the first other word or at a token that closes a sentence.
    """
    return path_citations(line)[0]


def path_citations(line: str, carried: str | None = None) -> tuple[list[PathCitation], str | None]:
    """:func:`find_path_citations`, for a paragraph read line by line: a list
    left open at the end of the previous line (after ``SRC-n:``, a comma or
    ``and``) continues at the start of this one when ``carried`` names its
    source. Returns the citations and the source whose list is still open at
    the end of this line (``None`` when closed)."""
    found: list[PathCitation] = []
    starts = [(carried, 0)] if carried else []
    if "SRC-" in line:
        starts += [(f"SRC-{int(m.group(1))}", m.end()) for m in SOURCE_PATHS.finditer(line)]
        at_end = SOURCE_PATHS_AT_END.search(line)
        if at_end is not None:
            starts.append((f"SRC-{int(at_end.group(1))}", len(line)))
    still_open = None
    for source, start in sorted(starts, key=lambda pair: pair[1]):
        still_open = source  # ``SRC-1:`` and nothing after it yet
        for token in _TOKEN.finditer(line, start):
            raw = token.group()
            if raw.lower() in _CONNECTIVES:
                still_open = source
                continue
            spec = cited_path_spec(raw)
            if spec is None:
                still_open = None
                break
            found.append(PathCitation(source, spec, token.start(), token.end()))
            bare = raw.rstrip(_WRAPPING + ")]}")
            if bare.endswith((".", "!", "?")):
                still_open = None
                break  # ``a/b.py.`` ends the sentence and the list
            still_open = source if bare.endswith((",", ";")) else None
    return found, still_open
