"""Evidence by form, in any document (docs/FORMATS.md, "Any document").

A knowledge base holds more than the shapes the dialects describe: pilots,
comparisons of two repositories, trial folders, manifests, ingests. Writers never
say which shape they use, and evidence has forms whatever the document around it.
This module reads those forms in every document and adds what a dialect did not
read itself, so a dialect adds structure (records, statuses, registers) and never
hides evidence:

* commit-pinned links (``/blob/<sha>/path#L10-L20``, ``/tree/<sha>/dir``), blockquote
  quotations, backticked paths, symbols beside links, and quotations in the three
  ties of a note: read by the notes dialect's readers (:mod:`.notes`, over :mod:`.review`);
* ``path:10-20``, ``path#L10``, `` `path` (lines 10-20) ``, a bare continuation
  ``(:1-18)``, brace groups, bare names: read by the analysis-run citation readers
  (:mod:`.core.anchors` through :mod:`.tables`, here without a run);
* pin statements of every form (:mod:`.core.pinforms`), each bound to the repository
  it names: a link's ``owner/name``, a short name the document uses, or the
  document's only repository;
* forms a third party registers (``pytest_memreport_read_forms``, docs/FORMATS.md).

Each piece of evidence binds to the repository its link names, else the one its
sentence or section names, else the document's only pin. What the dialect already
read (the same kind, file, lines and text on overlapping lines) is kept as the
dialect read it.
"""

from __future__ import annotations

import bisect
import re
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from ..model import (CODE_BLOCK, FILE_IN_PROSE, LOOKUP_CHECKOUT, LOOKUP_TREE, PINNED_UNREAD, Evidence, EvidenceKind, EvidenceRole, Finding, LineRange, Record, Report,
                     Source, Span, run_pin_key)
from . import core, notes, review, tables
from .core import anchors, pinforms
from .core.grammar import (
    BARE_RANGES, BRACE_GROUP, CAPTION_START, COMMENT_FILE, DEFINED_IN, PATH_AT_REVISION, REVISION_COLON_PATH, SHA_LIKE, CONTINUATION, DECLARES_NAME, DIFF_FILE_HEADER, DIFF_OTHER_HEADER, FILE_LINK_MARKS, FORM_URL, HEX_WORD, LINE_CITATION_HINT,
    DIGEST_LINE, FENCE_FILE, FILE_HEADER, LABELLED_LINES, LISTED_BLOB, LISTING_LINE, LISTED_PIN, NAME_AFTER_CITATION, NOT_PLAIN_WORDS, NUMBERED_LINE, PATHLIKE_CODE_SPAN, REPOSITORY_WORD,
    GIT_CHECKOUT, GIT_CLONE, LOCAL_LINK, RANGE_AFTER_LINK, SECTION_LINES, SHA_HINT, TRAILING_RANGES,
)
from .core.citations import BARE_FILES
from .core.extensions import KNOWN_EXTENSIONS, SOURCE_EXTENSIONS
from .core.spans import LineStarts
from .datatables import data_evidence
from .runfacts import same_commit
from .tableforms import PROSE_WORD, pipe_tables, raw_tables, row_quotations, table_pins, table_rows

#: a third party's reader of a form: ``(path, text) -> evidence`` (see :func:`augment`)
FormReader = Callable[[str, str], Iterable[Evidence]]


@dataclass(frozen=True, slots=True)
class Reading:
    """What the forms say in one document: its evidence (sources as ``owner/name`` or
    ``None`` for the document's own), the repositories its links name (with their URL)
    and its pin statements."""

    evidence: tuple[Evidence, ...]
    repositories: dict
    pins: tuple[pinforms.PinStatement, ...]
    stated_date: str | None
    #: ``(line, text)`` of the first line that names a sha and a pin word but states no pin the
    #: forms read: what an "unpinned" message quotes
    pin_like: tuple[int, str] | None = None
    #: ``owner/name`` words the document's prose writes (:func:`.pinforms.mentions`), in order:
    #: where an unnamed pin may belong when the user maps one of them
    mentioned: tuple[str, ...] = ()
    #: what the forms' readers found wrong where a citation was written (``a.ts:27-26``, a
    #: link's ``#L9-L3``): each a line of the report saying what to write instead
    findings: tuple[Finding, ...] = ()


#: a blockquote's line: a quotation needs no quotation marks when a link attributes it
_BLOCKQUOTE = re.compile(r"^ {0,3}>", re.MULTILINE)
#: what every pin statement line holds: a pin word (its full test is :func:`.pinforms.line_pins`)
_PIN_HINTS = ("revision", "commit", "snapshot", "pin", "frozen", "freeze", "head", "checkout", "sha", "version", "hash",
              "tree", "as of", "@", " at ", "against", "checked out")
#: how many lines front matter may run to
_FRONT_MATTER_LINES = 400
#: dialects that read links into repositories themselves, and those that read ``path:12``
_READ_LINKS = frozenset({"review", "notes", "tables"})
_READ_ANCHORS = frozenset({"tables"})
_READ_QUOTE_TIES = frozenset({"notes", "tables"})
#: dialects that read the symbols their records or sentences name beside a citation
_READ_SYMBOLS = frozenset({"records", "review", "notes"})


def read(path: str, text: str, dialect: str, readers: Sequence[FormReader] = (),
         front: dict | None = None, loose: bool = True, read_spans: Sequence[Span] = (),
         quotations: Sequence[Evidence] = (), cited: Sequence[Evidence] = ()) -> Reading:
    """Every piece of evidence ``text`` states in the universal forms that a report of
    ``dialect`` does not read itself, and its pins. ``loose``: whether names beside
    citations and code blocks a sentence gives a file are proposed (a report of records
    names its symbols and quotations in its records). ``read_spans``: where the dialect read
    a file's cited lines already (``path:18``), not read again. ``quotations``: the
    dialect's quotations; the text of each written ``<text> --- <path>`` is the quoted
    file's words, not the document's, and is read as blank (a citation, a link or a pin
    inside it is what the quoted file says: a third party's reader still gets it all).
    ``cited``: the citations of a dialect that reads no symbols itself (a run's table
    rows): a name in backticks beside one is proposed as a symbol, as beside the forms'."""
    starts = LineStarts(text)
    # From here ``text`` is the document's own words (its quotations' read as blank, as long)
    written, text = text, _without_quotations(text, quotations, starts)
    lines = text.split("\n")
    # The fenced blocks, found once: code and output cite, name and pin nothing the forms read
    # (commands and output at all; code only as the quotation a sentence gives it).
    blocks = tuple(_fenced_blocks(lines)) if "```" in text or "~~~" in text else ()
    fenced = _inside(blocks, len(lines))
    # and the indented ones: code or output too (a benchmark's ``commit: 7cd9055`` pins nothing)
    indented = tuple(_indented_blocks(lines, fenced)) if "    " in text or "\t" in text else ()
    code_lines = fenced | _inside(indented, len(lines)) if indented else fenced
    evidence: list[Evidence] = []
    findings: list[Finding] = []
    repositories: dict[str, str | None] = {}
    linked_files = any(mark in text for mark in FILE_LINK_MARKS)  # a link into a repository's files
    ties = dialect not in _READ_QUOTE_TIES and ('"' in text or "“" in text or _BLOCKQUOTE.search(text)) and (
        dialect == "review" or linked_files or loose)
    # (the notes' reading holds the links' too: one reading when both are wanted)
    tied = notes.parse(path, text, introduced_by_colon=True) if ties else None
    if dialect not in _READ_LINKS and linked_files:
        linked = tied or review.parse(path, text)
        for source in linked.sources:
            if "/" in source.id:
                repositories.setdefault(source.id, source.url)
        # Only what the links themselves cite: a record report reads its own paths and quotations.
        evidence.extend(e for e in linked.all_evidence()
                        if e.source and "/" in e.source and e.kind in _LINKED_KINDS and e.role is None
                        and e.label not in (review.BACKTICKED_PATH, review.CITED_PATH))
        findings.extend(f for f in linked.findings if _BAD_RANGE in f.message)
    if tied is not None:
        # A quotation beside a link or attributed to a file a sentence names (the ties of a note),
        # read by the notes dialect's readers; what a note attributes to no file stays a note's.
        # Beside a backticked citation only where no record holds it: a record reads its own
        # quotations (and a report of 10,000 of them would be read twice).
        evidence.extend(e for e in tied.all_evidence() if e.kind is EvidenceKind.QUOTE and _quotation_read(e, loose))
    # A document of no dialect's shape names files in backticks as a run or a review does
    # (`` `src/queue.ts` ``, `` `stdlib/os/` ``): each is a file of the pinned tree where the
    # tree has it, and otherwise the document's own word (never a failure at the pin).
    names_files = loose and dialect not in _READ_LINKS and "`" in text
    if dialect not in _READ_ANCHORS and (names_files or LINE_CITATION_HINT.search(text)):
        # Read as a plain-text rendering, a line a unit (one Markdown parse of the document, the
        # dialect's, is enough); a continuation on a later line of its paragraph is bound below.
        # (a command's or a program's output, a stack trace's `test.go:31`, cites nothing)
        output = _inside(blocks, len(lines), _NOT_A_FILE)
        shown = [line if number not in output and (
                     _may_cite_lines(line) or (names_files and "`" in line and number not in fenced)) else ""
                 for number, line in enumerate(_unread(lines, read_spans, starts))]
        if any(shown):  # every line blank (all its citations the dialect's): nothing to read or continue
            # (read: the lines that may cite or name something; shown, their paragraphs)
            read = [line if _may_cite_lines(line) or (names_files and _may_name_files(line)) else "" for line in shown]
            evidence.extend(_cited_lines(shown, lines, findings, names_files, read, starts, fenced))
    # The document's pipe tables, split into cells once: their rows cite files, or pin repositories.
    tabled = list(pipe_tables(lines)) if "|" in text else []
    evidence.extend(table_rows(tabled, lines, starts))
    if "blob" in text:
        evidence.extend(_listed_blobs(lines))
    if "|" in text and dialect not in _READ_ANCHORS and ('"' in text or "“" in text or "`" in text):
        evidence.extend(row_quotations(lines))
    if loose or cited:
        evidence.extend(_symbols_beside(lines, [*evidence, *cited]))
    if loose and " in " in text and "`" in text:
        evidence.extend(_defined_in(lines, code_lines))
    if "](" in text and loose:
        evidence.extend(_local_links(text, starts, code_lines))
    if "::" in text:
        evidence.extend(_node_ids(lines, code_lines))
    if "`" in text and (":" in text or "@" in text):
        evidence.extend(_files_at_revisions(lines, code_lines))
    if loose and ("::" in text or "." in text) and "`" in text:
        evidence.extend(_owned_names(lines, fenced, [*evidence, *cited]))
    if blocks or indented:
        listed, listings = _listings(lines, (*blocks, *indented))
        if blocks:
            manifests, data = _data_manifests(written.split("\n"), blocks)
            listed.extend(manifests)
            listings |= data
        if listings:
            evidence.extend(listed)
            blocks = tuple(block for block in blocks if block not in listings)
            indented = tuple(block for block in indented if block not in listings)
    if loose:
        if blocks:
            evidence.extend(_introduced_blocks(lines, blocks))
            evidence.extend(_diff_blocks(lines, tuple(block for block in blocks if block[2] in _DIFF)))
        if indented:
            evidence.extend(_introduced_blocks(lines, indented, indented=True))
    for reader in readers:
        evidence.extend(reader(path, written))
    pins: list[pinforms.PinStatement] = []
    end = 0
    own: str | None = None  # the repository the front matter names for the document
    if written.startswith("---"):  # (front matter is never a quotation: read as written)
        head_lines = written.split("\n", _FRONT_MATTER_LINES)[:_FRONT_MATTER_LINES]
        head = core.numbered_lines("\n".join(head_lines))
        end = core.front_matter_end(head) or 0
        if end:
            if front is None:  # the dialect's own reading of it, when it kept one (YAML read once)
                front = core.front_matter_mapping(head, end, [])
            if front:
                # (files listed with their blob ids or lines: an ingest's or a manifest's)
                evidence.extend(data_evidence("\n".join(head_lines[1:end - 1]), 2))
                pins.extend(_front_matter_placed(pinforms.front_matter_pins(front, 1), head_lines[:end], starts))
                named = pinforms.front_matter_repository(front)
                if named is not None:
                    own = named[0]
                    repositories.setdefault(own, named[1])
                subject = pinforms.front_matter_file(front)
                if subject is not None:  # the one file the document ingests, at its commit: its pin
                    sha = subject.ref.lower()
                    at = next((n for n, written in enumerate(head_lines[:end], 1) if subject.ref in written), 1)
                    pins.extend(_front_matter_placed([pinforms.PinStatement(sha, at, 0, subject.repo_id)],
                                                     head_lines[:end], starts))
                    kind = EvidenceKind.DIRECTORY if subject.kind == "tree" else EvidenceKind.PATH
                    evidence.append(Evidence(kind, subject.path.rstrip("/"), at, at, pin=sha,
                                             source=subject.repo_id, label=_INGESTED))
                    if kind is EvidenceKind.PATH:
                        evidence.extend(_ingested_blockquotes(lines, end, evidence[-1], fenced))
    pin_like: tuple[int, str] | None = None  # a line that looks like a pin but is not read as one
    label_pins: list[pinforms.PinStatement] = []  # short lines of a repository and a sha alone
    mentioned: dict[str, None] = {}  # ordered, once each
    # What most lines hold nothing of is found by one scan of the text each, not line by line.
    mentions_at: dict[int, list[str]] = {}
    for offset, mention in pinforms.mentions(text):
        mentions_at.setdefault(starts.line_of(offset), []).append(mention)
    hinted = _lines_that_may_hold_a_sha(text, starts)
    for number, line in enumerate(lines[end:], start=end + 1):
        if number - 1 in code_lines:
            continue  # a sha in a code block is code or output, not a statement
        if number in mentions_at:
            mentioned.update(dict.fromkeys(mentions_at[number]))
        if number not in hinted:
            continue  # most lines: no pin, and nothing written like one
        stated = pinforms.line_pins(line, number, starts.start_of(number)) if _may_state_a_pin(line) else []
        pins.extend(stated)
        if not stated and (number in mentions_at or "@" in line):
            labelled = pinforms.label_pin(line, number, starts.start_of(number))
            if labelled is not None:
                label_pins.append(labelled)
                continue
        if not stated and pin_like is None and pinforms.names_a_sha(line):
            pin_like = (number, line.strip())
    pins.extend(table_pins(tabled))
    if not pins and label_pins and _told_apart(label_pins, lines):
        # (``acme/widgets · `<sha>```: no other form states a pin, and a repository's two are
        # labelled apart, ``**Before:**`` and ``**After:**``)
        pins.extend(dict.fromkeys(label_pins))
    elif label_pins and pin_like is None:
        pin_like = (label_pins[0].line, lines[label_pins[0].line - 1].strip())
    if blocks and "git" in text:
        pins.extend(_setup_pins(lines, blocks, starts, repositories))
    if own is not None:
        pins = [replace(pin, repository=own) if pin.key is None else pin for pin in pins]
    plain_names = loose and "." in text
    if plain_names:
        code = code_lines | frozenset(range(end))
        evidence.extend(_plain_file_names(text, starts, code, evidence))
    if names_files or plain_names:
        evidence = _without_mentions_cited(evidence)
    return Reading(tuple(_unique(evidence)), repositories, tuple(pins), pinforms.stated_date(front, text),
                   pin_like, tuple(mentioned), tuple(findings))


