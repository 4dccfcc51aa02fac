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
import shlex
import shutil
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from ..checks import structure
from ..dialects import ReportError
from ..engine import Engine, Timing
from ..gitstore import RevisionError
from .items import ENGINE_KEY, MemreportItem, MemreportWarning, release_model, result_entry, scheduled_evidence
from .quietreports import QuietReports
from ..options import RunOptions
from ..options import AGAINST_NONE, AGAINST_WORKTREE
from ..outputs import affected as affected_json, annotations as gh, files, jsontext, sarif, staleness, stepsummary
from ..outputs.results import NOT_SELECTED, CheckResult, ResultLog, RunState, build_json, text_only_line
from .collection import run_state_of
from ..outputs.verdicts import CheckVerdict, verdicts_of_entry
from ..text.render import printable
from .. import __version__
from .notices import config_warning
from ..resultcache import ResultCache


def start(config: pytest.Config, options: RunOptions, paths: list[Path], shard, parse_helper=None) -> None:
    """The engine and the session of a run that checks ``paths`` (``parse_helper``: the
    process the plugin started to parse part of them, which the engine stops).

    Every output file is checked here, before any item runs: a path that cannot be
    written is a usage error of one line naming its option."""
    reads = files.run_inputs(paths, options.claims, config.inipath)
    if config.getoption("memreport_comment_base"):
        reads.append(("the base run's results", Path(config.getoption("memreport_comment_base"))))
    outputs = {} if hasattr(config, "workerinput") else output_files(config, reads)
    base = comment_base(config) if "comment" in outputs else None
    results = ResultCache(None)
    parses = None
    if config.pluginmanager.has_plugin("cacheprovider"):
        # pytest's cache: --cache-clear empties it, -p no:cacheprovider leaves results uncached.
        # Asked for only when a result is first looked up (the cache plugin is configured by then).
        results = ResultCache(lambda: config.cache.mkdir("memreport-results"), options=options,
                              warn=lambda message, path: config_warning(config, message, path))
    elif getattr(config, "workerinput", {}).get("memreport_parsed"):
        # without pytest's cache, the reports the controller parsed, handed over in a folder of its own
        parses = ResultCache(Path(getattr(config, "workerinput")["memreport_parsed"]))  # noqa: B009
    progress = ProgressLines(config)
    engine = Engine(
        options, paths, results=results, progress=progress.write,
        # A run that writes (or previews) its corrections rewrites a misplaced anchor: it warns instead of failing.
        corrects_anchors=bool(config.getoption("memreport_write") or config.getoption("memreport_diff")),
        parse_helper=parse_helper, parses=parses,
    )
    config.stash[ENGINE_KEY] = engine
    if not hasattr(config, "workerinput"):
        default_loadgroup(config)
    elif getattr(config, "workerinput").get("memreport_dist") == "loadgroup":  # noqa: B009 - xdist's, undeclared
        config.option.loadgroup = True  # the worker names each item's group in its node id
    if hasattr(config, "workerinput"):
        engine.repositories.receive(getattr(config, "workerinput").get("memreport_located", {}))  # noqa: B009
    session = MemreportSession(config, engine, paths, shard, outputs, progress)
    session.comment_base = base
    config.pluginmanager.register(session, "memreport-session")
    config.pluginmanager.register(QuietReports(config), "memreport-quiet-reports")
    if engine.affected is not None:
        from .affected import AffectedSession

        config.pluginmanager.register(AffectedSession(engine), "memreport-affected")
    if config.getoption("memreport_write") and not hasattr(config, "workerinput"):
        # Under pytest-xdist the controller reads no report while items run: read
        # each one now, so write-back refuses a report saved since the run
        # started, as a serial run (which reads them at collection) does.
        for path in paths:
            try:
                engine.report(path)
            except ReportError:
                pass  # its item fails with the reason


def hand_over_parses(config: pytest.Config, engine: Engine) -> Path | None:
    """Under pytest-xdist without pytest's cache, on the controller: the reports it parsed,
    kept in a folder of this run's (removed when the run ends) where each worker looks them
    up by their bytes before parsing, as it would in pytest's cache. Each worker parsed every
    report again before (the controller too: three parses with two workers)."""
    folder = Path(tempfile.mkdtemp(prefix="memreport-parsed-"))
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    handed = ResultCache(folder)
    if not engine.reports.keep_parsed(handed):
        return None
    handed.save()
    return folder


