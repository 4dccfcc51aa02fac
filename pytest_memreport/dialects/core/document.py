"""A report read once for the review and tables dialects: numbered lines,
front matter, and either markdown-it's layout (Markdown) or plain blocks
(text), with the parser base both dialects start from.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...model import Finding
from .blocks import plain_blocks
from .layout import Layout, markdown_layout
from .lines import front_matter_end, is_markdown, numbered_lines
from .spans import LineStarts


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
        #: where each line starts in ``text``: the spans of what the parser reads
        self.starts = LineStarts(text)
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
