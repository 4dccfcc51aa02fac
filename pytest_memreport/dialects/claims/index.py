"""Lookups across every loaded report's claims, computed once per run.

A knowledge base of thousands of reports asks, for each report: is this claims
file the one beside another loaded report? which of this claims file's records
does the report declare? which records of a claims file does no loaded report
declare? Answered by walking every loaded report (or every record of a shared
claims file) each time, the run costs the square of the number of reports.
:class:`ClaimsIndex` answers each from sets and dictionaries built once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from ...model import Report
from .loading import claims_path_for
from .model import ClaimsFile


class ClaimsIndex:
    """The run's claims lookups. ``report_paths`` are the loaded reports' files;
    ``loaded_reports`` gives their parsed reports (asked once, when first needed)."""

    def __init__(self, report_paths: Iterable[str | Path], loaded_reports: Callable[[], list[Report]]) -> None:
        self._report_paths = list(report_paths)
        self._loaded_reports = loaded_reports
        self._beside: frozenset[Path] | None = None
        self._declared: frozenset[str] | None = None
        #: a claims file -> its record IDs by position (the file's order)
        self._positions: dict[ClaimsFile, dict[str, int]] = {}
        #: a claims file -> ``(file, line, record id)`` of its records no loaded report declares
        self._unknown: dict[ClaimsFile, list[tuple[str, int, str]]] = {}

    @property
    def reports_loaded(self) -> int:
        return len(self._report_paths)

    def beside_loaded(self) -> frozenset[Path]:
        """The claims-file path beside each loaded report, resolved: a ``report:`` section
        of one of them belongs to that report alone."""
        if self._beside is None:
            self._beside = frozenset(claims_path_for(p).resolve() for p in self._report_paths)
        return self._beside

    def declared(self) -> frozenset[str]:
        """Every record ID (and registered ``SRC-n``) some loaded report declares."""
        if self._declared is None:
            ids: set[str] = set()
            for report in self._loaded_reports():
                ids |= report.declared_ids()
            self._declared = frozenset(ids)
        return self._declared

    def records_declared(self, claims_file: ClaimsFile, declared: set[str] | frozenset[str]) -> list[str]:
        """The IDs of ``claims_file``'s records that ``declared`` holds, in the file's order;
        a lookup per declared ID when the file has more records than that (a claims file
        named with ``--memreport-claims`` for a whole knowledge base)."""
        records = claims_file.records
        if len(records) <= len(declared):
            return [rid for rid in records if rid in declared]
        positions = self._positions.get(claims_file)
        if positions is None:
            positions = self._positions[claims_file] = {rid: n for n, rid in enumerate(records)}
        return sorted((rid for rid in declared if rid in positions), key=positions.__getitem__)

    def unknown_records(self, files: Iterable[ClaimsFile], also: Iterable[str] = ()) -> list[tuple[str, int, str]]:
        """``(claims file, line, record id)`` of the records of ``files`` that no loaded report
        (nor ``also``) declares, in file and line order (each file's computed once)."""
        extra = set(also) - self.declared()
        found: list[tuple[str, int, str]] = []
        for claims_file in files:
            unknown = self._unknown.get(claims_file)
            if unknown is None:
                declared = self.declared()
                unknown = self._unknown[claims_file] = [
                    (claims_file.path, record.line, rid) for rid, record in claims_file.records.items()
                    if rid not in declared]
            found.extend(entry for entry in unknown if entry[2] not in extra)
        return sorted(found)
