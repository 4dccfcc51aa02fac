"""Every character edit of one report's re-pin (or range corrections), line by line.

For each line, in order of certainty (the first of two overlapping edits wins):
repository links (commit, path, anchor) and the texts of those links, the
pinned commit where its pin statements were read (a pin no reader placed: wherever
else it is written), then the citations of the evidence
parsed on that line (``--- path:10-20``, `` `src/a.py` ``, ``SRC-1: a.py, b.py.``,
``(src/a.rs, docs/b.md)``). Evidence lines are rewritten only where the parser
found the evidence, so prose elsewhere is never touched, and a quotation's own
text is never edited (only its attribution after ``---``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...dialects.core.anchors import expand_braces, parse_ranges
from ...dialects.core.links import repository_of
from ...model import Evidence, EvidenceKind, EvidenceRole, LineRange, Report, Span
from ..kinds import LinkKind
from ..lineindex import CharEdit, LineIndex
from .citations import citation_changes, continuation_changes, has_range, occurrences, respell_range, written_after
from .links import definition_label, link_text_span, reference_uses, rewritten_url, text_changes, url_spans
from .shas import sha_changes
from .target import Move, PinnedSource, RepinTarget, respell, same_commit

from ...dialects.core.grammar import (ATTRIBUTION_START, BRACE_WORD, HEX_WORD, RANGE_AFTER_LINK, SOURCE_WRITTEN,
                                      WRITTEN_RANGE)


@dataclass
class ReportEdits:
    changes: list[CharEdit] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    #: what was written: ``(path at the pin, cited range)`` of a moved range; ``("path", path)``
    #: of a link's renamed path, ``("path", path, line)`` of a citation's; and what was not:
    #: ``("unwritten", path, range, line)``, a range read on that line and rewritten nowhere there
    #: (``(path, range, line)``: a link's rewritten there)
    placed: set = field(default_factory=set)


#: how many lines of its paragraph after an inline quotation its citation may be written on
_QUOTE_REACH = 12


def unwritten(evidence: Evidence, move: Move, line: int, placed: set) -> bool:
    """Whether ``move`` changes how ``evidence`` must be written (its range, or its path as
    the report spells it) yet this rewrite found no place where it is written."""
    if move.old_lines != move.new_lines and ((evidence.path, move.old_lines) not in placed
                                             or ("unwritten", evidence.path, move.old_lines, line) in placed):
        return True
    spelled = written(evidence)
    if written_after(spelled, move.old_path, move.new_path) == spelled:
        return False  # a bare name that reads the same, or no rename
    return ("path", evidence.path) not in placed and ("path", evidence.path, line) not in placed


def written(evidence: Evidence) -> str:
    """The path as the report spells it (a bare name or a checkout path resolved by the engine)."""
    if evidence.written:
        return evidence.written
    if evidence.role is EvidenceRole.BASENAME and evidence.text:
        return evidence.text
    return evidence.path


def _repositories(report: Report, source_id: str | None) -> set[str]:
    """``owner/name`` (casefolded) spellings under which a source's links appear."""
    source = report.source(source_id)
    names = {(source_id or "").casefold()} if source_id else set()
    if source is not None:
        names.add(source.id.casefold())
        for url in (source.url, source.repository):
            found = repository_of(url) if url and "://" in url else ((url, None) if url else None)
            if found:
                names.add(found[0].casefold())
    return {n for n in names if "/" in n}


