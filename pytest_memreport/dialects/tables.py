"""Analysis-run records (docs/FORMATS.md §3): records as pipe-table rows.

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
  ``PROPOSED-SRC-24:495–500``: of the file the row of that entry names, in any
  file of the run (:attr:`.runfacts.RunContext.entries`);
* a quotation carries, as its ``context``, the other files its row or paragraph
  cites: it is true if one of them holds it (:mod:`..checks.quotesites`); a bare
  name carries them too, to choose among its places in the tree;
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
from dataclasses import dataclass, field, replace

from ..model import (
    RECORD_KINDS,
    Evidence,
    EvidenceKind,
    EvidenceRole,
    Finding,
    Record,
    Reference,
    Report,
    Source,
    Status,
)
from ..model import LOOKUP_CHECKOUT, LOOKUP_TREE
from . import core as lexing  # the shared core of the dialects (dialects/core/)
from . import runfacts
from .core import anchors as citations
from .core.grammar import TABLE_SOURCE_RANGES
from .review import BACKTICKED_PATH
from .runfacts import FileFacts, RegisterRow, RunContext
from .tablefacts import (  # noqa: F401 - table_id and split_table_id are this dialect's face
    ID_HEADERS,
    KIND_HEADERS,
    LABEL_HEADERS,
    TABLE_ID,
    _KIND_BY_NAME,
    _MARKUP,
    _TABLE_ID_IN_TEXT,
    FactsReader,
    _header_index,
    _sid,
    split_table_id,
    table_id,
)

DIALECT = "tables"

#: a column whose cells are line ranges of the file the row cites (``| File | Lines |``)
_LINES_HEADER = re.compile(r"(?:cited )?(?:lines?|line ranges?|ranges?|line numbers?|span|ll\.?)")

#: a manifest's columns (docs/FORMATS.md, "Any document"): files with their blob ids and sizes
_MANIFEST_HEADER = re.compile(r"(?i)\b(?:blob|oid|object(?: id)?|size|bytes|sha(?:-?1|-?256)?|hash)\b")
#: a plain number: under a manifest's "Lines" header, the file's length
_LENGTH = re.compile(r"\d{1,9}")

#: label of evidence that names a file by its base name only (resolved against the tree)
BASENAME = "basename"
#: label of a short double-quoted phrase next to a citation of the file it quotes
INLINE_QUOTATION = "inline quotation"
#: a quoted phrase with no citation beside it, in a cell, row or paragraph that cites a
#: file: a quotation of that file where the file holds it, else the report's own words
#: (a term, a scare quote) and so not evidence; never a failure
LOOSE_QUOTATION = "quotation near a citation"

def parse(path: str, text: str, run: RunContext | None = None) -> Report:
    """Parse an analysis-run tables report (Markdown when ``path`` ends in
    ``.md``, else a plain-text rendering), with the facts of its ``run`` (the
    register and pin stated in its sibling files). Never raises."""
    return _Parser(path, text, run).parse()


def facts(path: str, text: str) -> FileFacts:
    """What this file states about its run: register rows, revision, repository,
    subject subtree, checkout, run identity. Never raises."""
    parser = _Parser(path, text, None)
    parser.read_facts()
    return parser.facts


@dataclass
class _Row:
    """A record row while its cells are read."""

    record_id: str
    lens: str
    kind: str
    line: int
    label: str | None
    #: the ID is a record declared in an earlier table of the run (a table of more columns)
    again: bool = False
    evidence: list[Evidence] = field(default_factory=list)
    statuses: list[Status] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)

    def freeze(self) -> Record:
        return Record(
            id=self.record_id, lens=self.lens, kind=self.kind, line=self.line, end_line=self.line,
            label=self.label, label_line=self.line if self.label else None, is_annotation=self.again,
            statuses=tuple(sorted(self.statuses, key=lambda s: s.column)),
            evidence=tuple(self.evidence), references=tuple(self.references),
        )


class _Parser(lexing.DocumentParser):
    def __init__(self, path: str, text: str, run: RunContext | None) -> None:
        super().__init__(path, text, plain_front_matter=False)
        self.tables = list(self.layout.tables) if self.markdown else lexing.plain_tables(self.blocks)
        self.run = run
        self.facts = FileFacts(path)
        self.rows: list[_Row] = []
        self.row_at: dict[int, _Row] = {}
        self.prefixes: set[str] = set(run.prefixes) if run else set()
        self.report_evidence: list[Evidence] = []
        self.report_references: list[Reference] = []
        self.report_statuses: list[Status] = []
        self.mentioned: dict[str, int] = {}
        self.table_lines: set[int] = set()
        self.skip: set[int] = set(range(1, (self.front_matter_end or 0) + 1))
        for first, last in self.layout.fences:
            self.skip.update(range(first, min(last, self.count) + 1))
        self.context: RunContext | None = None

    def read_facts(self) -> None:
        """The file's facts about its run, into ``facts`` (and its ID prefixes into ``prefixes``)."""
        FactsReader(self.path, self.lines, self.tables, self.skip, self.prefixes, self.facts).read_facts()

    # ------------------------------------------------------------------ driver

    def parse(self) -> Report:
        self.read_facts()
        self.context = self.run or runfacts.merge(self.path.rsplit("/", 1)[0], [self.facts], frozenset())
        if self.run is not None:
            self.findings.extend(self.run.findings.get(self.path, ()))
        else:
            self.findings.extend(self.context.findings.get(self.path, ()))
        self._records()
        self._cells()
        self._prose()
        self._fences()
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
            run=self.run.name if self.run else None,
        )

    # ------------------------------------------------------------------ facts about the run

    # ------------------------------------------------------------------ pass 1: rows

    def _records(self) -> None:
        declared: dict[str, int] = {}
        for table in self.tables:
            header = table.header.texts
            id_rows = [row for row in table.rows if row.cells and table_id(row.texts[0])]
            records_table = bool(header) and (
                header[0].strip(_MARKUP).casefold() in ID_HEADERS or len(id_rows) >= 2
            )
            label_column = _header_index(header, LABEL_HEADERS)
            kind_column = _header_index(header, KIND_HEADERS)
            in_table: dict[str, int] = {}
            for row in table.rows:
                self.table_lines.add(row.line)
                if not row.cells:
                    continue
                first = row.texts[0].strip(_MARKUP)
                if citations.SOURCE_REF.fullmatch(first):
                    self._register_evidence(self.facts.registers.get(_sid(first)), row.line)
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
                again = False
                if record_id in in_table:
                    self.findings.append(Finding(
                        row.line,
                        f"{record_id} is declared again (first at line {in_table[record_id]}); "
                        "rename one of the rows or merge them",
                        "duplicate-id",
                    ))
                elif record_id in declared:
                    again = True  # the same record in another table: more of its columns
                in_table.setdefault(record_id, row.line)
                declared.setdefault(record_id, row.line)
                entry = _Row(record_id, lens, kind, row.line, label, again)
                self.rows.append(entry)
                self.row_at[row.line] = entry
            self.table_lines.add(table.header.line)

    def _register_evidence(self, register: RegisterRow | None, line: int) -> None:
        """A register row's own files are evidence (they exist at the pin)."""
        if register is None:
            return
        for written, ranges in register.paths:
            path, lookup = self._target(written, register)
            if not path:
                continue
            if ranges:
                for cited in ranges:
                    self._add(None, Evidence(EvidenceKind.LINES, path, line, line, cited_lines=cited,
                                             source=register.id, label="source register", role=EvidenceRole.REGISTER,
                                             lookup=lookup))
            else:
                kind = EvidenceKind.DIRECTORY if written.endswith("/") else EvidenceKind.PATH
                self._add(None, Evidence(kind, path.rstrip("/") or path, line, line, source=register.id,
                                         label="source register", role=EvidenceRole.REGISTER, lookup=lookup))

    # ------------------------------------------------------------------ sources

    def _sources(self) -> tuple[Source, ...]:
        context = self.context
        assert context is not None, "read() sets the run context before the sources are built"
        registers = dict(context.registers)
        for source_id, register in self.facts.registers.items():
            registers.setdefault(source_id, register)
        for source_id, line in self.mentioned.items():
            registers.setdefault(source_id, RegisterRow(source_id, self.path, line))
        run_pin = context.pin_for(self.path)
        if not registers and (run_pin or self.report_evidence or any(r.evidence for r in self.rows)):
            line = context.pin.line if context.pin and context.pin.file == self.path else 1
            registers["SRC-1"] = RegisterRow("SRC-1", self.path, line)
        out = []
        for register in sorted(registers.values(), key=_source_order):
            parent = registers.get(register.parent) if register.parent else None
            pin = register.pin or (parent.pin if parent else None)
            shared = context.pin.sha if context.pin else None
            if pin and shared and runfacts.same_commit(pin, shared):
                pin = run_pin  # the run's pin (spelled in full), or this file's own when it differs
            url = register.url or (parent.url if parent else None)
            named = lexing.repository_of(url) if url else None
            repository = named[0] if named else context.repository
            if url is None and context.repository:
                url = f"https://github.com/{context.repository}"
            line = register.line
            where = register.file
            if not register.registered and register.pin is None and context.pin is not None:
                line, where = context.pin.line, context.pin.file
            out.append(Source(
                register.id, pin or run_pin, url, line, repository=repository, subject=context.subject,
                checkout=context.checkout, file=where, registered=register.registered,
            ))
        return tuple(out)

    def _target(self, written: str, register: RegisterRow | None = None) -> tuple[str, str | None]:
        """Where a written path is looked up: an absolute path under the stated
        checkout root becomes repo-relative; other absolute paths are mapped at the pin;
        a register's ``repo-root `x``` is taken as written. The checkout root itself is
        no citation (``""``)."""
        if register is not None and written in register.rooted:
            return written.lstrip("/"), None
        if written.startswith("~/"):  # the analyst's home: a checkout's path all the same
            return written, LOOKUP_CHECKOUT
        if written.startswith("/"):
            root = (self.context.checkout or "").rstrip("/") if self.context else ""
            if root and written.rstrip("/") == root:
                return "", None
            if root and written.startswith(root + "/"):
                return written[len(root) + 1:] or written, LOOKUP_TREE
            return written, LOOKUP_CHECKOUT
        return written, LOOKUP_TREE

    def _row_for(self, source_id: str) -> RegisterRow | None:
        """The register row of ``SRC-1a`` (its own files, else its parent's)."""
        registers = self.context.registers if self.context else {}
        row = registers.get(source_id) or self.facts.registers.get(source_id)
        if row is not None and not row.paths and row.parent:
            parent = registers.get(row.parent) or self.facts.registers.get(row.parent)
            if parent is not None and parent.paths:
                return parent
        if row is None:  # a register entry of another prefix (``PROPOSED-SRC-22``), from any file of the run
            entries = self.context.entries if self.context else {}
            row = entries.get(source_id) or self.facts.entries.get(source_id)
        if row is None and source_id.rstrip("abcdefghijklmnopqrstuvwxyz") != source_id:
            stripped = source_id.rstrip("abcdefghijklmnopqrstuvwxyz")
            return registers.get(stripped) or (self.context.entries.get(stripped) if self.context else None)
        return row

    # ------------------------------------------------------------------ pass 2: cells and prose

    def _cells(self) -> None:
        for table in self.tables:
            # A lone ``:45-55`` continues, as a reader reads it, the one file its row cites;
            # in a row citing no file, the one file the rows above cite. Several: no guess.
            above: dict = {}
            manifest = any(_MANIFEST_HEADER.search(text.strip(_MARKUP)) for text in table.header.texts)
            for row in table.rows:
                if not row.cells:
                    continue
                first = row.texts[0].strip(_MARKUP)
                if citations.SOURCE_REF.fullmatch(first):
                    continue
                owner = self.row_at.get(row.line)
                cells = row.cells[1:] if owner is not None else row.cells
                headers = table.header.texts[1:] if owner is not None else table.header.texts
                scanned = []
                for number, cell in enumerate(cells):
                    unit = citations.unit(cell.pieces)
                    found, mentions = citations.scan(unit)
                    if not found:
                        # ``| src/schema.sql | 512-520 |`` under a Lines column, or a cell holding
                        # only a backticked range: lines of the row's one file
                        lines_column = number < len(headers) and _LINES_HEADER.fullmatch(
                            " ".join(headers[number].strip(_MARKUP).casefold().split()))
                        if lines_column and manifest and _LENGTH.fullmatch(unit.text.strip(_MARKUP + " ")):
                            lines_column = False  # a manifest's "Lines" is the file's length
                        found = citations.range_cell(unit, plain=bool(lines_column))
                    scanned.append((unit, found))
                    self._mentions(mentions)
                anchor = _row_anchor([found for _, found in scanned], self._cited_file)
                if anchor is None and not _cites_a_file(scanned):
                    anchor = next(iter(above.values())) if len(above) == 1 else None
                bound = [[_bind(c, anchor) for c in found] for _, found in scanned]
                # The files the row cites: a quotation any of them holds is true; a bare name
                # with several places in the tree is the one beside them.
                row_files = self._files([c for found in bound for c in found])
                cell_quotes = []
                for (unit, _), found, cell in zip(scanned, bound, cells):
                    for citation in found:
                        if citations.continues(citation):
                            above.setdefault((citation.path, citation.source), citation)
                    self._evidence(found, owner, near=row_files)
                    quotes = citations.quotes(unit, found)
                    cell_quotes.append((quotes, found))
                    self._quotes(quotes, owner, row_files)
                    self._links(cell.pieces, owner)
                    self._references(cell.text, row.line, owner)
                quoting = self._quoting_cells(scanned, owner, row.line, row_files)
                row_cited = [c for _, found in cell_quotes for c in found if citations.continues(c)]
                for index, (quotes, found) in enumerate(cell_quotes):
                    if index not in quoting:
                        self._loose_quotes(quotes, found, anchor or (row_cited[0] if row_cited else None), owner,
                                           row_files)

    def _loose_quotes(self, quotes: list[citations.Quote], found: list[citations.Citation],
                      fallback: citations.Citation | None, owner: _Row | None,
                      others: tuple[str, ...] = ()) -> None:
        """Quotations with no citation beside them, in a cell or paragraph that cites a file:
        a quotation of that file if it holds the phrase (the citation nearest in the unit,
        else ``fallback``: the row's), else the report's own words (see LOOSE_QUOTATION)."""
        cited = [c for c in found if citations.continues(c)]
        for quote in quotes:
            if quote.citation is not None:
                continue
            near = min(cited, key=lambda c: min(abs(c.start - quote.end), abs(quote.start - c.end)),
                       default=fallback)
            if near is not None:
                self._quote(quote.text, quote.line, near, owner, loose=True, others=others)

    def _quoting_cells(self, scanned, owner: _Row | None, line: int, others: tuple[str, ...] = ()) -> set[int]:
        """A cell holding only quotations quotes the file the next cell with citations cites
        (the indexes of the cells read so are returned)."""
        handled = set()
        for index, (unit, found) in enumerate(scanned):
            if found:
                continue
            phrases = citations.quotes_only(unit)
            if not phrases:
                continue
            cited = next((f for _, f in scanned[index + 1:] if f), None)
            if not cited:
                continue
            handled.add(index)
            for number, phrase in enumerate(phrases):
                target = cited[number] if len(cited) == len(phrases) else cited[0]
                self._quote(phrase, line, target, owner, others=others)
        return handled

    def _prose(self) -> None:
        # The files cited in the section so far: a sentence's lone ``:94`` continues the last
        # file cited before it in its paragraph, else the one file its section cites.
        self._section_files: dict = {}
        if self.markdown:
            for inline in self.layout.inlines:
                if inline.line in self.table_lines:
                    continue
                if inline.container == "heading":
                    self._section_files = {}
                unit = citations.unit(inline.pieces)
                self._prose_unit(unit, inline.pieces, inline.line)
            return
        for line in self.lines:
            if line.number in self.skip or line.number in self.table_lines or not line.text.strip():
                continue
            if line.text.lstrip().startswith("#"):
                self._section_files = {}
            self._prose_unit(citations.plain_unit(line.text, line.number), (), line.number)

    def _prose_unit(self, unit: citations.Unit, pieces, line: int) -> None:
        found, mentions = citations.scan(unit, prose=True)
        section = self._section_files
        last = next(iter(section.values())) if len(section) == 1 else None
        bound = []
        for citation in found:
            citation = _bind(citation, last)
            if citations.continues(citation):
                last = citation
                section.setdefault((citation.path, citation.source), citation)
            bound.append(citation)
        found = bound
        files = self._files(found)
        self._mentions(mentions)
        self._evidence(found, None, prose=True, near=files)
        quotes = citations.quotes(unit, found)
        self._quotes(quotes, None, files)
        self._loose_quotes(quotes, found, None, None, files)
        if pieces:
            self._links(pieces, None)
            for piece in pieces:
                self._references(piece.text, piece.line, None)
        else:
            self._references(unit.text, line, None)

    def _fences(self) -> None:
        """Citations written in fenced blocks (```` ```yaml ```` lines ``SRC-10 src/a.ts:39-108``);
        a fenced quotation or a ```memreport block is not read as citations."""
        for first, last in self.layout.fences:
            opener = self.lines[first - 1].text.strip() if first <= self.count else ""
            if opener.lstrip("`~").strip().lower().startswith("memreport"):
                continue
            for number in range(first, min(last, self.count) + 1):
                text = self.lines[number - 1].text
                if text.lstrip().startswith(("```", "~~~")):
                    continue
                found, mentions = citations.scan(citations.plain_unit(text, number), prose=True)
                found = [c for c in found if c.ranges or c.source]  # a fence's code: only anchors cite
                self._mentions(mentions)
                self._evidence(found, None, prose=True)

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
                status = Status(found.axis, found.qualifier, found.value, number, found.column,
                                self.starts.span(number, found.column, found.column + len(found.value)))
                (owner.statuses if owner else self.report_statuses).append(status)

    def _add(self, owner: _Row | None, evidence: Evidence) -> None:
        # Each citation written is one piece of evidence, even the same one twice on a line.
        (owner.evidence if owner is not None else self.report_evidence).append(evidence)

    def _mentions(self, mentions: list[tuple[str, int]]) -> None:
        for source_id, line in mentions:
            self.mentioned.setdefault(source_id, line)
            if source_id.rstrip("abcdefghijklmnopqrstuvwxyz") == source_id:
                continue

    def _cited_file(self, citation: citations.Citation) -> str | None:
        """The file a citation names as written (a register entry's own file), or ``None``."""
        resolved = self._file_of(citation)
        return resolved[0] if resolved else None

    def _file_of(self, citation: citations.Citation) -> tuple[str, str | None, str | None] | None:
        """``(path, source, lookup)`` a citation names, or ``None``: a path as written; a
        register entry's file (``SRC-1:94``, ``PROPOSED-SRC-22:7``, from any file of the run);
        a file inside an entry's folder (``SRC-5:package-lock.json:808``)."""
        if citation.source is None:
            path, lookup = self._target(citation.path or "")
            return (path, citation.context, lookup) if path else None
        row = self._row_for(citation.source)
        # An entry of another prefix is a file of the run's target, not a source of its own.
        source = citation.source if citations.SOURCE_REF.fullmatch(citation.source) else None
        if citation.path:  # ``SRC-5:package-lock.json:808`` (or a continuation of it)
            written = _inside(row, citation.path)
            path, lookup = self._target(written, row)
            return (path, source, lookup) if path else None
        if row is None or not row.paths:
            return None
        path, lookup = self._target(row.paths[0][0], row)
        return (path, source, lookup) if path else None

    def _resolve(self, citation: citations.Citation) -> tuple[str, str | None, str | None] | None:
        """``(path, source, lookup)`` a citation names, or ``None`` (with a finding when it
        cites a source register's entry that names no file)."""
        resolved = self._file_of(citation)
        if resolved is None and self._names_no_file(citation):
            written = ",".join(str(r) for r in citation.ranges) or citation.bad_range or ""
            self.findings.append(Finding(
                citation.line,
                f"{citation.source}:{written} cites lines, but the source register names no file for "
                f"{citation.source}; add its path to the register row or write path:{written}",
                "path",
            ))
        return resolved

    def _names_no_file(self, citation: citations.Citation) -> bool:
        """Whether a citation of a source register's entry (``SRC-3:12``, ``PROPOSED-SRC-9:4``;
        not a file inside it) finds no file there: no row in the run, or a row naming none."""
        if not citation.source or citation.path or not citations.is_source_register(citation.source):
            return False
        row = self._row_for(citation.source)
        return row is None or not row.paths

    def _files(self, found: list[citations.Citation]) -> tuple[str, ...]:
        """The files (not folders) citations name, once each, in order."""
        files: list[str] = []
        for citation in found:
            resolved = self._file_of(citation) if citations.continues(citation) else None
            if resolved is not None and not resolved[0].endswith("/") and resolved[0] not in files:
                files.append(resolved[0])
        return tuple(files)

    def _evidence(self, found: list[citations.Citation], owner: _Row | None, prose: bool = False,
                  near: tuple[str, ...] = ()) -> None:
        """Evidence of citations; ``near``: the files of the same row or sentence, which decide
        between several places a bare name may be (see :func:`.checks.paths.resolve`)."""
        owner_id = owner.record_id if owner else None
        for citation in found:
            if citation.path is None and citation.source is None:
                continue  # a continuation with nothing to continue
            resolved = self._resolve(citation)
            if resolved is None:
                continue
            path, source, lookup = resolved
            beside = tuple(f for f in near if f != path) if "/" not in path.strip("/") else ()
            line = citation.line
            if citation.bad_range:
                self.findings.append(Finding(
                    line, f"{path}:{citation.bad_range} is not a line range; write start-end with 1 <= start <= end",
                    "path",
                ))
            bare = "/" not in path.rstrip("/")
            if citation.ranges:
                basename = bare and citation.source is None
                for cited in citation.ranges:
                    self._add(owner, Evidence(EvidenceKind.LINES, path.rstrip("/"), line, line, cited_lines=cited,
                                              source=source, owner=owner_id, label=BASENAME if basename else None,
                                              role=EvidenceRole.BASENAME if basename else None, lookup=lookup,
                                              context=beside))
            elif citation.bad_range:
                continue
            elif path.endswith("/"):
                self._add(owner, Evidence(EvidenceKind.DIRECTORY, path.rstrip("/"), line, line, source=source,
                                          owner=owner_id, lookup=lookup))
            else:
                label = BASENAME if bare else (BACKTICKED_PATH if prose else None)
                role = EvidenceRole.BASENAME if bare else (EvidenceRole.MENTION if prose else None)
                self._add(owner, Evidence(EvidenceKind.PATH, path, line, line, source=source, owner=owner_id,
                                          label=label, role=role, lookup=lookup, context=beside))

    def _quotes(self, found: list[citations.Quote], owner: _Row | None, others: tuple[str, ...] = ()) -> None:
        for quote in found:
            if quote.citation is not None:
                self._quote(quote.text, quote.line, quote.citation, owner, grouped=quote.grouped, others=others)

    def _quote(self, phrase: str, line: int, citation: citations.Citation, owner: _Row | None,
               grouped: bool = False, loose: bool = False, others: tuple[str, ...] = ()) -> None:
        """A quotation of the file ``citation`` names; ``others``: the files its row, cell or
        sentence also cites, which may hold it instead (:mod:`.checks.quotesites`)."""
        resolved = self._file_of(citation)
        if resolved is None:
            return
        path, source, lookup = resolved
        if path.endswith("/"):
            return  # a folder holds no text to quote
        # A phrase sourced by several citations is held to none of their ranges alone.
        cited = citation.ranges[0] if len(citation.ranges) == 1 and not (grouped or loose) else None
        self._add(owner, Evidence(EvidenceKind.QUOTE, path, line, line, text=phrase, cited_lines=cited,
                                  source=source, owner=owner.record_id if owner else None,
                                  label=LOOSE_QUOTATION if loose else INLINE_QUOTATION,
                                  role=EvidenceRole.LOOSE if loose else EvidenceRole.INLINE, lookup=lookup,
                                  context=tuple(other for other in others if other != path)))

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
        registers = dict(self.context.registers) if self.context else {}
        registers.update(self.facts.registers)
        for register in sorted(registers.values(), key=_source_order):
            named = lexing.repository_of(register.url) if register.url else None
            if named is not None and named[0].casefold() == link.repo_id.casefold():
                return register.id
        if self.context and self.context.repository and self.context.repository.casefold() == link.repo_id.casefold():
            return "SRC-1" if "SRC-1" in registers or not registers else sorted(registers, key=_id_order)[0]
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
            for value in split_ids(match.group()):
                prefix = value.split("-", 1)[0]
                if value == own or value in seen or prefix not in self.prefixes or prefix == "SRC":
                    continue
                if not any(ch.isdigit() for ch in value) and not lexing.RECORD_ID_LINE.fullmatch(value):
                    continue
                seen.add(value)
                target.append(Reference(value, line))
        for source_id in citations.mentioned_sources(text):
            if source_id not in seen:
                seen.add(source_id)
                target.append(Reference(source_id, line, "source"))