#: the label of an ingest's own file (front matter ``source:``, a blob link at a commit)
_INGESTED = "the document's source"


def _ingested_blockquotes(lines: list[str], end: int, subject: Evidence, fenced: frozenset[int]) -> list[Evidence]:
    """An ingest's blockquotes that nothing attributes (no link, no ``---`` line): the
    ingested file's words, checked there (``> Archiving utility.`` under ``source:`` the
    file's blob link); ``fenced``: the indexes of the lines inside fenced blocks."""
    found: list[Evidence] = []
    block: list[tuple[int, str]] = []
    for index in range(end, len(lines) + 1):
        line = lines[index] if index < len(lines) else ""
        quoted = index not in fenced and line.lstrip().startswith(">")
        if quoted:
            block.append((index + 1, line.lstrip()[1:].strip()))
            continue
        if block and not any("](" in text or "---" in text or "://" in text for _, text in block):
            text = "\n".join(text for _, text in block if text).strip()
            if len(PROSE_WORD.findall(text)) >= 2:
                found.append(replace(subject, kind=EvidenceKind.QUOTE, line=block[0][0], end_line=block[-1][0],
                                     text=text, role=EvidenceRole.PROSE, label="quotation of the ingested file"))
        block = []
    return found


def _without_quotations(text: str, quotations: Sequence[Evidence], starts: LineStarts) -> str:
    """``text`` with the text of each quotation written ``<text> --- <path>`` blanked: from
    the quotation's first report line to its path, every character but the line ends a
    space, so that offsets and line numbers stay put. Other quotations (a table cell's, a
    sentence's quoted phrase) are left as they are: where their text ends is not known here."""
    regions = []
    for quotation in quotations:
        span = quotation.span
        if quotation.kind is not EvidenceKind.QUOTE or span is None or not 1 <= quotation.line <= span.line:
            continue
        start = starts.start_of(quotation.line)
        if not text[starts.start_of(span.line):span.start].rstrip().endswith(core.QUOTE_MARK.strip()):
            continue
        regions.append((start, span.start))
    if not regions:
        return text
    pieces, at = [], 0
    for start, end in sorted(regions):
        if start < at:  # (regions do not overlap; a second look at one is skipped)
            start = at
        pieces.append(text[at:start])
        pieces.append("\n".join(" " * len(line) for line in text[start:end].split("\n")))
        at = max(at, end)
    pieces.append(text[at:])
    return "".join(pieces)


def _quotation_read(quotation: Evidence, loose: bool) -> bool:
    """Whether a note's reading of a quotation is the forms' too: one tied to a file (beside
    it, in its sentence, or a blockquote a link attributes), and in a document with no
    records also a phrase near files or attributed to the project (held where the tree has
    it, else the document's own words: a record report's prose quotes too much to read so)."""
    if quotation.role in (EvidenceRole.PROSE, None):
        return True
    return loose and quotation.role in (EvidenceRole.TERM, EvidenceRole.PROJECT)


def _cited_lines(shown: list[str], lines: list[str], findings: list[Finding], named: bool = False,
                 read: list[str] | None = None, starts: LineStarts | None = None,
                 fenced: frozenset[int] | None = None) -> list[Evidence]:
    """The cited lines of ``shown`` (the document's lines, blank where none may cite lines),
    read as a plain-text rendering, a line a unit; and the continuations on later lines of
    their paragraphs (``lines``); with ``named``, the files and folders named in backticks
    too, each a mention (evidence where the pinned tree has it). ``read``: ``shown`` with
    blank lines where nothing may be cited or named either (a line's paragraph is still
    ``shown``'s). A range that is no range (``a.ts:27-26``) is added to ``findings``.
    ``fenced``: the indexes of ``lines`` inside fenced blocks (a section's heading is none)."""
    found: list[Evidence] = []
    anchored = tables.parse(_PLAIN_NAME, "\n".join(read if read is not None else shown))
    findings.extend(f for f in anchored.findings if _BAD_RANGE in f.message)
    # (a list field's lines the line-by-line reading bound to the file above are read below,
    # with the span of their range)
    read_here = [item for item in anchored.all_evidence() if not _labelled_field(item, lines)]
    for item in read_here:
        if item.kind is not EvidenceKind.LINES:
            if not named or not _names_a_file(item) or not _written_on(item, shown):
                continue
            if item.role is None:  # (a folder the knowledge base keeps is no failure either)
                item = replace(item, role=EvidenceRole.MENTION)
        elif not _written_on(item, shown):
            continue
        canonical = _canonical_source(anchored, item.source)
        if canonical is _REGISTERED:
            continue  # ``SRC-2:10-20`` means something only beside its register (a run)
        if item.pin is None:
            canonical = None  # not a link's: the document's, or the one its sentence names
        found.append(replace(item, source=canonical) if canonical != item.source else item)
    found.extend(_paragraph_continuations(lines, read_here, starts, fenced))
    return found


def fenced_lines(lines: list[str]) -> frozenset[int]:
    """The indexes of ``lines`` inside fenced blocks, their fences included."""
    return _inside(tuple(_fenced_blocks(lines)), len(lines))


def _inside(blocks: tuple[tuple[int, int, str], ...], count: int,
            languages: frozenset[str] | None = None) -> frozenset[int]:
    """The indexes of the ``count`` lines inside ``blocks`` (:func:`_fenced_blocks`), their
    fences included (code or output: a name in backticks there is no mention, a sha no pin);
    with ``languages``, of the blocks written in one of them only (commands and output,
    :data:`_NOT_A_FILE`: they cite nothing)."""
    inside: set[int] = set()
    for index, close, language in blocks:
        if languages is None or language in languages:
            inside.update(range(index, min(close, count - 1) + 1))
    return frozenset(inside)


def _fenced_blocks(lines: list[str]) -> Iterator[tuple[int, int, str]]:
    """Each fenced block of ``lines``: the index of its opening fence, of its closing one
    (the document's line count when it runs to the end) and its language, lower-cased."""
    # (a text ending in a newline splits into one more, empty, part: no line of the document)
    count = len(lines) - 1 if lines and lines[-1] == "" else len(lines)
    index = 0
    while index < len(lines):
        opened = _FENCE.match(lines[index])
        if opened is None:
            index += 1
            continue
        marker = opened.group(1)
        close = next((i for i in range(index + 1, len(lines)) if lines[i].strip().startswith(marker)
                      and not lines[i].strip().strip(marker[0])), count)
        yield index, close, opened.group(2).lower()
        index = close + 1


def _without_mentions_cited(evidence: list[Evidence]) -> list[Evidence]:
    """``evidence`` without the files named in backticks that another form on the same line
    cites (a manifest's row, a file at a table's commit, its lines): said once, as cited."""
    cited = {(item.path, item.line) for item in evidence if not _mention(item)}
    return [item for item in evidence if not _mention(item) or (item.path, item.line) not in cited]


def _code_given_no_file(item: Evidence) -> bool:
    """Whether ``item`` is a code block a sentence gives no file (looked for in the whole tree)."""
    return item.is_code_block and item.role is EvidenceRole.TERM


def _owned_name(item: Evidence) -> bool:
    """Whether ``item`` is a member named with its owner, looked for in the owner's files
    (:func:`_owned_names`)."""
    return item.kind is EvidenceKind.SYMBOL and item.lookup == LOOKUP_TREE


def _mention(item: Evidence) -> bool:
    """Whether ``item`` is a file or folder named in backticks (evidence where the tree has it)."""
    return item.kind in (EvidenceKind.PATH, EvidenceKind.DIRECTORY) and item.role in (
        EvidenceRole.MENTION, EvidenceRole.BASENAME)


def _names_a_file(item: Evidence) -> bool:
    """Whether a run reader's piece is a file or folder named in backticks (not a register's
    row, a quotation or a cited range): a mention, or a folder it reads strictly; not an
    address (``someone@example.com``) nor a dotted name whose last part is no file's
    extension (``os.path.join``, ``typing.Protocol``)."""
    if "@" in item.path:
        return False
    if item.role is EvidenceRole.BASENAME and "." in item.path:
        if item.path.rsplit(".", 1)[1].lower() not in KNOWN_EXTENSIONS:
            return False
    return _mention(item) or (item.kind is EvidenceKind.DIRECTORY and item.role is None)


def _front_matter_placed(pins: list[pinforms.PinStatement], block: list[str],
                         starts: LineStarts) -> list[pinforms.PinStatement]:
    """Front matter ``pins`` (read from its YAML) with the span where ``block``, the front
    matter's lines from the document's first, writes each sha (the first place not given to
    another pin)."""
    out = []
    taken: set[tuple[int, int]] = set()
    for pin in pins:
        found = next(((number, word) for number, line in enumerate(block)
                      for word in HEX_WORD.finditer(line)
                      if word.group().lower() == pin.sha and (number, word.start()) not in taken), None)
        if found is None:
            out.append(pin)
            continue
        number, word = found
        taken.add((number, word.start()))
        out.append(replace(pin, span=starts.span(number + 1, word.start(), word.end())))
    return out


#: the name the citing lines are read under: a plain-text rendering
_PLAIN_NAME = "citing-lines.txt"
#: what a reader's finding of a written range that is no range says
_BAD_RANGE = "is not a line range"
_LINKED_KINDS = frozenset({EvidenceKind.PATH, EvidenceKind.LINES, EvidenceKind.DIRECTORY})


#: how far back in its paragraph a continuation's file is looked for (report lines)
_PARAGRAPH_LINES = 20


def _listed_blobs(lines: list[str]) -> list[Evidence]:
    """A manifest written outside a table: each line naming a file and, after the word
    "blob", its blob id claims that content at the pin (as a manifest's row does)."""
    found = []
    for number, line in enumerate(lines, start=1):
        if "blob" not in line or line.lstrip().startswith("|"):
            continue
        for match in LISTED_BLOB.finditer(line):
            # (a file by its place, as in a manifest's table: in backticks or plain words)
            path = (match.group(1) or match.group(2)).removeprefix("./")
            oid = match.group(3)
            if len(oid) not in (40, 64) and (len(oid) > 39 or not pinforms.has_digit_and_letter(oid)):
                continue  # (an abbreviated id holds a digit and a letter: digits alone may be a number)
            if path and not path.endswith("/") and "://" not in path:
                found.append(Evidence(EvidenceKind.PATH, path, number, number, text=oid.lower(),
                                      label="manifest blob", role=EvidenceRole.MANIFEST))
    return found


#: the languages of the code blocks that may be a manifest written as data ("" none said)
_DATA = frozenset({"yaml", "yml", "json", "jsonc", "json5", ""})


def _data_manifests(lines: list[str], blocks: tuple[tuple[int, int, str], ...]) -> tuple[list[Evidence], set]:
    """The code blocks of YAML or JSON that list files with their blob ids or cited lines
    (:mod:`.datatables`): what their rows cite, and those blocks (they quote no file).
    ``lines``: the document's lines as written."""
    found: list[Evidence] = []
    manifests = set()
    for block in blocks:
        index, close, language = block
        if language not in _DATA:
            continue
        rows = data_evidence("\n".join(lines[index + 1:close]), index + 2)
        if rows:
            found.extend(rows)
            manifests.add(block)
    return found, manifests


def _told_apart(pins: list[pinforms.PinStatement], lines: list[str]) -> bool:
    """Whether each repository's label lines state one commit, or several each labelled apart
    (a list of a repository's commits looks the same line by line, and says no pin)."""
    by_repository: dict[str | None, dict[str, frozenset[str]]] = {}
    for pin in pins:
        line = lines[pin.line - 1] if 1 <= pin.line <= len(lines) else ""
        by_repository.setdefault(pin.repository, {})[pin.sha] = _pin_label(line[:pin.column], (pin.repository,))
    return all(len(shas) == 1 or (all(shas.values()) and len(set(shas.values())) == len(shas))
               for shas in by_repository.values())


#: the label of a link to a file of a local checkout
LOCAL_FILE_LINK = "local link"


