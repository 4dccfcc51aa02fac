"""What every report dialect shares: numbered lines, the patterns of the
report vocabulary, and the block structure of a report as its reader sees it.

Two layers live here:

* **Line patterns** (record IDs, ``SRC-n`` sources, status lines, pins,
  repository URLs, quotation lines, path citations). They work on one report
  line at a time, so every finding keeps its line and, for statuses, the
  column a write-back can rewrite in place.
* **Blocks**: headings, paragraphs, list items, table rows and fenced code,
  each with its lines as the reader sees them (inline markup stripped). For
  Markdown the structure comes from markdown-it-py's token stream and its
  ``.map`` line positions; for a plain-text rendering every non-blank line is
  a block of its own (bullets and tab-separated rows are recognised by their
  first characters).

Every regular expression here is linear on adversarial input: no quantified
group can match the same text in two ways, and the few backward scans are
bounded by the previous match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import yaml
from markdown_it import MarkdownIt

from ..model import RECORD_KINDS, Finding, LineRange

# --------------------------------------------------------------------------- lines


@dataclass(frozen=True)
class Line:
    """One report line and its 1-based number."""

    number: int
    text: str


def numbered_lines(text: str) -> list[Line]:
    """The report's lines, numbered from 1.

    Splits on ``\\n`` only (the text is already normalised by
    :func:`~pytest_memreport.dialects.read_report`): ``str.splitlines`` would
    also split on form feeds and U+2028, and line numbers would then disagree
    with markdown-it's.
    """
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [Line(number, part) for number, part in enumerate(parts, start=1)]


def is_markdown(path: str) -> bool:
    """Whether a report file is a Markdown original (else a plain-text rendering)."""
    return path.lower().endswith((".md", ".markdown", ".mdown", ".mkd"))


# --------------------------------------------------------------------------- record IDs

_KINDS = "|".join(RECORD_KINDS)
#: ``PREFIX-KIND-slug``; the slug may end in hyphens here, which :func:`find_record_ids` trims.
RECORD_ID = re.compile(rf"(?<![\w-])([A-Z]+)-({_KINDS})-([a-z0-9][a-z0-9-]*)")
#: a whole line that is only a record ID (markup already stripped)
RECORD_ID_LINE = re.compile(rf"([A-Z]+)-({_KINDS})-([a-z0-9]+(?:-[a-z0-9]+)*)")
#: ``On <ID>`` starting an annotation
ANNOTATION_LINE = re.compile(rf"On[ \t]+([A-Z]+-(?:{_KINDS})-[a-z0-9]+(?:-[a-z0-9]+)*)")
#: a heading that declares a record and names it: ``MEM-OBJ-cache — Cache index``
HEADED_RECORD = re.compile(
    rf"(On[ \t]+)?([A-Z]+-(?:{_KINDS})-[a-z0-9]+(?:-[a-z0-9]+)*)[ \t]+[—–-]{{1,3}}[ \t]+(\S.*)"
)


@dataclass(frozen=True)
class RecordIdMatch:
    """A record ID found in a line."""

    id: str
    lens: str
    kind: str
    column: int


def find_record_ids(line: str) -> list[RecordIdMatch]:
    """Every record ID in ``line``, left to right."""
    found: list[RecordIdMatch] = []
    for match in RECORD_ID.finditer(line):
        slug = match.group(3).rstrip("-")
        end = match.start(3) + len(slug)
        # ``MEM-OBJ-fooBar`` or ``MEM-OBJ-foo_bar`` is not an ID: the slug alphabet is closed.
        if not slug or (end < len(line) and (line[end].isalnum() or line[end] == "_")):
            continue
        lens, kind = match.group(1), match.group(2)
        found.append(RecordIdMatch(f"{lens}-{kind}-{slug}", lens, kind, match.start()))
    return found


def split_record_id(record_id: str) -> tuple[str, str]:
    """``(lens, kind)`` of a well-formed record ID."""
    lens, kind, _ = record_id.split("-", 2)
    return lens, kind


# --------------------------------------------------------------------------- sources and pins

SOURCE_ID = re.compile(r"(?<![\w-])SRC-(\d{1,6})(?![\w-])")

_SHA = r"([0-9a-fA-F]{7,40})(?![0-9A-Za-z])"
_OPEN = r"[`*\[]*"  # markup that may wrap a sha: `sha`, **sha**, [sha](...)
#: per-source pins: ``SRC-1 commit <sha>``
_SOURCE_PIN = re.compile(
    rf"(?i)(?<![\w-])SRC-(\d{{1,6}})[`*]*(?:[ \t]*[,:])?[ \t]*(?:at[ \t]+)?commit[`*:]*[ \t]+{_OPEN}{_SHA}"
)
#: report-level pins, which apply to SRC-1 unless it is pinned on its own
_REPORT_PINS = (
    re.compile(rf"(?i)\brev-parse[ \t]+HEAD[`*]*[ \t]+matched[ \t]+{_OPEN}{_SHA}"),
    re.compile(rf"(?i)\bHEAD[`*]*[ \t]+was[ \t]+rechecked[ \t]+as[ \t]+{_OPEN}{_SHA}"),
    re.compile(
        rf"(?i)\bReviewed[ \t]+revision[*]*:[ \t*]*`?[\w./-]+`?[*]*[ \t]+at[ \t]+{_OPEN}{_SHA}"
    ),
    re.compile(rf"(?i)\bReviewed[ \t]+commit[*]*:[ \t*]*[`\[]*{_SHA}"),
)
_REPOSITORY_URL = re.compile(
    r"(?i)\b(?:Source|Repository)[*]*[ \t]*:[*]*[ \t]*[<`\[]?(https?://[\w.-]+(?::\d+)?/[\w.-]+/[\w.-]+)"
)


@dataclass(frozen=True)
class PinMatch:
    """A commit a line pins: ``source`` is ``SRC-n`` or ``None`` for a report-level pin."""

    source: str | None
    sha: str
    column: int


def find_pins(line: str) -> list[PinMatch]:
    """Every commit pin stated in ``line`` (shas lower-cased)."""
    lowered = line.lower()
    if "commit" not in lowered and "head" not in lowered and "revision" not in lowered:
        return []
    pins = [
        PinMatch(f"SRC-{int(m.group(1))}", m.group(2).lower(), m.start(2))
        for m in _SOURCE_PIN.finditer(line)
    ]
    for pattern in _REPORT_PINS:
        pins.extend(PinMatch(None, m.group(1).lower(), m.start(1)) for m in pattern.finditer(line))
    return sorted(pins, key=lambda pin: pin.column)


def find_repository_url(line: str) -> str | None:
    """The repository URL of a ``Source: https://host/owner/name`` line."""
    match = _REPOSITORY_URL.search(line)
    if match is None:
        return None
    url = match.group(1).rstrip(".")
    return url[: -len(".git")] if url.endswith(".git") else url