def _row_anchor(cells: list[list[citations.Citation]], file_of) -> citations.Citation | None:
    """The one file a row's cells cite lines of (else, citing none, the one file they name),
    if one: what a lone ``:45-55`` in another cell continues. ``file_of`` names a citation's
    file (``SRC-1`` through the register), so ``SRC-1:94`` and ``index.ts:88`` of that file
    are one file, as ``a/index.ts`` is."""
    cited: dict[str, citations.Citation] = {}
    for found in cells:
        for citation in found:
            if citation.form != citations.UNBOUND and (citation.ranges or citation.source):
                cited.setdefault(file_of(citation) or f"{citation.source}:{citation.path}", citation)
    if not cited:  # no lines cited: the one file named without them (``| a.sql | 512-520 |``)
        for found in cells:
            for citation in found:
                if citations.continues(citation):
                    cited.setdefault(file_of(citation) or f"{citation.source}:{citation.path}", citation)
    files = sorted(cited, key=len, reverse=True)
    if files and all(f == files[0] or files[0].endswith("/" + f) for f in files):
        return cited[files[0]]
    return None


def _cites_a_file(scanned) -> bool:
    return any(citations.continues(c) for _, found in scanned for c in found)


def _bind(citation: citations.Citation, anchor: citations.Citation | None) -> citations.Citation:
    if citation.form != citations.UNBOUND or anchor is None:
        return citation
    return replace(citation, path=anchor.path, source=anchor.source, context=anchor.context, form="continuation")


