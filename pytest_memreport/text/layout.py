"""Layout facts of a report line that several stages need: table rows and bullets.

Observation evidence is worded to sit under its status line, and write-back
inserts it there; both ask these questions of the same line.
"""

from __future__ import annotations

import re

#: the indentation and list marker that open a line
_BULLET = re.compile(r"[ \t]*(?:[•*+\-][ \t]+)?")


def is_table_row(line_text: str) -> bool:
    """A Markdown pipe-table row or a tab-separated row of a text rendering."""
    stripped = line_text.strip()
    return stripped.startswith("|") or "\t" in stripped


def bullet_prefix(status_line_text: str) -> str:
    """The indentation and bullet that open a status line (``"  • "``, ``"- "``, or ``""``)."""
    if status_line_text.lstrip().startswith("|"):
        return "- "  # a Markdown table row: evidence goes below the table as a list item
    if "\t" in status_line_text.strip():
        return "• "  # a tab-separated table row of a text rendering
    match = _BULLET.match(status_line_text)
    return match.group(0) if match else ""
