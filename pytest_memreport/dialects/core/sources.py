"""What a report says about its sources: ``SRC-n`` IDs, the commit each is
pinned at (``SRC-1 commit <sha>``, or a report-level pin such as ``git
rev-parse HEAD matched <sha>``) and a ``Source: https://host/owner/name`` line.

The patterns work on one report line at a time, so every pin keeps its line
and column; they are linear on adversarial input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


SOURCE_ID = re.compile(r"(?<![\w-])SRC-(\d{1,6})(?![\w-])")

_SHA = r"([0-9a-fA-F]{64}|[0-9a-fA-F]{7,40})(?![0-9A-Za-z])"
_OPEN = r"[`*\[]*"  # markup that may wrap a sha: `sha`, **sha**, [sha](...)
#: per-source pins: ``SRC-1 commit <sha>``
_SOURCE_PIN = re.compile(
    rf"(?i)(?<![\w-])SRC-(\d{{1,6}})[`*]*(?:[ \t]*[,:])?[ \t]*(?:at[ \t]+)?commit[`*:]*[ \t]+{_OPEN}{_SHA}"
)
#: report-level pins, which apply to SRC-1 unless it is pinned on its own
_REPORT_PINS = (
    re.compile(rf"(?i)\brev-parse[ \t]+HEAD[`*]*[ \t]+matched[ \t]+{_OPEN}{_SHA}"),
    re.compile(rf"(?i)\bHEAD[`*]*[ \t]+was[ \t]+rechecked[ \t]+as[ \t]+{_OPEN}{_SHA}"),
    re.compile(
        rf"(?i)\bReviewed[ \t]+revision[*]*:[ \t*]*`?[\w./-]+`?[*]*[ \t]+at[ \t]+{_OPEN}{_SHA}"
    ),
    re.compile(rf"(?i)\bReviewed[ \t]+commit[*]*:[ \t*]*[`\[]*{_SHA}"),
)
_REPOSITORY_URL = re.compile(
    r"(?i)\b(?:Source|Repository)[*]*[ \t]*:[*]*[ \t]*[<`\[]?(https?://[\w.-]+(?::\d+)?/[\w.-]+/[\w.-]+)"
)


@dataclass(frozen=True)
class PinMatch:
    """A commit a line pins: ``source`` is ``SRC-n`` or ``None`` for a report-level pin."""

    source: str | None
    sha: str
    column: int


def find_pins(line: str) -> list[PinMatch]:
    """Every commit pin stated in ``line`` (shas lower-cased)."""
    lowered = line.lower()
    if "commit" not in lowered and "head" not in lowered and "revision" not in lowered:
        return []
    pins = [
        PinMatch(f"SRC-{int(m.group(1))}", m.group(2).lower(), m.start(2))
        for m in _SOURCE_PIN.finditer(line)
    ]
    for pattern in _REPORT_PINS:
        pins.extend(PinMatch(None, m.group(1).lower(), m.start(1)) for m in pattern.finditer(line))
    return sorted(pins, key=lambda pin: pin.column)


def find_repository_url(line: str) -> str | None:
    """The repository URL of a ``Source: https://host/owner/name`` line."""
    match = _REPOSITORY_URL.search(line)
    if match is None:
        return None
    url = match.group(1).rstrip(".")
    return url[: -len(".git")] if url.endswith(".git") else url


def find_source_ids(line: str) -> list[str]:
    """Every ``SRC-n`` named in ``line`` (normalised: ``SRC-01`` is ``SRC-1``)."""
    return [f"SRC-{int(m.group(1))}" for m in SOURCE_ID.finditer(line)]
