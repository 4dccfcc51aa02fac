"""Analysis-run records (FORMAT.md §3): records as pipe-table rows.

A tables report pins its run with ``**Revision:** `<sha>``` (or ``**Frozen
revision:**``) and/or a source register, a table whose rows start with
``SRC-n`` and give a repository, a revision and sometimes a file. Its records
are table rows whose first cell is an ID. IDs here are looser than the record
reports' ``PREFIX-KIND-slug``: ``OBJ-05a``, ``CLM-1/a1`` and ``MEM-OBJ-cache``
are all IDs; the kind is the segment that names one (``OBJ``), the lens what
precedes it (``MEM``, or empty).

Anchors in a record's cells become its evidence:

* `` `src/domain/repo_service.ts:1349-1379,1549-1556` ``: one ``LINES``
  evidence per range (``-`` or en dash ``–``);
* ``SRC-1:96–101``: lines of the file the register row of ``SRC-1`` names
  (a :class:`~pytest_memreport.model.Finding` when it names none);
* ``execution_service.ts:313``, a bare file name: evidence whose ``path`` is
  that name and whose label is :data:`BASENAME`; it is resolved against the
  repository tree by whoever checks it (one candidate: fine; several: say so);
* links into a repository, as in reviews; backticked repo-relative paths.

Statuses in cells are read as in the record reports (several to a cell).
Markdown structure comes from markdown-it (:func:`.lexing.markdown_layout`);
plain-text renderings give tables as tab-separated lines. Whatever cannot be
understood is skipped; the parser never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import (
    RECORD_KINDS,
    Evidence,
    EvidenceKind,
    Finding,
    Record,
    Reference,
    Report,
    Source,
    Status,
)
from . import core as lexing  # the shared core of the dialects (dialects/core/)
from .review import BACKTICKED_PATH, repo_path_spec

DIALECT = "tables"

#: label of evidence that names a file by its base name only (resolved against the tree)
BASENAME = "basename"

#: a table-row ID: an upper-case prefix, then ``-`` segments, optionally ``/`` parts
TABLE_ID = re.compile(r"[A-Z][A-Z0-9]{0,15}(?:-[A-Za-z0-9]+)+(?:/[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)*")
#: the same in running text (the look-behind keeps one attempt per word: linear)
_TABLE_ID_IN_TEXT = re.compile(
    r"(?<![\w/.-])[A-Z][A-Z0-9]{0,15}(?:-[A-Za-z0-9]+)+(?:/[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)*(?![\w-])"
)
_SOURCE_ONLY = re.compile(r"SRC-(\d{1,6}):?")
_SOURCE_RANGES = re.compile(r"SRC-(\d{1,6}):(?:L)?(\d{1,9}(?:[-–]L?\d{1,9})?(?:,\d{1,9}(?:[-–]\d{1,9})?)*)")
#: ``**Revision:** `<sha>``` / ``Frozen revision: <sha>`` (not ``Reviewed revision``)
_REVISION = re.compile(
    r"(?i)(?<![\w-])(?<!reviewed )(?:frozen[ \t]+)?revision[*_`]*[ \t]*:[*_` \t]*\[?([0-9a-f]{7,64})(?![0-9a-z])"
)
_MARKUP = "*_`~ \t"

#: header words (case-folded) of the column that holds a row's ID / label / kind
ID_HEADERS = frozenset({"", "id", "ids", "#", "record", "records", "record id", "ref", "key", "claim id", "object id"})
LABEL_HEADERS = ("label", "name", "title")
KIND_HEADERS = ("kind", "type", "record kind")
#: register columns
REPOSITORY_HEADERS = ("repository", "repo", "url", "remote", "origin", "source repository")
REVISION_HEADERS = ("revision", "frozen revision", "commit", "sha", "pin", "rev", "pinned commit")
PATH_HEADERS = ("path", "file", "files", "artifact", "location")
_KIND_BY_NAME = {name: key for key, name in RECORD_KINDS.items()}


def parse(path: str, text: str) -> Report:
    """Parse an analysis-run tables report (Markdown when ``path`` ends in
    ``.md``, else a plain-text rendering). Never raises."""
    return _Parser(path, text).parse()


def table_id(cell: str) -> str | None:
    """The ID a first cell holds (markup stripped), or ``None``.

    A loose ID must contain a digit (``OBJ-05a``; ``UTF-8`` aside, prose
    words like ``HTTP-GET`` are not IDs) unless it is a full record ID.
    ``SRC-n`` cells are source-register rows, not records.
    """
    text = cell.strip(_MARKUP)
    if len(text) > 200 or not TABLE_ID.fullmatch(text):
        return None
    if lexing.SOURCE_ID.fullmatch(text):
        return None
    if lexing.RECORD_ID_LINE.fullmatch(text) or any(ch.isdigit() for ch in text):
        return text
    return None


def split_table_id(record_id: str) -> tuple[str, str | None]:
    """``(lens, kind)`` of a table ID: the first segment naming a record kind is
    the kind and what precedes it the lens (``MEM-OBJ-x`` → ``MEM``, ``OBJ``;
    ``OBJ-05a`` → ``""``, ``OBJ``); ``None`` when no segment names one."""
    head = record_id.split("/", 1)[0]
    segments = head.split("-")
    for index, segment in enumerate(segments[:-1] if len(segments) > 1 else segments):
        if segment in RECORD_KINDS:
            return "-".join(segments[:index]), segment
    return "", None


def _header_index(header: tuple[str, ...], names: tuple[str, ...]) -> int | None:
    folded = [" ".join(cell.strip(_MARKUP).casefold().split()) for cell in header]
    for name in names:
        if name in folded:
            return folded.index(name)
    return None


@dataclass
class _Register:
    """A source-register row (or what prose says about a source)."""

    id: str
    line: int
    url: str | None = None
    pin: str | None = None
    path: str | None = None


@dataclass
class _Row:
    """A record row while its cells are read."""

    record_id: str
    lens: str
    kind: str
    line: int
    label: str | None
    evidence: list[Evidence] = field(default_factory=list)
    statuses: list[Status] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)

    def freeze(self) -> Record:
        return Record(
            id=self.record_id, lens=self.lens, kind=self.kind, line=self.line, end_line=self.line,
            label=self.label, label_line=self.line if self.label else None,
            statuses=tuple(sorted(self.statuses, key=lambda s: s.column)),
            evidence=tuple(self.evidence), references=tuple(self.references),
        )


@dataclass(frozen=True)
class _Token:
    text: str
    line: int
    code: bool


class _Parser(lexing.DocumentParser):
    def __init__(self, path: str, text: str) -> None:
        super().__init__(path, text, plain_front_matter=False)
        self.tables = list(self.layout.tables) if self.markdown else lexing.plain_tables(self.blocks)
        self.registers: dict[str, _Register] = {}
        self.revision: tuple[str, int] | None = None
        self.rows: list[_Row] = []
        self.row_at: dict[int, _Row] = {}
        self.prefixes: set[str] = set()
        self.report_evidence: list[Evidence] = []
        self.report_references: list[Reference] = []
        self.report_statuses: list[Status] = []
        self.mentioned: dict[str, int] = {}
        self.table_lines: set[int] = set()
        self.skip: set[int] = set(range(1, (self.front_matter_end or 0) + 1))
        for first, last in self.layout.fences:
            self.skip.update(range(first, min(last, self.count) + 1))

    # ------------------------------------------------------------------ driver

    def parse(self) -> Report:
        self._revision_and_pins()
        self._structure()
        self._cells()
        self._prose()
        self._statuses()
        sources = self._sources()
        records = tuple(row.freeze() for row in self.rows)
        return Report(
            path=self.path,
            dialect=DIALECT,
            title=self.heading_title(),
            sources=sources,
            records=records,
            evidence=tuple(sorted(self.report_evidence, key=lambda e: (e.line, e.end_line))),
            references=tuple(sorted(self.report_references, key=lambda r: r.line)),
            statuses=tuple(sorted(self.report_statuses, key=lambda s: (s.line, s.column))),
            findings=tuple(sorted(self.findings, key=lambda f: f.line)),
            line_count=self.count,
        )

    # ------------------------------------------------------------------ sources

    def _register(self, source_id: str, line: int) -> _Register:
        found = self.registers.get(source_id)
        if found is None:
            found = _Register(source_id, line)
            self.registers[source_id] = found
        return found

    def _revision_and_pins(self) -> None:
        """``**Revision:**`` lines, ``SRC-n commit <sha>`` and ``Source:`` URLs in prose."""
        for line in self.lines:
            number, text = line.number, line.text
            if number in self.skip or not text.strip():
                continue
            revision = _REVISION.search(text)
            if revision and self.revision is None:
                self.revision = (revision.group(1).lower(), number)
            for pin in lexing.find_pins(text):
                if pin.source is None:
                    if self.revision is None:
                        self.revision = (pin.sha, number)
                    continue
                register = self._register(pin.source, number)
                if register.pin is None:
                    register.pin = pin.sha
            url = lexing.find_repository_url(text)
            if url:
                mentioned = lexing.find_source_ids(text)
                register = self._register(mentioned[0] if mentioned else "SRC-1", number)
                register.url = register.url or url

    def _sources(self) -> tuple[Source, ...]:
        revision = self.revision[0] if self.revision else None
        for source_id, line in self.mentioned.items():
            self._register(source_id, line)
        if not self.registers and (revision or self.report_evidence or any(r.evidence for r in self.rows)):
            self._register("SRC-1", self.revision[1] if self.revision else 1)
        ordered = sorted(self.registers.values(), key=lambda r: int(r.id.split("-")[1]))
        return tuple(Source(r.id, r.pin or revision, r.url, r.line) for r in ordered)

    def _register_row(self, source_id: str, row: lexing.TableRow, header: tuple[str, ...]) -> None:
        register = self._register(source_id, row.line)
        register.line = row.line
        pin_column = _header_index(header, REVISION_HEADERS)
        path_column = _header_index(header, PATH_HEADERS)
        for index, cell in enumerate(row.cells[1:], start=1):
            # Without a revision column any sha-like word is the pin; with one, only its own.
            shas = pin_column is None or index == pin_column
            words = [piece.href for piece in cell.pieces if piece.kind == "link" and piece.href]
            words.extend(word.strip(_MARKUP + ",;") for word in row.texts[index].split())
            for word in words:
                self._register_value(register, word, row.line, index == path_column, shas)

    def _register_value(self, register: _Register, word: str, line: int, path_column: bool,
                        shas: bool) -> None:
        """One word of a register row: a repository URL, a sha or the source's file."""
        if not word:
            return
        link = lexing.parse_repository_link(word)
        if link is not None:
            register.url = register.url or link.url
            if link.ref_is_sha and register.pin is None:
                register.pin = link.ref.lower()
            if link.kind == "blob" and link.path and register.path is None:
                register.path = link.path
            return
        if word.lower().startswith(("http://", "https://")):
            repository = lexing.repository_of(word)
            if repository is not None:
                register.url = register.url or repository[1]
            return
        if lexing.is_sha(word):
            if shas and register.pin is None:
                register.pin = word.lower()
            return
        spec = repo_path_spec(word, strict=not path_column)
        if spec is not None and not spec.ranges and not spec.is_directory and register.path is None:
            register.path = spec.path
            self.report_evidence.append(Evidence(EvidenceKind.PATH, spec.path, line, line,
                                                 source=register.id, label="source register"))

    # ------------------------------------------------------------------ pass 1: rows

    def _structure(self) -> None:
        declared: dict[str, int] = {}
        for table in self.tables:
            header = table.header.texts
            id_rows = [row for row in table.rows if row.cells and table_id(row.texts[0])]
            records_table = bool(header) and (
                header[0].strip(_MARKUP).casefold() in ID_HEADERS or len(id_rows) >= 2
            )
            label_column = _header_index(header, LABEL_HEADERS)
            kind_column = _header_index(header, KIND_HEADERS)
            for row in table.rows:
                self.table_lines.add(row.line)
                if not row.cells:
                    continue
                first = row.texts[0].strip(_MARKUP)
                source = lexing.SOURCE_ID.fullmatch(first)
                if source:
                    self._register_row(f"SRC-{int(source.group(1))}", row, header)
                    continue
                record_id = table_id(first)
                if record_id is None or not records_table:
                    continue
                lens, kind = split_table_id(record_id)
                if kind is None and kind_column is not None and kind_column < len(row.cells):
                    named = row.texts[kind_column].strip(_MARKUP).casefold()
                    kind = _KIND_BY_NAME.get(named) or (named.upper() if named.upper() in RECORD_KINDS else None)
                if kind is None:
                    kind = record_id.split("-", 1)[0]
                label = None
                if label_column is not None and 0 < label_column < len(row.cells):
                    label = row.texts[label_column].strip(_MARKUP) or None
                elif label_column is None and len(row.cells) > 1:
                    label = _fallback_label(row.texts[1])
                if record_id in declared:
                    self.findings.append(Finding(
                        row.line,
                        f"{record_id} is declared again (first at line {declared[record_id]}); "
                        "rename one of the rows or merge them",
                        "duplicate-id",
                    ))
                else:
                    declared[record_id] = row.line
                entry = _Row(record_id, lens, kind, row.line, label)
                self.rows.append(entry)
                self.row_at[row.line] = entry
                self.prefixes.add(record_id.split("-", 1)[0])
            self.table_lines.add(table.header.line)

    # ------------------------------------------------------------------ pass 2: cells and prose

    def _cells(self) -> None:
        for table in self.tables:
            for row in table.rows:
                if not row.cells:
                    continue
                first = row.texts[0].strip(_MARKUP)
                if lexing.SOURCE_ID.fullmatch(first):
                    continue
                owner = self.row_at.get(row.line)
                cells = row.cells[1:] if owner is not None else row.cells
                for cell in cells:
                    self._anchors(_tokens(cell.pieces), owner)
                    self._links(cell.pieces, owner)
                    self._references(cell.text, row.line, owner)

    def _prose(self) -> None:
        if self.markdown:
            for inline in self.layout.inlines:
                if inline.line in self.table_lines:
                    continue
                self._anchors(_tokens(inline.pieces), None, prose=True)
                self._links(inline.pieces, None)
                for piece in inline.pieces:
                    self._references(piece.text, piece.line, None)
            return
        for line in self.lines:
            if line.number in self.skip or line.number in self.table_lines or not line.text.strip():
                continue
            pieces = (lexing.Piece("text", line.text, line.number),)
            self._anchors(_tokens(pieces), None, prose=True)
            self._references(line.text, line.number, None)

    def _statuses(self) -> None:
        for line in self.lines:
            number, text = line.number, line.text
            if number in self.skip or "conclusion" not in text.lower():
                continue
            owner = self.row_at.get(number)
            for found in lexing.find_statuses(text):
                if not found.value:
                    self.findings.append(Finding(
                        number,
                        f"{(found.axis + ' ').lstrip()}conclusion status has no value; write one of "
                        "absent, inapplicable, uninspected, claimed, afforded, observed, causally supported",
                        "status",
                    ))
                    continue
                status = Status(found.axis, found.qualifier, found.value, number, found.column)
                (owner.statuses if owner else self.report_statuses).append(status)

    def _add(self, owner: _Row | None, evidence: Evidence) -> None:
        target = owner.evidence if owner is not None else self.report_evidence
        if evidence not in target:
            target.append(evidence)

    def _mention(self, source_id: str, line: int) -> None:
        self.mentioned.setdefault(source_id, line)

    def _anchors(self, tokens: list[_Token], owner: _Row | None, prose: bool = False) -> None:
        """Evidence from the words of a cell (or, with ``prose``, of a paragraph)."""
        owner_id = owner.record_id if owner else None
        source: str | None = None
        for token in tokens:
            text = token.text.strip("([{").rstrip(".,;)]}").strip("*_\"'")
            if not text:
                continue
            only = _SOURCE_ONLY.fullmatch(text)
            if only:
                source = f"SRC-{int(only.group(1))}"
                self._mention(source, token.line)
                continue
            ranged = _SOURCE_RANGES.fullmatch(text)
            if ranged:
                self._source_ranges(f"SRC-{int(ranged.group(1))}", ranged.group(2), token.line, owner)
                continue
            if "://" in text:
                continue
            spec = lexing.parse_path_spec(text)
            if spec is None:
                continue
            if spec.ranges or spec.bad_range:
                lenient = repo_path_spec(text, strict=False)
                if lenient is None:
                    continue
                spec = lenient
            else:
                # No line numbers: a path only when it is unmistakably one.
                strict = repo_path_spec(text)
                if strict is None:
                    if token.code and "/" not in spec.path and not prose and _has_extension(spec.path):
                        self._add(owner, Evidence(EvidenceKind.PATH, spec.path, token.line, token.line,
                                                  source=source, owner=owner_id, label=BASENAME))
                    continue
                if prose and not token.code:
                    continue  # paths in running prose of a tables report are talk, not anchors
                spec = strict
            if "/" not in spec.path.rstrip("/"):
                label: str | None = BASENAME
            elif prose and token.code and not spec.ranges:
                label = BACKTICKED_PATH  # prose may name a file it only talks about
            else:
                label = None
            self._spec_evidence(spec, token.line, owner, source, label)

    def _spec_evidence(self, spec: lexing.PathSpec, line: int, owner: _Row | None, source: str | None,
                       label: str | None) -> None:
        owner_id = owner.record_id if owner else None
        if spec.bad_range:
            self.findings.append(Finding(
                line, f"{spec.path}:{spec.bad_range} is not a line range; write start-end with 1 <= start <= end",
                "path",
            ))
        if spec.ranges:
            for cited in spec.ranges:
                self._add(owner, Evidence(EvidenceKind.LINES, spec.path, line, line, cited_lines=cited,
                                          source=source, owner=owner_id, label=label))
        elif spec.is_directory:
            self._add(owner, Evidence(EvidenceKind.DIRECTORY, spec.path.rstrip("/"), line, line,
                                      source=source, owner=owner_id, label=label))
        elif not spec.bad_range:
            self._add(owner, Evidence(EvidenceKind.PATH, spec.path, line, line, source=source,
                                      owner=owner_id, label=label))

    def _source_ranges(self, source_id: str, ranges: str, line: int, owner: _Row | None) -> None:
        """``SRC-1:96–101``: lines of the file the register names for ``SRC-1``."""
        self._mention(source_id, line)
        register = self.registers.get(source_id)
        if register is None or register.path is None:
            self.findings.append(Finding(
                line,
                f"{source_id}:{ranges} cites lines, but the source register names no file for {source_id}; "
                f"add its path to the register row or write path:{ranges}",
                "path",
            ))
            return
        spec = lexing.parse_path_spec(f"{register.path}:{ranges}")
        if spec is None:
            return
        self._spec_evidence(spec, line, owner, source_id, None)

    def _links(self, pieces: tuple[lexing.Piece, ...], owner: _Row | None) -> None:
        owner_id = owner.record_id if owner else None
        for piece in pieces:
            if piece.kind != "link" or not piece.href:
                continue
            link = lexing.parse_repository_link(piece.href)
            if link is None or link.kind == "commit" or not link.path:
                continue
            source = self._source_for_link(link)
            pin = link.ref.lower() if link.ref_is_sha else None
            label = piece.text.strip() or None
            path = link.path.rstrip("/")
            line = piece.line
            if link.kind == "tree":
                evidence = Evidence(EvidenceKind.DIRECTORY, path, line, line, source=source, pin=pin,
                                    owner=owner_id, label=label)
            elif link.lines is not None:
                evidence = Evidence(EvidenceKind.LINES, path, line, line, cited_lines=link.lines,
                                    source=source, pin=pin, owner=owner_id, label=label)
            else:
                evidence = Evidence(EvidenceKind.PATH, path, line, line, source=source, pin=pin,
                                    owner=owner_id, label=label)
            self._add(owner, evidence)

    def _source_for_link(self, link: lexing.RepositoryLink) -> str:
        """The ``SRC-n`` whose register URL is the link's repository, else ``owner/name``."""
        for register in self.registers.values():
            named = lexing.repository_of(register.url) if register.url else None
            if named is not None and named[0].casefold() == link.repo_id.casefold():
                return register.id
        return link.repo_id

    def _references(self, text: str, line: int, owner: _Row | None) -> None:
        if "-" not in text:
            return
        own = owner.record_id if owner else None
        target = owner.references if owner else self.report_references
        seen: set[str] = set()
        for found in lexing.find_record_ids(text):
            if found.id != own and found.id not in seen:
                seen.add(found.id)
                target.append(Reference(found.id, line))
        for match in _TABLE_ID_IN_TEXT.finditer(text):
            value = match.group()
            prefix = value.split("-", 1)[0]
            if value == own or value in seen or prefix not in self.prefixes or prefix == "SRC":
                continue
            if not any(ch.isdigit() for ch in value) and not lexing.RECORD_ID_LINE.fullmatch(value):
                continue
            seen.add(value)
            target.append(Reference(value, line))


def _fallback_label(text: str) -> str | None:
    """A row's name when its table has no Label/Name/Title column: the cell after
    the ID, unless that cell holds anchors or statuses rather than words."""
    text = " ".join(text.strip(_MARKUP).split())
    if not text or "conclusion status" in text.lower() or not any(ch.isalpha() for ch in text):
        return None
    words = text.split()
    if all(lexing.parse_path_spec(word) is not None or _SOURCE_RANGES.fullmatch(word.rstrip(",;"))
           for word in words):
        return None
    return text


def _has_extension(name: str) -> bool:
    return "." in name.strip(".") and not name.endswith(".")


def _tokens(pieces: tuple[lexing.Piece, ...]) -> list[_Token]:
    """The words of a cell or paragraph; a code span's words are marked ``code``."""
    tokens: list[_Token] = []
    for piece in pieces:
        if piece.kind == "link":
            continue
        for word in piece.text.split():
            tokens.append(_Token(word, piece.line, piece.kind == "code"))
    return tokens
