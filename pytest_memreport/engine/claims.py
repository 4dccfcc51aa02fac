"""Each report's claims: its own claims file, the files named on the command line and its
inline ```memreport blocks, loaded once each."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..dialects import claims as claims_mod
from ..dialects.claims import ClaimsError, ClaimsFile
from ..dialects.claims.assembly import ReportClaims, assemble
from ..dialects.claims.model import Problem
from ..dialects.claims.index import ClaimsIndex
from ..dialects.inputs import MAX_CLAIMS_BYTES, InputRefused, read_regular
from ..model import Report
from ..options import RunOptions
from .reports import ReportSet


def covers_problems(claims: ReportClaims) -> tuple[str, ...]:
    """``covers: true`` on commands coverage.py cannot measure, refused before anything runs."""
    from ..checks.observe.coverage import covers_problem

    found = []
    for observations in claims.observations.values():
        for observation in observations:
            problem = covers_problem(observation)
            if problem:
                found.append(Problem(observation.file, observation.line, problem))
    return tuple(found)


class ClaimsRegistry:
    """Claims files loaded once; each report's claims assembled once."""

    def __init__(self, options: RunOptions, reports: ReportSet) -> None:
        self._options = options
        self._reports = reports
        self._files: dict[Path, ClaimsFile | ClaimsError | None] = {}
        self._by_report: dict[str, ReportClaims] = {}
        #: lookups across every loaded report's claims, built once (linear in reports)
        self.index = ClaimsIndex(reports.paths, reports.loaded)
        #: each claims file's bytes as loaded (by resolved path), so a rewrite can refuse
        #: a claims file changed since
        self.claims_bytes: dict[str, bytes] = {}

    def _file(self, path: Path) -> ClaimsFile | ClaimsError | None:
        key = Path(path).resolve()
        if key not in self._files:
            try:
                # regular files only: a FIFO or device here must not hang the run
                self.claims_bytes[str(key)] = read_regular(key, MAX_CLAIMS_BYTES)
            except (OSError, InputRefused):
                pass  # load_claims says why it cannot be read
            try:
                self._files[key] = claims_mod.load_claims(path)
            except ClaimsError as exc:
                self._files[key] = exc
        return self._files[key]

    def claims_for(self, report: Report) -> ReportClaims:
        """Predicates and observations for the records ``report`` declares.

        Claims come from the report's own ``<stem>.claims.yaml``, from files
        named with ``--memreport-claims`` (each record goes to the report that
        declares it) and from inline ```memreport blocks.
        """
        cached = self._by_report.get(report.path)
        if cached is not None:
            return cached
        files: list[ClaimsFile] = []
        errors: list[str] = []  # each a Problem: its file and line are data
        beside = claims_mod.claims_path_for(self._reports.report_file(report))
        # beside.exists(): a FIFO or device there is refused, not silently skipped
        candidates = ([beside] if beside.exists() else []) + [Path(p) for p in self._options.claims]
        for path in candidates:
            loaded = self._file(path)
            if isinstance(loaded, ClaimsError):
                # a file named twice (beside the report and with --memreport-claims) is said once
                if path == beside or not any(isinstance(e, Problem) and e.file == str(path) for e in errors):
                    errors.extend(loaded.messages)
            elif loaded is not None and loaded not in files:
                files.append(loaded)
        result = assemble(report, files, beside, errors, max(1, self.index.reports_loaded),
                          self.index.beside_loaded(), self.index)
        refused = covers_problems(result)
        if refused:
            result = replace(result, errors=result.errors + refused)
        self._by_report[report.path] = result
        return result

    @staticmethod
    def default_source(report: Report) -> str | None:
        """The source a claim without ``source:`` is checked in: the report's first
        (a review's ``owner/name``, mapped like its links are)."""
        return report.sources[0].id if report.sources else None
