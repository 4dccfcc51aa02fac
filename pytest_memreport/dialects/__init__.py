"""Report dialects: reading a report file and parsing it into the report model.

``read_report`` turns the file's bytes into text (or one clear error),
``detect_dialect`` says which dialect a text is written in, and
``parse_report`` hands the text to that dialect's parser. A dialect is a
module with ``parse(path, text) -> Report`` registered in :data:`DIALECTS`;
what dialects share (line patterns, Markdown blocks) is in :mod:`.core`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..errors import MemreportError
from ..model import Finding, Report
from ..model import Run
from . import codeblocks, core, formbinding, forms, inputs, notes, records, review, runs, tables
from .claims.inline import memreport_blocks
from .core import anchors  # run citation forms (also core.anchors)

__all__ = ["DIALECTS", "ReportError", "decode_report", "detect", "detect_dialect", "parse_folder", "parse_report",
           "read_report", "read_report_bytes"]


class ReportError(MemreportError):
    """A report that cannot be read or parsed at all; the message is one line
    naming the file and what to do."""

    code = "MR102"


#: dialect name -> parser: record reports (docs/FORMATS.md §1), reviews (§2), analysis tables (§3), notes (§4).
DIALECTS: dict[str, Callable[[str, str], Report]] = {
    "records": records.parse,
    "review": review.parse,
    "notes": notes.parse,
    "tables": tables.parse,
}

_BOM = b"\xef\xbb\xbf"
#: C0 controls a text report never contains (tab and newline are fine)
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: a terminal's colour or cursor sequence (``ESC[32m``), as pasted program output holds
_TERMINAL_SEQUENCE = re.compile("\x1b\\[[0-9;?]*[A-Za-z]")


def read_report(path: str | os.PathLike[str]) -> tuple[str, list[Finding]]:
    """Read a report file as text: UTF-8 (a BOM is dropped), line endings
    normalised to ``\\n``.

    Returns the text and findings about it (an empty report, control
    characters). Raises :class:`ReportError` when the file cannot be read,
    is not a regular file (a FIFO, a device), is over
    :data:`.inputs.MAX_REPORT_BYTES` or is not UTF-8.
    """
    return decode_report(os.fspath(path), read_report_bytes(path))


def read_report_bytes(path: str | os.PathLike[str]) -> bytes:
    """A report file's bytes, read once; :class:`ReportError` when it cannot be read or is not a file."""
    name = os.fspath(path)
    try:
        return inputs.read_regular(name, inputs.MAX_REPORT_BYTES)
    except inputs.InputRefused as refused:
        raise ReportError(f"{name} {refused.reason}; pass a report file") from None
    except IsADirectoryError:
        raise ReportError(f"{name} is a directory, not a report; pass the report file") from None
    except FileNotFoundError:
        raise ReportError(f"{name} does not exist; check the report path") from None
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ReportError(f"{name} cannot be read ({reason}); check its permissions") from None


def decode_report(name: str, data: bytes) -> tuple[str, list[Finding]]:
    """A report's bytes as text and findings about it (see :func:`read_report`)."""
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
    control = _stray_control(text)
    if control is not None:
        findings.append(Finding(
            text.count("\n", 0, control.start()) + 1,
            f"line contains control character U+{ord(control.group()):04X}; remove it "
            "(a quotation containing it cannot match)",
            "parse",
        ))
    return text, findings


def _stray_control(text: str) -> re.Match[str] | None:
    """The first control character of ``text`` that is no terminal colour sequence inside a
    fenced block: a program's output pasted in a code block (a test run's green ``[PASS]``)
    keeps its colours, and quotes no file."""
    fenced: frozenset[int] | None = None
    for control in _CONTROL.finditer(text):
        if control.group() == "\x1b" and _TERMINAL_SEQUENCE.match(text, control.start()):
            if fenced is None:
                fenced = codeblocks.fenced_lines(text.split("\n"))
            if text.count("\n", 0, control.start()) in fenced:
                continue
        return control
    return None


#: ``**Reviewed commit:**``, ``Reviewed revision:`` or ``**Repository:** <url>`` opening a line
_REVIEW_MARK = re.compile(
    r"(?im)^[ \t>*_-]*(?:Reviewed[ \t]+(?:commit|revision)|Repository)[*_]*[ \t]*:"
)
#: ``**Revision:**`` / ``Frozen revision:`` opening a line
_REVISION_MARK = re.compile(r"(?im)^[ \t>*_|-]*(?:Frozen[ \t]+)?Revision[*_]*[ \t]*[:.|]")
#: markup around a record ID alone on a line (heading marks, emphasis, backticks)
_ID_MARKUP = "#*_` \t"
#: a ``Label:`` line, markup allowed
_LABEL_LINE = re.compile(r"[*_]{0,2}Label[*_]{0,2}[ \t]*:")


