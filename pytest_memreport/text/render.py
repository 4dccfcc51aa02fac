"""Check results → the text a person reads (terminal failures, notes).

Pure functions: they take results and return lines. The pytest layer prints
them; nothing here decides pass or fail.
"""

from __future__ import annotations

from ..model import Evidence, EvidenceKind, Report

#: how much of a long quotation a failure shows
_QUOTE_WIDTH = 300


def short(sha: str | None) -> str:
    return (sha or "")[:12]


def location(report: Report, line: int) -> str:
    return f"{report.path}:{line}"


def clip(text: str, width: int = _QUOTE_WIDTH) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def evidence_title(evidence: Evidence) -> str:
    """``quotation of src/a.py`` / ``cited path src/a.py`` / ``lines 10-20 of src/a.py``."""
    if evidence.kind is EvidenceKind.QUOTE:
        cited = f":{evidence.cited_lines}" if evidence.cited_lines else ""
        return f"quotation of {evidence.path}{cited}"
    if evidence.kind is EvidenceKind.LINES:
        return f"lines {evidence.cited_lines} of {evidence.path}"
    if evidence.kind is EvidenceKind.DIRECTORY:
        return f"directory {evidence.path}"
    if evidence.kind is EvidenceKind.SYMBOL:
        return f"symbol {evidence.text} in {evidence.path}"
    return f"cited path {evidence.path}"


#: how much of one source line a failure shows (a minified file is one huge line)
_LINE_WIDTH = 200


def numbered(text: str, first_line: int, limit: int = 12) -> list[str]:
    """Source lines with their numbers, as pytest's doctest failures show them.

    A line longer than ``_LINE_WIDTH`` characters is cut with ``…``, so a
    one-line minified file cannot flood the terminal."""
    rows = text.split("\n")
    shown = [row if len(row) <= _LINE_WIDTH else row[: _LINE_WIDTH - 1] + "…" for row in rows[:limit]]
    out = [f"    {first_line + i:>5} | {row}" for i, row in enumerate(shown)]
    if len(rows) > limit:
        out.append(f"          | ... ({len(rows) - limit} more lines)")
    return out


def indent(text: str, prefix: str = "    ") -> list[str]:
    return [prefix + row for row in text.split("\n")]