def _inside(row: RegisterRow | None, written: str) -> str:
    """``SRC-5:package-lock.json``: the file inside the folder the entry names (its first
    folder, written with a slash or without an extension); as written when it names none."""
    for path, _ranges in (row.paths if row is not None else ()):
        folder = path.rstrip("/")
        if path.endswith("/") or not _has_extension(folder.rsplit("/", 1)[-1]):
            return written if written.startswith(folder + "/") else f"{folder}/{written}"
    return written


def split_ids(value: str) -> list[str]:
    """``OBJ-05/OBJ-01`` names two IDs; ``CLM-1/a1`` is one (its part is no ID of its own)."""
    parts = value.split("/")
    if len(parts) > 1 and all(TABLE_ID.fullmatch(part) and "-" in part for part in parts[1:]):
        return parts
    return [value]


def _id_order(source_id: str) -> tuple[int, str]:
    match = citations.SOURCE_REF.fullmatch(source_id)
    return (int(match.group(1)), match.group(2)) if match else (1 << 30, source_id)


def _source_order(register: RegisterRow) -> tuple[int, str]:
    return _id_order(register.id)


def _fallback_label(text: str) -> str | None:
    """A row's name when its table has no Label/Name/Title column: the cell after
    the ID, unless that cell holds anchors or statuses rather than words."""
    text = " ".join(text.strip(_MARKUP).split())
    if not text or "conclusion status" in text.lower() or not any(ch.isalpha() for ch in text):
        return None
    words = text.split()
    if all(lexing.parse_path_spec(word) is not None or TABLE_SOURCE_RANGES.fullmatch(word.rstrip(",;"))
           for word in words):
        return None
    return text


def _has_extension(name: str) -> bool:
    return "." in name.strip(".") and not name.endswith(".")