def _local_links(text: str, starts: LineStarts, code: frozenset[int]) -> list[Evidence]:
    """Links to files of the writer's checkout (``[index.ts](src/memory/index.ts#L43-L59)``,
    ``[a.ts](/home/me/src/widgets/src/a.ts#L3)``, ``../`` up out of the knowledge base): with
    an ``#L`` anchor its lines, cited as ``path:43-59`` is; without one a mention (evidence
    where the pinned tree has the file, otherwise the document's own word). A link to a
    Markdown file with no anchor is the knowledge base's own page (a note's links to its
    siblings), and a path out of a checkout (absolute, ``~``, ``../``) is mapped onto the
    pinned tree by its longest suffix. ``code``: the indexes of the lines of code."""
    found: list[Evidence] = []
    for link in LOCAL_LINK.finditer(text):
        number = starts.line_of(link.start())
        if number - 1 in code:
            continue
        written = urllib.parse.unquote(link.group(2)).removeprefix("./")
        if "@" in written or "/blob/" in written or "/tree/" in written:
            continue  # (a template's ``@REPO@/blob/@PIN@/a.py``, a host's page without its host)
        name = written.rsplit("/", 1)[-1]
        extension = name.rpartition(".")[2].lower() if "." in name else ""
        anchored = link.group(3) is not None
        if extension not in KNOWN_EXTENSIONS or (not anchored and extension in _PAGE_EXTENSIONS):
            continue
        if written.startswith("/") and written[1:].split("/", 1)[0] not in _SYSTEM_FOLDERS:
            # (``[L157](/Pool.sol#L157)``, ``(/L1/Pool.sol)``: from the root of the repository
            # the page is on, as GitHub reads it; a file of the tree, by its place or its name)
            written = written[1:]
        lookup = LOOKUP_CHECKOUT if written.startswith(("/", "~", "../")) else LOOKUP_TREE
        path = written
        while path.startswith("../"):
            path = path[3:]
        span = None
        if anchored:
            start, end = int(link.group(3)), int(link.group(4) or link.group(3))
            if not 1 <= start <= end:
                continue  # (``#L9-L3``: no range)
            cited: LineRange | None = LineRange(start, end)
        else:  # (the lines its text or the words right after it give: ``(lines 43-59)``)
            cited, written_at = _lines_beside_link(text, link, path)
            if written_at is not None:  # (where a re-pin rewrites the range)
                line_start = starts.start_of(number)
                span = starts.span(number, written_at[0] - line_start, written_at[1] - line_start)
        if cited is None:
            found.append(Evidence(EvidenceKind.PATH, path, number, number, label=LOCAL_FILE_LINK,
                                  role=EvidenceRole.MENTION, lookup=lookup))
        else:
            found.append(Evidence(EvidenceKind.LINES, path, number, number, cited_lines=cited,
                                  label=LOCAL_FILE_LINK, lookup=lookup, span=span))
    return found


#: the first folders of an absolute path on the writer's machine (a checkout's place): any
#: other absolute link is from the root of the repository the page is on
_SYSTEM_FOLDERS = frozenset({"home", "Users", "root", "tmp", "mnt", "media", "opt", "srv", "var", "private",
                             "workspace", "workspaces", "work", "data", "usr", "Volumes", "builds", "github"})


def _lines_beside_link(text: str, link: re.Match, path: str) -> tuple[LineRange | None, tuple[int, int] | None]:
    """The lines a link to a file with no line anchor cites in its own text
    (``[index.ts:43-59](src/index.ts)``) or right after it (``[a.ts](src/a.ts) (lines 43-59)``),
    as a link into a hosted repository's file does, first to last, and where ``text`` writes
    that one range (``None`` for several); ``(None, None)`` when neither cites any."""
    shown = link.group(1).strip("`*_ ")
    spec = review.repo_path_spec(shown, strict=False) if ":" in shown or "#" in shown else None
    if spec is not None and spec.ranges and (path == spec.path or path.endswith("/" + spec.path)):
        raw = link.group(1)
        cut = max(raw.rfind(":"), raw.rfind("#")) + 1
        written = raw[cut:].rstrip("`*_ ")
        at = (link.start(1) + cut, link.start(1) + cut + len(written)) if len(spec.ranges) == 1 else None
        return LineRange(spec.ranges[0].start, max(r.end for r in spec.ranges)), at
    after = RANGE_AFTER_LINK.match(text, link.end() - 1)
    ranges = anchors.parse_ranges(after.group(1).replace(" ", "").replace("\t", ""))[0] if after else ()
    return (LineRange(ranges[0].start, ranges[-1].end), after.span(1)) if after and ranges else (None, None)


#: the extensions of a knowledge base's own pages (a link to one with no line anchor is its)
_PAGE_EXTENSIONS = frozenset({"md", "markdown", "mdx", "txt", "html", "htm", "rst", "org"})


def _setup_pins(lines: list[str], blocks: tuple[tuple[int, int, str], ...], starts: LineStarts,
                repositories: dict[str, str | None]) -> list[pinforms.PinStatement]:
    """The commit a setup's shell block checks out after cloning a repository (``git clone
    <url>`` then ``git checkout <sha>``, in one block): a pin of that repository (its URL
    added to ``repositories``), where a re-pin rewrites it. A checkout with no clone in its
    block (a fix looked at in passing) pins nothing."""
    pins: list[pinforms.PinStatement] = []
    for index, close, language in blocks:
        if language not in _NOT_A_FILE and language:
            continue
        body = lines[index + 1:close]
        cloned = next((found.group(1) for line in body if "clone" in line
                       for found in [GIT_CLONE.search(line)] if found is not None), None)
        if cloned is None:
            continue
        if cloned.startswith("git@"):  # (``git@github.com:acme/widgets.git``)
            cloned = "https://" + cloned[4:].replace(":", "/", 1)
        named = core.repository_of(cloned)
        for offset, line in enumerate(body):
            checkout = GIT_CHECKOUT.search(line) if "git" in line else None
            if checkout is None or named is None:
                continue
            number = index + 2 + offset
            repositories.setdefault(named[0], named[1])
            pins.append(pinforms.PinStatement(checkout.group(1).lower(), number, checkout.start(1), named[0],
                                              span=starts.span(number, *checkout.span(1))))
    return pins


def _listings(lines: list[str], blocks: tuple[tuple[int, int, str], ...]) -> tuple[list[Evidence], set]:
    """The code blocks that are listings git or ``sha256sum`` writes of the pinned tree (every
    line ``100644 blob <id> <path>``, ``100644 <id> 0 <path>`` or ``<sha256>  <path>``): each
    line a manifest's row (the file's content at the pin is that blob, or has that digest);
    and those blocks (they quote no file)."""
    found: list[Evidence] = []
    listings = set()
    for block in blocks:
        index, close, _ = block
        rows: list[Evidence] = []
        for number in range(index + 2, min(close, len(lines)) + 1):
            line = lines[number - 1]
            if not line.strip():
                continue
            listed = LISTING_LINE.fullmatch(line.rstrip()) or DIGEST_LINE.fullmatch(line.rstrip())
            if listed is None:
                rows = []
                break
            oid, path = (listed.group(1) or listed.group(2), listed.group(3)) if listed.re is LISTING_LINE \
                else (listed.group(1), listed.group(2))
            rows.append(Evidence(EvidenceKind.PATH, path.removeprefix("./"), number, number, text=oid.lower(),
                                 label="manifest blob", role=EvidenceRole.MANIFEST))
        if rows:
            found.extend(rows)
            listings.add(block)
    return found, listings


#: a backticked code span on one line
_CODE_SPAN = re.compile(r"`([^`\n]{2,200})`")


def _symbols_beside(lines: list[str], found: list[Evidence]) -> list[Evidence]:
    """A name in backticks on the line of a cited range (`` `classify` exists (`src/facts.ts:68-143`) ``):
    a proposed symbol in the files that line cites, kept only where it names a definition there
    (the engine resolves it at the pin)."""
    cited: dict[int, list[str]] = {}
    #: the repository and commit of a line's citations, where they all name the same ones (links
    #: at a commit): the name is looked for there, as the citations are
    at: dict[int, set[tuple[str | None, str | None]]] = {}
    for item in found:
        if item.kind is EvidenceKind.LINES and item.path and item.line == item.end_line:
            paths = cited.setdefault(item.line, [])
            if item.path not in paths:
                paths.append(item.path)
            at.setdefault(item.line, set()).add((item.source, item.pin))
    symbols: list[Evidence] = []
    for number, paths in cited.items():
        source, pin = next(iter(at[number])) if len(at[number]) == 1 else (None, None)
        line = lines[number - 1] if number <= len(lines) else ""
        if "`" not in line:
            continue
        for match in _CODE_SPAN.finditer(line):
            text = match.group(1)
            name = core.symbol_name(text)
            if name is None or review.repo_path_spec(text) is not None or _is_commit(name):
                continue
            declared = DECLARES_NAME.match(line, match.end()) is not None
            symbols.append(Evidence(EvidenceKind.SYMBOL, "", number, number, text=name, context=tuple(paths),
                                    source=source, pin=pin, label=" ".join(text.split()),
                                    role=EvidenceRole.DECLARED if declared else None))
    return symbols


def _defined_in(lines: list[str], code_lines: frozenset[int]) -> list[Evidence]:
    """A name in backticks a sentence says the file named right after it defines
    (`` `Queue` is defined in `src/queue.ts` ``, `` `drain()` lives in `pkg/q.py` ``): a symbol
    of that file the sentence states (it fails where the file does not define it). With the
    file's lines (`` `src/queue.ts:4-9` ``), :func:`_symbols_beside` reads it."""
    found: list[Evidence] = []
    for index, line in enumerate(lines):
        if index in code_lines or " in " not in line or "`" not in line:
            continue
        for match in _CODE_SPAN.finditer(line):
            said = DEFINED_IN.match(line, match.end())
            name = core.symbol_name(match.group(1)) if said is not None else None
            if said is None or name is None or review.repo_path_spec(match.group(1)) is not None:
                continue
            spec = review.repo_path_spec(said.group(1))
            if spec is None or spec.ranges or spec.is_directory:
                continue
            found.append(Evidence(EvidenceKind.SYMBOL, "", index + 1, index + 1, text=name, context=(spec.path,),
                                  label=" ".join(match.group(1).split()), role=EvidenceRole.DECLARED))
    return found


def _owned_names(lines: list[str], fenced: frozenset[int], found: list[Evidence]) -> list[Evidence]:
    """A member named in backticks with its owner and no citation on its line
    (`` `RankedBattle::updateBattleRecord` ``, `` `Pool.drain()` ``): a proposed symbol of the
    files named after its owner (``RankedBattle.sol``, as Solidity, Java and C# name a type's
    file), kept only where one of them defines it at the pin (the engine finds them in the
    pinned tree). ``fenced``: the indexes of lines inside fenced blocks; ``found``: what the
    forms read already (a name on a citation's line is proposed beside it)."""
    cited = {item.line for item in found if item.kind is EvidenceKind.LINES or item.kind is EvidenceKind.SYMBOL}
    names: list[Evidence] = []
    for index, line in enumerate(lines):
        if index in fenced or index + 1 in cited or "`" not in line:
            continue
        for match in _CODE_SPAN.finditer(line):
            name = core.symbol_name(match.group(1))
            owner = name.split(".", 1)[0] if name is not None and name.count(".") == 1 else None
            if owner is not None and _OWNER.fullmatch(owner):
                names.append(Evidence(EvidenceKind.SYMBOL, "", index + 1, index + 1, text=name, context=(owner,),
                                      label=" ".join(match.group(1).split()), lookup=LOOKUP_TREE))
            elif name is not None and _MEMBER.fullmatch(name) and (
                    _KIND_AFTER.match(line, match.end())
                    # (a kind word and its spaces fit in 24 characters: looking back further, a
                    # line of many names was read in time quadratic in its length)
                    or _KIND_BEFORE.search(line, max(0, match.start() - 24), match.start())):
                # ``the `claimFighters` function``: no owner says where; the engine looks in the
                # files of the pinned tree holding the name, and keeps it where one alone defines it
                names.append(Evidence(EvidenceKind.SYMBOL, "", index + 1, index + 1, text=name, context=(),
                                      label=" ".join(match.group(1).split()), lookup=LOOKUP_TREE))
    return names


def _node_ids(lines: list[str], code: frozenset[int]) -> list[Evidence]:
    """A definition named by its file, as a test runner names a test
    (``tests/test_queue.py::TestQueue::test_drain``, ``src/queue.py::drain``): the file, and
    the name defined in it (``TestQueue.test_drain``), which the document says is there (a
    name the file does not define fails). ``code``: the indexes of the lines of code blocks
    (a runner's output there cites nothing, as a stack trace does not)."""
    found: list[Evidence] = []
    for index, line in enumerate(lines):
        if index in code or "::" not in line:
            continue
        for match in _NODE_ID.finditer(line):
            path, name = match.group(1).removeprefix("./"), match.group(2).replace("::", ".")
            if "://" in line and not _outside_urls(line, match.start()):
                continue
            # (the file as a plain name is read: exact, else the tree's one file ending so; the
            # name is then looked for in the file that resolves to)
            found.append(Evidence(EvidenceKind.PATH, path, index + 1, index + 1, label=_NODE_ID_LABEL,
                                  role=EvidenceRole.MENTION if "/" in path else EvidenceRole.BASENAME,
                                  lookup=LOOKUP_TREE))
            found.append(Evidence(EvidenceKind.SYMBOL, "", index + 1, index + 1, text=name, context=(path,),
                                  label=match.group(0), role=EvidenceRole.DECLARED, lookup=LOOKUP_TREE))
    return found


def _files_at_revisions(lines: list[str], code: frozenset[int]) -> list[Evidence]:
    """A file at a commit written in a code span, as git writes it (``88a80f3:src/a.py``,
    ``git show 88a80f3:src/a.py``) or as a path at a revision (``src/a.py@88a80f3:42-60``):
    the file, or its lines, at that commit (the revision a hex word with a digit and a
    letter). ``code``: the indexes of code blocks' lines."""
    found: list[Evidence] = []
    for index, line in enumerate(lines):
        if index in code or "`" not in line:
            continue
        for span in _CODE_SPAN.finditer(line):
            written = span.group(1)
            if ":" not in written and "@" not in written:
                continue  # (most code spans: a name, a path)
            places: list[tuple[str, str, str | None, str | None]] = [
                (m.group(2), m.group(1), None, None) for m in REVISION_COLON_PATH.finditer(written)]
            if "@" in written:
                places += [(m.group(1), m.group(2), m.group(3), m.group(4)) for m in PATH_AT_REVISION.finditer(written)]
            for path, sha, first, last in places:
                # (a file's name: ``owner/name@<sha>`` is a pin statement, not a folder at a commit)
                if not SHA_LIKE.fullmatch(sha) or not core.looks_like_path(path) \
                        or not core.looks_like_path(path.rsplit("/", 1)[-1]):
                    continue
                if first is None:
                    found.append(Evidence(EvidenceKind.PATH, path.removeprefix("./"), index + 1, index + 1,
                                          pin=sha.lower(), label=_AT_REVISION))
                elif int(first) >= 1 and int(last or first) >= int(first):
                    found.append(Evidence(EvidenceKind.LINES, path.removeprefix("./"), index + 1, index + 1,
                                          pin=sha.lower(), label=_AT_REVISION,
                                          cited_lines=LineRange(int(first), int(last or first))))
    return found