def located_for_workers(engine: Engine, paths: list[Path]) -> dict[str, dict]:
    """Under pytest-xdist, on the controller (which collects nothing): the clones and the
    revisions every worker's collection would locate and resolve (whether a report can be
    checked at all decides its items), and the against-revision its checks resolve, found
    once here and handed to each worker, so workers start no git to find them and a run's
    git processes do not grow with its workers. Parsing a report starts no git."""
    if engine.affected is not None:
        return {}  # a range's reports are chosen in its target (engine/affected.py)
    stores = {}
    for path in paths:
        try:
            report = engine.report(path)
        except ReportError:
            continue  # its item fails with the reason, needing no repository
        if engine.unchecked(report) is None:
            for source, pin in {(evidence.source, evidence.pin) for evidence in report.all_evidence()}:
                binding = engine.binding(report, source, pin)
                if binding.checkable and binding.store is not None and engine.bindings.drift_enabled:
                    stores[binding.store.path] = binding.store
    for store in stores.values():
        try:
            engine.against_rev(store)
        except RevisionError:
            pass  # said by the worker's items, from the answer handed over
    return engine.repositories.located()


def comment_base(config: pytest.Config) -> dict[str, str] | None:
    """The base run's report states for the pull-request comment (``--memreport-comment-base``),
    read before anything runs: a file that is no ``--memreport-json`` is a usage error."""
    from ..outputs import comment

    given = config.getoption("memreport_comment_base")
    if given is None:
        return None
    try:
        return comment.read_base(given)
    except comment.BaseRunError as exc:
        raise pytest.UsageError(str(exc)) from None


def default_loadgroup(config: pytest.Config) -> None:
    """Under pytest-xdist, ``--dist loadgroup`` unless the run chose a mode: each worker is
    sent whole groups (:func:`assign_groups`), so a (repository, pin) pair is checked by
    one worker, once. (With ``load``, a pair's items could run in every worker, and each
    would check the pair.) Workers learn of it through ``pytest_configure_node``."""
    if config.getoption("dist", None) != "load" or _names_dist(config):
        return
    config.option.dist = "loadgroup"


def _names_dist(config: pytest.Config) -> bool:
    """Whether the run's own arguments (command line, ``PYTEST_ADDOPTS``, ini ``addopts``) choose ``--dist``."""
    given = [*config.invocation_params.args, *shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))]
    try:
        given += [str(arg) for arg in config.getini("addopts")]
    except ValueError:
        pass
    return any(str(arg) == "--dist" or str(arg).startswith("--dist=") or str(arg) in ("-d", "--distload")
               for arg in given)


def check_against(engine: Engine) -> None:
    """A ``--memreport-against`` revision that resolves in none of the run's repositories
    is a usage error (one line, exit 4), not a failing item per report."""
    wanted = engine.options.against
    # HEAD (the default) missing is one repository's problem (it has no commits), said there.
    if wanted.lower() in (AGAINST_NONE, AGAINST_WORKTREE) or wanted == "HEAD":
        return
    stores, problem = {}, None
    for report in engine.loaded_reports():
        for source_id, pin in {(e.source, e.pin) for e in report.all_evidence()}:
            binding = engine.binding(report, source_id, pin)
            if binding.store is not None and binding.pin is not None:
                stores[binding.store.path] = binding.store
    for store in stores.values():
        try:
            engine.against_rev(store)
            return
        except RevisionError as exc:
            problem = problem or str(exc.__cause__ or exc)  # the store's own words, without the option
    if stores:
        raise pytest.UsageError(f"--memreport-against {wanted}: resolves in none of the {len(stores)} target "
                                f"repositories: {problem}")


def unused_mappings(engine: Engine):
    """Explicit ``owner/name`` mappings that no loaded report names (a typo, or a stale ini line)."""
    repo_map = engine.options.repo_map
    if not repo_map or not repo_map.mappings:
        return []
    return repo_map.unused(engine.all_repositories_named() | engine.repositories.repositories_mentioned())


