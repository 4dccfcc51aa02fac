"""Inline structure: where each link points, which words were code spans,
where a blockquote begins and ends, and which cells make up a table.

Reviews and analysis tables need more than the shown text of a block (see
:mod:`.blocks`). One walk over markdown-it's token stream gives all of it,
each piece with its report line; a plain-text rendering's tables are its runs
of tab-separated rows.
"""

from __future__ import annotations

import re

from dataclasses import dataclass

from .blocks import Block
from .markdown import token_stream


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

    Children carry no line positions; soft and hard breaks advance the line,
    and so does a code span across a line break (one piece: markdown-it made
    its break a space), found in the inline's source. Lines are clamped to the
    token's last line.
    """
    pieces: list[Piece] = []
    line = first
    source, cursor = inline.content or "", 0
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
            span = _source_span(source, cursor, content)
            if span is not None:
                cursor = span[1]
                line = min(line + source.count("\n", *span), last)
        elif pieces and pieces[-1].kind == "text" and pieces[-1].line == line:
            pieces[-1] = Piece("text", pieces[-1].text + content, line)
        else:
            pieces.append(Piece("text", content, line))
    if link is not None:  # an unclosed link cannot come out of markdown-it; keep its text
        pieces.append(Piece("text", "".join(link[2]), link[1]))
    return tuple(pieces)


def _source_span(source: str, start: int, content: str) -> tuple[int, int] | None:
    """Where a code span's ``content`` lies in the inline's ``source`` from ``start``
    (its spaces may be line breaks there), or ``None``."""
    words = content.split()
    if not words or source.find("\n", start) < 0:
        return None
    if len(words) == 1:  # most code spans: found as written (no pattern to compile for each)
        at = source.find(words[0], start)
        return (at, at + len(words[0])) if at >= 0 else None
    found = re.compile(r"\s+".join(map(re.escape, words))).search(source, start)
    return found.span() if found else None


def markdown_layout(text: str, skip_through: int | None = None) -> Layout:
    """Inline content, tables, blockquotes and code blocks of a Markdown report.

    ``skip_through`` blanks lines 1..n first (front matter), keeping line
    numbers, as :func:`.blocks.markdown_blocks` does.
    """
    tokens = token_stream(_blank_front(text, skip_through))
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
    (see :func:`.blocks.plain_blocks`), the first row of each run being its header."""
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
