"""A cited range's lines as a block, and where a text holds exactly that block.

A cited range follows only to identical lines: the drift of ranges
(:mod:`.ranges`), the search for where they went (:mod:`.search`) and the
commit that broke them (:mod:`.classification`) all test blocks this way.
"""

from __future__ import annotations

from ...model import LineRange


def block_lines(text: str) -> list[str]:
    """A file's lines (a final newline ends the last line)."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def cited_block(recorded: str) -> list[str]:
    """A cited range's lines from its recorded text, the lines joined by newlines: a
    final empty line is a blank line the range cites, not a file's final newline."""
    return recorded.split("\n")


def exact_blocks(block: list[str], text: str) -> list[LineRange]:
    """Every place ``text`` holds exactly the lines ``block``, in file order."""
    if not block:
        return []
    lines = block_lines(text)
    first, size = block[0], len(block)
    return [
        LineRange(start + 1, start + size)
        for start in range(len(lines) - size + 1)
        if lines[start] == first and lines[start:start + size] == block
    ]