def find_source_ids(line: str) -> list[str]:
    """Every ``SRC-n`` named in ``line`` (normalised: ``SRC-01`` is ``SRC-1``)."""
    return [f"SRC-{int(m.group(1))}" for m in SOURCE_ID.finditer(line)]


# --------------------------------------------------------------------------- statuses

_STATUS_KEY = re.compile(r"(?i)\bconclusion[ \t]+status[*_`]*[ \t]*:[*_` \t]*")
_KNOWN_VALUE = re.compile(
    r"(?i)(causally[ \t]+supported|absent|inapplicable|uninspected|claimed|afforded|observed"
    r"|wired|implemented)(?![\w-])"
)
_ANY_VALUE = re.compile(r"[A-Za-z][\w-]*")


@dataclass(frozen=True)
class StatusMatch:
    """``<qualifier> <axis> conclusion status: <value>`` found in a line.

    ``column`` is the 0-based offset of ``value`` in the line (the place a
    write-back replaces); ``value`` is lower-cased, ``""`` when none is written.
    """

    axis: str
    qualifier: str
    value: str
    column: int


_MAX_WORD = 40
#: a longer run of words before the axis is a sentence, not a qualifier
MAX_QUALIFIER_WORDS = 6


def _word_before(line: str, end: int, floor: int) -> tuple[str, int]:
    """The word ending at ``end`` and where it starts, or ``("", end)``.

    A word is letters, digits, ``'``, ``-`` and ``_``, starting with a letter
    (leading digits or hyphens are dropped: a ``-`` bullet is not a word), no
    longer than a word gets; the scan never goes below ``floor``.
    """
    start = end
    limit = max(floor, end - _MAX_WORD - 1)
    while start > limit and (line[start - 1].isalnum() or line[start - 1] in "'-_"):
        start -= 1
    if start == limit and start > floor and (line[start - 1].isalnum() or line[start - 1] in "'-_"):
        return "", end  # too long to be a word of a status line
    while start < end and not line[start].isalpha():
        start += 1
    return (line[start:end], start) if start < end else ("", end)


def _standalone(line: str, start: int) -> bool:
    """Whether the word at ``start`` stands alone (begins the line or follows a space)."""
    return start == 0 or line[start - 1].isspace() or line[start - 1] in "*_`"


def find_statuses(line: str) -> list[StatusMatch]:
    """Every status statement in ``line``, several per line allowed (table cells).

    The axis is the word before ``conclusion status``; the qualifier is the run
    of words before the axis, separated by single spaces and stopped by any
    punctuation (a full stop ending the previous status, a bullet, a cell
    boundary). A run longer than :data:`MAX_QUALIFIER_WORDS` words is the
    sentence the status sits in, not a qualifier, and gives none. Values are
    the vocabulary (``causally supported`` is two words) or else the first
    word written.
    """
    found: list[StatusMatch] = []
    floor = 0  # backward scans never cross the previous status
    for key in _STATUS_KEY.finditer(line):
        position = key.start()
        while position > floor and line[position - 1] in "*_`":
            position -= 1
        while position > floor and line[position - 1] == " ":
            position -= 1
        axis, position = _word_before(line, position, floor)
        words: list[str] = []
        if axis and _standalone(line, position):
            while position - 1 > floor and line[position - 1] == " " and line[position - 2] != " ":
                word, start = _word_before(line, position - 1, floor)
                if not word or not _standalone(line, start):
                    break
                words.append(word)
                position = start
                if len(words) > MAX_QUALIFIER_WORDS:
                    words = []
                    break
        value_at = key.end()
        known = _KNOWN_VALUE.match(line, value_at)
        if known:
            value = " ".join(known.group(1).lower().split())
        else:
            other = _ANY_VALUE.match(line, value_at)
            value = other.group(0).lower()[:_MAX_WORD] if other else ""
        found.append(
            StatusMatch(axis.lower(), " ".join(reversed(words)).lower(), value, value_at)
        )
        floor = key.end()
    return found


# --------------------------------------------------------------------------- paths

