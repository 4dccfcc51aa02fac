"""The plugin's per-run state, loaded only when a run has reports to check.

:func:`start` builds the :class:`~pytest_memreport.engine.Engine` and registers
a :class:`MemreportSession`, whose hooks collect every check's payload into a
:class:`~pytest_memreport.outputs.results.ResultLog` (also under pytest-xdist) and turn
it into the summary, annotations, JSON and write-back. ``plugin.py`` imports
this module lazily, so that a pytest run without reports pays nothing for the
engine, git, tree-sitter or markdown-it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from ..checks import structure
from ..dialects import ReportError
from ..engine import Engine, Timing
from .items import ENGINE_KEY, MemreportItem
from .quietreports import QuietReports
from ..options import RunOptions
from ..resultcache import ResultCache
from ..outputs.results import ResultLog, build_json, summary_lines, write_json_atomic


def start(config: pytest.Config, options: RunOptions, paths: list[Path], shard) -> None:
    """The engine and the session of a run that checks ``paths``."""
    engine = Engine(options)
    engine.loaded_paths = paths
    if config.pluginmanager.has_plugin("cacheprovider"):
        # pytest's cache: --cache-clear empties it, -p no:cacheprovider leaves results uncached.
        # Asked for only when a result is first looked up (the cache plugin is configured by then).
        engine.results = ResultCache(lambda: config.cache.mkdir("memreport-results"))
    config.stash[ENGINE_KEY] = engine
    config.pluginmanager.register(MemreportSession(config, engine, paths, shard), "memreport-session")
    config.pluginmanager.register(QuietReports(config), "memreport-quiet-reports")
    engine.progress = _progress_writer(config)


#: progress lines shown only with -v: steps of seconds, not of minutes
_VERBOSE_ONLY = ("memreport: following", "memreport: searching", "memreport: mapped")


def _progress_writer(config: pytest.Config):
    """Announce long steps (observations; with -v, history walks) that pytest's progress does not show."""
    if hasattr(config, "workerinput"):
        return None
    verbose = config.getoption("verbose") > 0

    def write(message: str) -> None:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None or (message.startswith(_VERBOSE_ONLY) and not verbose):
            return
        reporter.ensure_newline()
        reporter.write_line(message)

    return write


