"""A cited range's lines as a block, and where a text holds exactly that block.

A cited range follows only to identical lines: the drift of ranges
(:mod:`.ranges`), the search for where they went (:mod:`.search`) and the
commit that broke them (:mod:`.classification`) all test blocks this way.
"""

from __future__ import annotations

from ...model import LineRange


def block_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


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