_PATH_TOKEN = re.compile(r"[\w.@+~-]+(?:/[\w.@+~-]*)*")
_EXTENSION = re.compile(r"[^./]\.[A-Za-z][A-Za-z0-9_+-]{0,11}$")
#: extension-less file names that are still unmistakably files
_BARE_FILES = frozenset(
    {
        "Makefile", "Dockerfile", "Containerfile", "LICENSE", "README", "NOTICE", "COPYING",
        "Gemfile", "Rakefile", "Procfile", "Justfile", "Vagrantfile", "BUILD", "WORKSPACE",
        "CODEOWNERS", "Jenkinsfile", "Brewfile", "Pipfile", "Caddyfile", "Snakefile",
    }
)
BARE_FILES = _BARE_FILES
#: abbreviations that look like ``name.ext`` once their last full stop is stripped
_ABBREVIATIONS = frozenset({"e.g", "i.e", "a.k.a", "n.b", "p.s", "cf", "etc", "vs"})
_RANGES = re.compile(r"(?:[:#]L?)(\d{1,9}(?:[-–]L?\d{1,9})?(?:,\d{1,9}(?:[-–]\d{1,9})?)*)$")
_WRAPPING = "`*_\"'“”‘’"
_TRAILING = ".,;:)]}!?" + _WRAPPING
_LEADING = "([{" + _WRAPPING


def looks_like_path(token: str) -> bool:
    """Whether ``token`` reads as a repository path: it has a ``/`` between
    names, a file extension, or is a conventional extension-less file name
    (``Makefile``). URLs, record IDs and ordinary words are not paths."""
    if not token or len(token) > 4096:
        return False
    if "/" not in token and "." not in token and token not in _BARE_FILES:
        return False  # the common case: an ordinary word
    if not _PATH_TOKEN.fullmatch(token):
        return False
    if token.startswith("//") or not any(ch.isalpha() for ch in token):
        return False
    if RECORD_ID_LINE.fullmatch(token) or SOURCE_ID.fullmatch(token):
        return False
    if token.lower() in _ABBREVIATIONS:
        return False
    name = token.rstrip("/").rsplit("/", 1)[-1]
    if "/" in token.strip("/"):
        return True
    if token.endswith("/") and name:
        return True
    return bool(_EXTENSION.search(name)) or name in _BARE_FILES


@dataclass(frozen=True)
class PathSpec:
    """A cited path with its optional line ranges: ``src/a.py:10-20,30``.

    ``bad_range`` holds a range written backwards or from line 0 (kept out of
    ``ranges`` so no invalid :class:`LineRange` is ever built).
    """

    path: str
    ranges: tuple[LineRange, ...] = ()
    bad_range: str | None = None

    @property
    def is_directory(self) -> bool:
        return self.path.endswith("/")


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
    match = _RANGES.search(token)
    if match:
        for part in match.group(1).split(","):
            numbers = [int(n) for n in re.split(r"[-–]L?", part)]
            start, end = numbers[0], numbers[-1]
            if start < 1 or end < start:
                bad = part
            else:
                ranges.append(LineRange(start, end))
        token = token[: match.start()]
    if token.startswith("./"):
        token = token[2:]
    if not looks_like_path(token):
        return None
    return PathSpec(token, tuple(ranges), bad)


