"""Evidence by form, in any document (docs/FORMATS.md, "Any document").

A knowledge base holds more than the shapes the dialects describe: pilots,
comparisons of two repositories, trial folders, manifests, ingests. Writers never
say which shape they use, and evidence has forms whatever the document around it.
This module reads those forms in every document (:func:`read`: a document's text to a
:class:`Reading`, its evidence and pin statements); :mod:`.formbinding` joins the reading
to the report the dialect parsed, so a dialect adds structure (records, statuses,
registers) and never hides evidence:

* commit-pinned links (``/blob/<sha>/path#L10-L20``, ``/tree/<sha>/dir``), blockquote
  quotations, backticked paths, symbols beside links, and quotations in the three
  ties of a note: read by the notes dialect's readers (:mod:`.notes`, over :mod:`.review`);
* ``path:10-20``, ``path#L10``, `` `path` (lines 10-20) ``, a bare continuation
  ``(:1-18)``, brace groups, bare names: read by the analysis-run citation readers
  (:mod:`.core.anchors` through :mod:`.tables`, here without a run);
* pin statements of every form (:mod:`.core.pinforms`), with the repository each names;
* code blocks and what they show: listings, manifests as data, a setup's pin, quotations
  (:mod:`.codeblocks`); names of definitions beside citations, with their owners, in node
  ids, and files at revisions (:mod:`.nameforms`); files named with no link into a hosted
  repository: manifest lines, links to a checkout, names in plain words (:mod:`.fileforms`);
  tables (:mod:`.tableforms`) and manifests written as data (:mod:`.datatables`);
* forms a third party registers (``pytest_memreport_read_forms``, docs/FORMATS.md).

What a dialect reads itself is not read again here (its quotations' texts are the quoted
files' words; the lines it cited are blanked); which repository and commit each piece is
of, the binding says (:mod:`.formbinding`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from ..model import CITED_IN_A_BLOCK, Evidence, EvidenceKind, EvidenceRole, Finding, Report, Span
from . import core, notes, review, tables
from .core import anchors, pinforms
from .codeblocks import (DIFF, NOT_A_FILE, data_manifests, diff_blocks, fenced_blocks, fenced_lines, indented_blocks,
                         introduced_blocks, lines_inside, listings, setup_pins)
from .core.citations import BARE_FILES
from .core.extensions import KNOWN_EXTENSIONS
from .core.grammar import (BARE_RANGES, BRACE_GROUP, CONTINUATION, FILE_LINK_MARKS, FORM_URL, HEX_WORD, LABELLED_LINES,
                           LINE_CITATION_HINT, LISTED_PIN, PATHLIKE_CODE_SPAN, SECTION_LINES, SHA_HINT, TRAILING_RANGES)
from .core.spans import LineStarts
from .datatables import data_evidence
from .fileforms import is_mention, listed_blobs, local_links, plain_file_names
from .nameforms import defined_in, files_at_revisions, node_ids, owned_names, symbols_beside
from .tableforms import PROSE_WORD, pipe_tables, row_quotations, table_pins, table_rows

#: a third party's reader of a form: ``(path, text) -> evidence`` (see :func:`.formbinding.augment`)
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
    blocks = tuple(fenced_blocks(lines)) if "```" in text or "~~~" in text else ()
    fenced = lines_inside(blocks, len(lines))
    # and the indented ones: code or output too (a benchmark's ``commit: 7cd9055`` pins nothing)
    indented = tuple(indented_blocks(lines, fenced)) if "    " in text or "\t" in text else ()
    code_lines = fenced | lines_inside(indented, len(lines)) if indented else fenced
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
        output = lines_inside(blocks, len(lines), NOT_A_FILE)
        shown = [line if number not in output and (
                     _may_cite_lines(line) or (names_files and "`" in line and number not in fenced)) else ""
                 for number, line in enumerate(_unread(lines, read_spans, starts))]
        if any(shown):  # every line blank (all its citations the dialect's): nothing to read or continue
            # (read: the lines that may cite or name something; shown, their paragraphs)
            read = [line if _may_cite_lines(line) or (names_files and _may_name_files(line)) else "" for line in shown]
            evidence.extend(_in_blocks_of_no_language(_cited_lines(shown, lines, findings, names_files, read, starts,
                                                                   fenced), blocks, len(lines)))
    # The document's pipe tables, split into cells once: their rows cite files, or pin repositories.
    tabled = list(pipe_tables(lines)) if "|" in text else []
    evidence.extend(table_rows(tabled, lines, starts))
    if "blob" in text:
        evidence.extend(listed_blobs(lines))
    if "|" in text and dialect not in _READ_ANCHORS and ('"' in text or "“" in text or "`" in text):
        evidence.extend(row_quotations(lines))
    if loose or cited:
        evidence.extend(symbols_beside(lines, [*evidence, *cited]))
    if loose and " in " in text and "`" in text:
        evidence.extend(defined_in(lines, code_lines))
    if "](" in text and loose:
        evidence.extend(local_links(text, starts, code_lines))
    if "::" in text:
        evidence.extend(node_ids(lines, code_lines))
    if "`" in text and (":" in text or "@" in text):
        evidence.extend(files_at_revisions(lines, code_lines))
    if loose and ("::" in text or "." in text) and "`" in text:
        evidence.extend(owned_names(lines, fenced, [*evidence, *cited]))
    if blocks or indented:
        listed, manifest_blocks = listings(lines, (*blocks, *indented))
        if blocks:
            manifests, data = data_manifests(lines if written is text else written.split("\n"), blocks)
            listed.extend(manifests)
            manifest_blocks |= data
        if manifest_blocks:
            evidence.extend(listed)
            blocks = tuple(block for block in blocks if block not in manifest_blocks)
            indented = tuple(block for block in indented if block not in manifest_blocks)
    if loose:
        if blocks:
            evidence.extend(introduced_blocks(lines, blocks))
            evidence.extend(diff_blocks(lines, tuple(block for block in blocks if block[2] in DIFF)))
        if indented:
            evidence.extend(introduced_blocks(lines, indented, indented=True))
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
                                             source=subject.repo_id, label=INGESTED))
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
        pins.extend(setup_pins(lines, blocks, starts, repositories))
    if own is not None:
        pins = [replace(pin, repository=own) if pin.key is None else pin for pin in pins]
    plain_names = loose and "." in text
    if plain_names:
        code = code_lines | frozenset(range(end))
        evidence.extend(plain_file_names(text, starts, code, evidence))
    if names_files or plain_names:
        evidence = _without_mentions_cited(evidence)
    return Reading(tuple(_unique(evidence)), repositories, tuple(pins), pinforms.stated_date(front, text),
                   pin_like, tuple(mentioned), tuple(findings))


#: the label of an ingest's own file (front matter ``source:``, a blob link at a commit)
INGESTED = "the document's source"


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


def _in_blocks_of_no_language(found: list[Evidence], blocks: tuple[tuple[int, int, str], ...],
                              count: int) -> list[Evidence]:
    """``found`` with the lines it cites inside a fenced block of no language labelled so
    (:data:`~..model.CITED_IN_A_BLOCK`): a program's output as often as code, evidence where
    the pinned tree has the file (a pasted stack trace's own frame), else the block's text."""
    bare = lines_inside(blocks, count, _NO_LANGUAGE) if blocks else frozenset()
    if not bare:
        return found
    return [replace(item, label=CITED_IN_A_BLOCK) if item.kind is EvidenceKind.LINES and item.line - 1 in bare
            else item for item in found]


#: the language of a fenced block that names none
_NO_LANGUAGE = frozenset({""})


def _without_mentions_cited(evidence: list[Evidence]) -> list[Evidence]:
    """``evidence`` without the files named in backticks that another form on the same line
    cites (a manifest's row, a file at a table's commit, its lines): said once, as cited."""
    cited = {(item.path, item.line) for item in evidence if not is_mention(item)}
    return [item for item in evidence if not is_mention(item) or (item.path, item.line) not in cited]


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
    return is_mention(item) or (item.kind is EvidenceKind.DIRECTORY and item.role is None)


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


def _told_apart(pins: list[pinforms.PinStatement], lines: list[str]) -> bool:
    """Whether each repository's label lines state one commit, or several each labelled apart
    (a list of a repository's commits looks the same line by line, and says no pin)."""
    by_repository: dict[str | None, dict[str, frozenset[str]]] = {}
    for pin in pins:
        line = lines[pin.line - 1] if 1 <= pin.line <= len(lines) else ""
        by_repository.setdefault(pin.repository, {})[pin.sha] = pin_label(line[:pin.column], (pin.repository,))
    return all(len(shas) == 1 or (all(shas.values()) and len(set(shas.values())) == len(shas))
               for shas in by_repository.values())


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
        at = next((index for index in same if overlaps(item, out[index])), None)
        if at is None:
            same.append(len(out))
            out.append(item)
        elif out[at].span is None and item.span is not None:
            out[at] = item
    return out


def overlaps(one: Evidence, two: Evidence) -> bool:
    return one.line <= two.end_line and two.line <= one.end_line


#: words that say a sha is a pin, not which one (``Commit:``, ``pinned at``)
_PIN_LABEL_NOISE = frozenset({"commit", "revision", "sha", "pin", "pinned", "at", "of", "the", "repository", "repo",
                              "snapshot", "head", "is", "was", "read", "to", "on", "in"})


def pin_label(before: str, named: Iterable[str | None]) -> frozenset[str]:
    """The words labelling a pin on its line before its sha (``**Before:**``, ``Baseline``),
    without pin words and the names of its repository, ``named`` (casefolded)."""
    names = {part.casefold() for name in named if name for part in name.split("/") if part}
    return frozenset(word.casefold() for word in PROSE_WORD.findall(before)
                     if word.casefold() not in _PIN_LABEL_NOISE and word.casefold() not in names
                     and not word.isdigit())