def report_edits(report: Report, index: LineIndex, moves: dict[Evidence, Move], target: RepinTarget | None,
                 files: dict[str, str]) -> ReportEdits:
    """The edits of ``report`` (its bytes indexed by ``index``)."""
    out = ReportEdits()
    by_link: dict[tuple[str, str, LineRange | None], Move] = {}
    by_line: dict[int, list[tuple[Evidence, Move]]] = {}
    for evidence, move in sorted(moves.items(), key=lambda item: _priority(item[0])):
        for repo in _repositories(report, evidence.source):
            by_link.setdefault((repo, evidence.path, evidence.cited_lines), move)
            if move.old_path != move.new_path:
                by_link.setdefault((repo, evidence.path, None), move)
        line = evidence.end_line if evidence.kind is EvidenceKind.QUOTE else evidence.line
        by_line.setdefault(line, []).append((evidence, move))
    definitions: dict[str, tuple[Move | None, str, str]] = {}
    # A pin its statements placed is rewritten there only (the same commit named elsewhere, in
    # an earlier review's pin or a code block, stays); a pin no reader placed, wherever written.
    at_spans = pin_span_changes(report, index, target) if target is not None else {}
    unplaced = spanned = None
    commits_on: set[int] = set()  # lines of evidence written at its own commit (``a.rs` @ `<sha>``)
    if target is not None:
        unplaced = RepinTarget(target.new, tuple(s for s in target.sources if not _pin_spans(report, index, s)))
        spanned = RepinTarget(target.new, tuple(s for s in target.sources if s not in unplaced.sources))
        commits_on = {e.line for e in report.all_evidence()
                      if e.pin and any(same_commit(e.pin, s.old) for s in spanned.sources)}
    for number in range(1, len(index) + 1):
        text = index.text(number)
        if not text:
            continue
        spans = url_spans(text)
        outside = [(s.start, s.end) for s in spans]
        for span in spans:
            out.changes.extend(_link_changes(number, text, span, target, by_link, files, definitions,
                                              out.placed))
        out.changes.extend(change for change in at_spans.get(number, ())
                           if not any(s <= change.start < e for s, e in outside))
        if unplaced is not None and unplaced.sources:
            out.changes.extend(sha_changes(number, text, unplaced, outside))
        if spanned is not None and number in commits_on:
            out.changes.extend(sha_changes(number, text, spanned, outside))
        for evidence, move in by_line.get(number, ()):
            shifts = bool(move.old_lines and move.new_lines and move.old_lines != move.new_lines)
            found = _span_changes(index, evidence, move, outside) if evidence.span is not None else []
            if not found or (shifts and not _moves_range(found, text)):
                # No span, or its range is written apart from it (``a.py:10`, `:30``): the line decides.
                found = _evidence_changes(number, text, evidence, move, outside)
            placed = _moves_range(found, text)
            if shifts and not placed and evidence.kind is EvidenceKind.QUOTE:
                # An inline quotation's citation may follow it on the next lines of its sentence.
                for later in range(number + 1, min(number + _QUOTE_REACH, len(index)) + 1):
                    more_text = index.text(later)
                    if not more_text or not more_text.strip():
                        break
                    more_outside = [(s.start, s.end) for s in url_spans(more_text)]
                    more = _evidence_changes(later, more_text, evidence, move, more_outside, whole=True)
                    if _moves_range(more, more_text):
                        found, placed = found + more, True
                        break
            if shifts and placed:
                out.placed.add((evidence.path, move.old_lines))
            elif shifts and evidence.span is not None and (evidence.path, move.old_lines, number) not in out.placed:
                # Read here, and its range rewritten nowhere here: another citation of the same
                # file and range rewritten elsewhere does not make this one written.
                out.placed.add(("unwritten", evidence.path, move.old_lines, number))
            if any(not WRITTEN_RANGE.fullmatch((index.text(c.line) or "")[c.start:c.end]) for c in found) or (
                    not occurrences(text, written(evidence)) and not _in_brace_group(text, evidence.path)):
                # Its path is not written here (``SRC-2:10-14`` names it through the register, ``:30``
                # continues the citation before it): where it is written, that citation moves it.
                out.placed.add(("path", evidence.path, number))
            out.changes.extend(found)
    if definitions:
        for number in range(1, len(index) + 1):
            text = index.text(number)
            if not text or "][" not in text:
                continue
            for start, end, label in reference_uses(text):
                if label in definitions:
                    defined, old_path, new_path = definitions[label]
                    out.changes.extend(text_changes(number, text, (start, end), defined, old_path, new_path,
                                                    "link text"))
    return out


