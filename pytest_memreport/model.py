"""The plain report model: what a dialect parser produces and every check consumes.

Everything here is a small frozen dataclass that carries its report position
(1-based line numbers in the report file), so any later finding can point back
at the exact line the author wrote. Nothing here knows about git, matching or
pytest.
"""

from __future__ import annotations

import hashlib

from collections.abc import Collection
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import TypeVar

#: The status vocabulary of the analysis method, weakest first. ``wired`` and
#: ``implemented`` are legacy spellings of ``afforded`` (see LEGACY_STATUS).
STATUS_VALUES: tuple[str, ...] = (
    "absent",
    "inapplicable",
    "uninspected",
    "claimed",
    "afforded",
    "observed",
    "causally supported",
)
LEGACY_STATUS: dict[str, str] = {"wired": "afforded", "implemented": "afforded"}

#: Record kinds by their ID infix.
RECORD_KINDS: dict[str, str] = {
    "CMP": "component",
    "OBJ": "operative object",
    "RTE": "route",
    "CLM": "claim",
    "ABS": "evidenced absence",
    "BAP": "behavioral-authority path",
}


_Class = TypeVar("_Class", bound=type)


def _loaded_quickly(cls: _Class) -> _Class:
    """``cls`` (a frozen data class with slots) loaded from a pickle field by field, by
    names listed once. The data classes' own ``__setstate__`` lists the fields again for
    every instance: a large report set's reports come back from the parse helper
    (:mod:`.parsehelper`) as tens of thousands of these, and that listing was most of
    their load. The state is the same (the data classes' ``__getstate__``), so a pickle
    made with either loads with either."""
    names = tuple(f.name for f in fields(cls))
    setter = object.__setattr__  # frozen: their own __setstate__ sets each slot this way

    def __setstate__(self, state) -> None:
        for name, value in zip(names, state):
            setter(self, name, value)

    cls.__setstate__ = __setstate__  # type: ignore[attr-defined]
    return cls


