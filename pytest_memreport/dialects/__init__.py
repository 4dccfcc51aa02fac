"""Report dialects: reading a report file and parsing it into the report model.

``read_report`` turns the file's bytes into text (or one clear error),
``detect_dialect`` says which dialect a text is written in, and
``parse_report`` hands the text to that dialect's parser. A dialect is a
module with ``parse(path, text) -> Report`` registered in :data:`DIALECTS`;
what dialects share (line patterns, Markdown blocks) is in :mod:`.lexing`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from ..model import Finding, Report
from . import records

__all__ = ["DIALECTS", "ReportError", "detect_dialect", "parse_report", "read_report"]


class ReportError(Exception):
    """A report that cannot be read or parsed at all; the message is one line
    naming the file and what to do."""


#: dialect name -> parser. ``review`` and ``tables`` (FORMAT.md §2, §3) register here.
DIALECTS: dict[str, Callable[[str, str], Report]] = {
    "records": records.parse,
}

_BOM = b"\xef\xbb\xbf"
#: C0 controls a text report never contains (tab and newline are fine)
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def read_report(path: str | os.PathLike[str]) -> tuple[str, list[Finding]]:
    """Read a report file as text: UTF-8 (a BOM is dropped), line endings
    normalised to ``\\n``.

    Returns the text and findings about it (an empty report, control
    characters). Raises :class:`ReportError` when the file cannot be read or
    is not UTF-8.
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            data = handle.read()
    except IsADirectoryError:
        raise ReportError(f"{name} is a directory, not a report; pass the report file") from None
    except FileNotFoundError:
        raise ReportError(f"{name} does not exist; check the report path") from None
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ReportError(f"{name} cannot be read ({reason}); check its permissions") from None
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        byte = data[error.start]
        raise ReportError(
            f"{name} is not UTF-8 text (byte 0x{byte:02x} at line {line}); re-save it as UTF-8"
        ) from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    findings: list[Finding] = []
    if not text.strip():
        findings.append(Finding(1, "the report is empty; there is nothing to check", "parse"))
    control = _CONTROL.search(text)
    if control is not None:
        findings.append(Finding(
            text.count("\n", 0, control.start()) + 1,
            f"line contains control character U+{ord(control.group()):04X}; remove it "
            "(a quotation containing it cannot match)",
            "parse",
        ))
    return text, findings


def detect_dialect(text: str, path: str) -> str:
    """The dialect a report is written in. Only record reports exist yet."""
    del text, path  # the review and tables dialects will look at front matter and tables
    return "records"


def parse_report(path: str, text: str, dialect: str | None = None) -> Report:
    """Parse ``text`` (read from ``path``) in ``dialect``, detected when ``None``.

    Never raises on any text; an unknown dialect name raises :class:`ReportError`.
    """
    name = dialect or detect_dialect(text, path)
    parser = DIALECTS.get(name)
    if parser is None:
        known = ", ".join(sorted(DIALECTS))
        raise ReportError(f"{path}: unknown report dialect {name!r}; use one of {known}")
    return parser(path, text)