def _pin_spans(report: Report, index: LineIndex, pinned: PinnedSource) -> tuple[Span, ...]:
    """Where the report's pin statements write ``pinned``'s commit; empty (rewrite it wherever
    written) unless they place every spelling of it on the line its dialect read the pin on."""
    source = report.source(pinned.id)
    if source is None or not source.pin_spans:
        return ()
    if source.line is not None and source.file in (None, report.path):
        # Counted, not compared by place: a span the report no longer holds is refused below.
        placed = sum(span.line == source.line for span in source.pin_spans)
        stated = index.text(source.line) or ""
        if sum(same_commit(word.group(), pinned.old) for word in HEX_WORD.finditer(stated)) > placed:
            return ()  # a statement no reader placed
    return source.pin_spans


def pin_span_changes(report: Report, index: LineIndex, target: RepinTarget) -> dict[int, list[CharEdit]]:
    """The re-pin's edits of each pin at the spans its statements were read at, by report line;
    refused (:class:`~..writeback.WritebackError`) when a span no longer holds the sha it held."""
    out: dict[int, list[CharEdit]] = {}
    for pinned in target.sources:
        new = target.new_of(pinned)
        for span in _pin_spans(report, index, pinned):
            if same_commit(span.text, new):
                continue
            change = index.span_change(span, respell(span.text, new), f"re-pin {pinned.id}")
            out.setdefault(span.line, []).append(change)
    return out


def _evidence_changes(number: int, text: str, evidence: Evidence, move: Move, outside, whole: bool = False
                      ) -> list[CharEdit]:
    """The edits of one piece of evidence's citation written on this line: its path and ranges
    (a quotation's only after its ``---`` attribution, unless ``whole``)."""
    start = 0
    if evidence.kind is EvidenceKind.QUOTE and not whole:
        attributions = list(ATTRIBUTION_START.finditer(text))
        start = attributions[-1].end() if attributions else 0
    ranges = {move.old_lines: move.new_lines} if move.old_lines and move.new_lines else {}
    changes = citation_changes(number, text, written(evidence), move.old_path, move.new_path,
                               ranges, _reason(move), start, None, outside)
    source = evidence.source if evidence.source and SOURCE_WRITTEN.fullmatch(evidence.source) else None
    if ranges and source:
        # ``SRC-1:96-101``: the range moves here; the file's new path goes in the register row.
        changes.extend(citation_changes(number, text, source, source,
                                        source, ranges, _reason(move), start, None, outside))
    if ranges and move.old_lines:
        spellings = [written(evidence)] + ([source] if source else [])
        if not any(has_range(text, s, move.old_lines, start) for s in spellings):
            # ``SRC-2:10-14`, `:30``: the range continues the citation written before it.
            # With no path on the line, the dialect found the ``:40-42`` here: the line is its own anchor.
            anchors = [occ.end for s in spellings for occ in occurrences(text, s, start)] or [start]
            changes.extend(continuation_changes(number, text, anchors, ranges, _reason(move), outside))
    return changes


def _span_changes(index: LineIndex, evidence: Evidence, move: Move, outside) -> list[CharEdit]:
    """The edits of a citation where its parser read it (its span: the path and the ranges
    written after it); refused when the report no longer holds it there. Empty when the
    span does not write what moves (a path named through the register): the line decides."""
    span = evidence.span
    assert span is not None
    at = index.span_change(span, span.text, "")
    if WRITTEN_RANGE.fullmatch(span.text):
        # A range written apart from its file (a table's Line(s) cell, a list's ``Lines:`` field):
        # the span is the range alone, rewritten as written (its ``L``, its dash).
        if move.old_lines is None or move.new_lines is None or move.old_lines == move.new_lines:
            return []
        return [CharEdit(span.line, at.start, at.end, respell_range(span.text, move.new_lines), _reason(move))]
    ranges = {move.old_lines: move.new_lines} if move.old_lines and move.new_lines else {}
    text = index.text(span.line) or ""
    return citation_changes(span.line, text, written(evidence), move.old_path, move.new_path, ranges,
                            _reason(move), at.start, at.end, outside)


