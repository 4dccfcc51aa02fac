"""What a report says about its sources: ``SRC-n`` IDs, the commit each is
pinned at (``SRC-1 commit <sha>``, or a report-level pin such as ``git
rev-parse HEAD matched <sha>``) and a ``Source: https://host/owner/name`` line.

The patterns (written in :mod:`.grammar`) work on one report line at a time, so every pin keeps its line
and column; they are linear on adversarial input.
"""

from __future__ import annotations

from dataclasses import dataclass

from .grammar import REPORT_PINS, REPOSITORY_URL, SOURCE_ID, SOURCE_PIN


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
        for m in SOURCE_PIN.finditer(line)
    ]
    for pattern in REPORT_PINS:
        pins.extend(PinMatch(None, m.group(1).lower(), m.start(1)) for m in pattern.finditer(line))
    return sorted(pins, key=lambda pin: pin.column)


def find_repository_url(line: str) -> str | None:
    """The repository URL of a ``Source: https://host/owner/name`` line."""
    if "://" not in line:  # most lines: one substring test in C instead of the pattern's search
        return None
    match = REPOSITORY_URL.search(line)
    if match is None:
        return None
    url = match.group(1).rstrip(".")
    return url[: -len(".git")] if url.endswith(".git") else url


def find_source_ids(line: str) -> list[str]:
    """Every ``SRC-n`` named in ``line`` (normalised: ``SRC-01`` is ``SRC-1``)."""
    if "SRC-" not in line:
        return []
    return [f"SRC-{int(m.group(1))}" for m in SOURCE_ID.finditer(line)]