def _declares_records(lines: list[str]) -> bool:
    """Whether a record ID stands alone on a line with ``Label:`` on the next
    non-blank line (or is a ``## ID — Label`` heading): a record report."""
    for index, line in enumerate(lines):
        stripped = line.strip(_ID_MARKUP)
        if not stripped or stripped[0] not in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
            continue
        if line.lstrip().startswith("#") and core.HEADED_RECORD.fullmatch(stripped):
            return True
        if not core.RECORD_ID_LINE.fullmatch(stripped):
            continue
        for following in lines[index + 1 : index + 4]:
            if following.strip():
                if _LABEL_LINE.match(following.strip()):
                    return True
                break
    return False


def _table_id_rows(lines: list[str]) -> tuple[int, bool]:
    """How many table rows (pipe or tab-separated) start with a record-like ID,
    and whether some row starts with ``SRC-n`` (a source register)."""
    rows = 0
    register = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("|"):
            first = stripped[1:].split("|", 1)[0]
        elif "\t" in stripped:
            first = stripped.split("\t", 1)[0]
        else:
            continue
        first = first.strip(_ID_MARKUP)
        if anchors.SOURCE_REF.fullmatch(first):
            register = True
        elif tables.table_id(first):
            rows += 1
    return rows, register


def detect_dialect(text: str, path: str) -> str:
    """The dialect a report is written in (see :func:`detect`)."""
    return detect(text, path)[0]


def detect(text: str, path: str) -> tuple[str, bool]:
    """The dialect a report is written in.

    In order: record declarations (an ID alone on a line, then ``Label:``)
    make a record report; a source register (table rows starting ``SRC-n``),
    or table rows whose first cell is an ID together with a ``**Revision:**``
    line or ``| Revision |`` row, make an analysis tables report; an ``Evidence basis:`` line
    makes a note; ``**Reviewed commit:**``, ``Reviewed revision:``,
    ``**Repository:**`` or YAML front matter make a review. Anything else is
    read as a record report, the main dialect.

    The second value says whether the text itself decides it (anything but
    the fallback); a file of an analysis run that declares nothing of its own
    (a result, trial notes) is read in its run's dialect.
    """
    del path  # the same dialect may be a Markdown original or a plain-text rendering
    lines = text.split("\n")
    if _declares_records(lines):
        return "records", True
    id_rows, register = _table_id_rows(lines)
    if register or (id_rows and _REVISION_MARK.search(text)):
        return "tables", True
    if notes.detects(text):
        return "notes", True
    if _REVIEW_MARK.search(text):
        return "review", True
    if lines and lines[0].strip() == "---" and core.front_matter_end(core.numbered_lines(text)):
        return "review", True
    return "records", False


def release_caches() -> None:
    """Drop what parsing kept to share work (the last report's Markdown tokens) once
    every report the run checks is parsed."""
    from .core import markdown

    markdown.clear_cache()


def parse_report(path: str, text: str, dialect: str | None = None,
                 readers: Sequence[forms.FormReader] = (), run_pins: frozenset[str | None] = frozenset()) -> Report:
    """Parse ``text`` (read from ``path``) in ``dialect``, detected when ``None``;
    ``run_pins``: the keys the run gives a revision for (:func:`.formbinding.augment`).

    Never raises on any text; an unknown dialect name raises :class:`ReportError`.
    """
    name = dialect or detect_dialect(text, path)
    parser = DIALECTS.get(name)
    if parser is None:
        known = ", ".join(sorted(DIALECTS))
        raise ReportError(f"{path}: unknown report dialect {name!r}; use one of {known}")
    return _finished(parser(path, text), text, readers, run_pins)


def _finished(report: Report, text: str, readers: Sequence[forms.FormReader] = (),
              run_pins: frozenset[str | None] = frozenset()) -> Report:
    """A dialect's report with what every dialect shares: the evidence the universal forms
    show that the dialect did not read (:mod:`.forms`), and the claims blocks."""
    report = formbinding.augment(report, text, readers, run_pins)
    # Claims blocks are read the same way in every dialect (see claims.inline).
    blocks = memreport_blocks(text)
    return replace(report, blocks=blocks) if blocks else report


def parse_folder(folder: str, files: list[runs.RunFile], dialect: str | None = None) -> list[Run]:
    """The analysis runs among the files of one folder, every file parsed with its
    run's register and pin (:mod:`.runs`). A file alone is a run of one."""
    return [runs.assemble(plan, [parse_member(member) for member in plan.members])
            for plan in plan_folder(folder, files, dialect)]


def plan_folder(folder: str, files: list[runs.RunFile], dialect: str | None = None) -> list[runs.RunPlan]:
    """:func:`parse_folder` before any file is parsed: the runs, each member's dialect
    and its run's facts (each member then parses on its own, :func:`parse_member`)."""
    if dialect is not None and dialect not in DIALECTS:
        known = ", ".join(sorted(DIALECTS))
        raise ReportError(f"{folder}: unknown report dialect {dialect!r}; use one of {known}")
    return runs.plan_runs(folder, files, detect, dialect)


def parse_member(member: runs.MemberParse, readers: Sequence[forms.FormReader] = ()) -> Report:
    """One planned file parsed, claims blocks and all: a pure function of ``member``
    (and of the form readers a third party registered)."""
    return _finished(runs.parse_member(member, DIALECTS), member.file.text, readers, member.run_pins)