def _in_brace_group(text: str, path: str) -> bool:
    """Whether ``text`` writes ``path`` as one of a brace group (``src/{queue,worker}.ts``)."""
    return any(expanded.rstrip("/") == path or expanded.rstrip("/").endswith("/" + path)
               for word in BRACE_WORD.finditer(text) for expanded in expand_braces(word.group()))


def _moves_range(changes: list[CharEdit], text: str) -> bool:
    """Whether one of ``changes`` rewrites a range (``206``, ``10-20``), not only a path."""
    return any(WRITTEN_RANGE.fullmatch(text[c.start:c.end]) for c in changes)


def _priority(evidence: Evidence) -> int:
    """Quotations locate their lines most precisely; cited lines next; paths last."""
    return {EvidenceKind.QUOTE: 0, EvidenceKind.LINES: 1}.get(evidence.kind, 2)


def _reason(move: Move) -> str:
    return "range corrected" if move.corrected else "re-pin"


def _link_changes(number: int, text: str, span, target: RepinTarget | None, by_link: dict, files: dict,
                  definitions: dict, placed: set) -> list[CharEdit]:
    link = span.link
    if link is None:
        return []
    repo = link.repo_id.casefold()
    pinned = target.repository(link.repo_id) if target is not None else None
    repins = pinned is not None and link.ref_is_sha and same_commit(link.ref, pinned.old)
    path = link.path.rstrip("/")
    move = by_link.get((repo, path, link.lines)) if link.kind != LinkKind.COMMIT else None
    if move is None and repins and link.kind != LinkKind.COMMIT:
        move = by_link.get((repo, path, None))
    if not repins and (move is None or not move.corrected):
        return []  # another repository, or a commit cited on purpose: as written
    new_path = path
    if repins and link.kind != LinkKind.COMMIT:
        new_path = move.new_path if move is not None else files.get(path, path)
    url = rewritten_url(span.url, link, target.new_of(pinned) if repins and target is not None and pinned is not None
                        else None, move, new_path)
    changes = []
    if url != span.url:
        changes.append(CharEdit(number, span.start, span.end, url, "re-pin link" if repins else "range corrected"))
        if move is not None and move.new_lines is not None and link.lines is not None:
            placed.update({(path, link.lines), (path, link.lines, number)})
        if new_path != path:
            placed.add(("path", path))
    if link.kind == LinkKind.COMMIT:
        return changes
    label = definition_label(text, span.start)
    if label is not None:
        definitions[label] = (move, path, new_path)
    shown = link_text_span(text, span.start)
    if shown is not None:
        changes.extend(text_changes(number, text, shown, move, path, new_path, "link text"))
    if link.lines is None:
        changes.extend(_range_after_link(number, text, span.end, (repo, path), by_link, placed))
    return changes


def _range_after_link(number: int, text: str, end: int, file: tuple[str, str], by_link: dict,
                      placed: set) -> list[CharEdit]:
    """The range written right after a link with no line anchor (``[a.py](<url>) lines 3-4``,
    ``(L3-L4)``), rewritten where the file's cited lines moved."""
    after = RANGE_AFTER_LINK.match(text, end)
    if after is None:
        return []
    ranges, _ = parse_ranges(after.group(1).replace(" ", "").replace("\t", ""))
    move = by_link.get((*file, ranges[0])) if len(ranges) == 1 else None
    if move is None or move.new_lines is None or move.old_lines == move.new_lines:
        return []
    placed.update({(file[1], move.old_lines), (file[1], move.old_lines, number)})
    return [CharEdit(number, after.start(1), after.end(1), respell_range(after.group(1), move.new_lines),
                     "range after link")]
