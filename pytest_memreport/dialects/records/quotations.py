"""Pass 3 of the record parser: quotations, read over the lines as the reader
sees them (inline markup stripped), so a quote inside backticks is the quoted
code, not the markup. Where Markdown's reading changed more than the backticks
(``__init__`` read as emphasis, ``a*b*c`` too), a quotation's lines are taken as
written: code is quoted as it is, and the locator sets backticks aside itself. Where
Markdown changed only escapes (``\\_\\_init\\_\\_``), what a reader sees is kept
beside it and tried where the text as written is not found.

A rendering may split one excerpt over several paragraphs, of which only the
last carries ``--- path``; this pass decides how far back a quotation reaches.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from markdown_it.common.utils import unescapeAll

from ...model import Evidence, EvidenceKind, EvidenceRole, Finding, LineRange, Span
from .. import core
from ..core.spans import LineStarts
from .drafts import Draft, Entry
from .vocabulary import INLINE_PREDICATES, LABEL, PART_OF, ROUTE_FIELD, is_section_title


@dataclass
class QuotationPass:
    """The quotation pass over the record parser's shown ``entries``: each quotation is
    added as quote evidence to the draft that owns its line (``owner``), or to
    ``report_evidence`` outside every record; what it cannot read goes to ``findings``."""

    entries: list[Entry]
    owner: list[int]
    drafts: list[Draft]
    lines: list[core.Line]
    markdown: bool
    findings: list[Finding]
    report_evidence: list[Evidence]
    #: where each report line starts (the spans of the quotations' citations)
    starts: LineStarts | None = None
    #: each entry's quotation tail (``None``: no quotation line), split once by :meth:`read`
    _tails: list[core.QuotationTail | None] = field(default_factory=list, init=False, repr=False)

    def read(self) -> None:
        """Add every quotation of the entries to its owner."""
        # Each line is split once: a quotation line is also where the next one's walk back stops.
        self._tails = [core.split_quotation(entry.shown.text) if entry.block.kind in ("paragraph", "item") else None
                       for entry in self.entries]
        for index, entry in enumerate(self.entries):
            tail = self._tails[index]
            if tail is None:
                continue
            number = entry.shown.number
            raw = None
            line = self.lines[number - 1].text if 1 <= number <= len(self.lines) else None
            if self.markdown and line is not None:
                raw = tail if line == entry.shown.text else core.split_quotation(line)
            # The path comes from the raw line when it parses: markdown-it would read
            # ``src/__init__.py`` outside backticks as emphasis and drop the underscores.
            spec = raw.spec if raw is not None else tail.spec
            # Its span is in the line as written (a plain-text line is shown as it is written).
            written = raw if raw is not None else (tail if line == entry.shown.text else None)
            span = (self.starts.span(number, written.start, written.end)
                    if self.starts is not None and written is not None and written.start >= 0 else None)
            # (a shown line markdown-it joined from several, a code span across a line break,
            # is not this line as written)
            readings = (_as_written(tail.text, raw.text)
                        if raw is not None and raw is not tail and entry.shown.first == number
                        else (tail.text, tail.text))
            parts = self._quoted_parts(index, *readings)
            self._quotation(parts, spec, number, span)

    def _quoted_parts(self, index: int, text: str, shown: str) -> list[tuple[Entry, str, str]]:
        """The shown lines a quotation ending at ``entries[index]`` spans, each with its
        two readings (:func:`_as_written`; ``text`` and ``shown`` for the quotation line).

        Rendering may split one excerpt into several paragraphs, and only the
        last carries ``--- path``. The rule: walking back from the quotation
        line, earlier lines (blank lines between them allowed) belong to the
        quotation while they read as code, i.e. they are

        * of the same kind: paragraphs for a paragraph quotation, list items
          for a list-item quotation (a YAML list renders as ``•`` bullets),
          fenced code for either, in the same record and blockquote;
        * not structure: no record ID or ``On`` line, ``Label:``/``Part of:``,
          route field, status, ``SRC-n`` mention, section title or another
          quotation line;
        * not prose: they do not end like a sentence, introduce something
          with a capitalised ``...:``, or read as a bare title
          (:func:`core.reads_as_prose`).

        A prose line, a bullet or a status line therefore ends the quotation,
        which keeps a false join (a quote that cannot match) less likely than
        a missed one (a shorter quote that still matches).
        """
        end = self.entries[index]
        parts: list[tuple[Entry, str, str]] = [(end, text, shown)] if text else []
        owner = self.owner[end.shown.number]
        cursor = index - 1
        while cursor >= 0:
            entry = self.entries[cursor]
            block = entry.block
            if self.owner[entry.shown.number] != owner or block.quoted != end.block.quoted:
                break
            if block.kind == "code":
                if block.info == INLINE_PREDICATES or not block.code.strip():
                    break
                parts.append((entry, block.code, block.code))
            elif block.kind == end.block.kind and self._tails[cursor] is None and self._reads_as_code(entry.shown.text):
                parts.append((entry, *self._earlier_line(entry)))
            else:
                break
            cursor -= 1
        parts.reverse()
        return parts

    def _earlier_line(self, entry: Entry) -> tuple[str, str]:
        """An earlier line of a quotation, as shown or (in Markdown) as written, and its
        other reading: see :func:`_as_written`. A shown line markdown-it joined from several
        stays as shown."""
        number = entry.shown.number
        if not self.markdown or entry.shown.first != number or not 1 <= number <= len(self.lines):
            return entry.shown.text, entry.shown.text
        return _as_written(entry.shown.text, self.lines[number - 1].text)

    def _reads_as_code(self, text: str) -> bool:
        stripped = text.strip()
        if not stripped:
            return False
        if (
            core.RECORD_ID_LINE.fullmatch(stripped)
            or core.ANNOTATION_LINE.fullmatch(stripped)
            or LABEL.match(stripped)
            or PART_OF.match(stripped)
            or ROUTE_FIELD.match(stripped)
            or "conclusion status" in stripped.lower()
            or core.SOURCE_ID.search(stripped)
            or is_section_title(stripped)
        ):
            return False
        return not core.reads_as_prose(stripped)

    def _quotation(self, parts: list[tuple[Entry, str, str]], spec: core.PathSpec, end_line: int,
                   span: Span | None = None) -> None:
        owner_index = self.owner[end_line]
        owner = self.drafts[owner_index] if owner_index >= 0 else None
        target = owner.evidence if owner else self.report_evidence
        owner_id = owner.id if owner else None
        if spec.bad_range:
            self.findings.append(Finding(
                end_line,
                f"{spec.path}:{spec.bad_range} is not a line range; write start-end with 1 <= start <= end",
                "path",
            ))
        if not parts:
            self.findings.append(Finding(
                end_line,
                f"quotation of {spec.path} has no quoted text; put the excerpt before ' --- {spec.path}'",
                "structure",
            ))
            target.append(Evidence(EvidenceKind.PATH, spec.path, end_line, end_line,
                                   owner=owner_id, label=core.UNUSUAL_PATH if spec.unusual else None,
                                   role=EvidenceRole.MENTION if spec.unusual else None, span=span))
            return
        texts, shown = [], []
        for position, (entry, text, as_shown) in enumerate(parts):
            # The first part's own bullet marker is report structure; later bullets
            # are the quoted file's list items, which a rendering shows as ``•``.
            bullet = "• " if position and entry.bullet else ""
            texts.append(bullet + text)
            shown.append(bullet + as_shown)
        quoted, quoted_as_shown = "\n".join(texts), "\n".join(shown)
        cited = None
        if spec.ranges:
            cited = LineRange(spec.ranges[0].start, max(r.end for r in spec.ranges))
        first_line = parts[0][0].shown.first
        target.append(Evidence(
            EvidenceKind.QUOTE,
            spec.path,
            first_line,
            max(end_line, first_line),
            text=quoted,
            cited_lines=cited,
            owner=owner_id,
            # a path with characters prose also uses: evidence only if the pinned tree has it
            label=core.UNUSUAL_PATH if spec.unusual else None,
            role=EvidenceRole.MENTION if spec.unusual else None,
            # what a reader sees, tried where the text as written is not found (an escape
            # written for Markdown's sake: ``\_\_init\_\_`` quotes ``__init__``)
            shown_text=quoted_as_shown if quoted_as_shown != quoted else None,
            span=span,
        ))


def _as_written(shown: str, written: str) -> tuple[str, str]:
    """A quotation line's text, and its other reading where it has one.

    The text is the line as the reader shows it, or as the report's source writes it
    (after the line's own blockquote and list markers) where Markdown's reading changed
    more than its backticks and whitespace: emphasis read into ``__init__`` or ``a*b*c``,
    an escape in ``"\\n"``, a link in ``a[0](x)``. Backticks alone keep the shown text (the
    quotation's identity stays what it was).

    The other reading is the shown text where what Markdown changed is only its
    backslash escapes and entities: the writer may have escaped the quote for Markdown's
    sake (``\\_\\_init\\_\\_``) or quoted code that holds them (``"\\n"``), which only
    the quoted file can tell. Emphasis read into code has no second reading (a quote
    with its underscores or stars dropped would match what the code does not say)."""
    text = written[core.container_markers(written)[1]:].strip()
    plain_shown = _plain(shown)
    if _plain(text) == plain_shown:
        return shown, shown
    return text, (shown if _plain(unescapeAll(text)) == plain_shown else text)


def _plain(text: str) -> str:
    """``text`` without its backticks, its whitespace runs made one space."""
    return " ".join(text.replace("`", "").split())
