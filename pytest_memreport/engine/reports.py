"""The run's reports: read, planned and parsed a folder at a time, once.

An analysis run is a folder whose files share a register and a pin
(:mod:`..dialects.runs`), so a report is parsed with the other loaded reports of its
folder. Each folder's files are read once: the bytes parsed are the bytes a rewrite
checks against.

A folder's parse is kept in the result cache (:meth:`..resultcache.ResultCache.content_key`),
a row per report, keyed by what it is a function of: every file's name and bytes (a run's
files share its register, so one changed file re-parses the folder), the dialect asked for,
the report's name and the code. A row per report, not one for the folder: a folder of large
notes parses to more than a row may hold (:data:`..resultcache.store.MAX_VALUE_CHARS`), and
was parsed again on every rerun. A parse with form readers a third party registered is never
kept: their code is no key.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..dialects import ReportError, decode_report, parse_member, plan_folder, read_report_bytes
from ..dialects.runs import MemberParse, RunFile
from ..dialects.sharedparse import parse_shared
from ..parsehelper import Helper, folders_of, shareable
from ..model import Report
from ..resultcache import Key, ResultCache
from .timing import Timing


@dataclass(frozen=True)
class ParsedReport:
    """A report as parsed (what the result cache keeps of it, a row per report)."""

    report: Report


@dataclass
class Loaded:
    """What loading some folders gave: each file's report or the error reading it said,
    and the bytes of each report read (by display path)."""

    reports: dict[Path, Report | ReportError] = field(default_factory=dict)
    report_bytes: dict[str, bytes] = field(default_factory=dict)
    #: how many reports were parsed, and how many were read back from the result cache
    parsed: int = 0
    kept: int = 0
    #: how many of those parsed a helper process parsed (:mod:`..dialects.sharedparse`)
    by_helper: int = 0
    #: what each report's parse is kept under, by display path (none with form readers, or
    #: where a file could not be read)
    key_parts: dict[str, tuple] = field(default_factory=dict)


def load_folder(members: list[Path], display_path, dialect: str | None, readers: tuple = (),
                results: ResultCache | None = None, helper: Helper | None = None,
                pins: Mapping[str | None, str] | None = None) -> Loaded:
    """Read, plan and parse one folder's report files (``members``, in order); ``readers``: the
    form readers third parties registered (:mod:`...hookspecs`); ``results``: where parses
    are kept by content; ``helper``: a process that parses some of them meanwhile
    (:mod:`..dialects.sharedparse`); ``pins``: the run's ``--memreport-pin`` (a report that
    states no pin of a repository they pin is read as pinned, :func:`..dialects.formbinding.augment`)."""
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
    keys: dict[str, Key | None] = {}
    if not readers and len(files) == len(members):
        loaded.key_parts = _key_parts(display_path(members[0].parent), dialect, files, loaded.report_bytes, pins)
    if results is not None and loaded.key_parts:
        keys = {path: results.content_key(PARSE_KIND, *parts) for path, parts in loaded.key_parts.items()}
        kept = {path: results.lookup(key) for path, key in keys.items()}
        if all(isinstance(found, ParsedReport) and found.report.path == path for path, found in kept.items()):
            loaded.reports.update((paths[path], found.report) for path, found in kept.items())
            loaded.kept = len(kept)
            return loaded
    try:
        plans = plan_folder(display_path(members[0].parent), files, dialect)
    except ReportError as exc:
        for member in paths.values():
            loaded.reports[member] = exc
        return loaded
    run_pins = frozenset(pins or ())
    planned: list[MemberParse] = [replace(parse, run_pins=run_pins) if run_pins else parse
                                  for plan in plans for parse in plan.members]
    shared = parse_shared(planned, lambda member: parse_member(member, readers), helper)
    parsed: dict[str, Report] = {}
    for parse, report in zip(planned, shared.reports, strict=True):
        parsed[parse.file.path] = report
        loaded.reports[paths[parse.file.path]] = report
    loaded.parsed = len(parsed)
    loaded.by_helper = shared.by_helper
    if results is not None and keys and len(parsed) == len(files):
        for path, key in keys.items():
            results.put(key, ParsedReport(parsed[path]))
    return loaded


#: the kind of a report's parse among the values the result cache keeps by content
PARSE_KIND = "report"


def _key_parts(place: str, dialect: str | None, files: list[RunFile], report_bytes: dict[str, bytes],
               pins: Mapping[str | None, str] | None = None) -> dict[str, tuple]:
    """What each report's parse is keyed by (:meth:`..resultcache.ResultCache.content_key`):
    its folder, the dialect asked for, the digest of every file's name and bytes, its name,
    and which repositories the run pins (not at which revisions: a parse reads no tree)."""
    # the folder's names and bytes digested once: each report's key names that digest
    folder = hashlib.sha256(json.dumps([(f.path, hashlib.sha256(report_bytes[f.path]).hexdigest()) for f in files],
                                       ensure_ascii=True).encode("ascii")).hexdigest()
    pinned = sorted("" if key is None else key for key in pins or ())
    return {f.path: (place, dialect or "", folder, f.path, pinned) for f in files}


class ReportSet:
    """The reports a run loads (``paths``, in the order given), parsed on first use."""

    def __init__(self, paths: list[Path], rootdir: Path, dialect: str | None, timing: Timing,
                 readers: tuple = (), results: ResultCache | None = None, helper: Helper | None = None,
                 pins: Mapping[str | None, str] | None = None) -> None:
        self.paths = list(paths)
        self._readers = readers
        #: the run's ``--memreport-pin`` (:func:`load_folder`)
        self._pins = dict(pins or {})
        self._results = results
        #: reports parsed (``by_helper`` of them by a helper process), and reports read back
        #: from the result cache (unchanged bytes)
        self.parsed = 0
        self.by_helper = 0
        self.kept = 0
        self.rootdir = rootdir
        self._root = rootdir.resolve()
        self._dialect = dialect
        self._timing = timing
        self._parsed: dict[Path, Report | ReportError] = {}
        #: each report's bytes as parsed, so a rewrite can refuse a report changed since
        self.report_bytes: dict[str, bytes] = {}
        #: what each parsed report is kept under in a result cache, by display path
        self._key_parts: dict[str, tuple] = {}
        # One pass over the paths: a folder's members are found by lookup, not by a walk
        # over every path per folder (linear in reports, however many folders).
        self._folders = folders_of(self.paths)
        #: the reports a helper may parse: those of folders it can share (two members or more;
        #: :func:`..dialects.sharedparse.parse_shared`), until each is parsed
        self._shareable = set(shareable(self._folders))
        #: a process parsing part of each such folder meanwhile (the plugin starts it for a
        #: large set, before this process's own imports: :func:`..parsehelper.start_for`),
        #: stopped once they are parsed; never where third parties' form readers take part
        #: (their code stays in this process)
        if helper is not None and readers:
            helper.stop()
            helper = None
        self._helper = helper

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
        loaded = load_folder(members, self.display_path, self._dialect, self._readers, self._results,
                             self._helper, self._pins)
        self.parsed += loaded.parsed
        self.by_helper += loaded.by_helper
        self.kept += loaded.kept
        self._key_parts.update(loaded.key_parts)
        self._parsed.update(loaded.reports)
        self.report_bytes.update(loaded.report_bytes)
        self._timing.add("parse", time.perf_counter() - start)
        self._shareable.difference_update(loaded.reports)
        if self._helper is not None and not self._shareable:
            self._helper.close()  # every report it could parse is parsed
            self._helper = None

    def keep_parsed(self, cache: ResultCache) -> int:
        """Every report parsed so far put in ``cache`` (saved by the caller), under the keys
        another process loading the same files looks them up by; how many."""
        kept = 0
        for member, found in self._parsed.items():
            parts = self._key_parts.get(self.display_path(member))
            if parts is not None and isinstance(found, Report):
                cache.put(cache.content_key(PARSE_KIND, *parts), ParsedReport(found))
                kept += 1
        return kept

    def release(self) -> None:
        """Let go of the parsed reports and their bytes (a later :meth:`report` reads its file
        again): pytest keeps its items, and what they hold, until the process exits."""
        self._parsed.clear()
        self.report_bytes.clear()
        if self._helper is not None:
            self._helper.stop()
            self._helper = None

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