def cited_path_spec(token: str) -> PathSpec | None:
    """:func:`parse_path_spec`, plus absolute paths, for places whose syntax says
    a path is cited (after `` --- ``, in an ``SRC-n:`` list).

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
    return None


# --------------------------------------------------------------------------- quotations

_QUOTE_MARK = " --- "


@dataclass(frozen=True)
class QuotationTail:
    """The end of a quotation line: ``<text> --- <path>[:<start>-<end>]``.

    ``text`` is what precedes the marker on this line (possibly empty: the
    quote then sits in the paragraphs above).
    """

    text: str
    spec: PathSpec


def split_quotation(line: str) -> QuotationTail | None:
    """The quotation a line ends with, or ``None``.

    The marker is the last `` --- `` of the line (or ``--- `` opening it), and
    everything after it must be one path token, so prose that uses ``---`` as
    a dash is not mistaken for a quotation.
    """
    stripped = line.rstrip()
    cut = stripped.rfind(_QUOTE_MARK)
    if cut >= 0:
        text, tail = stripped[:cut], stripped[cut + len(_QUOTE_MARK) :]
    elif stripped.lstrip().startswith("--- "):
        text, tail = "", stripped.lstrip()[4:]
    else:
        return None
    tail = tail.strip()
    if not tail or len(tail.split(None, 1)) > 1:  # one token, or it is prose
        return None
    spec = cited_path_spec(tail)
    if spec is None:
        return None
    return QuotationTail(text.strip(), spec)


# --------------------------------------------------------------------------- path citations

_CITATION = re.compile(r"(?<![\w-])SRC-(\d{1,6})[`*_]*(?::[`*_]*)?[ \t]+")
#: ``SRC-1:`` ending a line: its paths follow on the next line of the paragraph
_CITATION_AT_END = re.compile(r"(?<![\w-])SRC-(\d{1,6})[`*_]*:[`*_]*[ \t]*$")
_CONNECTIVES = frozenset({"and", "&", "+", "plus", "or"})
_TOKEN = re.compile(r"\S+")


@dataclass(frozen=True)
class PathCitation:
    """A path cited for a source: ``SRC-1: a/b.py, c/d.ts.`` or ``SRC-1 a/b.py``."""

    source: str
    spec: PathSpec
    column: int


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
        starts += [(f"SRC-{int(m.group(1))}", m.end()) for m in _CITATION.finditer(line)]
        at_end = _CITATION_AT_END.search(line)
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
            found.append(PathCitation(source, spec, token.start()))
            bare = raw.rstrip(_WRAPPING + ")]}")
            if bare.endswith((".", "!", "?")):
                still_open = None
                break  # ``a/b.py.`` ends the sentence and the list
            still_open = source if bare.endswith((",", ";")) else None
    return found, still_open


# --------------------------------------------------------------------------- prose or code


_ELISION_END = ("...", "…", "[...]", "[…]")
_CODE_CHARACTERS = frozenset("=(){}[];<>\"$`\\|&^#@%~/_")
_SENTENCE_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*,?")


def reads_as_prose(text: str) -> bool:
    """Whether a line of report text reads as prose (or a title) rather than code.

    Used to decide how far a quotation split over several paragraphs reaches
    back. Prose is a line that ends like a sentence (``.``, ``!``, ``?``), one
    that introduces something (``The guard reads:``: capitalised, three words
    or more, ending in ``:``), or a bare capitalised title made of plain words
    (``Ordinary invocation, ownership and return``). A line ending with an
    elision (``...``) is code cut short, not a sentence.
    """
    stripped = text.strip()
    if not stripped:
        return False
    if stripped.endswith(_ELISION_END):
        return False
    core = stripped.rstrip(")\"'”’*_`")
    if not core:
        return False
    if core[-1] in ".!?":
        return True
    starts_capital = core[0].isupper()
    has_code = any(ch in _CODE_CHARACTERS for ch in core)
    if core[-1] == ":":
        # ``The guard reads:`` introduces a quote; ``else:`` or ``Resources:`` is code.
        return starts_capital and len(core.split()) >= 3
    words = core.split()
    return (
        starts_capital
        and len(words) >= 2
        and not has_code
        and all(_SENTENCE_WORD.fullmatch(word) for word in words)
    )


# --------------------------------------------------------------------------- blocks


@dataclass(frozen=True)
class ShownLine:
    """A line as the reader sees it: Markdown markup stripped, bullet marker removed.

    ``number`` is the report line it ends on; ``start`` the line it begins on,
    earlier only when markdown-it joined lines (a code span across a line break).
    """

    number: int
    text: str
    start: int = 0

    @property
    def first(self) -> int:
        return self.start or self.number


@dataclass(frozen=True)
class Block:
    """One structural piece of a report: what markdown-it calls a block.

    ``kind`` is ``heading``, ``paragraph``, ``item`` (a list item's paragraph),
    ``row`` (a table row; ``cells`` holds its cells) or ``code`` (fenced or
    indented code; ``info`` is the fence's language word and ``code`` its
    content, whose first line is ``line + 1`` for a fence). ``bullet`` is true
    for the first paragraph of a list item (its marker was dropped from
    ``lines``); later paragraphs of the same item have ``bullet`` false and
    the same ``item``. ``quoted`` marks text inside a blockquote.
    """

    kind: str
    line: int
    end_line: int
    lines: tuple[ShownLine, ...] = ()
    level: int = 0
    bullet: bool = False
    item: int | None = None
    quoted: bool = False
    cells: tuple[str, ...] = ()
    info: str = ""
    code: str = ""

    @property
    def text(self) -> str:
        return "\n".join(shown.text for shown in self.lines)


_PLAIN_BULLET = re.compile(r"[ \t]*(?:[•◦▪‣●*+-]|\d{1,3}[.)])[ \t]+(\S.*)")


def plain_blocks(lines: list[Line]) -> list[Block]:
    """Blocks of a plain-text rendering: one per non-blank line.

    A rendering has no reliable paragraph structure beyond lines: a bullet
    (``•``, ``-``, ``*``, ``1.``) starts an ``item``; a line with tabs is a
    table ``row``; everything else is a ``paragraph``. Headings cannot be told
    from short paragraphs here; a dialect recognises its own section titles.
    """
    blocks: list[Block] = []
    for item, line in enumerate(lines):
        stripped = line.text.strip()
        if not stripped:
            continue
        bullet = _PLAIN_BULLET.fullmatch(line.text)
        if "\t" in stripped:
            cells = tuple(cell.strip() for cell in line.text.split("\t"))
            blocks.append(
                Block("row", line.number, line.number, (ShownLine(line.number, stripped),),
                      cells=cells)
            )
        elif bullet:
            shown = (ShownLine(line.number, bullet.group(1).strip()),)
            blocks.append(Block("item", line.number, line.number, shown, bullet=True, item=item))
        else:
            blocks.append(Block("paragraph", line.number, line.number,
                                (ShownLine(line.number, stripped),)))
    return blocks


def front_matter_end(lines: list[Line]) -> int | None:
    """The line number closing a YAML front matter block (``---`` ... ``---``), or ``None``."""
    if not lines or lines[0].text.strip() != "---":
        return None
    for line in lines[1:]:
        if line.text.strip() in ("---", "..."):
            return line.number
    return None


def markdown_parser() -> MarkdownIt:
    """The Markdown tokenizer every dialect uses: CommonMark plus pipe tables."""
    # Raw HTML stays text, so nothing a reader could see is hidden.
    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


_MARKDOWN = markdown_parser()


def _inline_lines(inline) -> list[str]:
    """An inline token's text as the reader sees it, one string per source line."""
    parts: list[list[str]] = [[]]
    for child in inline.children or ():
        if child.type in ("text", "code_inline", "image"):
            parts[-1].append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append([])
    return ["".join(part) for part in parts]


def _numbered(rendered: list[str], first: int, last: int) -> tuple[ShownLine, ...]:
    """Give rendered lines their report line numbers.

    When a code span crossed a line break markdown-it joins its lines, so
    there are fewer rendered lines than source lines; the last rendered line
    is then pinned to the block's last line (where a quotation's ``--- path``
    sits) and the others keep their order from the first.
    """
    count = len(rendered)
    if not count or count == last - first + 1:
        return tuple(ShownLine(first + k, text) for k, text in enumerate(rendered))
    shown = [ShownLine(min(first + k, last), text) for k, text in enumerate(rendered[:-1])]
    shown.append(ShownLine(last, rendered[-1], start=min(first + count - 1, last)))
    return tuple(shown)


def markdown_blocks(text: str, skip_through: int | None = None) -> list[Block]:
    """Blocks of a Markdown report, from markdown-it's token stream.

    ``skip_through`` blanks lines 1..n first (front matter), keeping line
    numbers. Raw HTML blocks and thematic breaks are not part of what a reader
    reads as text and are left out.
    """
    if skip_through:
        source_lines = text.split("\n")
        for index in range(min(skip_through, len(source_lines))):
            source_lines[index] = ""
        text = "\n".join(source_lines)
    tokens = _tokens(text)
    blocks: list[Block] = []
    items: list[int] = []  # open list items, innermost last
    items_with_text: set[int] = set()
    quote_depth = 0
    row_start: tuple[int, int] | None = None
    cells: list[str] = []
    heading: tuple[int, int, int] | None = None
    item_counter = 0
    for token in tokens:
        kind = token.type
        if kind == "list_item_open":
            item_counter += 1
            items.append(item_counter)
        elif kind == "list_item_close":
            if items:
                items.pop()
        elif kind == "blockquote_open":
            quote_depth += 1
        elif kind == "blockquote_close":
            quote_depth = max(0, quote_depth - 1)
        elif kind == "heading_open" and token.map:
            level = int(token.tag[1:]) if token.tag[1:].isdigit() else 1
            heading = (token.map[0] + 1, max(token.map[0] + 1, token.map[1]), level)
        elif kind == "tr_open" and token.map:
            row_start = (token.map[0] + 1, max(token.map[0] + 1, token.map[1]))
            cells = []
        elif kind == "tr_close" and row_start:
            first, last = row_start
            joined = "\t".join(cells)
            blocks.append(Block("row", first, last, (ShownLine(first, joined),),
                                quoted=quote_depth > 0, cells=tuple(cells)))
            row_start = None
        elif kind == "inline":
            rendered = _inline_lines(token)
            if row_start is not None:
                cells.append(" ".join(part.strip() for part in rendered).strip())
                continue
            if not token.map:
                continue
            first, last = token.map[0] + 1, max(token.map[0] + 1, token.map[1])
            if heading is not None:
                first, last, level = heading
                shown = (ShownLine(first, " ".join(rendered).strip()),)
                blocks.append(Block("heading", first, last, shown, level=level,
                                    quoted=quote_depth > 0))
                heading = None
                continue
            shown = _numbered([part.strip() for part in rendered], first, last)
            if items:
                current = items[-1]
                bullet = current not in items_with_text
                items_with_text.add(current)
                blocks.append(Block("item", first, last, shown, bullet=bullet, item=current,
                                    quoted=quote_depth > 0))
            else:
                blocks.append(Block("paragraph", first, last, shown, quoted=quote_depth > 0))
        elif kind in ("fence", "code_block") and token.map:
            first, last = token.map[0] + 1, max(token.map[0] + 1, token.map[1])
            info = token.info.strip().split()[0] if token.info.strip() else ""
            content = token.content[:-1] if token.content.endswith("\n") else token.content
            first_content = first + 1 if kind == "fence" else first
            shown = tuple(
                ShownLine(first_content + offset, part)
                for offset, part in enumerate(content.split("\n"))
            ) if content else ()
            blocks.append(Block("code", first, last, shown, info=info, code=content,
                                item=items[-1] if items else None, quoted=quote_depth > 0))
    return blocks


# --------------------------------------------------------------------------- inline structure
#
# Reviews and analysis tables need more than the shown text of a block: where
# each link points, which words were code spans, where a blockquote begins and
# ends, and which cells make up a table. One walk over markdown-it's token
# stream gives all of it, each piece with its report line.


@dataclass(frozen=True)
class Piece:
    """One run of an inline token as markdown-it reads it.

    ``kind`` is ``text`` (plain or emphasised text), ``code`` (a code span's
    content, without its backticks) or ``link`` (a link: ``text`` is what the
    reader sees, code spans included; ``href`` its target). ``line`` is the
    report line the piece starts on.
    """

    kind: str
    text: str
    line: int
    href: str = ""


@dataclass(frozen=True)
class Inline:
    """The content of one paragraph, heading, list-item paragraph or table cell.

    ``container`` is ``paragraph``, ``item``, ``heading`` (``level`` 1-6)
    or ``cell``; ``quote_depth`` how many blockquotes enclose it; for a cell,
    ``row`` is the report line of its table row and ``column`` its 0-based
    position.
    """

    container: str
    line: int
    end_line: int
    pieces: tuple[Piece, ...]
    quote_depth: int = 0
    row: int | None = None
    column: int | None = None
    level: int = 0

    @property
    def text(self) -> str:
        """The text as the reader sees it, on one line."""
        return "".join(piece.text for piece in self.pieces).strip()


@dataclass(frozen=True)
class TableRow:
    """One row of a pipe table: its report line and its cells (left to right)."""

    line: int
    cells: tuple[Inline, ...]
    header: bool = False

    @property
    def texts(self) -> tuple[str, ...]:
        return tuple(cell.text for cell in self.cells)


@dataclass(frozen=True)
class Table:
    """A pipe table: the header row, then the body rows."""

    line: int
    end_line: int
    header: TableRow
    rows: tuple[TableRow, ...]
    quote_depth: int = 0


@dataclass(frozen=True)
class Layout:
    """What one walk over a Markdown report's tokens finds.

    ``blockquotes`` are the outermost blockquotes as ``(first, last)`` report
    lines; ``fences`` every fenced or indented code block the same way.
    """

    inlines: tuple[Inline, ...]
    tables: tuple[Table, ...]
    blockquotes: tuple[tuple[int, int], ...]
    fences: tuple[tuple[int, int], ...]

    @property
    def headings(self) -> list[Inline]:
        """The headings outside blockquotes, in order (``level`` says which)."""
        return [i for i in self.inlines if i.container == "heading" and not i.quote_depth and i.text]


_LAST_PARSE: list = [None, None]


def _tokens(text: str) -> list:
    """markdown-it's token stream for ``text``; the last one is kept, since a
    dialect often walks the same report twice (blocks, then inline layout)."""
    if _LAST_PARSE[0] != text:
        _LAST_PARSE[:] = [text, _parse_all(text)]
    return _LAST_PARSE[1]


#: markdown-it's nesting limit (lists and blockquotes count two levels and one)
_MAX_NESTING = _MARKDOWN.options["maxNesting"]
#: a line whose own container markers nest this deep is blanked once a cut is seen
_DEEP_MARKERS = _MAX_NESTING // 2 - 2
#: re-parses allowed for nesting built up over several lines (indented lists)
_NESTING_RETRIES = 16


def _parse_all(text: str) -> list:
    """``_MARKDOWN.parse(text)``, without losing what follows too-deep nesting.

    Past ``maxNesting`` markdown-it drops the rest of the enclosing block: for a
    list that is the rest of the report, so every later record would vanish
    without a word. Lines that nest that deep are read as blank instead (they
    hold nothing a report can mean), and the text is parsed again with the same
    line numbers. A handful of re-parses at most: every line nested past the
    limit on its own is blanked in one pass.
    """
    tokens = _MARKDOWN.parse(text)
    cut = _nesting_cut(tokens)
    if cut is None:
        return tokens
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if _marker_depth(line) >= _DEEP_MARKERS:
            lines[index] = ""
    for _ in range(_NESTING_RETRIES):
        if cut is not None and cut < len(lines):
            _blank_chain(lines, cut)
        tokens = _MARKDOWN.parse("\n".join(lines))
        cut = _nesting_cut(tokens)
        if cut is None:
            break
    return tokens


def _blank_chain(lines: list[str], cut: int) -> None:
    """Blank line ``cut`` and the list items below it indented at least as deep
    (a list nested by indentation, one level per line)."""
    indent = len(lines[cut]) - len(lines[cut].lstrip(" \t"))
    lines[cut] = ""
    for index in range(cut + 1, len(lines)):
        line = lines[index]
        body = line.lstrip(" \t")
        if not body:
            continue
        if len(line) - len(body) < indent or not indent or _marker_depth(body) == 0:
            break
        lines[index] = ""


def _nesting_cut(tokens: list) -> int | None:
    """The 0-based line where markdown-it gave up on nesting, or ``None``."""
    for token in tokens:
        if token.nesting == 1 and token.level >= _MAX_NESTING - 1 and token.map:
            return token.map[0]
    return None


def _marker_depth(line: str) -> int:
    """How many blockquote and list markers open ``line`` (``> - 1. x`` is 3)."""
    depth, i, end = 0, 0, len(line)
    while i < end:
        while i < end and line[i] in " \t":
            i += 1
        if i < end and line[i] == ">":
            depth, i = depth + 1, i + 1
            continue
        j = i
        while j < end and j - i < 9 and line[j].isdigit():
            j += 1
        if j > i and j < end and line[j] in ".)":
            j += 1
        elif j == i and i < end and line[i] in "-*+":
            j += 1
        else:
            break
        if j < end and line[j] not in " \t":
            break
        depth, i = depth + 1, j
    return depth


def _blank_front(text: str, skip_through: int | None) -> str:
    """``text`` with lines 1..``skip_through`` blanked, line numbers kept."""
    if not skip_through:
        return text
    source_lines = text.split("\n")
    for index in range(min(skip_through, len(source_lines))):
        source_lines[index] = ""
    return "\n".join(source_lines)


def _pieces(inline, first: int, last: int) -> tuple[Piece, ...]:
    """The pieces of an inline token, each with the report line it starts on.

    Children carry no line positions; soft and hard breaks advance the line.
    A code span across a line break is one piece (its break became a space),
    so lines are clamped to the token's last line.
    """
    pieces: list[Piece] = []
    line = first
    link: list | None = None  # [href, line, parts] while inside a link
    for child in inline.children or ():
        kind = child.type
        if kind in ("softbreak", "hardbreak"):
            line = min(line + 1, last)
            if link is not None:
                link[2].append(" ")
            continue
        if kind == "link_open":
            link = [str(child.attrs.get("href") or ""), line, []]
            continue
        if kind == "link_close":
            if link is not None:
                pieces.append(Piece("link", "".join(link[2]), link[1], link[0]))
            link = None
            continue
        if kind not in ("text", "code_inline", "image"):
            continue
        content = child.content
        if link is not None:
            link[2].append(content)
        elif kind == "code_inline":
            pieces.append(Piece("code", content, line))
        elif pieces and pieces[-1].kind == "text" and pieces[-1].line == line:
            pieces[-1] = Piece("text", pieces[-1].text + content, line)
        else:
            pieces.append(Piece("text", content, line))
    if link is not None:  # an unclosed link cannot come out of markdown-it; keep its text
        pieces.append(Piece("text", "".join(link[2]), link[1]))
    return tuple(pieces)


def markdown_layout(text: str, skip_through: int | None = None) -> Layout:
    """Inline content, tables, blockquotes and code blocks of a Markdown report.

    ``skip_through`` blanks lines 1..n first (front matter), keeping line
    numbers, as :func:`markdown_blocks` does.
    """
    tokens = _tokens(_blank_front(text, skip_through))
    inlines: list[Inline] = []
    tables: list[Table] = []
    blockquotes: list[tuple[int, int]] = []
    fences: list[tuple[int, int]] = []
    quote_depth = 0
    items = 0
    container = "paragraph"
    level = 0
    table: list | None = None  # [first, last, depth, rows]
    row: list | None = None  # [line, header, cells]
    in_head = False
    for token in tokens:
        kind = token.type
        if kind == "blockquote_open":
            if quote_depth == 0 and token.map:
                blockquotes.append((token.map[0] + 1, max(token.map[0] + 1, token.map[1])))
            quote_depth += 1
        elif kind == "blockquote_close":
            quote_depth = max(0, quote_depth - 1)
        elif kind == "list_item_open":
            items += 1
        elif kind == "list_item_close":
            items = max(0, items - 1)
        elif kind == "heading_open":
            container = "heading"
            level = int(token.tag[1:]) if token.tag[1:].isdigit() else 1
        elif kind == "heading_close":
            container = "paragraph"
        elif kind == "table_open" and token.map:
            table = [token.map[0] + 1, max(token.map[0] + 1, token.map[1]), quote_depth, []]
        elif kind == "table_close":
            if table is not None and table[3]:
                rows: list[TableRow] = table[3]
                header = rows[0] if rows[0].header else TableRow(table[0], (), True)
                body = tuple(r for r in rows if not r.header)
                tables.append(Table(table[0], table[1], header, body, table[2]))
            table = None
        elif kind == "thead_open":
            in_head = True
        elif kind == "thead_close":
            in_head = False
        elif kind == "tr_open" and token.map:
            row = [token.map[0] + 1, in_head, []]
        elif kind == "tr_close":
            if row is not None and table is not None:
                table[3].append(TableRow(row[0], tuple(row[2]), row[1]))
            row = None
        elif kind in ("fence", "code_block") and token.map:
            fences.append((token.map[0] + 1, max(token.map[0] + 1, token.map[1])))
        elif kind == "inline":
            if row is not None:
                line = row[0]
                cell = Inline("cell", line, line, _pieces(token, line, line), quote_depth,
                              row=line, column=len(row[2]))
                row[2].append(cell)
                continue
            if not token.map:
                continue
            first, last = token.map[0] + 1, max(token.map[0] + 1, token.map[1])
            if container == "heading":
                last = first
            where = container if container == "heading" or not items else "item"
            inlines.append(Inline(where, first, last, _pieces(token, first, last), quote_depth,
                                  level=level if container == "heading" else 0))
    return Layout(tuple(inlines), tuple(tables), tuple(blockquotes), tuple(fences))


def plain_tables(blocks: list[Block]) -> list[Table]:
    """Tables of a plain-text rendering: runs of tab-separated ``row`` blocks
    (see :func:`plain_blocks`), the first row of each run being its header."""
    tables: list[Table] = []
    run: list[Block] = []

    def close() -> None:
        if not run:
            return
        rows = [
            TableRow(block.line, tuple(
                Inline("cell", block.line, block.line, (Piece("text", cell, block.line),) if cell else (),
                       row=block.line, column=index)
                for index, cell in enumerate(block.cells)
            ), header=position == 0)
            for position, block in enumerate(run)
        ]
        tables.append(Table(run[0].line, run[-1].line, rows[0], tuple(rows[1:])))
        run.clear()

    for block in blocks:
        if block.kind == "row":
            run.append(block)
        else:
            close()
    close()
    return tables


# --------------------------------------------------------------------------- repository links


@dataclass(frozen=True)
class RepositoryLink:
    """A link into a hosted repository: ``https://host/owner/name/blob/<ref>/<path>#L1-L2``.

    ``kind`` is ``blob`` (a file; also ``raw``), ``tree`` (a directory) or
    ``commit``. ``ref`` is the revision as written (a sha or a branch name;
    a branch name containing ``/`` cannot be told from the path and is read
    as its first segment). ``lines`` is the ``#L10-L20`` anchor;
    ``bad_anchor`` an anchor written backwards or from line 0.
    """

    host: str
    owner: str
    name: str
    kind: str
    ref: str
    path: str = ""
    lines: LineRange | None = None
    bad_anchor: str | None = None

    @property
    def repo_id(self) -> str:
        """``owner/name``: how evidence names the repository."""
        return f"{self.owner}/{self.name}"

    @property
    def url(self) -> str:
        """The repository's URL."""
        return f"https://{self.host}/{self.owner}/{self.name}"

    @property
    def ref_is_sha(self) -> bool:
        return is_sha(self.ref)


_SHA_ONLY = re.compile(r"[0-9a-fA-F]{7,40}")
_LINE_ANCHOR = re.compile(r"L(\d{1,9})(?:C\d{1,9})?(?:-L?(\d{1,9})(?:C\d{1,9})?)?")
_LINK_KINDS = {"blob": "blob", "raw": "blob", "tree": "tree", "commit": "commit"}


def is_sha(text: str) -> bool:
    """Whether ``text`` is written as a commit sha (7 to 40 hex digits)."""
    return _SHA_ONLY.fullmatch(text) is not None


@lru_cache(maxsize=4096)
def parse_repository_link(href: str) -> RepositoryLink | None:
    """A link into a hosted repository (GitHub, GitLab's ``/-/`` form,
    ``raw.githubusercontent.com``), or ``None`` for any other link."""
    from urllib.parse import unquote, urlsplit

    if len(href) > 4096 or not href.lower().startswith(("http://", "https://")):
        return None
    try:
        parts = urlsplit(href.strip())
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    segments = [unquote(s) for s in parts.path.split("/") if s]
    if host == "raw.githubusercontent.com" and len(segments) >= 4:
        owner, name, ref, rest = segments[0], segments[1], segments[2], segments[3:]
        kind = "blob"
    else:
        if len(segments) < 4:
            return None
        owner, name = segments[0], segments[1]
        index = 3 if segments[2] == "-" else 2
        if index >= len(segments) or segments[index] not in _LINK_KINDS or index + 1 >= len(segments):
            return None
        kind, ref, rest = _LINK_KINDS[segments[index]], segments[index + 1], segments[index + 2:]
    if name.endswith(".git"):
        name = name[: -len(".git")]
    if not owner or not name or not ref:
        return None
    path = "/".join(rest)
    if kind == "commit":
        return RepositoryLink(host, owner, name, kind, ref) if is_sha(ref) else None
    lines: LineRange | None = None
    bad: str | None = None
    anchor = _LINE_ANCHOR.fullmatch(parts.fragment or "")
    if anchor and kind == "blob":
        start = int(anchor.group(1))
        end = int(anchor.group(2)) if anchor.group(2) else start
        if start < 1 or end < start:
            bad = parts.fragment
        else:
            lines = LineRange(start, end)
    return RepositoryLink(host, owner, name, kind, ref, path, lines, bad)


#: ``http(s)://...`` written bare in prose (a plain-text rendering keeps link targets only this way)
BARE_URL = re.compile(r"https?://[^\s<>()\[\]`\"']+")


def find_bare_urls(line: str) -> list[tuple[str, int]]:
    """Every bare URL in ``line`` with its column (trailing sentence punctuation dropped)."""
    return [(m.group().rstrip(".,;:!?"), m.start()) for m in BARE_URL.finditer(line)]


#: a code span that reads as a symbol name: ``Store.forget``, ``cache::evict``, ``run_turn()``
_SYMBOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*")


def symbol_name(code: str) -> str | None:
    """The identifier a backticked code span names, or ``None`` when it is not one.

    A trailing ``()`` is dropped; ``::`` (Rust) becomes ``.`` as the symbols
    layer qualifies names. Single letters are too weak to anchor anything.
    """
    text = code.strip()
    if text.endswith("()"):
        text = text[:-2]
    if len(text) < 2 or not _SYMBOL_NAME.fullmatch(text):
        return None
    return text.replace("::", ".")


def repository_of(url: str) -> tuple[str, str] | None:
    """``(owner/name, https://host/owner/name)`` of a repository URL (any page
    inside the repository will do; a ``.git`` suffix is dropped), or ``None``."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        return None
    segments = [s for s in parts.path.split("/") if s]
    if len(segments) < 2 or not host:
        return None
    owner, name = segments[0], segments[1]
    if name.endswith(".git"):
        name = name[: -len(".git")]
    if not name:
        return None
    return f"{owner}/{name}", f"https://{host.lower()}/{owner}/{name}"


def read_front_matter(lines, end: int | None) -> tuple[object, Finding | None]:
    """The YAML between a report's ``---`` lines (``end`` is the closing line):
    ``(data, None)``, or ``(None, finding)`` when it cannot be read."""
    if not end:
        return None, None
    body = "\n".join(line.text for line in lines[1 : end - 1])
    try:
        return (yaml.safe_load(body) if body.strip() else {}), None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = 2 + mark.line if mark is not None else 1
        return None, Finding(line, "front matter is not valid YAML; fix it or remove the --- lines", "parse")
    except RecursionError:  # absurdly nested YAML: say so instead of crashing
        return None, Finding(1, "front matter nests too deeply to read; simplify it", "parse")


def front_matter_mapping(lines, end: int | None, findings: list) -> dict | None:
    """The front matter when it is a mapping, else ``None``; when it cannot be
    read, the finding saying why is appended to ``findings``."""
    data, finding = read_front_matter(lines, end)
    if finding is not None:
        findings.append(finding)
    return data if isinstance(data, dict) else None


@dataclass(frozen=True)
class Document:
    """A report's text as the review and tables dialects read it: numbered
    lines, and either markdown-it's layout (Markdown) or plain blocks (text)."""

    text: str
    lines: list
    markdown: bool
    front_matter_end: int | None
    layout: Layout
    blocks: list


class DocumentParser:
    """What the review and tables parsers start from: the report read once
    (:func:`document`), its line count, and the findings gathered so far."""

    def __init__(self, path: str, text: str, *, plain_front_matter: bool) -> None:
        self.path = path
        doc = document(path, text, plain_front_matter=plain_front_matter)
        self.lines, self.markdown, self.front_matter_end = doc.lines, doc.markdown, doc.front_matter_end
        self.layout, self.blocks = doc.layout, doc.blocks
        self.count = len(self.lines)
        self.findings: list[Finding] = []

    def heading_title(self) -> str | None:
        """The first level-1 heading, or a plain-text rendering's first line."""
        for heading in self.layout.headings:
            if heading.level == 1:
                return heading.text
        for block in self.blocks:
            if block.text.strip():
                return block.text.strip()
        return None


def document(path: str, text: str, *, plain_front_matter: bool) -> Document:
    """Read ``text`` once for a dialect. ``plain_front_matter`` keeps a plain-text
    rendering's leading ``---`` block out of its blocks (reviews have one)."""
    # markdown-it reads a lone CR as a line break; read_report already made them LF.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = numbered_lines(text)
    markdown = is_markdown(path)
    front = front_matter_end(lines) if (markdown or plain_front_matter) else None
    if markdown:
        return Document(text, lines, True, front, markdown_layout(text, front), [])
    body = [line for line in lines if line.number > (front or 0)]
    return Document(text, lines, False, front, Layout((), (), (), ()), plain_blocks(body))