class ProgressLines:
    """Long steps (observations; with -v, history walks) that pytest's progress does not show.

    With ``-v`` an item's line is written before it runs and finished after: a step
    announced meanwhile waits for the line's end, so it never breaks it.
    """

    def __init__(self, config: pytest.Config) -> None:
        self._config = config
        self._silent = hasattr(config, "workerinput")
        self._verbose = config.getoption("verbose", 0) > 0
        #: between an item's start and finish (its -v line is open)
        self.item_running = False
        self._pending: list[str] = []

    def write(self, message: str, detail: bool = False) -> None:
        """Show ``message``; a ``detail`` (a step of seconds, not of minutes) only with ``-v``."""
        reporter = self._config.pluginmanager.get_plugin("terminalreporter")
        if self._silent or reporter is None or (detail and not self._verbose):
            return
        if self._verbose and self.item_running:
            self._pending.append(message)
            return
        reporter.ensure_newline()
        reporter.write_line(message)

    def flush(self) -> None:
        """What waited for an item's line to end."""
        self.item_running = False
        if self._pending:
            messages, self._pending = self._pending, []
            for message in messages:
                self.write(message)


def staleness_lines(rows, verbose: bool) -> list[str]:
    """The table that ends the terminal summary (a seam: a failure here is an internal error)."""
    return staleness.terminal_lines(rows, verbose)


