"""Blocks: headings, paragraphs, list items, table rows and fenced code, each
with its lines as the reader sees them (inline markup stripped).

For Markdown the structure comes from markdown-it-py's token stream and its
``.map`` line positions; for a plain-text rendering every non-blank line is a
block of its own (bullets and tab-separated rows are recognised by their first
characters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .lines import Line
from .markdown import token_stream


@dataclass(frozen=True, slots=True)
class ShownLine:
    """A line as the reader sees it: Markdown markup stripped, bullet marker removed.

    ``number`` is the report line it ends on; ``start`` the line it begins on,
    earlier only when markdown-it joined lines (a code span across a line break).
    """

    number: int
    text: str
    start: int = 0

    @property
    def first(self) -> int:
        return self.start or self.number


@dataclass(frozen=True, slots=True)
class Block:
    """One structural piece of a report: what markdown-it calls a block.

    ``kind`` is ``heading``, ``paragraph``, ``item`` (a list item's paragraph),
    ``row`` (a table row; ``cells`` holds its cells) or ``code`` (fenced or
    indented code; ``info`` is the fence's language word and ``code`` its
    content, whose first line is ``line + 1`` for a fence). ``bullet`` is true
    for the first paragraph of a list item (its marker was dropped from
    ``lines``); later paragraphs of the same item have ``bullet`` false and
    the same ``item``. ``quoted`` marks text inside a blockquote.
    """

    kind: str
    line: int
    end_line: int
    lines: tuple[ShownLine, ...] = ()
    level: int = 0
    bullet: bool = False
    item: int | None = None
    quoted: bool = False
    cells: tuple[str, ...] = ()
    info: str = ""
    code: str = ""

    @property
    def text(self) -> str:
        return "\n".join(shown.text for shown in self.lines)


_PLAIN_BULLET = re.compile(r"[ \t]*(?:[•◦▪‣●*+-]|\d{1,3}[.)])[ \t]+(\S.*)")


def plain_blocks(lines: list[Line]) -> list[Block]:
    """Blocks of a plain-text rendering: one per non-blank line.

    A rendering has no reliable paragraph structure beyond lines: a bullet
    (``•``, ``-``, ``*``, ``1.``) starts an ``item``; a line with tabs is a
    table ``row``; everything else is a ``paragraph``. Headings cannot be told
    from short paragraphs here; a dialect recognises its own section titles.
    """
    blocks: list[Block] = []
    for item, line in enumerate(lines):
        stripped = line.text.strip()
        if not stripped:
            continue
        bullet = _PLAIN_BULLET.fullmatch(line.text)
        if "\t" in stripped:
            cells = tuple(cell.strip() for cell in line.text.split("\t"))
            blocks.append(
                Block("row", line.number, line.number, (ShownLine(line.number, stripped),),
                      cells=cells)
            )
        elif bullet:
            shown = (ShownLine(line.number, bullet.group(1).strip()),)
            blocks.append(Block("item", line.number, line.number, shown, bullet=True, item=item))
        else:
            blocks.append(Block("paragraph", line.number, line.number,
                                (ShownLine(line.number, stripped),)))
    return blocks


def _inline_lines(inline) -> list[str]:
    """An inline token's text as the reader sees it, one string per source line."""
    parts: list[list[str]] = [[]]
    for child in inline.children or ():
        if child.type in ("text", "code_inline", "image"):
            parts[-1].append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append([])
    return ["".join(part) for part in parts]


def _numbered(rendered: list[str], first: int, last: int) -> tuple[ShownLine, ...]:
    """Give rendered lines their report line numbers.

    When a code span crossed a line break markdown-it joins its lines, so
    there are fewer rendered lines than source lines; the last rendered line
    is then pinned to the block's last line (where a quotation's ``--- path``
    sits) and the others keep their order from the first.
    """
    count = len(rendered)
    if not count or count == last - first + 1:
        return tuple(ShownLine(first + k, text) for k, text in enumerate(rendered))
    shown = [ShownLine(min(first + k, last), text) for k, text in enumerate(rendered[:-1])]
    shown.append(ShownLine(last, rendered[-1], start=min(first + count - 1, last)))
    return tuple(shown)


def markdown_blocks(text: str, skip_through: int | None = None) -> list[Block]:
    """Blocks of a Markdown report, from markdown-it's token stream.

    ``skip_through`` blanks lines 1..n first (front matter), keeping line
    numbers. Raw HTML blocks and thematic breaks are not part of what a reader
    reads as text and are left out.
    """
    if skip_through:
        source_lines = text.split("\n")
        for index in range(min(skip_through, len(source_lines))):
            source_lines[index] = ""
        text = "\n".join(source_lines)
    tokens = token_stream(text)
    blocks: list[Block] = []
    items: list[int] = []  # open list items, innermost last
    items_with_text: set[int] = set()
    quote_depth = 0
    row_start: tuple[int, int] | None = None
    cells: list[str] = []
    heading: tuple[int, int, int] | None = None
    item_counter = 0
    for token in tokens:
        kind = token.type
        if kind == "list_item_open":
            item_counter += 1
            items.append(item_counter)
        elif kind == "list_item_close":
            if items:
                items.pop()
        elif kind == "blockquote_open":
            quote_depth += 1
        elif kind == "blockquote_close":
            quote_depth = max(0, quote_depth - 1)
        elif kind == "heading_open" and token.map:
            level = int(token.tag[1:]) if token.tag[1:].isdigit() else 1
            heading = (token.map[0] + 1, max(token.map[0] + 1, token.map[1]), level)
        elif kind == "tr_open" and token.map:
            row_start = (token.map[0] + 1, max(token.map[0] + 1, token.map[1]))
            cells = []
        elif kind == "tr_close" and row_start:
            first, last = row_start
            joined = "\t".join(cells)
            blocks.append(Block("row", first, last, (ShownLine(first, joined),),
                                quoted=quote_depth > 0, cells=tuple(cells)))
            row_start = None
        elif kind == "inline":
            rendered = _inline_lines(token)
            if row_start is not None:
                cells.append(" ".join(part.strip() for part in rendered).strip())
                continue
            if not token.map:
                continue
            first, last = token.map[0] + 1, max(token.map[0] + 1, token.map[1])
            if heading is not None:
                first, last, level = heading
                shown: tuple[ShownLine, ...] = (ShownLine(first, " ".join(rendered).strip()),)
                blocks.append(Block("heading", first, last, shown, level=level,
                                    quoted=quote_depth > 0))
                heading = None
                continue
            shown = _numbered([part.strip() for part in rendered], first, last)
            if items:
                current = items[-1]
                bullet = current not in items_with_text
                items_with_text.add(current)
                blocks.append(Block("item", first, last, shown, bullet=bullet, item=current,
                                    quoted=quote_depth > 0))
            else:
                blocks.append(Block("paragraph", first, last, shown, quoted=quote_depth > 0))
        elif kind in ("fence", "code_block") and token.map:
            first, last = token.map[0] + 1, max(token.map[0] + 1, token.map[1])
            info = token.info.strip().split()[0] if token.info.strip() else ""
            content = token.content[:-1] if token.content.endswith("\n") else token.content
            first_content = first + 1 if kind == "fence" else first
            shown = tuple(
                ShownLine(first_content + offset, part)
                for offset, part in enumerate(content.split("\n"))
            ) if content else ()
            blocks.append(Block("code", first, last, shown, info=info, code=content,
                                item=items[-1] if items else None, quoted=quote_depth > 0))
    return blocks