@_loaded_quickly
@dataclass(frozen=True, slots=True)
class LineRange:
    """An inclusive 1-based range of lines, in a target file or in a report."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.start < 1 or self.end < self.start:
            raise ValueError(f"bad line range {self.start}-{self.end}")

    def contains(self, other: LineRange) -> bool:
        return self.start <= other.start and other.end <= self.end

    def pair(self) -> tuple[int, int]:
        """``(start, end)``: the lines as a JSON payload holds them (written as an array). A
        tuple of ints, not a list: a run keeps a payload per check until its outputs are
        written, and the garbage collector stops walking a tuple (and a dict of them) that
        holds no container, where it walks every list at each full collection."""
        return (self.start, self.end)

    def __str__(self) -> str:
        return f"{self.start}" if self.start == self.end else f"{self.start}-{self.end}"


@_loaded_quickly
@dataclass(frozen=True, slots=True)
class Span:
    """Where a parser read something in the report: characters ``[start, end)`` of the
    report's text (as parsed: UTF-8, a BOM dropped, line endings ``\n``), on report line
    ``line`` (1-based), and the ``text`` it read there.

    Write-back edits at a span, never by finding the text again, and refuses a span
    whose characters are no longer ``text`` (the report changed since it was read).
    """

    start: int
    end: int
    line: int
    text: str


#: :attr:`Evidence.lookup` values
LOOKUP_TREE = "tree"
LOOKUP_CHECKOUT = "checkout"

#: the label of a code block a report shows, read as a quotation (:attr:`Evidence.label`)
CODE_BLOCK = "code block"
#: the label of a source file a sentence names in plain words (``the Pool.sol contract``)
FILE_IN_PROSE = "file named in prose"
#: the label of lines cited inside a fenced block of no language: a program's output as often
#: as code (``Found reference in main.py at line 4``), evidence only where the pinned tree has
#: the file
CITED_IN_A_BLOCK = "cited in a block of no language"
#: the :attr:`Report.meta` key of the repositories a document pins but cites nothing of in a
#: form read (no source of the report: still names the document gives, so a run's mapping of
#: one is no typo)
PINNED_UNREAD = "pinned-unread"


class EvidenceKind(str, Enum):
    """What a piece of evidence asserts about the target at its pin."""

    QUOTE = "quote"  # this text occurs in ``path``
    PATH = "path"  # ``path`` exists (a file)
    LINES = "lines"  # ``path`` has lines ``cited_lines`` (their content is recorded at the pin)
    DIRECTORY = "directory"  # ``path`` exists as a directory
    SYMBOL = "symbol"  # ``text`` names a definition in ``path`` (one of ``context`` until resolved)
    COMMIT = "commit"  # the commit ``pin`` exists; at the against-revision it is one of its ancestors


class EvidenceRole(str, Enum):
    """What a piece of evidence is to its report, set by the dialect so that checks and
    outputs need no display label to tell kinds apart: how a prose note ties a quotation
    to the target (docs/FORMATS.md §4), a mention that counts only where the tree has it,
    a run's inline or loose quotation, a register row, a bare file name.

    ``None`` on :attr:`Evidence.role` is the strict default: the evidence is of ``path``
    as written, and fails where it does not hold.
    """

    #: quoted in running text beside the file(s) it is tied to (``path``, then ``context``):
    #: held if one of them has it; typography (emphasis, curly quotes) is rendering
    PROSE = "prose"
    #: attributed to the project as a whole ("the docs state ..."): the files the
    #: paragraph or note links (``context``), failing that any file of the pinned tree
    PROJECT = "project"
    #: a phrase in quotation marks the note attributes to no file (at most it stands near some,
    #: in ``path`` and ``context``): a quotation wherever the pinned tree holds it, else the
    #: note's own term, which is not evidence
    TERM = "term"
    #: a file of the reader's own project the note talks about ("in your repository")
    OWN_PROJECT = "own-project"
    #: a mention that is evidence only where the pinned tree has it (a backticked word that
    #: looks like a path, a path written with characters prose also uses); elsewhere it is
    #: one "not evidence" item, never a failure
    MENTION = "mention"
    #: an analysis run's quotation inline in its sentence: its first letter may be adapted to it
    INLINE = "inline"
    #: a quoted phrase near a citation, not right beside it: the file's only if the file holds it
    LOOSE = "loose"
    #: a file the source register names (a missing one says where the register names it)
    REGISTER = "register"
    #: a bare file name, resolved against the pinned tree (its key keeps the name as written)
    BASENAME = "basename"
    #: a manifest's row: the file's content at the pin is the blob ``text`` names (its id)
    MANIFEST = "manifest"
    #: a name its sentence says the cited file defines (`` `classify` exists (`src/a.ts:68`) ``):
    #: a failure where no file cited beside it defines it at the pin (a name merely in
    #: backticks there is a word, no evidence)
    DECLARED = "declared"


def text_digest(text: str | None) -> str:
    """What a piece of evidence says, in a few bytes (sha256, hex, 16 digits): fingerprints
    (SARIF) and keys tell two quotations of a file apart by it."""
    return hashlib.sha256((text or "").encode("utf-8", "surrogatepass")).hexdigest()[:16]


class _KeepsItsHash:
    """A slot for an instance's hash once computed. Not a field of the data class built on
    it, so it is never compared, carried over by ``replace`` or pickled: a string's hash
    differs from one process to another (the parse helper's reports are read here)."""

    __slots__ = ("_hash",)
    _hash: int  # (declared for type checkers: the slot above holds it)


@_loaded_quickly
@dataclass(frozen=True, slots=True)
class Evidence(_KeepsItsHash):
    """One checkable citation of the target: a quotation, a cited path, a line anchor.

    ``line``/``end_line`` are the report lines the evidence spans (a quotation
    split over several paragraphs spans all of them). ``source`` names the
    repository: an ``SRC-n`` id, an ``owner/name`` from a link, or ``None`` for
    the report's default source. ``pin`` is set when the citation carries its
    own commit (a review's blob link); otherwise the source's pin applies.
    ``owner`` is the ID of the record or annotation the evidence sits in, or
    ``None`` when it belongs to the report itself.
    """

    kind: EvidenceKind
    path: str
    line: int
    end_line: int
    text: str | None = None
    cited_lines: LineRange | None = None
    source: str | None = None
    pin: str | None = None
    owner: str | None = None
    #: a human label for items and messages, e.g. a review's link text
    label: str | None = None
    #: the other files cited beside it (its record, row or paragraph): where a symbol's
    #: definition or a quotation may be instead, and which of several places a bare name is
    context: tuple[str, ...] = ()
    #: how ``path`` is found at the pin: ``None`` as written; :data:`LOOKUP_TREE` resolved
    #: against the pinned tree (the subject subtree first, then the path as written, then
    #: a unique suffix); :data:`LOOKUP_CHECKOUT` an absolute path of the analyst's checkout,
    #: mapped by its longest suffix that exists in the pinned tree
    lookup: str | None = None
    #: the path as the report wrote it, once the engine resolved ``path`` (items keep their key)
    written: str | None = None
    #: the lines the report cited, when the quotation was found in another file its row or
    #: sentence cites and is no longer held to them (items keep their key)
    written_lines: LineRange | None = None
    #: how a prose note ties it to the target (:class:`EvidenceRole`); ``None``: as written
    role: EvidenceRole | None = None
    #: a Markdown quotation's text as a reader sees it, where :attr:`text` is what the
    #: report's source writes (read as written, since Markdown changed more than its
    #: backticks): tried at the pin when :attr:`text` is not found there, for a quote
    #: escaped for Markdown's sake (``\_\_init\_\_``); ``None`` when the two agree
    shown_text: str | None = None
    #: where the parser read the citation (its path and ranges, its link), when it knows;
    #: not part of what the evidence is (equal evidence may be read at two places)
    span: Span | None = field(default=None, compare=False)
    #: the branch or tag a link names where it names no commit (``main`` of ``/blob/main/...``):
    #: what a report that pins nothing cites its files at
    ref: str | None = field(default=None, compare=False)

    def __hash__(self) -> int:
        # Evidence keys the run's result tables, looked up about fifteen times per check
        # (150,000 times in a run of 10,000 quotations): hashed once. Equal evidence has
        # equal fields, so hashing a few of them agrees with equality; the generated hash
        # would hash every field (two enums, in Python code) on each lookup.
        try:
            return self._hash
        except AttributeError:
            found = hash((self.path, self.line, self.end_line, self.text))
            object.__setattr__(self, "_hash", found)
            return found

    @property
    def searched(self) -> bool:
        """Whether the check looks beyond ``path``: in ``context`` files, or the pinned tree."""
        return self.kind is EvidenceKind.QUOTE and (
            bool(self.context) or self.role in (EvidenceRole.PROJECT, EvidenceRole.TERM))

    @property
    def is_code_block(self) -> bool:
        """Whether this is a code block the report shows (a quotation of the file a sentence
        gives it, or, given none, of the pinned tree: role ``TERM``)."""
        return self.label == CODE_BLOCK

    @property
    def in_plain_words(self) -> bool:
        """Whether this is a file a sentence names in plain words, not in backticks or a link:
        evidence only where it names one file of the pinned tree (a name several files share
        cites none of them; in backticks it would be ambiguous)."""
        return self.label == FILE_IN_PROSE

    @property
    def declared_not_evidence(self) -> str | None:
        """Why the report itself shows this mention is no evidence of the target, or ``None``."""
        if self.role is EvidenceRole.OWN_PROJECT:
            return f"`{self.path}` is a file of the reader's own project, not of the target"
        return None

    @property
    def key(self) -> str:
        """A stable identity of this evidence within its report (survives re-parsing)."""
        kind, rest = self._key_parts(self._keyed_digest())
        return f"{kind}:{self.line}:{rest}"

    @property
    def identity(self) -> str:
        """:attr:`key` without the report line: the same evidence once lines above it moved
        (what SARIF fingerprints follow)."""
        kind, rest = self._key_parts(self._keyed_digest())
        return f"{kind}:{rest}"

    def names(self) -> tuple[str, str, str]:
        """:attr:`key`, :attr:`identity` and :func:`text_digest` at once: an item's outcome
        names its evidence all three ways, from one digest of the text."""
        digest = text_digest(self.text)
        kind, rest = self._key_parts(digest)
        return f"{kind}:{self.line}:{rest}", f"{kind}:{rest}", digest

    def _keyed_digest(self) -> str:
        return text_digest(self.text) if self.kind is EvidenceKind.QUOTE and self.text else ""

    def _key_parts(self, digest: str) -> tuple[str, str]:
        """The key's kind and what follows its report line."""
        if self.kind is EvidenceKind.SYMBOL:  # its path is only known once resolved
            return "symbol", f"{self.text}"
        lines = self.written_lines or self.cited_lines
        cited = str(lines) if lines else ""
        # A bare file name keeps its key once resolved to a path (see Engine.checkable).
        where = self.written or (self.text if self.role is EvidenceRole.BASENAME and self.text else self.path)
        rest = f"{where}:{cited}:{self.source or ''}:{self.pin or ''}"
        if self.kind is EvidenceKind.QUOTE and self.text:
            # Two quotations of one file on one line (``"a b c" / "d e f"``) are two pieces of evidence.
            rest += ":" + digest[:8]
        return self.kind.value, rest

    @property
    def name(self) -> str:
        """The item-name fragment for this evidence: ``quote@L141``.

        Cited paths and line anchors add the path (and a link's own commit),
        since one line often cites several."""
        at = f"@{self.pin[:12]}" if self.pin else ""
        if self.kind is EvidenceKind.PATH or self.kind is EvidenceKind.DIRECTORY:
            return f"{self.kind.value}@L{self.line}:{self.path}{at}"
        if self.kind is EvidenceKind.LINES:
            return f"{self.kind.value}@L{self.line}:{self.path}:{self.cited_lines}{at}"
        if self.kind is EvidenceKind.SYMBOL:
            return f"{self.kind.value}@L{self.line}:{self.text}"
        if self.kind is EvidenceKind.COMMIT:
            return f"{self.kind.value}@L{self.line}:{(self.pin or '')[:12]}"
        return f"{self.kind.value}@L{self.line}"


@_loaded_quickly
@dataclass(frozen=True, slots=True)
class Status:
    """A status line: ``<qualifier> <axis> conclusion status: <value>``.

    ``axis`` is the last word before ``conclusion status`` (``implementation``,
    ``operation``, ...); ``qualifier`` is whatever precedes it (``signoff and
    reconstruction``), possibly empty. ``value`` is as written, lower-cased;
    ``canonical`` maps legacy spellings onto the vocabulary.
    """

    axis: str
    qualifier: str
    value: str
    line: int
    #: character offsets of ``value`` within its report line (for write-back)
    column: int = 0
    #: where ``value`` is written in the report (promotion write-back edits there)
    span: Span | None = field(default=None, compare=False)

    @property
    def canonical(self) -> str:
        return LEGACY_STATUS.get(self.value, self.value)

    @property
    def known(self) -> bool:
        return self.canonical in STATUS_VALUES


@_loaded_quickly
@dataclass(frozen=True, slots=True)
class Reference:
    """A record ID mentioned in prose, ``Part of:`` or an ``On ID`` annotation."""

    target: str
    line: int
    context: str = "prose"  # prose | part-of | annotation


@_loaded_quickly
@dataclass(frozen=True, slots=True)
class TextBlock:
    """A span of report text kept verbatim: a route's ``Selection predicate:``
    bullet, or a fenced ```memreport block of inline predicates."""

    text: str
    line: int
    end_line: int
    #: a fenced block's info word (``memreport``), empty for other spans
    info: str = ""


@_loaded_quickly
@dataclass(frozen=True, slots=True)
class Record:
    """A declared record (``MEM-OBJ-cache-index`` + ``Label: ...``) or an
    annotation of another record (``On RT-RTE-request-loop``).

    For an annotation ``is_annotation`` is true, ``id`` is the annotated
    record's ID and ``kind``/``lens`` are those its ID spells.
    """

    id: str
    lens: str
    kind: str
    line: int
    end_line: int
    label: str | None = None
    label_line: int | None = None
    part_of: str | None = None
    is_annotation: bool = False
    statuses: tuple[Status, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    references: tuple[Reference, ...] = ()
    selection_predicates: tuple[TextBlock, ...] = ()
    inline_predicates: tuple[TextBlock, ...] = ()

    @property
    def kind_name(self) -> str:
        return RECORD_KINDS.get(self.kind, self.kind)

    @property
    def node_name(self) -> str:
        """How items of this record are named: the ID, or ``On-ID@L12`` for
        an annotation (an ID may be annotated several times)."""
        return f"On-{self.id}@L{self.line}" if self.is_annotation else self.id


@_loaded_quickly
@dataclass(frozen=True, slots=True)
class Source:
    """A source repository (``SRC-1`` or a review's ``owner/name``) and its pin.

    ``pin`` is the commit as the report states it (any revision spelling), or
    ``None`` when the report pins nothing. ``url`` is a repository URL when
    the report gives one.
    """

    id: str
    pin: str | None = None
    url: str | None = None
    line: int | None = None
    #: ``owner/name`` the report names for this source (``github.com/owner/name``): it
    #: binds ``--memreport-repo owner/name=PATH`` case-insensitively, as GitHub does
    repository: str | None = None
    #: the subtree the analysis is about (``the subtree src/widgets of ...``): bare names
    #: and relative paths resolve there first
    subject: str | None = None
    #: the analyst's checkout root (``Checkout: /home/ana/src/widgets``)
    checkout: str | None = None
    #: the report file that states ``line`` (a run's register lives in one of its files)
    file: str | None = None
    #: declared by a source-register row (so ``SRC-n`` mentions resolve to it)
    registered: bool = False
    #: ``owner/name`` words the document writes near its pin (first) and in its prose when it
    #: names no repository for certain: the one of them the user maps is this source's
    mentioned: tuple[str, ...] = ()
    #: where the document's pin statements write ``pin`` (re-pin rewrites exactly there); empty
    #: when no reader placed them (re-pin then rewrites the commit wherever the report writes it)
    pin_spans: tuple[Span, ...] = field(default=(), compare=False)


def run_pin_key(keys: Collection[str | None], source_id: str | None) -> str | None | bool:
    """Which of ``--memreport-pin``'s keys (``keys``) gives source ``source_id`` its
    revision: its own (``SRC-2``, ``owner/name``; ``SRC-1`` for a report that names no
    source), else the unkeyed one (``None``: every source); ``False`` when none does. The
    one rule for the parse (is a document pinned by the run) and the binding (at what)."""
    own = source_id or "SRC-1"
    if own in keys:
        return own
    return None if None in keys else False


@_loaded_quickly
@dataclass(frozen=True, slots=True)
class Finding:
    """Something wrong with the report's structure, at a report line."""

    line: int
    message: str
    code: str = "structure"  # structure | duplicate-id | no-label | status | path | parse


@_loaded_quickly
@dataclass(frozen=True, slots=True)
class Report:
    """A parsed report: the one thing every dialect produces."""

    path: str
    dialect: str
    title: str | None = None
    sources: tuple[Source, ...] = ()
    records: tuple[Record, ...] = ()
    #: evidence outside any record: it belongs to the report itself
    evidence: tuple[Evidence, ...] = ()
    #: references outside any record
    references: tuple[Reference, ...] = ()
    #: status lines outside any record (e.g. a status table in the boundary section)
    statuses: tuple[Status, ...] = ()
    findings: tuple[Finding, ...] = ()
    line_count: int = 0
    #: every fenced ```memreport block (in or outside records), found in every dialect
    blocks: tuple[TextBlock, ...] = ()
    #: free-form facts a dialect wants in JSON (e.g. front matter keys)
    meta: dict = field(default_factory=dict, compare=False, hash=False)
    #: the analysis run (folder of files written together) this report belongs to, if any
    run: str | None = None

    def all_evidence(self) -> list[Evidence]:
        """Every piece of evidence, in report order."""
        items = list(self.evidence)
        for record in self.records:
            items.extend(record.evidence)
        return sorted(items, key=lambda e: (e.line, e.kind.value, e.path))

    def all_references(self) -> list[Reference]:
        refs = list(self.references)
        for record in self.records:
            refs.extend(record.references)
        return sorted(refs, key=lambda r: r.line)

    def declared_ids(self) -> set[str]:
        """Record IDs declared here, and the ``SRC-n`` rows of the (run's) source register."""
        ids = {r.id for r in self.records if not r.is_annotation}
        ids.update(s.id for s in self.sources if s.registered)
        return ids

    def source(self, source_id: str | None) -> Source | None:
        """The source an evidence names (``None``: the default, i.e. first)."""
        if source_id is None:
            return self.sources[0] if self.sources else None
        for src in self.sources:
            if src.id == source_id:
                return src
        return None


def predicate_key(predicate) -> str:
    """A stable identity of a claims-file predicate: its file, line and index there."""
    return f"{predicate.file}:{predicate.line}:{predicate.index}"


@_loaded_quickly
@dataclass(frozen=True, slots=True)
class Run:
    """An analysis run: the reports of one folder written together (docs/FORMATS.md §3).

    They share one source register, one repository and one pin; each report
    already carries the run's sources, so nothing downstream needs to know it
    came from a run. ``identity`` is the run's ID as its files state it
    (``RUN `AGS-...```), or ``None``; ``folder`` is where its files lie.
    """

    folder: str
    identity: str | None
    reports: tuple[Report, ...]

    @property
    def name(self) -> str:
        return self.identity or self.folder
