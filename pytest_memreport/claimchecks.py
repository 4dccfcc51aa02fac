"""The claims part of the engine: each report's claims (files and inline blocks),
predicate results at the pin and the against-revision, observation runs.

Mixed into :class:`~pytest_memreport.engine.Engine`, whose bindings and caches it uses.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from .dialects import claims as claims_mod
from .checks import predicate_follow, predicates
from .dialects.claims import ClaimsError, ClaimsFile, Predicate
from .dialects.claims.assembly import ReportClaims, assemble
from .dialects.claims.index import ClaimsIndex
from .dialects.inputs import MAX_CLAIMS_BYTES, InputRefused, read_regular
from .gitstore import RepoError, RevisionError
from .model import Report
from .resultcache import ResultCache, encode




def covers_problems(claims: ReportClaims) -> tuple[str, ...]:
    """``covers: true`` on commands coverage.py cannot measure, refused before anything runs."""
    from .checks.observe.coverage import covers_problem

    found = []
    for observations in claims.observations.values():
        for observation in observations:
            problem = covers_problem(observation)
            if problem:
                found.append(f"{observation.file}:{observation.line}: {problem}")
    return tuple(found)


class ClaimChecks:
    """Claims files loaded once, predicates and observations checked once each."""

    # -- claims ----------------------------------------------------------
    def _claims_file(self, path: Path) -> ClaimsFile | ClaimsError | None:
        key = Path(path).resolve()
        if key not in self._claims_files:
            try:
                # regular files only: a FIFO or device here must not hang the run
                self.claims_bytes[str(key)] = read_regular(key, MAX_CLAIMS_BYTES)
            except (OSError, InputRefused):
                pass  # load_claims says why it cannot be read
            try:
                self._claims_files[key] = claims_mod.load_claims(path)
            except ClaimsError as exc:
                self._claims_files[key] = exc
        return self._claims_files[key]

    def claims_for(self, report: Report) -> ReportClaims:
        """Predicates and observations for the records ``report`` declares.

        Claims come from the report's own ``<stem>.claims.yaml``, from files
        named with ``--memreport-claims`` (each record goes to the report that
        declares it) and from inline ```memreport blocks.
        """
        cached = self._report_claims.get(report.path)
        if cached is not None:
            return cached
        files: list[ClaimsFile] = []
        errors: list[str] = []
        beside = claims_mod.claims_path_for(self.report_file(report))
        # beside.exists(): a FIFO or device there is refused, not silently skipped
        candidates = ([beside] if beside.exists() else []) + [Path(p) for p in self.options.claims]
        for path in candidates:
            loaded = self._claims_file(path)
            if isinstance(loaded, ClaimsError):
                if path == beside or not any(str(path) in e for e in errors):
                    errors.extend(loaded.messages)
            elif loaded is not None and loaded not in files:
                files.append(loaded)
        index = self.claims_index()
        result = assemble(report, files, beside, errors, max(1, index.reports_loaded), index.beside_loaded(), index)
        refused = covers_problems(result)
        if refused:
            result = replace(result, errors=result.errors + refused)
        self._report_claims[report.path] = result
        return result

    def claims_index(self) -> ClaimsIndex:
        """The run's claims lookups, built once the loaded reports are known (at the first claims)."""
        if self.__dict__.get("_claims_index") is None:
            self._claims_index = ClaimsIndex(self.loaded_paths, self.loaded_reports)
        return self._claims_index

    def predicate_result(self, report: Report, predicate: Predicate, at_against: bool = False):
        """A predicate evaluated at the pin, or at the against-revision.

        Returns ``(result, problem)``: ``problem`` is a one-line reason when
        the revision cannot be checked (then ``result`` is ``None``).
        """
        key = (report.path, predicate, at_against)
        if key in self._predicate_results:
            return self._predicate_results[key]
        binding = self.binding(report, predicate.source or self.default_source(report))
        answer: tuple = (None, binding.problem)
        if binding.pin is not None:
            rev = binding.pin
            problem = None
            if at_against:
                try:
                    rev = self.against_rev(binding.store)
                except RevisionError as exc:
                    rev, problem = None, str(exc)
            if rev is not None:
                cache_key = self.results.key("predicate", binding.pin, rev, self.options.max_file_bytes,
                                             encode(predicate))
                result = self.results.get(cache_key, ResultCache.MISS)
                if result is ResultCache.MISS:
                    start = time.perf_counter()
                    try:
                        snapshot = binding.store.snapshot(rev)
                        # at the against-revision the boundary follows renames, as evidence does
                        followed = predicate_follow.follow(predicate, binding.store, binding.pin, rev, snapshot)
                        result = predicates.evaluate(followed.predicate, snapshot)
                        if followed.moves:
                            result = replace(result, followed=followed.moves,
                                             message=f"{followed.note}: {result.message}")
                    except RepoError as exc:
                        # The search could not run: an error, never a pass (an absence over
                        # files that could not be read proves nothing).
                        result = predicates.PredicateResult(False, f"the search could not run: {exc}", error=True)
                    self.timing.add("predicates", time.perf_counter() - start)
                    if not result.error:  # a search that could not run may run next time
                        self.results.put(cache_key, result)
                answer = (result, None)
            else:
                answer = (None, problem)
        self._predicate_results[key] = answer
        return answer

    @staticmethod
    def default_source(report: Report) -> str | None:
        """The source a claim without ``source:`` is checked in: the report's first
        (a review's ``owner/name``, mapped like its links are)."""
        return report.sources[0].id if report.sources else None

    # -- observations ----------------------------------------------------
    def observation_result(self, report: Report, record, observation):
        """Run one observation at the pin (once per process); ``(result, problem)``.
        ``record`` is ``None`` for an observation of the report as a whole."""
        from .checks import observe

        key = (report.path, observation)
        if key in self._observations:
            return self._observations[key]
        binding = self.binding(report, self.default_source(report))
        if binding.pin is None:
            answer = (None, binding.problem)
        else:
            quoted = []
            # a report-level observation (record None) covers the report's own quotations
            for evidence in (record.evidence if record is not None else report.evidence):
                pin = self.pin_result(report, evidence)
                if pin.ok and pin.lines is not None and evidence.kind.value in ("quote", "lines"):
                    quoted.append((pin.path, pin.lines))
            self._announce(
                f"memreport: running observation `{observe.display_command(observation.run)}` "
                f"for {observation.owner} at {binding.pin[:12]} (timeout {observation.timeout:g} s)"
            )
            start = time.perf_counter()
            answer = (observe.run_observation(observation, binding.store, binding.pin, quoted), None)
            self.timing.add("observations", time.perf_counter() - start)
        self._observations[key] = answer
        return answer