#: the label of a file a code span writes at a commit (:func:`_files_at_revisions`)
_AT_REVISION = "file at a revision"



def _outside_urls(line: str, column: int) -> bool:
    """Whether ``column`` of ``line`` is outside every URL the line writes."""
    return not any(url.start() <= column < url.end() for url in FORM_URL.finditer(line))


#: a test runner's node id: a file with an extension, then ``::`` and one or more names (a
#: parametrised test's ``[id]`` after them)
_NODE_ID = re.compile(r"(?<![\w./@:-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z]\w{0,9})::"
                      r"([A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)(?:\[[^\]\s`]*\])?(?![\w:])")
_NODE_ID_LABEL = "node id"


#: a member named alone: an identifier with a lower-case letter and four characters or more
#: (``drain``, ``claimFighters``; not ``x``, ``id``, a constant's ``MAX_SUPPLY``)
_MEMBER = re.compile(r"(?=[A-Za-z0-9_]*[a-z])[A-Za-z_][A-Za-z0-9_]{3,}")
#: what a sentence calls the name it writes in backticks: a definition's kind, right after it
#: (``the `drain` function``) or right before it (``the function `drain` ``)
_DEFINED_KIND = (r"(?:function|method|modifier|contract|struct|event|class|interface|trait|enum|constructor|"
                 r"library|macro|procedure|subroutine)")
_KIND_AFTER = re.compile(rf"(?:\(\))?[ \t]+{_DEFINED_KIND}s?\b", re.IGNORECASE)
_KIND_BEFORE = re.compile(rf"\b{_DEFINED_KIND}[ \t]+\Z", re.IGNORECASE)


#: an owner a file is named after: a type's name (``RankedBattle``, ``IStaking``), not a
#: module's (``os``), an object's (``msg``) or a constant's (``MAX_SUPPLY``)
_OWNER = re.compile(r"[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*")


def _is_commit(name: str) -> bool:
    """Whether a name beside a citation is a commit (a register row's revision cell), not a
    name the file defines: hex digits with a digit among them."""
    return core.is_sha(name) and any(c.isdigit() for c in name)


#: a fence's opening line and its info string's first word
_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})[ \t]*([\w+.-]*)")
#: a fenced block's language when it shows commands, output or a diagram, not a file's text
_NOT_A_FILE = frozenset({"sh", "bash", "shell", "zsh", "console", "terminal", "powershell", "ps1", "cmd", "bat",
                         "output", "log", "mermaid", "memreport", "diff", "patch"})
#: how many lines an introduced block may hold to be read as a quotation
_BLOCK_LINES = 60


def _introduced_blocks(lines: list[str], blocks: tuple[tuple[int, int, str], ...],
                       indented: bool = False) -> list[Evidence]:
    """A code block a sentence gives to one file (``In `src/queue.ts`:``, a link to it, or
    ``In the Pool.sol contract, ...:``, then the block): a quotation of that file, checked where
    the file holds it at the pin and otherwise the report's own example (role ``LOOSE``), never
    a failure at the pin. A block that numbers its lines (``84:     for (``) quotes each run of
    consecutive ones, under the file a ``File: <path>`` first line names when no sentence names
    one. ``blocks``: the document's fenced blocks (:func:`_fenced_blocks`), or with
    ``indented`` its indented ones (:func:`_indented_blocks`), read without their indent."""
    found: list[Evidence] = []
    for index, close, language in blocks:
        body = [_INDENT.sub("", line, count=1) for line in lines[index + 1:close]] if indented \
            else lines[index + 1:close]
        intro = _sentence_above(lines, index)
        introduced = intro.rstrip().endswith(":") or _ends_citing_lines(intro)
        named = _one_file(intro) if introduced and language not in _NOT_A_FILE else None
        labelled = False  # (its first line a comment naming its file: the writer's label, not the file's text)
        if named is None and language not in _NOT_A_FILE:
            named, labelled = _file_of_block(lines, index, close, body, indented)
            if labelled:
                body, index = body[1:], index + 1
        header = FILE_HEADER.fullmatch(body[0].strip()) if body and language not in _NOT_A_FILE else None
        runs = _numbered_runs(body[1:] if header else body)
        lookup = None
        if named is None and header is not None and runs:
            # (written from the analyst's checkout, or by its name alone: found in the pinned tree)
            named, lookup = (header.group(1).lstrip("/"), None, None, None), LOOKUP_TREE
        if named is not None and 0 < len(body) <= _BLOCK_LINES and any(line.strip() for line in body):
            path, source, pin, ref = named
            if lookup is not None and "/" in path:
                lookup = LOOKUP_CHECKOUT
            elif "/" not in path and source is None:
                lookup = LOOKUP_TREE  # a file named by its name alone (``Pool.sol``): the tree's file of that name
            # (a run's report line: the block's first line, past the header, and the run's offset)
            below = index + 2 + (1 if header else 0)
            for first, last, run in [(below + offset, below + end, run) for offset, end, run in runs] \
                    or [(index + 2, index + 1 + len(body), body)]:
                found.append(Evidence(EvidenceKind.QUOTE, path, first, max(first, last),
                                      text="\n".join(run), source=source, pin=pin, label=CODE_BLOCK,
                                      role=EvidenceRole.LOOSE, lookup=lookup, ref=ref))
        elif named is None and (introduced or not indented) and language not in _NOT_A_FILE \
                and language not in _NOT_CODE and len(body) <= _BLOCK_LINES and _holds_enough(body):
            # Given no file (``Verification.verify is as follows:``), code copied from the target is
            # still the target's: looked for in the whole pinned tree, and where no file holds it
            # (a proposed fix, pseudo-code), the report's own (a term's reading: never a failure).
            # An indented one only under a sentence that introduces it: an item's text indented
            # under a list two paragraphs up looks the same line by line.
            found.append(_code_of_no_file(index + 2, max(index + 2, index + 1 + len(body)), "\n".join(body)))
    return found


def _file_of_block(lines: list[str], index: int, close: int, body: list[str],
                   indented: bool) -> tuple[tuple[str, str | None, str | None, str | None] | None, bool]:
    """The one file a block no sentence gives one names of itself: its fence's info string
    (```` ```ts title="src/a.ts" ````, ```` ```ts:src/a.ts ````), a first line that is only a
    comment naming it (``// src/a.ts``), or a caption right below it (``*Source:
    `src/a.ts:4`*``); and whether that first line is the comment (the writer's label)."""
    fence = None if indented else FENCE_FILE.match(lines[index])
    if fence is not None:
        return (fence.group(1) or fence.group(2), None, None, None), False
    comment = COMMENT_FILE.fullmatch(body[0]) if body else None
    if comment is not None and core.looks_like_path(comment.group(1)) and (
            "/" in comment.group(1) or comment.group(1).rsplit(".", 1)[1].lower() in SOURCE_EXTENSIONS):
        return (comment.group(1).removeprefix("./"), None, None, None), True
    below = close if indented else close + 1
    caption = next((lines[i] for i in range(below, min(below + 2, len(lines))) if lines[i].strip()), "")
    if caption and CAPTION_START.match(caption):
        return _one_file(caption), False
    return None, False


def _sentence_above(lines: list[str], index: int) -> str:
    """The last line of text in the two above ``lines[index]`` (a block's opening line): the
    sentence that may introduce the block, and name its file."""
    return next((lines[i] for i in range(index - 1, max(-1, index - 3), -1) if lines[i].strip()), "")


def _holds_enough(texts: Iterable[str]) -> bool:
    """Whether a block's ``texts`` hold enough to be looked for in a whole tree
    (:data:`_TREE_BLOCK_CHARACTERS`)."""
    return sum(not c.isspace() for text in texts for c in text) >= _TREE_BLOCK_CHARACTERS


def _code_of_no_file(first: int, last: int, text: str) -> Evidence:
    """Code a report shows on lines ``first`` to ``last`` and gives no file: the target's
    where a file of the pinned tree holds it, else the report's own (a term's reading)."""
    return Evidence(EvidenceKind.QUOTE, "", first, last, text=text, label=CODE_BLOCK, role=EvidenceRole.TERM)


#: the languages of a fenced block that shows a change as a diff
_DIFF = frozenset({"diff", "patch"})


def _diff_blocks(lines: list[str], blocks: tuple[tuple[int, int, str], ...]) -> list[Evidence]:
    """The code a diff changes, as the target's (an audit finding's proposed fix, ``diff --git
    a/src/Pool.sol b/src/Pool.sol`` and its hunks): each hunk's lines before the change (its
    context and the lines it removes, past their one-character prefix) quote the file the
    diff's header names, else the one its introducing sentence names (as a code block's), and
    are checked where that file holds them at the pin, else the report's own (role ``LOOSE``,
    never a failure); with no file named, where the pinned tree holds them (as a code block
    given no file). The lines it adds are the writer's. Drift then says when the code the
    fix was written against changed. ``blocks``: the document's fenced diff blocks."""
    found: list[Evidence] = []
    for index, close, _ in blocks:
        intro = _sentence_above(lines, index)
        named = _one_file(intro) if intro.rstrip().endswith(":") else None
        for (path, source, pin, ref), run in _before_the_change(lines, index, close, named):
            if not _holds_enough(text for _, text in run) or len(run) > _BLOCK_LINES or path == "/dev/null":
                continue
            text, first, last = "\n".join(text for _, text in run), run[0][0], run[-1][0]
            if path is None:
                found.append(_code_of_no_file(first, last, text))
            else:
                found.append(Evidence(EvidenceKind.QUOTE, path, first, last, text=text, source=source, pin=pin,
                                      label=CODE_BLOCK, role=EvidenceRole.LOOSE, ref=ref,
                                      lookup=LOOKUP_TREE if source is None else None))
    return found


def _before_the_change(lines: list[str], index: int, close: int, named):
    """Each run of a diff block's lines before the change (``lines[index]`` its opening fence,
    ``lines[close]`` its closing one), with the file it is of: ``(path, owner/name, commit,
    branch)``, ``named`` (a sentence's) until a header names one, ``path`` ``None`` when
    nothing does; a run is a list of ``(report line, text)``. A header or a hunk's start ends
    a run; an added line does not (the lines around it are one run of the file)."""
    file = named if named is not None else (None, None, None, None)
    run: list[tuple[int, str]] = []
    for number in range(index + 1, close):
        line = lines[number]
        header = DIFF_FILE_HEADER.fullmatch(line.strip())
        if header is not None or DIFF_OTHER_HEADER.fullmatch(line.strip()):
            if run:
                yield file, run
            run = []
            if header is not None:
                # (a header's path is as the writer's checkout has it: found in the pinned tree)
                file = (header.group(1), None, None, None)
        elif not line.startswith(("+", "\\ ")):  # (nor git's "\ No newline at end of file")
            # a context line's or a removed line's text past its prefix (a line with none is
            # context a writer pasted as it was)
            run.append((number + 1, line[1:] if line[:1] in (" ", "-") else line))
    if run:
        yield file, run


#: a block's language when it shows data or text (an advisory's own TOML, a response's JSON):
#: given no file, it is the writer's, not code copied from the target
_NOT_CODE = frozenset({"toml", "json", "jsonc", "json5", "yaml", "yml", "xml", "html", "csv", "tsv", "ini",
                       "markdown", "md", "text", "txt", "plain", "plaintext"})
#: how many characters that are not spaces a block given no file holds to be looked for in
#: the whole tree (``}``, ``return x;`` is in any tree)
_TREE_BLOCK_CHARACTERS = 24


