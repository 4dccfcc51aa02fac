"""The record parser: its driver and passes 1 (structure, over the blocks) and
2 (lines, over the raw report lines outside code); pass 3 (quotations) is
:mod:`.quotations`. See the package docstring for what each pass reads.
"""

from __future__ import annotations

from ...model import (
    Evidence,
    EvidenceKind,
    EvidenceRole,
    Finding,
    Reference,
    Report,
    Source,
    Span,
    Status,
    TextBlock,
)
from .. import core
from ..core import Block, ShownLine
from ..core.spans import LineStarts
from .drafts import Draft, Entry
from .quotations import QuotationPass
from .vocabulary import INLINE_PREDICATES, LABEL, PART_OF, SELECTION, is_section_title, same_commit

DIALECT = "records"


def parse(path: str, text: str) -> Report:
    """Parse a record report (Markdown when ``path`` ends in ``.md``, else a
    plain-text rendering) into the report model. Never raises."""
    if "\r" in text:  # read_report already did this; direct callers may not have
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _Parser(path, text).parse()


class _Parser:
    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text
        self.lines = core.numbered_lines(text)
        self.starts = LineStarts(text)
        self.markdown = core.is_markdown(path)
        self.front_matter_end = core.front_matter_end(self.lines) if self.markdown else None
        if self.markdown:
            self.blocks = core.markdown_blocks(text, self.front_matter_end)
        else:
            self.blocks = core.plain_blocks(self.lines)
        count = len(self.lines)
        self.count = count
        #: lines a reader reads as code (fences) or metadata (front matter): no prose lexing there
        self.not_prose = [False] * (count + 2)
        for line in range(1, (self.front_matter_end or 0) + 1):
            self.not_prose[line] = True
        for block in self.blocks:
            if block.kind == "code":
                for line in range(block.line, min(block.end_line, count) + 1):
                    self.not_prose[line] = True
        self.entries = [
            Entry(shown, block)
            for block in self.blocks
            for shown in (
                (ShownLine(block.line, block.code),) if block.kind == "code" else block.lines
            )
        ]
        self.drafts: list[Draft] = []
        #: index into ``drafts`` of the record owning each line, -1 for none
        self.owner = [-1] * (count + 2)
        self.findings: list[Finding] = []
        #: where the pins the lines state are written (re-pin rewrites them there)
        self.pin_spans: list[Span] = []
        self.report_evidence: list[Evidence] = []
        self.report_references: list[Reference] = []
        self.report_statuses: list[Status] = []
        self.title: str | None = None
        self.meta: dict = {}
        #: line -> the record ID a structural line names (declaration, annotation, part-of)
        self.declaration_lines: dict[int, str] = {}
        self.annotation_lines: dict[int, str] = {}
        self.part_of_lines: dict[int, str] = {}
        self.first_text_line = next((line.number for line in self.lines if line.text.strip()), 0)

    # ------------------------------------------------------------------ driver

    def parse(self) -> Report:
        self._read_front_matter()
        self._structure()
        self._assign_owners()
        sources = self._lines()
        QuotationPass(self.entries, self.owner, self.drafts, self.lines, self.markdown, self.findings,
                      self.report_evidence, self.starts).read()
        if self.markdown and "`" in self.text and any(draft.evidence for draft in self.drafts):
            self._symbol_references()
        return Report(
            path=self.path,
            dialect=DIALECT,
            title=self.title,
            sources=sources,
            records=tuple(draft.freeze() for draft in self.drafts),
            evidence=tuple(sorted(self.report_evidence, key=lambda e: (e.line, e.end_line))),
            references=tuple(sorted(self.report_references, key=lambda r: r.line)),
            statuses=tuple(sorted(self.report_statuses, key=lambda s: (s.line, s.column))),
            findings=tuple(sorted(self.findings, key=lambda f: f.line)),
            line_count=self.count,
            meta=self.meta,
        )

    def _symbol_references(self) -> None:
        """Backticked identifiers in a record's prose, proposed as symbol evidence.

        Whether one names a definition is only known at the pin (the engine
        keeps those that do, in a file the record cites); here every identifier
        span of a record that cites files is proposed once per line.
        """
        layout = core.markdown_layout(self.text, self.front_matter_end)
        seen: set[tuple[int, str]] = set()
        for inline in layout.inlines:
            for piece in inline.pieces:
                if piece.kind != "code" or self.not_prose[piece.line] or self.owner[piece.line] < 0:
                    continue
                name = core.symbol_name(piece.text)
                draft = self.drafts[self.owner[piece.line]]
                if name is None or (piece.line, name) in seen:
                    continue
                cited = tuple(dict.fromkeys(
                    e.path for e in draft.evidence
                    if e.kind in (EvidenceKind.PATH, EvidenceKind.QUOTE, EvidenceKind.LINES)
                ))
                if not cited or any(e.kind is EvidenceKind.QUOTE and e.line <= piece.line <= e.end_line
                                    for e in draft.evidence):
                    continue  # nothing to look in, or the span is part of a quotation
                seen.add((piece.line, name))
                draft.evidence.append(Evidence(EvidenceKind.SYMBOL, "", piece.line, piece.line, text=name,
                                               owner=draft.id, context=cited))

    def _read_front_matter(self) -> None:
        if not self.front_matter_end:
            return
        data = core.front_matter_mapping(self.lines, self.front_matter_end, self.findings)
        if data is not None:
            self.meta["front_matter"] = {str(key): value for key, value in data.items()}

    # ------------------------------------------------------------------ pass 1: structure

    def _structure(self) -> None:
        current: Draft | None = None
        expecting_label = False
        declared: dict[str, int] = {}
        previous_block: Block | None = None
        for index, entry in enumerate(self.entries):
            shown, block = entry.shown, entry.block
            first_of_block = block is not previous_block
            previous_block = block
            text = shown.text
            if block.kind == "heading":
                if self.title is None and block.level == 1:
                    self.title = text or None
                started = (
                    None if block.quoted else self._declaration(text, block.line, block.level, declared)
                )
                if started is not None:
                    self._close(current, block.line - 1)
                    current, expecting_label = started, not started.is_annotation and started.label is None
                elif current is not None and (
                    current.heading_level is None or block.level <= current.heading_level
                ):
                    self._close(current, block.line - 1)
                    current, expecting_label = None, False
                continue
            if block.kind == "paragraph" and not block.quoted and (
                first_of_block or self._label_follows(index)
            ):
                started = self._declaration(text, shown.number, None, declared)
                if started is not None:
                    self._close(current, shown.number - 1)
                    current, expecting_label = started, not started.is_annotation
                    continue
                if not self.markdown and is_section_title(text):
                    self._close(current, shown.number - 1)
                    current, expecting_label = None, False
                    continue
                if not self.markdown and self.title is None and shown.number == self.first_text_line:
                    self.title = text
            if current is None:  # a memreport block here belongs to the report (claims.inline)
                continue
            if expecting_label:
                expecting_label = self._label(current, entry)
                if expecting_label:
                    continue
            self._record_line(current, entry, first_of_block)
        self._close(current, self.count)
        for draft in self.drafts:
            if draft.label is None and not draft.is_annotation:
                self.findings.append(Finding(
                    draft.line,
                    f"{draft.id} has no 'Label:' line after its ID; add 'Label: <name>' below it",
                    "no-label",
                ))

    def _label_follows(self, index: int) -> bool:
        """Whether the next shown line is a ``Label:`` line: an ID soft-broken
        onto a later line of a Markdown paragraph still declares a record then."""
        following = index + 1
        return (
            following < len(self.entries)
            and self.entries[following].block.kind == "paragraph"
            and LABEL.match(self.entries[following].shown.text.strip()) is not None
        )

    def _declaration(
        self, text: str, line: int, heading_level: int | None, declared: dict[str, int]
    ) -> Draft | None:
        """A record or annotation that ``text`` declares, or ``None``."""
        text = text.strip()
        label: str | None = None
        annotation = core.ANNOTATION_LINE.fullmatch(text)
        if annotation:
            record_id, is_annotation = annotation.group(1), True
        elif core.RECORD_ID_LINE.fullmatch(text):
            record_id, is_annotation = text, False
        else:
            headed = core.HEADED_RECORD.fullmatch(text) if heading_level is not None else None
            if headed is None:
                return None
            record_id, label = headed.group(2), headed.group(3).strip()
            is_annotation = bool(headed.group(1))
        lens, kind = core.split_record_id(record_id)
        draft = Draft(record_id, lens, kind, line, is_annotation, heading_level)
        if label:
            draft.label, draft.label_line = label, line
        if is_annotation:
            self.annotation_lines[line] = record_id
        else:
            self.declaration_lines[line] = record_id
            if record_id in declared:
                self.findings.append(Finding(
                    line,
                    f"{record_id} is declared again (first at line {declared[record_id]}); "
                    "rename one of them or merge the two records",
                    "duplicate-id",
                ))
            else:
                declared[record_id] = line
        self.drafts.append(draft)
        return draft

    def _label(self, draft: Draft, entry: Entry) -> bool:
        """Take ``Label:`` (or ``Part of:`` before it) right after a declaration;
        returns whether a label is still expected."""
        text = entry.shown.text.strip()
        if entry.block.kind in ("paragraph", "item"):
            part_of = PART_OF.fullmatch(text)
            if part_of:
                self._part_of(draft, part_of.group(1), entry.shown.number)
                return True
            label = LABEL.fullmatch(text)
            if label and label.group(1).strip():
                draft.label, draft.label_line = label.group(1).strip(), entry.shown.number
        return False

    def _part_of(self, draft: Draft, rest: str, line: int) -> None:
        targets = core.find_record_ids(rest)
        if not targets:
            self.findings.append(Finding(
                line, "'Part of:' names no record ID; write 'Part of: <ID>'", "structure"
            ))
            return
        if draft.part_of is None:
            draft.part_of = targets[0].id
        self.part_of_lines[line] = targets[0].id

    def _record_line(self, draft: Draft, entry: Entry, first_of_block: bool) -> None:
        """What one line inside a record adds to it besides evidence and statuses."""
        block, text = entry.block, entry.shown.text.strip()
        if block.kind == "code":
            if block.info == INLINE_PREDICATES:
                lines = block.code.count("\n") + 1 if block.code else 1
                draft.inline.append(TextBlock(block.code, block.line + 1, block.line + lines))
            return
        if block.kind not in ("paragraph", "item"):
            return
        part_of = PART_OF.fullmatch(text)
        if part_of:
            self._part_of(draft, part_of.group(1), entry.shown.number)
            return
        selection = SELECTION.match(text)
        if selection and first_of_block:
            rest = [selection.group(1).strip()]
            rest.extend(shown.text for shown in block.lines[1:])
            end = max(entry.shown.number, block.end_line)
            draft.selection.append(TextBlock("\n".join(rest).strip(), entry.shown.number, end))

    def _close(self, draft: Draft | None, bound: int) -> None:
        """End ``draft`` at the last non-blank line at or before ``bound``."""
        if draft is None or draft.end_line:
            return
        end = min(bound, self.count)
        while end > draft.line and not self.lines[end - 1].text.strip():
            end -= 1
        draft.end_line = max(end, draft.line)

    def _assign_owners(self) -> None:
        for index, draft in enumerate(self.drafts):
            for line in range(draft.line, draft.end_line + 1):
                self.owner[line] = index

    # ------------------------------------------------------------------ pass 2: lines

    def _lines(self) -> tuple[Source, ...]:
        first_mention: dict[str, int] = {}
        source_pins: dict[str, tuple[str, int]] = {}
        report_pins: list[tuple[str, int]] = []
        urls: dict[str, tuple[str, int]] = {}
        carried = None  # a source whose path list runs on into the next line
        for line in self.lines:
            number, text = line.number, line.text
            if self.not_prose[number] or not text.strip():
                carried = None
                continue
            owner = self.drafts[self.owner[number]] if self.owner[number] >= 0 else None
            mentioned = core.find_source_ids(text)
            for source_id in mentioned:
                first_mention.setdefault(source_id, number)
            for pin in core.find_pins(text):
                span = self.starts.span(number, pin.column, pin.column + len(pin.sha))
                if span is not None and span.text.lower() == pin.sha:
                    self.pin_spans.append(span)
                if pin.source is None:
                    report_pins.append((pin.sha, number))
                    continue
                first_mention.setdefault(pin.source, number)
                if pin.source in source_pins and not same_commit(source_pins[pin.source][0], pin.sha):
                    earlier, at = source_pins[pin.source]
                    self.findings.append(Finding(
                        number,
                        f"{pin.source} is pinned at {pin.sha} here but at {earlier} on line {at}; "
                        "keep one commit per source",
                        "structure",
                    ))
                    continue
                if pin.source not in source_pins or len(pin.sha) > len(source_pins[pin.source][0]):
                    source_pins[pin.source] = (pin.sha, source_pins.get(pin.source, (pin.sha, number))[1])
            url = core.find_repository_url(text)
            if url:
                urls.setdefault(mentioned[0] if mentioned else "SRC-1", (url, number))
            for status in core.find_statuses(text):
                self._status(owner, status, number)
            citations, carried = core.path_citations(text, carried)
            for citation in citations:
                self._citation(owner, citation, number)
            self._references(owner, text, number)
        return self._sources(first_mention, source_pins, report_pins, urls)

    def _status(self, owner: Draft | None, found: core.StatusMatch, line: int) -> None:
        if not found.value:
            self.findings.append(Finding(
                line,
                f"{(found.axis + ' ').lstrip()}conclusion status has no value; "
                "write one of absent, inapplicable, uninspected, claimed, afforded, observed, "
                "causally supported",
                "status",
            ))
            return
        status = Status(found.axis, found.qualifier, found.value, line, found.column,
                        self.starts.span(line, found.column, found.column + len(found.value)))
        (owner.statuses if owner else self.report_statuses).append(status)

    def _citation(self, owner: Draft | None, citation: core.PathCitation, line: int) -> None:
        spec = citation.spec
        owner_id = owner.id if owner else None
        target = owner.evidence if owner else self.report_evidence
        # a path with characters prose also uses: evidence only if the pinned tree has it
        label = core.UNUSUAL_PATH if spec.unusual else None
        role = EvidenceRole.MENTION if spec.unusual else None
        span = self.starts.span(line, citation.column, citation.end) if citation.end else None
        if spec.bad_range:
            self.findings.append(Finding(
                line,
                f"{spec.path}:{spec.bad_range} is not a line range; write start-end with 1 <= start <= end",
                "path",
            ))
        if spec.ranges:
            for cited in spec.ranges:
                target.append(Evidence(EvidenceKind.LINES, spec.path, line, line, cited_lines=cited,
                                       source=citation.source, owner=owner_id, label=label, role=role, span=span))
            return
        if spec.is_directory:
            target.append(Evidence(EvidenceKind.DIRECTORY, spec.path.rstrip("/"), line, line,
                                   source=citation.source, owner=owner_id, label=label, role=role, span=span))
            return
        target.append(Evidence(EvidenceKind.PATH, spec.path, line, line,
                               source=citation.source, owner=owner_id, label=label, role=role, span=span))

    def _references(self, owner: Draft | None, text: str, line: int) -> None:
        declared = self.declaration_lines.get(line)
        annotated = self.annotation_lines.get(line)
        part_of = self.part_of_lines.get(line)
        target = owner.references if owner else self.report_references
        for found in core.find_record_ids(text):
            if declared == found.id:
                declared = None  # the record's own declaration is not a reference
                continue
            if annotated == found.id:
                annotated = None
                target.append(Reference(found.id, line, "annotation"))
                continue
            if part_of == found.id:
                part_of = None
                target.append(Reference(found.id, line, "part-of"))
                continue
            target.append(Reference(found.id, line, "prose"))

    def _sources(
        self,
        first_mention: dict[str, int],
        source_pins: dict[str, tuple[str, int]],
        report_pins: list[tuple[str, int]],
        urls: dict[str, tuple[str, int]],
    ) -> tuple[Source, ...]:
        """One :class:`Source` per ``SRC-n``; a report-level pin (``git
        rev-parse HEAD matched``) pins SRC-1 when SRC-1 has no pin of its own."""
        if report_pins:
            sha, line = report_pins[0]
            # A short sha and the full one agree; keep the full one.
            sha = max((p for p, _ in report_pins if same_commit(p, sha)), key=len)
            if "SRC-1" in source_pins:
                pinned, at = source_pins["SRC-1"]
                for other, other_line in report_pins:
                    if not same_commit(other, pinned):
                        self.findings.append(Finding(
                            other_line,
                            f"the report checks commit {other} here but pins SRC-1 at {pinned} "
                            f"on line {at}; keep one commit",
                            "structure",
                        ))
            else:
                source_pins["SRC-1"] = (sha, line)
                for other, other_line in report_pins[1:]:
                    if not same_commit(other, sha):
                        self.findings.append(Finding(
                            other_line,
                            f"the report names commit {other} here but {sha} on line {line}; "
                            "keep one commit",
                            "structure",
                        ))
        wanted = set(first_mention) | set(source_pins) | set(urls)
        has_evidence = bool(self.report_evidence) or any(d.evidence for d in self.drafts)
        if not wanted and has_evidence:
            wanted.add("SRC-1")
        sources = []
        for source_id in sorted(wanted, key=lambda s: int(s.split("-")[1])):
            pin = source_pins.get(source_id)
            url = urls.get(source_id)
            stated_at = pin[1] if pin else first_mention.get(source_id, url[1] if url else None)
            spans = tuple(span for span in self.pin_spans if pin and same_commit(span.text.lower(), pin[0]))
            sources.append(Source(source_id, pin[0] if pin else None, url[0] if url else None, stated_at,
                                  pin_spans=spans))
        return tuple(sources)