def in_shard(nodeid: str, k: int, n: int) -> bool:
    """Whether an item belongs to shard ``k`` of ``n`` (stable across runs and machines)."""
    digest = hashlib.sha1(nodeid.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % n == k - 1


def github_annotation(payload: dict, headline: str, nodeid: str) -> str:
    """``::error file=<report>,line=<n>::<message>`` for a failed check."""
    message = headline or nodeid
    # Workflow-command data escapes: %, CR and LF (GitHub's documented encoding).
    message = message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    path = str(payload.get("report", "")).replace(",", "%2C").replace(":", "%3A")
    line = payload.get("line") or 1
    return f"::error file={path},line={line}::{message}"


class MemreportSession:
    """Per-run state of the plugin: the engine, the report paths and the result log.

    Registered as a plugin object so its hooks see the run's config (under
    pytest-xdist the controller gets every worker's reports here too).
    """

    def __init__(self, config: pytest.Config, engine: Engine, paths: list[Path], shard=None) -> None:
        self.config = config
        self.engine = engine
        self.paths = paths
        self.log = ResultLog()
        self.is_worker = hasattr(config, "workerinput")
        self.shard = shard
        self.github = os.environ.get("GITHUB_ACTIONS") == "true"
        self.annotations: list[str] = []
        self.write_messages: list[str] = []
        #: the --memreport-diff preview, as bytes
        self.diff = b""
        self.worker_timings: list[dict] = []
        self._coverage: dict | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        if self.shard is None:
            return
        kept, dropped = [], []
        for item in items:
            if isinstance(item, MemreportItem) and not in_shard(item.nodeid, *self.shard):
                dropped.append(item)
            else:
                kept.append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call" and not (report.when == "setup" and report.skipped):
            return
        for name, value in report.user_properties:
            if name == "memreport":
                headline = ""
                if report.failed and report.longrepr is not None:
                    headline = str(report.longrepr).split("\n", 1)[0]
                self.add_result(json.loads(value), report.outcome, headline, report.nodeid)
            elif name == "memreport-part":  # one check of a record's item (--memreport-items=record)
                part = json.loads(value)
                self.add_result(part["payload"], part["outcome"], part["headline"], report.nodeid)

    def add_result(self, payload: dict, outcome: str, headline: str, nodeid: str) -> None:
        """One check's result (pytest outcome word, failure headline) into the log and annotations."""
        self.log.add(payload, outcome, headline)
        if outcome == "failed" and self.github:
            self.annotations.append(github_annotation(payload, headline, nodeid))

    def reports(self):
        out = []
        for path in self.paths:
            try:
                out.append(self.engine.report(path))
            except ReportError:  # an unreadable report is a failing item already
                continue
        return out

    def coverage(self) -> dict:
        """Per report: how many records and selection predicates an executable check guards
        (computed once, for the JSON and the summary alike)."""
        if self._coverage is not None:
            return self._coverage
        out = {}
        for report in self.reports():
            claims = self.engine.claims_for(report)
            cov = structure.coverage(report, claims.predicates, claims.observations)
            out[report.path] = {
                "records_total": cov.records_total,
                "records_guarded": cov.records_guarded,
                "unguarded": list(cov.unguarded),
                "selection_predicates_total": cov.selection_predicates_total,
                "selection_predicates_compiled": cov.selection_predicates_compiled,
                "absences_not_executable": structure.absences_not_executable(report, claims.predicates),
            }
        self._coverage = out
        return out

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.paths or self.is_worker:
            return
        lines = summary_lines(self.reports(), self.log, self.coverage())
        if lines:
            terminalreporter.section("memreport")
            for line in lines:
                terminalreporter.write_line(line)
        for message in self.write_messages:
            terminalreporter.write_line(message)
        if self.diff:
            # As bytes, unchanged: the preview must apply with ``patch`` exactly.
            terminalreporter.ensure_newline()
            terminalreporter.flush()
            stream = getattr(terminalreporter._tw, "_file", None)
            binary = getattr(stream, "buffer", None)
            if binary is not None:
                binary.write(self.diff)
                binary.flush()
            else:
                terminalreporter.write(self.diff.decode("utf-8", "surrogateescape"))
        # GitHub reads workflow commands from any output line; one per failure,
        # on the report line, so the failure shows in the report's diff view.
        for annotation in self.annotations:
            terminalreporter.write_line(annotation)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        """pytest-xdist: a worker finished; keep its timing for the JSON."""
        sent = getattr(node, "workeroutput", {}).get("memreport_timing")
        if sent:
            self.worker_timings.append(json.loads(sent))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # Each process writes its own result file; the controller folds them (xdist workers end first).
        self.engine.results.save(fold=not self.is_worker)
        if self.is_worker:
            self.config.workeroutput["memreport_timing"] = json.dumps(self.engine.timing_json())
        writes = self.config.getoption("memreport_write") or self.config.getoption("memreport_diff")
        if writes and self.paths and not self.is_worker:
            self.write_back(session)
        target = self.config.getoption("memreport_json")
        if target and self.paths and not self.is_worker:
            timing = Timing(defaultdict(float))
            timing.merge(self.engine.timing_json())
            for worker in self.worker_timings:
                timing.merge(worker)
            claims = {}
            for report in self.reports():
                found = self.engine.claims_for(report)
                claims[report.path] = (found.predicates, found.observations)
            data = build_json(self.reports(), self.log, {"timing": timing.as_json()}, self.coverage(), claims)
            write_json_atomic(Path(target), data)

    def write_back(self, session: pytest.Session) -> None:
        """Apply (or, with --memreport-diff, preview) each report's rewrite plan; refusals and
        blocked re-pins fail the run with one line each."""
        from .writing import write_back

        outcome = write_back(self.engine, self.reports(), self.log, self.config.getoption("memreport_repin"),
                             self.config.getoption("memreport_diff"))
        self.write_messages.extend(outcome.messages)
        self.diff = outcome.diff
        if outcome.failed:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_unconfigure(self) -> None:
        self.engine.close()


