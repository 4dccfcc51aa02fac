"""Check results → the text a person reads (terminal failures, notes).

Pure functions: they take results and return lines. The pytest layer prints
them; nothing here decides pass or fail.
"""

from __future__ import annotations

import re

from ..runcaches import run_cached
from ..model import Evidence, EvidenceKind, EvidenceRole, Report

#: how much of a long quotation a failure shows
_QUOTE_WIDTH = 300


#: characters that would move the cursor, end a line or reorder text on a terminal or in a
#: CI log: C0 and C1 controls, DEL, line and paragraph separators, bidirectional overrides;
#: and lone surrogates (a file name's byte that is not UTF-8), which no UTF-8 output can hold
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_UNPRINTABLE_BUT_TAB = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                                  "\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(m: re.Match) -> str:
    code = ord(m.group(0))
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's stand-in for the byte 0x80-0xff it could not decode
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def valid_unicode(text: str) -> str:
    """``text`` with each lone surrogate escaped as :func:`printable` does (``\\xfe`` for a
    file name's byte that is not UTF-8), and nothing else changed: for outputs that keep
    control characters as data (JSON, HTML), which must still be valid UTF-8."""
    return _SURROGATE.sub(_escape, text) if _SURROGATE.search(text) else text


def printable(text: str, keep_tabs: bool = False) -> str:
    """``text`` with every control character written as an escape (``\\x0a``, ``\\u202e``).

    For names (report paths, target files) and any line the plugin prints: a file name
    with a newline cannot start a line of its own (nor a CI workflow command), and an
    escape sequence cannot recolour or rewrite the terminal. ``keep_tabs`` keeps tabs,
    for source lines shown as they are.
    """
    pattern = _UNPRINTABLE_BUT_TAB if keep_tabs else _UNPRINTABLE
    return pattern.sub(_escape, text) if pattern.search(text) else text


def short(sha: str | None) -> str:
    return (sha or "")[:12]


class Location(str):
    """``file:line`` as shown, its file and line kept as data (``file``, ``line``): outputs
    place a check by them, never by splitting the text."""

    file: str
    line: int

    def __new__(cls, file: str, line: int) -> Location:
        made = super().__new__(cls, f"{file}:{line}")
        made.file, made.line = file, int(line)
        return made


class Said(str):
    """A problem as shown, ``file:line: text`` (``file: text`` without a line), its place and
    text kept as data (``file``, ``line``, ``text``): what says it apart from its place reads
    ``text``, never the line with its opening cut off."""

    file: str
    line: int | None
    text: str

    def __new__(cls, file: str, line: int | None, text: str) -> Said:
        made = super().__new__(cls, f"{file}:{line}: {text}" if line else f"{file}: {text}")
        made.file, made.line, made.text = file, line, text
        return made


def location(report: Report, line: int) -> Location:
    return Location(_printable_name(report.path), line)


#: a report's path, made printable once: every outcome of its evidence names it
_printable_name = run_cached(maxsize=1024)(printable)


def clip(text: str, width: int = _QUOTE_WIDTH) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def evidence_title(evidence: Evidence) -> str:
    """``quotation of src/a.py`` / ``cited path src/a.py`` / ``lines 10-20 of src/a.py``."""
    path = printable(evidence.path)
    if evidence.kind is EvidenceKind.COMMIT:
        return f"commit link {printable(evidence.pin or '')[:12]}"
    if evidence.kind is EvidenceKind.QUOTE and evidence.searched:
        files = [printable(p) for p in dict.fromkeys((evidence.path, *evidence.context)) if p]
        if evidence.role is EvidenceRole.PROJECT:
            return "quotation attributed to the project" + (f" (linked: {', '.join(files)})" if files else "")
        if evidence.role is EvidenceRole.TERM:
            what = "code block given no file" if evidence.is_code_block else "quoted phrase"
            return what + (f" (linked: {', '.join(files)})" if files else "")
        return f"quotation of {' or '.join(files)}"
    if evidence.kind is EvidenceKind.QUOTE:
        cited = f":{evidence.cited_lines}" if evidence.cited_lines else ""
        return f"quotation of {path}{cited}"
    if evidence.kind is EvidenceKind.LINES:
        return f"lines {evidence.cited_lines} of {path}"
    if evidence.kind is EvidenceKind.DIRECTORY:
        return f"directory {path}"
    if evidence.kind is EvidenceKind.SYMBOL:
        return f"symbol {printable(evidence.text or '')} in {path}"
    if evidence.role is EvidenceRole.MANIFEST:
        return f"{path} as its manifest names it ({printable(evidence.text or '')[:12]})"
    return f"cited path {path}"


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