def assign_groups(items: list[pytest.Item]) -> None:
    """Give each memreport item that checks in a (repository, pin) pair its group: pairs a
    record's item checks together are one group, so that no pair is checked in two places.
    The group's name is stable across runs and machines (shards are chosen by it)."""
    parent: dict[str, str] = {}

    def root(pair: str) -> str:
        while parent.setdefault(pair, pair) != pair:
            parent[pair] = parent[parent[pair]]
            pair = parent[pair]
        return pair

    checking = [item for item in items if isinstance(item, MemreportItem) and item.memreport_pairs]
    for item in checking:
        first, *others = sorted(item.memreport_pairs)
        for other in others:
            one, two = root(first), root(other)
            if one != two:
                parent[max(one, two)] = min(one, two)
    names: dict[str, str] = {}
    for item in checking:
        top = root(min(item.memreport_pairs))
        if top not in names:
            names[top] = "memreport-" + hashlib.sha1(top.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        item.memreport_group = names[top]


def in_shard(nodeid: str, k: int, n: int) -> bool:
    """Whether an item belongs to shard ``k`` of ``n`` (stable across runs and machines)."""
    digest = hashlib.sha1(nodeid.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % n == k - 1


def output_files(config: pytest.Config, reads=()) -> dict[str, files.OutputFile | Path]:
    """The run's output files by kind, each checked, and none on a file the run ``reads``
    or on another's (raises :class:`pytest.UsageError`)."""
    wanted = []
    for kind, option, what in (("json", "memreport_json", "JSON"), ("sarif", "memreport_sarif", "SARIF"),
                               ("comment", "memreport_comment", "the pull-request comment")):
        value = config.getoption(option)
        if value is not None:
            wanted.append((kind, "--" + option.replace("_", "-"), value, what, False))
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:  # set by GitHub Actions for every step; other steps append to it too
        wanted.append(("summary", "GITHUB_STEP_SUMMARY", summary, "the step summary", True))
    # the files, then the HTML site's folder
    out: dict[str, files.OutputFile | Path] = {}
    try:
        prepared = {kind: files.prepare(option, value, what, append=append)
                    for kind, option, value, what, append in wanted}
        reads = list(reads)
        files.check_apart(list(prepared.values()), reads)
        out.update(prepared)
        site = config.getoption("memreport_html") or config.getini("memreport_html")
        if site:
            from ..outputs import html

            out["html"] = html.prepare_site("--memreport-html", site, list(prepared.values()), reads)
    except files.OutputError as exc:
        raise pytest.UsageError(str(exc)) from None
    return out


class MemreportSession:
    """Per-run state of the plugin: the engine, the report paths and the result log.

    Registered as a plugin object so its hooks see the run's config (under
    pytest-xdist the controller gets every worker's reports here too).
    """

    def __init__(self, config: pytest.Config, engine: Engine, paths: list[Path], shard,
                 outputs: dict[str, files.OutputFile | Path], progress: ProgressLines) -> None:
        self.config = config
        self.engine = engine
        self.paths = paths
        self.log = ResultLog()
        self.is_worker = hasattr(config, "workerinput")
        #: ``--collect-only``: items are listed, nothing is checked or written
        self.collect_only = bool(config.getoption("collectonly"))
        self.shard = shard
        self.github = os.environ.get("GITHUB_ACTIONS") == "true"
        #: every check that failed or warned: what annotations, SARIF and summaries show
        self.verdicts: list[CheckVerdict] = []
        #: the run's output files (``output_files``), each checked before the run
        self.outputs = outputs
        self.output_messages: list[str] = []
        self.guard = gh.CommandGuard() if self.github and not self.is_worker else None
        self.write_messages: list[str] = []
        #: the --memreport-diff preview, as bytes
        self.diff = b""
        self.worker_timings: list[dict] = []
        self._coverage: dict | None = None
        self._rows: list[staleness.Row] | None = None
        self._data: dict | None = None
        self.progress = progress
        #: whether the run went to its end (:func:`.collection.run_state_of`), for the JSON
        self.run: RunState | None = None
        #: the base run's report states the pull-request comment compares with (``--memreport-comment-base``)
        self.comment_base: dict[str, str] | None = None
        #: the selected items by group (:func:`assign_groups`), until the group is checked
        self.groups: dict[str, list[pytest.Item]] = defaultdict(list)
        self.planned: set[str] = set()
        self.checked_elsewhere = False
        #: under pytest-xdist, the clones and pins the workers' collection asks for (:func:`located_for_workers`)
        self._located: dict[str, dict] | None = None
        #: the run's session (its items let go of their reports at unconfigure)
        self.session: pytest.Session | None = None
        #: under pytest-xdist without pytest's cache, the folder the parsed reports are handed over in
        self._handed_parses: Path | None = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """What is wrong with the run as a whole, said once, by the process that talks to
        the user, before any item runs: a usage error, unused mappings."""
        self.session = session
        if self.guard is not None:
            # Nothing pytest prints (a file name, a target's source line) is read as a
            # workflow command until the annotations are printed (see outputs.annotations).
            self._write_raw(self.guard.stop())
            self.config.add_cleanup(self._end_guard)  # however the run ends
        if self.is_worker:
            return
        if self.collect_only:
            return  # nothing is checked: no revision is resolved (unused mappings are said by the run)
        if self.engine.affected is None:  # a range's head is resolved in its target (engine/affected.py)
            check_against(self.engine)
        for key, used in self.engine.unknown_keys():
            raise pytest.UsageError(f"--memreport-repo {key}=...: no loaded report names {key}; "
                                    f"the reports name {', '.join(used)}")
        config = self.config
        for mapping in unused_mappings(self.engine):
            where = str(config.inipath) if mapping.origin.startswith("ini") and config.inipath else "command line"
            config_warning(config, f"{mapping.origin}: no loaded report names {mapping.key}; "
                                   "is it spelled as in the reports?", where, 0)

    @pytest.hookimpl(tryfirst=True)  # before the terminal (or a pytest-xdist worker) formats it
    def pytest_warning_recorded(self, warning_message) -> None:
        """A check's warning is shown without the report line under it (a whole paragraph,
        in Markdown): its message already says what the line holds. Set on the record, so
        nothing is read from the report and nothing is put in ``linecache``."""
        if issubclass(warning_message.category, MemreportWarning):
            warning_message.line = ""

    def pytest_runtest_logstart(self) -> None:
        self.progress.item_running = True

    @pytest.hookimpl(trylast=True)  # after the terminal has finished the item's line
    def pytest_runtest_logfinish(self) -> None:
        self.progress.flush()

    @pytest.hookimpl(tryfirst=True)  # before pytest-xdist names each item's group in its node id
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Each item's group: the items checking in one (repository, pin) pair, joined with
        those a record's item links them to. A group is checked at once, by the one process
        that runs it: pytest-xdist's ``loadgroup`` sends it to one worker, a shard keeps it
        whole. (``-k`` and ``-m`` deselect afterwards: what is left of a group is planned.)"""
        assign_groups(items)
        if getattr(config.option, "loadgroup", False):  # a pytest-xdist worker under --dist loadgroup
            for item in items:
                group = getattr(item, "memreport_group", None)
                if group is not None:
                    item.add_marker(pytest.mark.xdist_group(group))
        if self.shard is None:
            return
        kept, dropped = [], []
        for item in items:
            if isinstance(item, MemreportItem) and not in_shard(item.memreport_group or item.nodeid, *self.shard):
                dropped.append(item)
            else:
                kept.append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
        # Every pair went to other shards (fewer pairs than shards): this one has nothing to
        # check, which is no failure of the run.
        self.checked_elsewhere = (any(item.memreport_group for item in dropped)
                                  and not any(getattr(item, "memreport_group", None) for item in kept))

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """The selected items by group (after ``-k``, ``-m`` and the shard). Nothing is
        checked here: collection runs under ``--collect-only`` and in every pytest-xdist
        worker; a group is checked when the process that runs it reaches its first item."""
        self.engine.plan.schedule(())  # nothing is checked unless planned (no whole-report fallback)
        self.groups = defaultdict(list)
        loadgroup = getattr(self.config.option, "loadgroup", False)
        for item in session.items:
            group = getattr(item, "memreport_group", None)
            if group is not None:
                self.groups[group].append(item)
                if loadgroup:
                    # pytest-xdist named the group in the node id for its scheduler (the ids
                    # are sent by now); reports keep the id a serial run gives the item.
                    item._nodeid = item.nodeid.removesuffix(f"@{group}")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem) -> None:
        """Plan, then check, a group at a time: at the first item of its group this process
        runs, every piece of evidence the group's selected items check is checked, pair by
        pair (git asked each question once per repository, pin and against), so that its
        items read finished results. What is not selected (``-k`` on one record of a large
        knowledge base), or runs in another worker, is neither read nor checked here."""
        group = getattr(item, "memreport_group", None)
        if group is None or group in self.planned:
            return
        self.planned.add(group)
        self.engine.check_planned(scheduled_evidence(self.groups.pop(group, [])))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call):
        report = yield
        if call.when == "call" and isinstance(item, MemreportItem):
            # What the item checked rides on its report: pytest-xdist sends a report's
            # attributes to the controller (as JSON text: plain types, whatever a payload
            # holds), and JUnit writes only user_properties.
            checks, item.memreport_checks = item.memreport_checks, []
            report.memreport_checks = [json.dumps(entry if isinstance(entry, dict) else result_entry(entry))
                                       for entry in checks] if self.is_worker else checks
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for entry in getattr(report, "memreport_checks", ()):
            if isinstance(entry, CheckResult):  # a record's check that passed quietly, read already
                self.log.add_result(entry)
                continue
            if isinstance(entry, str):  # from a pytest-xdist worker
                entry = json.loads(entry)
            # A check is its item's outcome (a warning under -W error fails the item),
            # unless it is one of several checks of a record's item.
            outcome = entry["outcome"] if entry.get("part") else report.outcome
            headline = entry.get("headline", "") if outcome == "failed" or entry.get("verdict") == "warn" else ""
            self.add_result(entry, outcome, headline, report.nodeid)
        if not self.is_worker and getattr(report, "memreport_checks", None):
            # Read into the log; pytest keeps every report to the end, and each full garbage
            # collection would walk the entries again. (A worker's go on to the controller.)
            carrier: Any = report  # the attribute is the plugin's own (set in makereport)
            carrier.memreport_checks = ()

    def add_result(self, entry: dict, outcome: str, headline: str, nodeid: str) -> None:
        """One check's entry (pytest outcome word, failure headline) into the log and the verdicts."""
        check = self.log.add(entry["payload"], outcome, headline if outcome == "failed" else "")
        self.verdicts.extend(verdicts_of_entry(entry, outcome, nodeid, check))

    def reports(self):
        out = []
        for path in self.paths:
            try:
                out.append(self.engine.report(path))
            except ReportError:  # an unreadable report is a failing item already
                continue
        if self.engine.affected is not None:  # only the reports the range touches (under xdist too)
            out = [report for report in out if report.path in self.log.results]
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

    def rows(self) -> list[staleness.Row]:
        """The staleness table's rows (once every result is in)."""
        if self._rows is None:
            self._rows = staleness.build_rows(self.reports(), self.log, self.coverage())
        return self._rows

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.paths or self.is_worker:
            return
        rows = self.rows()
        lines = staleness_lines(rows, verbose=self.config.getoption("verbose", 0) > 0)
        text_only = text_only_line(self.log)
        if lines or text_only:
            terminalreporter.ensure_newline()  # else the first line of the section would be blank
            terminalreporter.section("memreport")
            if text_only:
                terminalreporter.write_line(text_only)
            for line in lines:
                terminalreporter.write_line(line)
        verdict = staleness.failing_verdict(rows, self.engine.options.allow_unchecked)
        if verdict is not None:
            terminalreporter.write_line(verdict, red=True, bold=True)
        for message in self.write_messages + self.output_messages:
            terminalreporter.write_line(message)
        if self.diff:
            # The preview applies with ``patch`` as printed: its text goes out unchanged
            # through the terminal writer (reports are read as UTF-8).
            terminalreporter.ensure_newline()
            terminalreporter.write(self.diff.decode("utf-8", "surrogateescape"), flush=True)
        # Every output is written and the summary printed: what the run kept goes now, not
        # at unconfigure, before the terminal summaries of other plugins (their imports'
        # full collections would walk every payload and record).
        self._let_go()

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node) -> None:
        """pytest-xdist: a worker is told the run's mode (it reads ``--dist`` from the
        arguments alone, and the plugin may have chosen ``loadgroup``)."""
        node.workerinput["memreport_dist"] = self.config.getoption("dist", None)
        if self._located is None:
            self._located = located_for_workers(self.engine, self.paths)
            # The reports parsed for that, written to pytest's cache now (their key is their
            # bytes): a worker starts collecting after this hook, and reads them instead of
            # parsing every report again. Without pytest's cache, to a folder of this run's.
            if self.engine.results.enabled:
                self.engine.results.save()
            else:
                self._handed_parses = hand_over_parses(self.config, self.engine)
        node.workerinput["memreport_located"] = self._located
        if self._handed_parses is not None:
            node.workerinput["memreport_parsed"] = str(self._handed_parses)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error) -> None:
        """pytest-xdist: a worker finished; keep its timing for the JSON."""
        sent = getattr(node, "workeroutput", {}).get("memreport_timing")
        if sent:
            self.worker_timings.append(json.loads(sent))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.collect_only:
            return  # nothing was checked: no result, no output file
        # Each process writes its own result file; the controller folds them (xdist workers end first).
        self.engine.results.save(fold=not self.is_worker)
        if self.is_worker:
            # pytest-xdist gives each worker's config this dict; pytest's Config does not declare it
            workeroutput: dict[str, str] = getattr(self.config, "workeroutput")  # noqa: B009
            workeroutput["memreport_timing"] = json.dumps(self.engine.timing_json())
            return
        if self.checked_elsewhere and session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
            # A CI shard whose share is empty (more shards than pairs) passes: the others check it all.
            session.exitstatus = pytest.ExitCode.OK
        if (self.paths and session.exitstatus == pytest.ExitCode.OK and not self.checked_elsewhere
                and staleness.failing_verdict(self.rows(), self.engine.options.allow_unchecked) is not None):
            # A run that checked nothing is never green (the summary says why in one line), nor
            # one with a document whose every named path proved not the target's.
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        writes = self.config.getoption("memreport_write") or self.config.getoption("memreport_diff")
        if writes and self.paths:
            self.write_back(session)
        if self.paths:
            self.run = run_state_of(session)  # a crashed run's JSON says so (not "not selected")
            self.write_outputs(session)

    def write_outputs(self, session: pytest.Session) -> None:
        """Every output file of the run, each through :func:`files.write_output`."""
        renderers = {"json": self.json_text, "sarif": self.sarif_text, "summary": self.summary_text,
                     "comment": self.comment_text}
        for kind, target in self.outputs.items():
            if isinstance(target, Path):  # the HTML site's folder (``html``)
                self.write_site(session, target)
                continue
            text = renderers[kind]()
            if not text:
                continue
            try:
                self.output_messages.append(files.write_output(target, text))
            except files.OutputError as exc:
                self.output_messages.append(f"memreport: {exc}")
                if session.exitstatus == pytest.ExitCode.OK:
                    session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def write_site(self, session: pytest.Session, folder: Path) -> None:
        """The HTML site (:mod:`..outputs.html`), from the same results as the JSON."""
        from ..outputs import html

        data = self.results_data()
        texts = {}
        for report in self.reports():
            raw = self.engine.report_bytes.get(report.path)
            texts[report.path] = raw.decode("utf-8", "replace") if raw is not None else ""
        try:
            self.output_messages.append(html.write_site(folder, html.render_site(data, texts, self.engine.read_text)))
        except OSError as exc:
            self.output_messages.append(f"memreport: --memreport-html {printable(str(folder))}: {exc.strerror or exc}")
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def results_data(self) -> dict:
        """The run's results (the JSON's data), built once."""
        if self._data is None:
            timing = Timing(defaultdict(float))
            timing.merge(self.engine.timing_json())
            for worker in self.worker_timings:
                timing.merge(worker)
            extra = {"tool": {"name": "pytest-memreport", "version": __version__}, "timing": timing.as_json()}
            claims = {}
            for report in self.reports():
                found = self.engine.claims_for(report)
                claims[report.path] = (found.predicates, found.observations)
            data = build_json(self.reports(), self.log, extra, self.coverage(), claims, self.run)
            staleness.add_states(data, self.rows(), self.run.unrun_reason if self.run else NOT_SELECTED)
            touched = self.engine.affected.found() if self.engine.affected is not None else None
            if touched is not None:
                data = affected_json.only_touched(data, touched.as_json())
            self._data = data
        return self._data

    def json_text(self) -> str:
        data = self.results_data()
        # Indented down to each piece of evidence (reports, records, evidence), which is one line
        # (in a record or beside them).
        return jsontext.dumps(data, compact_at=6, lines_of=frozenset({"evidence"})) + "\n"

    def sarif_text(self) -> str:
        return sarif.render(self.verdicts, self.engine.options.rootdir, os.environ.get("GITHUB_WORKSPACE"))

    def summary_text(self) -> str:
        if self.engine.affected is not None:
            heading = f"memreport: the claims {self.engine.affected.given} touches"
            touched = self.engine.affected.found()
            if touched is not None and not self.rows():
                return affected_json.untouched_summary(heading, touched.as_json())
            return stepsummary.render(self.rows(), self.verdicts, heading)
        return stepsummary.render(self.rows(), self.verdicts)

    def comment_text(self) -> str:
        from ..outputs import comment

        links = comment.Links.from_environment(os.environ, self.engine.options.rootdir, self.reports())
        return comment.render(self.rows(), self.verdicts, self.comment_base, links)

    def _write_raw(self, line: str) -> None:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_line(line)

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
        self._let_go()
        if self.guard is not None and self.guard.stopped:
            # Commands resume after everything pytest printed; then one per failure and
            # warning, on its report line, so it shows in the report's diff view.
            self._write_raw(self.guard.resume())
            workspace = os.environ.get("GITHUB_WORKSPACE")
            for line in gh.annotations(self.verdicts, self.engine.options.rootdir, workspace):
                self._write_raw(line)
        self.verdicts = []

    def _let_go(self) -> None:
        """The engine's data, the results and the report model let go of, once every output
        is written (the verdicts stay for the annotations :meth:`pytest_unconfigure` prints):
        pytest's own collections at exit would walk every payload and record."""
        self.engine.close()
        self.log = ResultLog()
        self._coverage = self._rows = self._data = None
        if self.session is not None:
            release_model(getattr(self.session, "items", ()))
            self.session = None

    def _end_guard(self) -> None:
        """Commands resumed (when an unconfigure hook failed before ours did it) and the
        guard's signal handlers given back."""
        guard = self.guard
        if guard is None:  # registered only when there is a guard
            return
        try:
            if guard.stopped:
                self._write_raw(guard.resume())
        finally:
            guard.release()
