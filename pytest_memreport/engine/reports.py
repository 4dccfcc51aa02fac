"""The run's reports: read, planned and parsed a folder at a time, once.

An analysis run is a folder whose files share a register and a pin
(:mod:`..dialects.runs`), so a report is parsed with the other loaded reports of its
folder. Each folder's files are read once: the bytes parsed are the bytes a rewrite
checks against.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ..dialects import ReportError, decode_report, parse_member, plan_folder, read_report_bytes
from ..dialects.runs import MemberParse, RunFile
from ..model import Report
from .timing import Timing


@dataclass
class Loaded:
    """What loading some folders gave: each file's report or the error reading it said,
    and the bytes of each report read (by display path)."""

    reports: dict[Path, Report | ReportError] = field(default_factory=dict)
    report_bytes: dict[str, bytes] = field(default_factory=dict)


def load_folder(members: list[Path], display_path, dialect: str | None, readers: tuple = ()) -> Loaded:
    """Read, plan and parse one folder's report files (``members``, in order); ``readers``: the
    form readers third parties registered (:mod:`...hookspecs`)."""
    loaded = Loaded()
    files: list[RunFile] = []
    paths: dict[str, Path] = {}
    for member in members:
        try:
            data = read_report_bytes(member)
            text, read_findings = decode_report(str(member), data)
        except ReportError as exc:
            loaded.reports[member] = exc
            continue
        name = display_path(member)
        paths[name] = member
        files.append(RunFile(name, text, tuple(read_findings)))
        loaded.report_bytes[name] = data
    if not files:
        return loaded
    try:
        plans = plan_folder(display_path(members[0].parent), files, dialect)
    except ReportError as exc:
        for member in paths.values():
            loaded.reports[member] = exc
        return loaded
    planned: list[MemberParse] = [parse for plan in plans for parse in plan.members]
    for parse in planned:
        loaded.reports[paths[parse.file.path]] = parse_member(parse, readers)
    return loaded


class ReportSet:
    """The reports a run loads (``paths``, in the order given), parsed on first use."""

    def __init__(self, paths: list[Path], rootdir: Path, dialect: str | None, timing: Timing,
                 readers: tuple = ()) -> None:
        self.paths = list(paths)
        self._readers = readers
        self.rootdir = rootdir
        self._root = rootdir.resolve()
        self._dialect = dialect
        self._timing = timing
        self._parsed: dict[Path, Report | ReportError] = {}
        #: each report's bytes as parsed, so a rewrite can refuse a report changed since
        self.report_bytes: dict[str, bytes] = {}
        # One pass over the paths: a folder's members are found by lookup, not by a walk
        # over every path per folder (linear in reports, however many folders).
        self._folders: dict[Path, list[Path]] = {}
        for path in self.paths:
            resolved = Path(path).resolve()
            members = self._folders.setdefault(resolved.parent, [])
            if resolved not in members:
                members.append(resolved)

    def report(self, path: Path) -> Report:
        """Read and parse a report once; raises :class:`ReportError` for bad input."""
        key = Path(path).resolve()
        found = self._parsed.get(key)
        if found is None:
            self._parse_folder(key)
            found = self._parsed[key]
        if isinstance(found, ReportError):
            raise found
        return found

    def _parse_folder(self, key: Path) -> None:
        start = time.perf_counter()
        members = [p for p in self._folders.get(key.parent, ()) if p not in self._parsed]
        if key not in members:
            members.insert(0, key)  # a report not loaded as such (a test, a benchmark)
        loaded = load_folder(members, self.display_path, self._dialect, self._readers)
        self._parsed.update(loaded.reports)
        self.report_bytes.update(loaded.report_bytes)
        self._timing.add("parse", time.perf_counter() - start)

    def loaded(self) -> list[Report]:
        """Every report of this run that could be read (for cross-report checks)."""
        out = []
        for path in self.paths:
            try:
                out.append(self.report(path))
            except ReportError:
                continue
        return out

    def display_path(self, path: Path) -> str:
        """A report's name in items, messages and JSON: relative to where the run started."""
        try:
            return str(path.relative_to(self._root))
        except ValueError:
            return str(path)

    def report_file(self, report: Report) -> Path:
        """The report's file; relative (as displayed) when the run started in the current folder."""
        path = Path(report.path)
        if path.is_absolute() or Path.cwd().resolve() == self._root:
            return path
        return self.rootdir / path