#: an indented code block's line: four columns of indent (a tab reaches them)
_INDENT = re.compile(r" {4}| {0,3}\t")
#: a list item's first line (an indented block under it is the item's text, not code)
_LIST_ITEM = re.compile(r"[ \t]{0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


def _indented_blocks(lines: list[str], fenced: frozenset[int]) -> Iterator[tuple[int, int, str]]:
    """Each indented code block of ``lines`` as CommonMark reads one under a paragraph: lines
    indented four columns after a blank line, the last line of text above them a paragraph's
    (not indented, not a list item's: a list's indented lines are its items' text). As
    :func:`_fenced_blocks` gives a block: the index of the line before it (the blank), of
    the line after it, and no language. ``fenced``: the indexes inside fenced blocks."""
    index = 1
    while index < len(lines):
        line = lines[index]
        if index in fenced or lines[index - 1].strip() or not line.strip() or not _INDENT.match(line):
            index += 1
            continue
        end = index
        while end < len(lines) and end not in fenced and (not lines[end].strip() or _INDENT.match(lines[end])):
            end += 1
        last = end
        while not lines[last - 1].strip():  # (the blank lines after it are not the block's)
            last -= 1
        above = next((lines[i] for i in range(index - 2, -1, -1) if lines[i].strip()), "")
        if above and not above[:1].isspace() and not _LIST_ITEM.match(above):
            yield index - 1, last, ""
        index = end


def _numbered_runs(body: list[str]) -> list[tuple[int, int, list[str]]]:
    """The runs of a block whose every line that is not blank begins with its line number
    (``84:     for (``) and the numbers count up: each run of consecutive numbers, as the
    file's text, with the lines (in the block) it starts and ends on; ``[]`` for any other block."""
    numbered = [(offset, found) for offset, line in enumerate(body) if line.strip()
                for found in [NUMBERED_LINE.match(line)] if found is not None]
    # (an audit tool's ``...`` between runs, and the writer's own comment lines among them, as
    # ``// @audit ...``, carry no number: neither is the file's)
    if not numbered or len(numbered) < sum(1 for line in body if line.strip() and not _WRITERS_LINE.match(line)):
        return []
    runs: list[tuple[int, int, list[str]]] = []
    previous = None
    for offset, found in numbered:
        number = int(found.group(1))
        if previous is not None and number <= previous:
            return []
        text = body[offset][found.end():]
        if previous is not None and number == previous + 1 and runs:
            start, _, texts = runs[-1]
            runs[-1] = (start, offset, [*texts, text])
        else:
            runs.append((offset, offset, [text]))
        previous = number
    return runs


#: a line of a numbered block that is no line of the file: an elision (``...``, ``// ...``)
#: or a comment line the writer added (``// @audit ...``)
_WRITERS_LINE = re.compile(r"[ \t]*(?:\.\.\.|…|//|/\*|\*|#)")


def _ends_citing_lines(intro: str) -> bool:
    """Whether a line ends with a link to lines of a file (``.../a.sol#L57-L61``, bare or as a
    Markdown link's target): a block right under it shows those lines, as an audit's finding
    writes its evidence."""
    urls = list(FORM_URL.finditer(intro))
    last = urls[-1] if urls else None
    if last is None or intro[last.end():].strip(" \t)>:.`*_").strip():
        return False
    link = core.parse_repository_link(last.group())
    return link is not None and link.kind == "blob" and link.lines is not None


def _one_file(intro: str) -> tuple[str, str | None, str | None, str | None] | None:
    """The one file a sentence names (a backticked path, or a link into a repository's file):
    ``(path, owner/name, commit, branch)``; ``None`` when it names none or several."""
    files: dict[str, tuple[str, str | None, str | None, str | None]] = {}
    for match in FORM_URL.finditer(intro):
        link = core.parse_repository_link(match.group())
        if link is not None and link.kind == "blob" and link.path:
            # (a link at a branch names no commit: the block is read where the document's pin is)
            sha = link.ref_is_sha
            files[link.path] = (link.path, link.repo_id, link.ref if sha else None, None if sha else link.ref)
    for match in _CODE_SPAN.finditer(intro):
        spec = review.repo_path_spec(match.group(1))
        if spec is not None and not spec.is_directory and spec.path not in files:
            files[spec.path] = (spec.path, None, None, None)
    if not files and "." in intro:
        for path in _files_in_plain_words(intro):
            files.setdefault(path, (path, None, None, None))
    return next(iter(files.values())) if len(files) == 1 else None


def _plain_file_names(text: str, starts: LineStarts, code: frozenset[int], read: list[Evidence]) -> list[Evidence]:
    """The source files a sentence names in plain words (``minted through the Pool.sol
    contract``, ``see src/pool.py``), outside code, code spans, links and quotations: each a
    mention, as a name in backticks is (evidence where the pinned tree has it, a bare name the
    tree's file of that name; elsewhere the document's own word). ``starts``: where ``text``'s
    lines start; ``code``: the indexes of its lines of code or front matter; ``read``: what the
    forms read already (a link or a citation of the same file on its line says it: the plain
    name adds nothing)."""
    # The lines that may name one, found by one scan of the text for a source extension:
    # most lines of prose have none, and looking at each line was most of the cost.
    numbers = sorted({starts.line_of(found.start()) for found in _SOURCE_EXTENSION.finditer(text)
                      if found.group(1).lower() in SOURCE_EXTENSIONS})
    if not numbers:
        return []
    cited: dict[int, set[str]] = {}
    for item in read:
        if not _mention(item):
            cited.setdefault(item.line, set()).update((item.path, item.path.rsplit("/", 1)[-1]))
    found: list[Evidence] = []
    for number in numbers:
        if number - 1 in code:
            continue
        start = starts.start_of(number)
        end = text.find("\n", start)
        for path in _files_in_plain_words(text[start:] if end < 0 else text[start:end]):
            if path in cited.get(number, ()):
                continue
            bare = "/" not in path
            found.append(Evidence(EvidenceKind.PATH, path, number, number, label=FILE_IN_PROSE,
                                  role=EvidenceRole.BASENAME if bare else EvidenceRole.MENTION, lookup=LOOKUP_TREE))
    return found


def _files_in_plain_words(line: str) -> Iterator[str]:
    """The source files ``line`` names in its writer's plain words (``the Pool.sol contract``,
    ``src/pool.py``): outside code spans, links, URLs and quotations, with a source file's
    extension, and not an abbreviation (``a.m.``, ``U.S.``, ``Ph.D.``; ``io.h`` is a file)."""
    words = NOT_PLAIN_WORDS.sub(lambda piece: " " * len(piece.group()), line)
    for match in _PLAIN_SOURCE_FILE.finditer(words):
        path, extension = match.group(1), match.group(2)
        name = path.rsplit("/", 1)[-1]
        if extension.lower() in SOURCE_EXTENSIONS and len(name) - len(extension) > (3 if len(extension) == 1 else 2):
            yield path


#: a file's extension where a name may end (what :data:`_PLAIN_SOURCE_FILE` ends with)
_SOURCE_EXTENSION = re.compile(r"\.([A-Za-z]\w{0,9})(?![\w/@-]|\.\w)")


#: a file named in plain words: names joined by slashes, the last with an extension
#: (``VoltageManager.sol``, ``src/pool.py``; not ``msg.sender.call`` nor ``v0.8.sol``)
#: (a name holds a letter: asked ahead, so that a long run of word characters is scanned
#: once from its start, not once per letter in it)
_PLAIN_SOURCE_FILE = re.compile(r"(?<![\w./@:-])((?:[\w-]+/)*(?=[\w-]*[A-Za-z_])[\w-]+\.([A-Za-z]\w{0,9}))"
                                r"(?![\w/@-]|\.\w)")


def _written_on(item: Evidence, lines: list[str]) -> bool:
    """Whether the file a citation names is written on its own line: a continuation the citation
    reader bound to a file of another line or paragraph is not a citation of this document's."""
    written = item.written or item.path
    # The file may be named earlier in the same paragraph (``src/a.ts:2-7`` ... ``(:3-5)``).
    for number in range(item.line, max(0, item.line - _PARAGRAPH_LINES), -1):
        line = lines[number - 1] if number <= len(lines) else ""
        if written in line or ("{" in line and any(written in anchors.expand_braces(group.group())
                                                   for group in BRACE_GROUP.finditer(line))):
            return True
        if not line.strip():
            return False
    return False


def _paragraph_continuations(lines: list[str], anchored: list[Evidence], starts: LineStarts | None = None,
                             fenced: frozenset[int] | None = None) -> list[Evidence]:
    """Bare continuations (``(:3-5)``) before any file a line names, and a line labelled with
    its lines (``- **Lines:** 43-59`` under ``- **File:** `src/a.ts```, a list of fields),
    bound to the last file an earlier line of the same paragraph or list cited (the
    line-by-line reading cannot see it)."""
    cited: dict[int, Evidence] = {}
    for item in anchored:
        if item.kind in (EvidenceKind.LINES, EvidenceKind.PATH) and item.pin is None:
            cited[item.line] = item
    found: list[Evidence] = []
    sections: _SectionFiles | None = None  # (read when a line may need them)
    opening: set[int] = set()  # the lines opening with their lines, the section's file's
    for number, line in enumerate(lines, start=1):
        # (a labelled line naming its own file, ``Lines: 3-9 of `b.ts```, is read as written)
        labelled = LABELLED_LINES.match(line) if "ine" in line and number not in cited else None
        if labelled is None and ("L" in line or "ine" in line or "l." in line):
            # (opening with its lines: its section's file's, not a file of another paragraph;
            # a code block's ``Line 148: ...`` is the block's)
            labelled = SECTION_LINES.match(line)
            if labelled is not None:
                sections = sections or _SectionFiles(lines, fenced)
                labelled = None if sections.in_code(number) else labelled
            if labelled is not None:
                opening.add(number)
                if number in cited and _written_on(cited[number], lines):
                    labelled = None  # (``Lines 3-9 of `b.ts```: read as written)
        span = None
        if labelled is not None:
            written = labelled.lastindex or 1
            ranges, _ = anchors.parse_ranges(labelled.group(written).upper().replace(" ", "").replace("\t", ""))
            if starts is not None and len(ranges) == 1:  # (where a re-pin rewrites it)
                span = starts.span(number, *labelled.span(written))
        elif "(:" in line:  # (a line citing a file may open with one: ``(:6-8), and `b.py:3```)
            citations, _ = anchors.scan(anchors.plain_unit(line, number), prose=True)
            ranges = tuple(cited_lines for c in citations
                           if c.form == anchors.UNBOUND and c.path is None and c.source is None
                           for cited_lines in c.ranges)
        else:
            continue
        if not ranges:
            continue
        anchor = None
        for earlier in range(number - 1, max(0, number - _PARAGRAPH_LINES), -1):
            if not lines[earlier - 1].strip():
                break
            if earlier in opening:
                continue  # (``- Line 4 `import "./b.sol"``` names what its line holds, no anchor)
            anchor = cited.get(earlier) or _file_named_on(lines[earlier - 1], earlier)
            if anchor is not None:
                break
        if anchor is None:  # (no file in its paragraph: the file its section's heading names)
            sections = sections or _SectionFiles(lines, fenced)
            anchor = sections.file_at(number)
        if anchor is None:
            continue
        for cited_lines in ranges:
            found.append(Evidence(EvidenceKind.LINES, anchor.path, number, number, cited_lines=cited_lines,
                                  lookup=anchor.lookup, role=anchor.role if anchor.role is EvidenceRole.BASENAME
                                  else None, label=anchor.label if anchor.role is EvidenceRole.BASENAME else None,
                                  span=span))
    return found


class _SectionFiles:
    """The file each section of a document is about: the one its heading names, alone or
    nearly (``## `src/queue.ts```, ``### File: src/queue.ts``), down to the next heading of
    its level or above (a deeper heading naming no file keeps it)."""

    def __init__(self, lines: list[str], fenced: frozenset[int] | None = None) -> None:
        # (``fenced``: the indexes of the lines inside fenced blocks, when the caller read them)
        fenced = self._fenced = fenced if fenced is not None else fenced_lines(lines)
        self._starts: list[int] = []
        self._files: list[Evidence | None] = []
        open_: list[tuple[int, Evidence | None]] = []  # (level, file) of the headings still open
        for index, line in enumerate(lines):
            heading = _HEADING.match(line) if line.startswith("#") and index not in fenced else None
            if heading is None:
                continue
            level = len(heading.group(1))
            while open_ and open_[-1][0] >= level:
                open_.pop()
            open_.append((level, _heading_file(heading.group(2), index + 1)))
            self._starts.append(index + 1)
            self._files.append(next((file for _, file in reversed(open_) if file is not None), None))

    def in_code(self, number: int) -> bool:
        """Whether report line ``number`` lies in a fenced block (its fences included)."""
        return number - 1 in self._fenced

    def file_at(self, number: int) -> Evidence | None:
        """The file of the section report line ``number`` lies in, or ``None``."""
        at = bisect.bisect_left(self._starts, number) - 1
        return self._files[at] if at >= 0 else None


#: an ATX heading: its level's marks and its text
_HEADING = re.compile(r"(#{1,6})[ \t]++(.*)")
#: at most this many words beside its file in a heading that names a section's file
_HEADING_WORDS = 5


def _heading_file(text: str, number: int) -> Evidence | None:
    """The one file a heading's ``text`` names (`` `pkg/a.py` ``, ``File: pkg/a.py``), with
    few words beside it; ``None`` when it names none, several, or is a sentence about one."""
    if "/" not in text:
        return None
    words = [word for word in text.replace("`", " ").replace("*", " ").split() if "/" in word]
    # (a plain path is a heading's file as a backticked one is: strict, ``and/or`` is none)
    specs = [review.repo_path_spec(word.strip("()[]"), strict=True) for word in words if "://" not in word]
    paths = {spec.path for spec in specs if spec is not None and not spec.is_directory}
    if len(paths) != 1:
        return None
    path = paths.pop()
    if len(text.replace(path, " ").split()) > _HEADING_WORDS:
        return None
    return Evidence(EvidenceKind.PATH, path, number, number)


def _labelled_field(item: Evidence, lines: list[str]) -> bool:
    """Whether ``item`` is a list field's lines (``- **Lines:** 3-9``) that the line-by-line
    reading bound to the file of the line above (:func:`_paragraph_continuations` reads it)."""
    if item.kind is not EvidenceKind.LINES or not 1 <= item.line <= len(lines):
        return False
    line = lines[item.line - 1]
    return "ine" in line and item.path not in line and LABELLED_LINES.match(line) is not None


def _file_named_on(line: str, number: int) -> Evidence | None:
    """The last file a line that cites no lines names in full (`` `pkg/a.py` ``), as the
    anchor of a continuation on a later line; ``None`` when it names none."""
    if "/" not in line:
        return None
    citations, _ = anchors.scan(anchors.plain_unit(line, number), prose=True)
    named = [c.path for c in citations if c.path and "/" in c.path.strip("/") and not c.path.endswith("/")]
    return Evidence(EvidenceKind.PATH, named[-1], number, number) if named else None


def _lines_that_may_hold_a_sha(text: str, starts: LineStarts) -> set[int]:
    # One scan in C: a line without a sha states no pin (every pin form names its sha).
    return {starts.line_of(match.start()) for match in SHA_HINT.finditer(text)}


def _may_state_a_pin(line: str) -> bool:
    # Substring tests on the lowered line run in C; :func:`.pinforms.line_pins` decides.
    lowered = line.lower()
    # (a heading naming a repository and a sha needs no pin word: ``## acme/widgets (`1a2b3c4`)``)
    return any(hint in lowered for hint in _PIN_HINTS) or line.startswith("#") or (
        ":" in line and LISTED_PIN.fullmatch(line) is not None)


def _unread(lines: list[str], read_spans: Sequence[Span], starts: LineStarts) -> list[str]:
    """``lines`` with the citations of lines the dialect read blanked (``path:18`` after a record's
    quotation): a report of 10,000 attributed quotations is not read word by word a second time
    for what its dialect read. A citation a number or a range word continues (``a.ts:3, 9``,
    ``a.ts:3 to 9``) is kept whole: the continuation may be this reading's. A citation
    followed by another file's (``a.ts:3, b.ts:9``) is blanked: a list is read once."""
    if not read_spans:
        return lines
    shown = list(lines)
    for span in read_spans:  # a blank is as long as what it blanks: every offset stays
        # (a span read word by word may end in the comma or stop that follows its citation)
        cited = span.text.rstrip(",.;")
        if not 1 <= span.line <= len(lines) or not TRAILING_RANGES.search(cited):
            continue
        line, offset = shown[span.line - 1], starts.start_of(span.line)
        start, end = span.start - offset, span.end - offset
        if start < 0 or line[start:end] != span.text:
            continue
        if _continued(line[start + len(cited):]):
            continue
        shown[span.line - 1] = line[:start] + " " * (end - start) + line[end:]
    return shown


#: words after a cited range that may continue it (``a.ts:3 to 9``, ``a.ts:3 and 9``)
_CONTINUING_WORDS = frozenset({"to", "through", "thru", "until", "and", "&"})
#: what joins a cited range to a continuation after it (``a.ts:3, 9``, ``a.ts:3 - 9``)
_JOINERS = (",", "&", "-", "–")


def _continued(after: str) -> bool:
    """Whether the text after a cited range may continue it, by the patterns
    :func:`.anchors.scan` reads continuations with: a range word, or a joiner before ranges
    (``, 9``, ``, L40``), a ``:505`` or a line word (``, lines 3-5``). A joiner before
    anything else (another file's citation, ``a.ts:3, b.ts:9``) continues nothing."""
    after = after.lstrip(")]`*_ ")
    if after.split(" ", 1)[0].lower() in _CONTINUING_WORDS:
        return True
    if after[:1] not in _JOINERS:
        return False
    word = after[1:].lstrip("`*_([ ").split(" ", 1)[0]
    return bool(BARE_RANGES.match(word) or CONTINUATION.match(word)) or word.lower() in anchors.LINE_WORDS


#: what every citation of lines holds (each form of :data:`.grammar.LINE_CITATION_HINT`)
_DIGIT = re.compile(r"\d")


def _may_name_files(line: str) -> bool:
    """Whether ``line`` may name a file or folder in backticks, for the run reader to read: a
    code span with a ``/`` or a ``.`` in it, a conventional file name, or a ``/`` anywhere.
    A heading (it ends the files its section cited) and a fence's line are kept as the
    reader would see them. Most lines of prose with code spans name no file: reading each
    was a fifth of the parse of a document of prose (Rust's RFCs)."""
    if "`" not in line:
        return False
    if "/" in line or PATHLIKE_CODE_SPAN.search(line) or "``" in line or "~~~" in line \
            or line.lstrip().startswith("#"):
        return True
    return any(name in line for name in BARE_FILES)


def _may_cite_lines(line: str) -> bool:
    # Substring tests first: they run in C over the line; the pattern only where one holds. A
    # link's own ``#L10`` is the link reader's (every dialect reads links), not a citation here.
    if not (":" in line or "#L" in line or "line" in line.lower() or " L" in line or " (L" in line
            or " l." in line or " ll." in line or "(l." in line or "(ll." in line) \
            or _DIGIT.search(line) is None:
        return False
    if "://" in line:
        line = FORM_URL.sub(" ", line)
    return LINE_CITATION_HINT.search(line) is not None


_REGISTERED = object()


def _canonical_source(report: Report, source_id: str | None):
    """A tables reading's source as the forms name it: a link's ``owner/name``, ``None``
    for the document's own, :data:`_REGISTERED` for a register entry other than the first."""
    if source_id is None or "/" in source_id:
        return source_id
    source = report.source(source_id)
    if source is report.source(None):
        # The document's own: which repository that is, the pins and sentences say (the
        # citation reader takes it from the first link, which may be of another repository).
        return None
    if source is not None and source.repository:
        return source.repository
    return _REGISTERED


def _identity(evidence: Evidence) -> tuple:
    cited = evidence.written_lines or evidence.cited_lines
    text = " ".join(evidence.text.split()) if evidence.text else None
    return evidence.kind, evidence.written or evidence.path, cited, text


def _unique(evidence: Iterable[Evidence]) -> list[Evidence]:
    """``evidence`` with each piece once: of two readings of it, the one that knows where it is
    written (its span: where a re-pin rewrites it), else the first."""
    seen: dict[tuple, list[int]] = {}
    out: list[Evidence] = []
    for item in evidence:
        same = seen.setdefault(_identity(item), [])
        at = next((index for index in same if _overlap(item, out[index])), None)
        if at is None:
            same.append(len(out))
            out.append(item)
        elif out[at].span is None and item.span is not None:
            out[at] = item
    return out


def _overlap(one: Evidence, two: Evidence) -> bool:
    return one.line <= two.end_line and two.line <= one.end_line


#: how many report lines of one piece of evidence are compared (a quotation may span many)
_SPAN_LIMIT = 64
_MARKUP = str.maketrans("", "", "`*_\"'“”‘’")


def _plain(text: str | None) -> str:
    return " ".join((text or "").translate(_MARKUP).split())


def _same_file(known: Evidence, found: Evidence) -> bool:
    """Whether two pieces of evidence name one file: as written, or the forms read only the end
    of a name the dialect read whole (``release notes.md`` read as ``notes.md``)."""
    one, two = known.written or known.path, found.written or found.path
    return one == two or known.path == found.path or one.endswith(two) or known.path.endswith(two)


def _covers(known: Evidence, found: Evidence) -> bool:
    """Whether the dialect's ``known`` evidence already says what the forms found: the same
    file (and lines) on overlapping report lines; for a quotation, the same words."""
    if not _overlap(known, found):
        return False
    if found.kind is EvidenceKind.SYMBOL:
        # (a name only proposed beside a file says less than one its sentence says is defined)
        return known.kind is EvidenceKind.SYMBOL and known.text == found.text and (
            found.role is not EvidenceRole.DECLARED or known.role is EvidenceRole.DECLARED)
    if not _same_file(known, found):
        return False
    if found.kind is EvidenceKind.QUOTE:
        if known.kind is not EvidenceKind.QUOTE:
            return False
        one, two = _plain(known.text), _plain(found.text)
        return one in two or two in one
    if found.role is EvidenceRole.MANIFEST:
        return known.role is EvidenceRole.MANIFEST
    if found.kind is EvidenceKind.PATH or found.kind is EvidenceKind.DIRECTORY:
        return True  # the file is cited on these lines already (its lines, a quotation of it)
    return (known.written_lines or known.cited_lines) == (found.written_lines or found.cited_lines)


#: evidence whose span is a citation of lines (``path:18``)
_CITES_LINES = (EvidenceKind.QUOTE, EvidenceKind.LINES)


def augment(report: Report, text: str, readers: Sequence[FormReader] = (),
            run_pins: frozenset[str | None] = frozenset()) -> Report:
    """``report`` as its dialect read it, with the evidence and pins the universal forms
    find that the dialect did not: new evidence inside a record belongs to it.
    ``run_pins``: the keys the run gives a revision for (``--memreport-pin``; ``None``, every
    source). Where one is the document's repository, what it names is read as in a document
    that states its pin: files in backticks, phrases, code blocks and links at a branch are
    evidence where that revision's tree holds them, not words (:func:`_without_words`)."""
    front = report.meta.get("front_matter")
    existing = report.all_evidence()
    read_spans = [item.span for item in existing
                  if item.span is not None and item.cited_lines is not None and item.kind in _CITES_LINES]
    reading = read(report.path, text, report.dialect, readers, front if isinstance(front, dict) else None,
                   loose=not report.records and report.dialect != "tables", read_spans=read_spans,
                   quotations=[item for item in existing if item.kind is EvidenceKind.QUOTE],
                   cited=[item for item in existing if item.kind is EvidenceKind.LINES]
                   if report.dialect not in _READ_SYMBOLS else ())
    sources = _with_pins(report, reading)
    said: dict = {}  # what the forms add to the report's facts (a new dict: the dialect's is left as it was)
    if reading.stated_date and "stated-date" not in report.meta:
        said["stated-date"] = reading.stated_date
    if reading.pin_like is not None and not any(source.pin for source in sources):
        said["pin-like"] = list(reading.pin_like)
    if said:
        report = replace(report, meta={**report.meta, **said})
    known = {(finding.line, finding.message) for finding in report.findings}
    told = tuple(sorted((f for f in dict.fromkeys(reading.findings) if (f.line, f.message) not in known),
                        key=lambda finding: finding.line))
    if told:
        report = replace(report, findings=(*report.findings, *told))
    lines = text.split("\n")
    sections = _Sections.of(sources, lines, (*existing, *reading.evidence), _labelled_pins(sources, reading.pins, lines))
    if sections and report.dialect in _BIND_ONE_REPOSITORY:
        report = _sections_bound(report, sources, sections)
        existing = report.all_evidence()
    # Evidence the dialect read on each report line: what a form found is compared with those only.
    by_line: dict[int, list[Evidence]] = {}
    for item in existing:
        for number in range(item.line, min(item.end_line, item.line + _SPAN_LIMIT) + 1):
            by_line.setdefault(number, []).append(item)
    added: list[Evidence] = []
    # A file named in backticks, code shown with no file or a member named with its owner is
    # evidence only beside a pin: in a document that states none (its links' commits are
    # theirs), it is words, and no reason to say the document is unpinned.
    pinned_by_run = _pinned_by_run(run_pins, sources, (*existing, *reading.evidence))
    pinned = pinned_by_run or any(source.pin for source in sources)
    for item in reading.evidence:
        if not pinned and item.pin is None and (_mention(item) or _code_given_no_file(item) or _owned_name(item)):
            continue
        if not pinned and item.label == _AT_REVISION:
            continue  # (a commit in a command of a document that reads no repository: a git tutorial's)
        candidates = (other for number in range(item.line, min(item.end_line, item.line + _SPAN_LIMIT) + 1)
                      for other in by_line.get(number, ()))
        if not any(_covers(other, item) for other in candidates):
            owners = sections.columns(item)
            if len(owners) > 1:  # the same citation under two repositories' columns: one each
                added.extend(_bound_to(item, owner, sources) for owner in owners)
            else:
                added.append(_bound(item, sources, sections))
    # A repository only a pin statement names, with no evidence bound to it, has nothing to check.
    bound = {item.source for item in (*existing, *added)}
    kept = tuple(source for index, source in enumerate(sources)
                 if index < len(report.sources) or source.id in bound or (index == 0 and None in bound))
    # (still a name the document gives a repository: a run that maps it maps no typo)
    unread = sorted({name for source in sources if source not in kept
                     for name in (source.id, source.repository) if name and not name.startswith("SRC-")})
    if unread:
        report = replace(report, meta={**report.meta, PINNED_UNREAD: unread})
    subject = next((item for item in reading.evidence if item.label == _INGESTED and item.kind is EvidenceKind.PATH),
                   None)
    if not added and kept == report.sources and all(
            one.pin_spans == two.pin_spans for one, two in zip(kept, report.sources)):
        return _settled(report, subject, run_pins if pinned_by_run else frozenset())  # (with the facts above)
    return _settled(_placed(_without_superseded(replace(report, sources=kept), added), added), subject,
                    run_pins if pinned_by_run else frozenset())


def _pinned_by_run(run_pins: frozenset[str | None], sources: Sequence[Source], evidence: Sequence[Evidence]) -> bool:
    """Whether the run gives a revision for a repository of the document: for every source,
    or by a key its sources or citations use (:func:`..model.run_pin_key`, the rule a
    source's binding reads its revision by)."""
    if not run_pins:
        return False
    names = {source.id for source in sources} | {item.source for item in evidence if item.source}
    return any(run_pin_key(run_pins, name) is not False for name in (*names,) or (None,))


def _settled(report: Report, subject: Evidence | None, run_pins: frozenset[str | None] = frozenset()) -> Report:
    """The steps every document ends with, in order: references to a branch dropped, an
    ingest's quotations bound to its file, words set apart in a document that pins nothing
    (nor the run: ``run_pins``, the keys it gives a revision for where one is the
    document's), and what names no commit read at the one its links name. (Whether the
    document pins anything is asked once: none of the steps adds or drops a commit.)"""
    pins_nothing = not _pins_anything(report)
    run_pinned = frozenset(key for key in run_pins if key)
    report = _without_branch_references(report, pins_nothing, run_pinned)
    if run_pins:
        report = _of_the_one_repository_linked(report, run_pins)
    report = _at_links_commit(_without_words(_ingest_bound(report, subject), pins_nothing and not run_pins))
    return report if None in run_pins else _without_code_of_no_tree(report)


def _without_code_of_no_tree(report: Report) -> Report:
    """``report`` without the code blocks given no file that no pinned tree is left to hold:
    bound to no repository in a document whose own sources pin nothing (it links two
    libraries at their commits), each is words, as in a document that pins nothing, not a
    reason to ask for a clone of the report's own folder."""
    if any(source.pin for source in report.sources):
        return report

    def kept(items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        return tuple(item for item in items if not (item.source is None and _code_given_no_file(item)))

    return _each_piece(report, kept)


def _of_the_one_repository_linked(report: Report, run_pins: frozenset[str | None]) -> Report:
    """In a document the run pins that names no source of its own and links one repository
    the run pins (by its name; with an unnamed ``--memreport-pin``, the one it links): what
    names no repository (a file in backticks, a code block) is that repository's, as a
    document whose links all name one commit has it read there (:func:`_at_links_commit`).
    Else it was the default source's: the report's own folder, "not inside a git
    repository". (A library the run does not pin, linked at its own commit, does not make
    the repository it pins one of two.)"""
    if report.sources:
        return report
    linked = {item.source for item in report.all_evidence() if item.source and "/" in item.source}
    if None not in run_pins:
        linked &= run_pins
    if len(linked) != 1:
        return report
    (repository,) = linked

    def bound(items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        return tuple(replace(item, source=repository) if item.source is None else item for item in items)

    return _each_piece(report, bound)


def _ingest_bound(report: Report, subject: Evidence | None) -> Report:
    """An ingest's quotations that no file is tied to, bound to the ingested file (its
    ``subject``): what the project is said to state is that file's; a phrase in quotation
    marks attributed to nothing is its quotation where the file holds it, else the writer's."""
    if subject is None:
        return report

    def bound(item: Evidence) -> Evidence:
        if item.kind is not EvidenceKind.QUOTE or item.role not in (EvidenceRole.PROJECT, EvidenceRole.TERM):
            return item
        role = EvidenceRole.PROSE if item.role is EvidenceRole.PROJECT else EvidenceRole.LOOSE
        return replace(item, path=subject.path, source=subject.source, pin=subject.pin, role=role, context=())

    return _each_piece(report, lambda items: tuple(map(bound, items)))


def _without_branch_references(report: Report, bare: bool, run_pinned: frozenset[str] = frozenset()) -> Report:
    """``report`` without the links into another repository at a branch (``/blob/main/...``)
    when nothing pins that repository: a reference to a moving branch (a PEP, another
    project's docs), with no commit to check it at, and no clone to ask the user for. In a
    document that pins nothing, its own repository's links at a branch are references too,
    unless they cite lines (a finding linking `/blob/main/a.sol#L10-L20`): those are evidence
    at no commit, which the user may check at a revision (``--memreport-pin``). ``bare``:
    the document pins nothing; ``run_pinned``: the repositories the run gives a revision for
    by name (their links are evidence at it, never references)."""
    evidence = report.all_evidence()
    pinned_by_items = {item.source for item in evidence if item.pin and core.is_sha(item.pin)}
    citing_lines = {item.source for item in evidence if item.kind is EvidenceKind.LINES}
    # (the document's first source stands for it: its missing pin is said)
    dropped = {source.id for index, source in enumerate(report.sources)
               if (index > 0 or (bare and source.line is None and source.id not in citing_lines))
               and source.pin is None and not source.registered and "/" in (source.repository or source.id)
               and source.id not in pinned_by_items}
    # (a link's repository no source stands for: the document's own, when a source names it)
    known = {name.casefold() for source in report.sources
             for name in (source.id, _repository(source), *source.mentioned) if name}
    dropped |= {item.source for item in evidence if item.source and "/" in item.source and item.pin is None
                and item.source.casefold() not in known and item.source not in pinned_by_items
                and (report.sources or not bare or item.source not in citing_lines)}
    dropped -= run_pinned
    if not dropped:
        return report

    def kept(items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        return tuple(item for item in items if item.source not in dropped)

    return replace(_each_piece(report, kept), sources=tuple(s for s in report.sources if s.id not in dropped))


def _at_links_commit(report: Report) -> Report:
    """``report`` with the evidence of a repository no statement pins, where its links all
    name one commit, read at that commit: a finding linking `/blob/<sha>/...` throughout and
    naming a function or quoting a phrase beside them reads them there, as its links are
    (else each was "at a commit the clone lacks", and the report partly unchecked)."""
    default = report.sources[0].id if report.sources else None
    stated = {source.id for source in report.sources if source.pin is not None or source.registered}
    evidence = report.all_evidence()
    shas: dict[str, list[str]] = {}
    for item in evidence:
        key = item.source or default
        if key is None or key in stated:
            continue
        seen = shas.setdefault(key, [])
        if item.pin and core.is_sha(item.pin) and not any(same_commit(item.pin, sha) for sha in seen):
            seen.append(item.pin)
    # (links at several commits: which one the rest means is unsaid)
    commits = {key: found[0] for key, found in shas.items() if len(found) == 1}
    if not commits and report.sources:
        return report
    adopted = None
    if default is None and len(shas) == 1 and commits:
        # No source of its own, and its links name one repository at one commit: what names
        # no repository (a file named above a code block) is of that one.
        default = adopted = next(iter(commits))

    # What names no repository in a document of several: the one whose link at a commit
    # cites the same file (a code block under `File: a.sol`, the file a link cites in full)
    by_file: dict[str, set[tuple[str, str]]] = {}
    if default is None:
        for item in evidence:
            if item.source and item.pin and core.is_sha(item.pin) and item.path:
                by_file.setdefault(item.path.rsplit("/", 1)[-1], set()).add((item.source, item.pin))

    if not commits and not by_file:
        return report

    def owner(item: Evidence) -> tuple[str, str] | None:
        if item.source is None and default is None and item.path:
            found = by_file.get(item.path.rsplit("/", 1)[-1], set())
            return next(iter(found)) if len(found) == 1 else None
        key = item.source or default
        return (item.source or adopted or "", commits[key]) if key in commits else None

    def pinned(items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        # (a link at a branch too: the document's commit of that repository is the best reading
        # of the file its writer saw, as a review's pin is for the branch links it holds)
        out = []
        for item in items:
            found = owner(item) if item.pin is None else None
            out.append(replace(item, source=found[0] or None, pin=found[1]) if found else item)
        return tuple(out)

    return _each_piece(report, pinned)


def _pins_anything(report: Report) -> bool:
    """Whether anything in ``report`` is at a commit: a source's pin, a link's, or a line
    that looks like a pin (the document is told it is not read as one)."""
    return (any(source.pin for source in report.sources) or "pin-like" in report.meta
            or any(item.pin and core.is_sha(item.pin) for item in report.all_evidence()))


def _without_words(report: Report, bare: bool) -> Report:
    """``report`` without its phrases in quotation marks, code blocks and names in backticks
    (files, or names proposed as the symbols of the files linked beside them) when it pins nothing and
    declares no records: each is evidence only where a pinned tree holds it, so in such a
    document (a cheat sheet, a guide) they are words, not a reason to ask for a clone.
    ``bare``: the document pins nothing."""
    if report.records or not bare:
        return report

    # (a block under a link to lines at a branch is that link's quotation: checked with it where
    # --memreport-pin says)
    linked = {item.source for item in report.all_evidence() if item.kind is EvidenceKind.LINES and item.ref}

    def kept(items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        return tuple(item for item in items
                     if (item.role not in (EvidenceRole.TERM, EvidenceRole.MENTION, EvidenceRole.LOOSE)
                         or (item.role is EvidenceRole.LOOSE and item.source is not None and item.source in linked))
                     and not (item.kind is EvidenceKind.SYMBOL and not item.path))  # (a name beside a link)

    return _each_piece(report, kept)


def _sections_bound(report: Report, sources: tuple[Source, ...], sections: _Sections) -> Report:
    """``report`` with its dialect's evidence bound by sentence or section (:func:`_rebound`)."""
    def bound(items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        return tuple(_rebound(item, sources, sections) for item in items)

    return _each_piece(report, bound)


def _without_superseded(report: Report, added: list[Evidence]) -> Report:
    """``report`` without the plain cited paths a manifest's rows say more of (their blob), and
    the names proposed beside a file that a sentence says the file defines (`` `Queue` is
    defined in `a.py` ``: kept only where defined, the name could never fail)."""
    rows = {(item.path, item.line) for item in added if item.role is EvidenceRole.MANIFEST}
    declared = {(item.text, item.line) for item in added
                if item.kind is EvidenceKind.SYMBOL and item.role is EvidenceRole.DECLARED}
    if not rows and not declared:
        return report

    def kept(items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        return tuple(e for e in items if not (e.kind is EvidenceKind.PATH and (e.path, e.line) in rows) and not (
            e.kind is EvidenceKind.SYMBOL and e.role is None and (e.text, e.line) in declared))

    return _each_piece(report, kept)


def _each_piece(report: Report, change: Callable[[tuple[Evidence, ...]], tuple[Evidence, ...]]) -> Report:
    """``report`` with ``change`` made to its own evidence and to each record's."""
    records = tuple(replace(record, evidence=change(record.evidence)) for record in report.records)
    return replace(report, evidence=change(report.evidence), records=records)


def _placed(report: Report, added: list[Evidence]) -> Report:
    """``added`` put where it sits: in the record whose lines hold it, else the report's own."""
    if not added:
        return report
    records = list(report.records)
    own = list(report.evidence)
    by_record: dict[int, list[Evidence]] = {}
    # The record holding a report line, by bisection over the records' first lines.
    order = sorted(range(len(records)), key=lambda i: records[i].line)
    starts = [records[i].line for i in order]
    for item in added:
        at = bisect.bisect_right(starts, item.line) - 1
        index = order[at] if at >= 0 and item.line <= records[order[at]].end_line else None
        if index is None:
            own.append(replace(item, owner=None))
        else:
            by_record.setdefault(index, []).append(replace(item, owner=records[index].id))
    for index, items in by_record.items():
        record: Record = records[index]
        merged = sorted((*record.evidence, *items), key=lambda e: (e.line, e.end_line))
        records[index] = replace(record, evidence=tuple(merged))
    own.sort(key=lambda e: (e.line, e.end_line))
    return replace(report, records=tuple(records), evidence=tuple(own))


def _repository(source: Source) -> str:
    """The ``owner/name`` a source names (its own, its URL's, or its ID's), or ``""``."""
    if source.repository:
        return source.repository
    if "/" in source.id:
        return source.id
    named = core.repository_of(source.url) if source.url else None
    return named[0] if named else ""


def _find(sources: list[Source], key: str) -> int | None:
    """The source a document's name for a repository means: its ID, its ``owner/name``,
    or, for a short name, the name part of its ``owner/name``."""
    folded = key.casefold()
    for index, source in enumerate(sources):
        if source.id.casefold() == folded or _repository(source).casefold() == folded:
            return index
    if "/" not in key:
        for index, source in enumerate(sources):
            named = _repository(source)
            if named and named.rsplit("/", 1)[-1].casefold() == folded:
                return index
    return None


def _placeholder(source: Source) -> bool:
    """A default source a dialect made for evidence, naming no repository, pin or register row."""
    return not (source.pin or source.url or source.repository or source.registered or "/" in source.id)


def _with_pins(report: Report, reading: Reading) -> tuple[Source, ...]:
    """The report's sources with the pins its statements name (a dialect's own pins stand)."""
    sources = list(report.sources)
    unnamed: list[pinforms.PinStatement] = []
    for statement in reading.pins:
        key = statement.key
        if key is None:
            unnamed.append(statement)
            continue
        index = _find(sources, key)
        if index is None and sources and _placeholder(sources[0]) and statement.repository:
            # The dialect's default source, which names nothing yet: the statement says what it is.
            sources[0] = replace(sources[0], pin=statement.sha, repository=statement.repository,
                                 url=reading.repositories.get(statement.repository), line=statement.line)
            continue
        if index is None:
            # A short name for a repository the document links (``widgets`` for ``acme/widgets``).
            repository = statement.repository or next(
                (repo for repo in reading.repositories if repo.rsplit("/", 1)[-1].casefold() == key.casefold()), None)
            url = reading.repositories.get(repository) if repository else None
            sources.append(Source(repository or key, statement.sha, url, statement.line, repository=repository))
        elif sources[index].pin is None:
            sources[index] = replace(sources[index], pin=statement.sha, line=sources[index].line or statement.line)
    # Pins whose own words name other repositories ("python/typeshed at `<sha>` with
    # tldr-pages/tldr at `<sha>`") are each their own source; the first is the document's.
    worded = _worded_apart(unnamed)
    if worded:
        unnamed = unnamed[:1]
    if unnamed:
        statement = unnamed[0]
        # Which repository the pin is of, when nothing names it for certain: the words near it
        # first, then the document's prose; the user's mapping decides (engine.repositories).
        mentioned = statement.mentioned if worded else tuple(dict.fromkeys((*statement.mentioned,
                                                                             *reading.mentioned)))
        if not sources:
            named = list(reading.repositories)
            # The one repository the document links, unless the pin's own words name another
            # (``pinned to the python/typeshed revision``, linking only tldr's pages): that pin
            # is not the linked repository's.
            other = [word for word in statement.mentioned if not any(_names_repository(word, repo) for repo in named)]
            if len(named) == 1 and not other:
                sources.append(Source(named[0], statement.sha, reading.repositories[named[0]], statement.line,
                                      repository=named[0]))
            else:
                # (the pin's own words, when they name one, over the prose's mentions of others)
                sources.append(Source("SRC-1", statement.sha, None, statement.line,
                                      mentioned=statement.mentioned if other else mentioned))
        elif sources[0].pin is None:
            sources[0] = replace(sources[0], pin=statement.sha, line=sources[0].line or statement.line,
                                 mentioned=() if _repository(sources[0]) else mentioned)
    for statement in worded:
        sources.append(Source(f"SRC-{len(sources) + 1}", statement.sha, None, statement.line,
                              mentioned=statement.mentioned))
    if not sources and reading.evidence:
        named = list(reading.repositories)
        if len(named) == 1:
            sources.append(Source(named[0], None, reading.repositories[named[0]], repository=named[0]))
    if report.dialect in _PINS_UNPLACED:
        return tuple(sources)
    return tuple(_with_pin_spans(source, reading.pins) for source in sources)


def _names_repository(word: str, repository: str) -> bool:
    """Whether a word near a pin names ``repository`` (``owner/name``): in full, or by its
    name (``widgets``, ``Acme Widgets`` as ``acme-widgets``), letter case and punctuation aside."""
    def folded(text: str) -> str:
        return "".join(ch for ch in text.casefold() if ch.isalnum())

    if "/" in word:
        return word.casefold() == repository.casefold()
    owner, _, name = repository.partition("/")
    return folded(word) in (folded(name), folded(owner + name))


def _worded_apart(unnamed: list[pinforms.PinStatement]) -> list[pinforms.PinStatement]:
    """The pins after the first that no name binds but whose own words name another
    repository than every pin before them, each at another commit: a comparison's second
    target (empty when the words name one repository, or none)."""
    if len(unnamed) < 2 or not unnamed[0].mentioned:
        return []
    seen_words = {word.casefold() for word in unnamed[0].mentioned}
    seen_shas = [unnamed[0].sha]
    apart = []
    for statement in unnamed[1:]:
        words = {word.casefold() for word in statement.mentioned}
        if not words or words & seen_words or any(same_commit(statement.sha, sha) for sha in seen_shas):
            continue
        apart.append(statement)
        seen_words |= words
        seen_shas.append(statement.sha)
    return apart


#: dialects whose own pin readers place no spans (a run's ``at `<sha>``` prose, registers and
#: labels): the forms' spans would be some of its pin's spellings only, so re-pin rewrites
#: the commit wherever written
_PINS_UNPLACED = frozenset({"tables"})


def _with_pin_spans(source: Source, statements: Sequence[pinforms.PinStatement]) -> Source:
    """``source`` with the spans of the statements that write its pin (re-pin edits there)."""
    if not source.pin:
        return source
    spans = {statement.span: None for statement in statements
             if statement.span is not None and len(source.pin) >= 7 and same_commit(statement.sha, source.pin)}
    spans.update(dict.fromkeys(source.pin_spans))
    found = tuple(sorted(spans, key=lambda span: span.start))
    return replace(source, pin_spans=found) if found != source.pin_spans else source


def _bound(item: Evidence, sources: tuple[Source, ...], sections: _Sections) -> Evidence:
    """A new piece of evidence bound to the repository its own line writes (its link's), else
    to the one its sentence or section names when the document names several (a repository
    only links pin: at their commit), else to the one its reader gave it, else to the
    document's default (``None``)."""
    return _bound_to(item, sections.named(item), sources)


def _bound_to(item: Evidence, named: Source | _Linked | None, sources: tuple[Source, ...]) -> Evidence:
    """``item`` bound to ``named`` (what its column, sentence or section names), else to the
    repository its reader gave it, else to the document's default."""
    if isinstance(named, _Linked):
        return replace(item, source=named.repository, pin=named.pin)
    if named is not None:
        return replace(item, source=None if named is sources[0] else named.id)
    if item.source is None:
        return item
    index = _find(list(sources), item.source)
    return replace(item, source=sources[index].id if index is not None else item.source)


def _rebound(item: Evidence, sources: tuple[Source, ...], sections: _Sections) -> Evidence:
    """A piece of evidence the dialect read, bound to the repository its sentence or section
    names (a review or note gives all it reads to its one repository); one whose line writes
    its repository (a link) keeps it."""
    named = sections.named(item)
    if isinstance(named, _Linked):
        return replace(item, source=named.repository, pin=named.pin)
    if named is None or named.id == item.source or (
            item.source is not None and _find(list(sources), item.source) == sources.index(named)):
        return item
    return replace(item, source=named.id)


@dataclass(frozen=True)
class _Linked:
    """A repository no pin statement names, whose links in the document all name one commit:
    a citation its section gives it (``## acme/widgets``, then `` `src/a.ts:3` ``) is of that
    commit, as its links are."""

    repository: str
    pin: str


@dataclass(frozen=True)
class _LabelledPins:
    """Several commits a document states for one repository (``**Before:** `acme/widgets@<sha>```,
    ``**After:** `acme/widgets@<sha>```): the words labelling each, which a section's heading
    or a sentence writes to mean that commit (``## After``)."""

    #: a source's ID -> the words labelling its pin (instead of its names: both commits are
    #: of one repository, and its name tells neither)
    labels: dict[str, frozenset[str]]
    #: the repository's other commits, each with its label's words
    others: tuple[tuple[_Linked, frozenset[str]], ...]


def _labelled_pins(sources: Sequence[Source], pins: Sequence[pinforms.PinStatement],
                   lines: list[str]) -> _LabelledPins | None:
    """The commits beyond the first that the document states for one of its ``sources``'
    repositories, with the words labelling each pin (:class:`_LabelledPins`); ``None`` when it
    states one commit per repository, or when a label is missing (nothing then tells them apart)."""
    stated: dict[str, list[tuple[str, frozenset[str]]]] = {}
    for statement in pins:
        # (a pin naming no repository is the document's, or another's the words name: not one
        # of a repository's several)
        index = _find(list(sources), statement.key) if statement.key else (0 if statement.label and sources else None)
        if index is None or not sources[index].pin:
            continue
        shas = stated.setdefault(sources[index].id, [])
        if any(same_commit(sha, statement.sha) for sha, _ in shas):
            continue  # (``2ecb382`` and its full sha: one commit)
        line = lines[statement.line - 1] if 1 <= statement.line <= len(lines) else ""
        written = statement.label if statement.label is not None else line[:statement.column]
        shas.append((statement.sha, _pin_label(written, (_repository(sources[index]), sources[index].id))))
    labels: dict[str, frozenset[str]] = {}
    others: list[tuple[_Linked, frozenset[str]]] = []
    for source in sources:
        shas = stated.get(source.id, [])
        if len(shas) < 2 or not all(words for _, words in shas) or not same_commit(shas[0][0], source.pin or ""):
            continue
        labels[source.id] = shas[0][1]
        repository = _repository(source) or source.id
        others.extend((_Linked(repository, sha), words) for sha, words in shas[1:])
    return _LabelledPins(labels, tuple(others)) if others else None


#: words that say a sha is a pin, not which one (``Commit:``, ``pinned at``)
_PIN_LABEL_NOISE = frozenset({"commit", "revision", "sha", "pin", "pinned", "at", "of", "the", "repository", "repo",
                              "snapshot", "head", "is", "was", "read", "to", "on", "in"})


def _pin_label(before: str, named: Iterable[str | None]) -> frozenset[str]:
    """The words labelling a pin on its line before its sha (``**Before:**``, ``Baseline``),
    without pin words and the names of its repository, ``named`` (casefolded)."""
    names = {part.casefold() for name in named if name for part in name.split("/") if part}
    return frozenset(word.casefold() for word in PROSE_WORD.findall(before)
                     if word.casefold() not in _PIN_LABEL_NOISE and word.casefold() not in names
                     and not word.isdigit())


@dataclass(frozen=True)
class _Sections:
    """Which of a document's pinned repositories a report line's sentence, else its section's
    heading, names (only in a document that pins several: else there is nothing to tell)."""

    lines: list[str]
    #: the pinned sources, and the repositories only links pin, each with what a sentence
    #: or heading may call it
    pinned: tuple[tuple[Source | _Linked, frozenset[str]], ...]
    #: the report lines that are Markdown headings, in order
    headings: tuple[int, ...]
    #: a table row's report line -> its cells as written, each with the repository its
    #: column's header names (``| Aspect | widgets | gadgets |``), or ``None``
    rows: dict[int, list[tuple[str, Source | _Linked | None]]] = field(default_factory=dict)

    @classmethod
    def of(cls, sources: Sequence[Source], lines: list[str], evidence: Iterable[Evidence] = (),
           labelled: _LabelledPins | None = None) -> _Sections:
        """``labelled``: a repository's other commits the document states, and the words
        labelling each of its pins (:func:`_labelled_pins`)."""
        labels = labelled.labels if labelled is not None else {}
        pinned: list[tuple[Source | _Linked, frozenset[str]]] = [
            (source, labels.get(source.id, _names_of(source))) for source in sources if source.pin]
        pinned.extend(labelled.others if labelled is not None else ())
        named = {_repository(source).casefold() for source in sources}
        commits: dict[str, set[str]] = {}
        for item in evidence:
            if item.source and "/" in item.source and item.pin and item.source.casefold() not in named:
                commits.setdefault(item.source, set()).add(item.pin)
        for repository, pins in commits.items():
            if len(pins) == 1:  # (links at several commits: which one a citation means is unsaid)
                name = repository.rsplit("/", 1)[-1]
                pinned.append((_Linked(repository, pins.pop()), frozenset({repository.casefold(), name.casefold()})))
        if len(pinned) < 2:
            return cls(lines, (), ())
        headings = tuple(number for number, line in enumerate(lines, start=1) if line.startswith("#"))
        tabled = any("|" in line for line in lines)
        return cls(lines, tuple(pinned), headings, _repository_columns(lines, pinned) if tabled else {})

    def __bool__(self) -> bool:
        return bool(self.pinned)

    def columns(self, item: Evidence) -> list[Source | _Linked]:
        """The repositories ``item``'s citation is written for, each once, in order: the table
        columns holding its file on its row, else the names right after each place its line
        writes the file (`` `a.md:1` in widgets and `a.md:1` in gadgets ``, `` `a.md:1` (gadgets) ``);
        empty when neither, and for a piece whose line writes its repository."""
        if not self.pinned or not item.path or item.kind not in _SECTION_BOUND or self._written_beside(item):
            return []
        owners: list[Source | _Linked] = []
        cells = self.rows.get(item.line)
        if cells:
            for text, owner in cells:
                if owner is not None and _writes_path(text, item.path) and _writes_lines(text, item) \
                        and all(owner is not o for o in owners):
                    owners.append(owner)
            return owners
        line = self.lines[item.line - 1] if 1 <= item.line <= len(self.lines) else ""
        at = line.find(item.path)
        while at >= 0:
            after = NAME_AFTER_CITATION.match(line, at + len(item.path))
            if after is not None:
                word = after.group(1).casefold().rstrip(".")
                named = [source for source, names in self.pinned if word in names]
                if len(named) == 1 and all(named[0] is not o for o in owners):
                    owners.append(named[0])
            at = line.find(item.path, at + 1)
        return owners

    def named(self, item: Evidence) -> Source | _Linked | None:
        """The one pinned source ``item``'s table column, else its sentence, else its heading,
        names; ``None`` when none does, when the document pins one, and for a piece whose own
        line writes its repository (a link's ``owner/name``: the link says whose file it is)."""
        if not self.pinned or item.kind not in _SECTION_BOUND or self._written_beside(item):
            return None
        owners = self.columns(item)
        if len(owners) == 1:
            return owners[0]
        line = self.lines[item.line - 1] if 1 <= item.line <= len(self.lines) else ""
        for text in (_sentence_citing(line, item), self._heading_above(item.line)):
            words = {word.casefold().rstrip(".") for word in REPOSITORY_WORD.findall(text)}
            # (an ellipsis or a full stop alone is no word: read as "", it named every source
            # that names no owner/name, and a sentence of code went to that one)
            words.discard("")
            named = [source for source, names in self.pinned if names & words]
            if len(named) == 1:
                return named[0]
        return None

    def _written_beside(self, item: Evidence) -> bool:
        """Whether the repository ``item`` names is written on its own lines (its link)."""
        if item.source is None or "/" not in item.source:
            return False
        named = item.source.casefold()
        return any(named in line.casefold() for line in self.lines[item.line - 1:item.end_line])

    def _heading_above(self, number: int) -> str:
        """The nearest Markdown heading at or above report line ``number``, within 2,000 lines
        (``""`` when none)."""
        at = bisect.bisect_right(self.headings, number) - 1
        if at < 0 or self.headings[at] <= number - 2000:
            return ""
        return self.lines[self.headings[at] - 1].lstrip("#")


#: dialects that give every citation no link ties to the document's one repository (a record
#: report and a run bind each to the source it names)
_BIND_ONE_REPOSITORY = frozenset({"review", "notes"})
#: what a dialect reads that a section may give to another repository
_SECTION_BOUND = frozenset({EvidenceKind.PATH, EvidenceKind.LINES, EvidenceKind.DIRECTORY, EvidenceKind.QUOTE,
                            EvidenceKind.SYMBOL})


def _sentence_citing(line: str, item: Evidence) -> str:
    """The sentence of ``line`` that writes ``item``'s file (``In gadgets, `lib/a.rs:1` ...``
    beside a sentence on widgets); the whole line when it is one sentence or does not write it."""
    at = line.find(item.path) if item.path else -1
    if at < 0 or not _SENTENCE_BREAK.search(line):
        return line
    starts = [0, *(match.end() for match in _SENTENCE_BREAK.finditer(line))]
    start = max(start for start in starts if start <= at)
    following = [begin for begin in starts if begin > at]
    return line[start:following[0] if following else len(line)]


#: where a sentence ends inside a line: a stop, then a space and a capital or a mark
_SENTENCE_BREAK = re.compile(r"(?<=[.!?;])[ \t]+(?=[A-Z`*_(\[\"])")


def _repository_columns(lines: list[str], pinned: Sequence[tuple[Source | _Linked, frozenset[str]]]
                        ) -> dict[int, list[tuple[str, Source | _Linked | None]]]:
    """The rows of the tables whose header names a pinned repository over a column (a
    comparison: ``| Aspect | widgets | gadgets |``), by report line: each cell as written
    with the repository its column is of."""
    rows: dict[int, list[tuple[str, Source | _Linked | None]]] = {}
    for header, cells in raw_tables(lines):
        owners: list[Source | _Linked | None] = []
        for name in header:
            word = name.strip("`*_ ").casefold()
            found = [source for source, names in pinned if word in names]
            owners.append(found[0] if len(found) == 1 else None)
        if not any(owner is not None for owner in owners):
            continue
        for number, row in cells:
            rows[number] = list(zip(row, owners))
    return rows


def _writes_lines(text: str, item: Evidence) -> bool:
    """Whether a cell writing ``item``'s file writes its first cited line right after it (of
    ``| `a.ts:3-4` | `a.ts:9-12` |``, the row's columns, which cell cites which); true for a
    piece citing no lines."""
    if item.cited_lines is None:
        return True
    first = (item.written_lines or item.cited_lines).start
    path = item.written or item.path
    at = text.find(path)
    while at >= 0:
        token = text[at:].split(None, 1)[0].strip("`*_,;()")  # (the citation as written: ``a.ts:3-4``)
        spec = review.repo_path_spec(token, strict=False)
        if spec is not None and spec.ranges:
            if any(cited.start == first for cited in spec.ranges):
                return True
        else:  # (its lines written apart, ``a.ts` (L3-L4)``: a number of the cell's after it)
            numbers = "".join(ch if ch.isdigit() else " " for ch in text[at + len(path):]).split()
            if str(first) in numbers:
                return True
        at = text.find(path, at + 1)
    return False


def _writes_path(text: str, path: str) -> bool:
    """Whether ``text`` writes ``path`` as a path of its own (not ``a.md`` inside ``data.md``)."""
    at = text.find(path)
    while at >= 0:
        before, after = text[at - 1:at], text[at + len(path):at + len(path) + 2]
        if not (before.isalnum() or before in "_./-") and not (
                after[:1].isalnum() or after[:1] in "_/-" or (after[:1] == "." and after[1:2].isalnum())):
            return True
        at = text.find(path, at + 1)
    return False


def _names_of(source: Source) -> frozenset[str]:
    """What a sentence or heading may call ``source`` (casefolded): its ID, its ``owner/name``
    and that name alone; for a pin only words name, those words and their names alone."""
    repository = _repository(source)
    names = {source.id.casefold(), repository.casefold(), (repository or source.id).rsplit("/", 1)[-1].casefold()}
    if not repository:
        for word in source.mentioned:
            names |= {word.casefold(), word.rsplit("/", 1)[-1].casefold()}
    names.discard("")
    return frozenset(names)


