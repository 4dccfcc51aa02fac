"""The pytest plugin: options, and collection of report files.

Registered under the ``pytest11`` entry point as ``memreport``, so it is loaded
by every pytest run where it is installed: this module imports only pytest and
the option parser. Options are read once, in :func:`pytest_configure`, into
plain :class:`~pytest_memreport.options.RunOptions`; a run with reports then
starts the engine and the session (:mod:`.session`: summary, JSON, write-back).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .. import __version__
from ..options import OptionError, build_options, parse_affected, parse_shard
from .notices import config_warning

if TYPE_CHECKING:
    from ..parsehelper import Helper

PATHS_KEY = pytest.StashKey[list]()
#: ``--memreport-targets``: the run's options and reports, listed by :func:`pytest_cmdline_main` instead of checked
TARGETS_KEY = pytest.StashKey[tuple]()

#: characters a report's name may not hold: pytest prints node ids as they are, and a line
#: break there starts a line of its own (a CI workflow command); a tab is only a wide space
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def _require_checked(config: pytest.Config) -> bool:
    return _flag(config, "memreport_require_checked")


def _flag(config: pytest.Config, name: str) -> bool:
    """A flag given on the command line, else by its ini key of the same name."""
    given = config.getoption(name)
    return bool(config.getini(name)) if given is None else given


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("memreport", "code-analysis report checks (pytest-memreport)")
    group.addoption("--memreport", action="append", default=[], metavar="PATH",
                    help="a report to check (repeatable); a folder collects every .md in it")
    group.addoption("--memreport-repo", action="append", default=[], metavar="[KEY=]PATH",
                    help="the target repository (default: the git repository holding the report); "
                         "KEY is SRC-n, owner/name or a short name a report uses for one repository")
    group.addoption("--memreport-repo-template", default=None, metavar="TEMPLATE",
                    help="where the clone of a repository named owner/name is, e.g. ~/src/{owner}/{name} "
                         "(keys {owner} and {name}; a unique match in another letter case is found)")
    group.addoption("--memreport-require-checked", action="store_true", default=None,
                    help="fail the run when any report could not be checked against a repository")
    group.addoption("--memreport-allow-unchecked", action="store_true", default=None,
                    help="skip, instead of failing, a report that states a pin but none of whose evidence "
                         "could be checked (no clone, or the clone lacks the pin)")
    group.addoption("--memreport-pin", action="append", default=[], metavar="[SRC-n=]REV",
                    help="override the report's pinned commit (for every source, or one)")
    group.addoption("--memreport-against", default=None, metavar="REV",
                    help="revision to check drift against: a revision (default HEAD), 'worktree', or 'none'")
    group.addoption("--memreport-affected", default=None, metavar="BASE..HEAD",
                    help="run in a target's CI: check only the evidence and predicates of the reports about this "
                         "repository that the range changes, from BASE (its merge base with HEAD) to HEAD")
    group.addoption("--memreport-json", default=None, metavar="PATH", help="write results as JSON (memreport/1)")
    group.addoption("--memreport-html", default=None, metavar="DIR",
                    help="write a static HTML site to triage stale reports from (DIR/index.html)")
    group.addoption("--memreport-sarif", default=None, metavar="PATH",
                    help="write failures and warnings as SARIF 2.1.0 (for code scanning)")
    group.addoption("--memreport-comment", default=None, metavar="PATH",
                    help="write one pull-request comment in Markdown: reports that became stale or were fixed "
                         "since the base run, the counts, each failing piece of evidence with its links")
    group.addoption("--memreport-comment-base", default=None, metavar="JSON",
                    help="with --memreport-comment: the base branch's --memreport-json, to compare with")
    group.addoption("--memreport-strict", action="store_true", default=False,
                    help="fail, rather than warn, when a quotation's enclosing definition changed")
    group.addoption("--memreport-claims", action="append", default=[], metavar="PATH",
                    help="a claims file (memreport-claims/1); repeatable. <report>.claims.yaml beside a report is always read")
    group.addoption("--memreport-external", action="append", default=[], metavar="PREFIX",
                    help="record-ID prefix declared outside the loaded reports on purpose (e.g. RT); repeatable")
    group.addoption("--memreport-run", action="store_true", default=False,
                    help="run claims-file observations (the target's tests) in a temporary worktree at the pin")
    group.addoption("--memreport-write", action="store_true", default=False,
                    help="rewrite reports in place: promoted statuses with their evidence, quotation ranges found "
                         "elsewhere at the pin, re-pins (atomic; only those bytes)")
    group.addoption("--memreport-repin", default=None, metavar="REV",
                    help="with --memreport-write: move the pin to REV when everything holds there (every link at the pin, "
                         "moved paths, shifted ranges and anchors, the claims file); refuses, listing blockers, otherwise")
    group.addoption("--memreport-diff", action="store_true", default=False,
                    help="print what --memreport-write would change (reports and claims files) as a unified "
                         "diff, and write nothing; the exit code is as with --memreport-write")
    group.addoption("--memreport-dialect", default=None, choices=["records", "review", "notes", "tables"],
                    help="force the report dialect (default: detected per report)")
    group.addoption("--memreport-shard", default=None, metavar="K/N",
                    help="run only the K-th of N deterministic slices of the report items (CI matrices)")
    group.addoption("--memreport-items", default=None, metavar="evidence|record",
                    help="evidence: a pin and a drift item per evidence (default); record: one item per record "
                         "checking all its evidence (large report sets)")
    group.addoption("--memreport-targets", nargs="?", const="lines", default=None, choices=["lines", "json"],
                    help="print the repositories the reports need (owner/name, their pins, whether a clone was "
                         "found), one a line or with =json as JSON, and exit without checking anything")
    group.addoption("--memreport-max-file-size", default=None, metavar="BYTES",
                    help="target files larger than this are not read (default 5M)")
    parser.addini("memreport", type="paths", default=[], help="reports to check (like --memreport)")
    parser.addini("memreport_against", default="HEAD", help="default for --memreport-against")
    parser.addini("memreport_affected", default="", help="default for --memreport-affected (BASE..HEAD)")
    parser.addini("memreport_html", default="", help="default for --memreport-html")
    parser.addini("memreport_items", default="evidence", help="default for --memreport-items")
    parser.addini("memreport_repo_template", default="", help="default for --memreport-repo-template "
                  "(a relative template is relative to the ini file)")
    parser.addini("memreport_repos", type="linelist", default=[],
                  help="lines `owner/name = PATH` mapping repositories to clones (relative to the ini file)")
    parser.addini("memreport_allow_unchecked", type="bool", default=False,
                  help="default for --memreport-allow-unchecked")
    parser.addini("memreport_require_checked", type="bool", default=False,
                  help="default for --memreport-require-checked")


def _alone_with_affected(config: pytest.Config) -> None:
    """A range says where the evidence is checked and against what: options that say otherwise
    (or write the reports) are usage errors, not silently ignored."""
    for option, name in (("memreport_pin", "--memreport-pin"), ("memreport_against", "--memreport-against"),
                         ("memreport_write", "--memreport-write"), ("memreport_diff", "--memreport-diff"),
                         ("memreport_repin", "--memreport-repin"), ("memreport_targets", "--memreport-targets")):
        if config.getoption(option):
            raise OptionError(f"{name} cannot be given with --memreport-affected: the range's base is where the "
                              "evidence is checked and its head what it is followed to; the reports are not written")


def report_paths(config: pytest.Config) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Every report this run checks, in the order given, and the warnings met on the way
    (see :func:`.collection.find_reports`)."""
    given = [Path(p) for p in config.getoption("memreport")]
    given += [Path(p) for p in config.getini("memreport")]
    if not given:
        return [], []
    from ..text.render import printable
    from .collection import find_reports  # only a run naming reports loads it

    found = find_reports(config, given)
    if found.unreadable:
        path, problem = found.unreadable[0]
        raise pytest.UsageError(f"--memreport {printable(str(path))}: {problem}")
    for path in found.paths:
        control = _CONTROL.search(str(path))
        if control:
            raise pytest.UsageError(f"--memreport {printable(str(path))}: the name holds a control character "
                                    f"({printable(control.group())}), which pytest would print as it is; "
                                    "rename the report")
    return found.paths, found.notes


def _not_a_file(path: Path) -> str | None:
    """What ``path`` is when it exists but is no regular file (a FIFO, a device), else ``None``."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    return {stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
            stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}.get(stat.S_IFMT(mode), "not a regular file")


@pytest.hookimpl(tryfirst=True)
def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    """The hooks third parties implement: forms of evidence of their own (docs/FORMATS.md)."""
    from .. import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


class _FormsHook:
    """The registered form readers as one reader of the engine's: ``(path, text) -> evidence``."""

    def __init__(self, hook) -> None:
        self._hook = hook

    def __call__(self, path: str, text: str) -> list:
        from ..model import Evidence

        found = []
        for result in self._hook(path=path, text=text):
            for item in result or ():
                if not isinstance(item, Evidence):
                    raise pytest.UsageError(f"{path}: a pytest_memreport_read_forms hook returned {item!r}, "
                                            "not a pytest_memreport.model.Evidence; return Evidence objects")
                found.append(item)
        return found


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "memreport: a check compiled from a code-analysis report")
    config.addinivalue_line("markers", "memreport_drift: what became of a report's evidence since its pin")
    config.addinivalue_line("markers", "memreport_predicate: a claims-file predicate")
    config.addinivalue_line("markers", "memreport_refs: reference integrity across loaded reports")
    config.addinivalue_line("markers", "memreport_structure: structural findings of a report")
    config.addinivalue_line("markers", "memreport_observe: an observation running the target's tests")
    paths, notes = report_paths(config)
    config.stash[PATHS_KEY] = paths
    for path, note in notes:
        config_warning(config, note, str(path))
    # A large report set is parsed by a helper process too: started before this process
    # imports its own modules, its imports run beside them, and it is ready when the run
    # starts parsing (started with the engine, it parsed 8 of 20 reports of a real prose
    # set; started here, 8-10).
    helper = _parse_helper(config, paths)
    taken = False
    try:
        taken = _configure_run(config, paths, helper)
    finally:
        if helper is not None and not taken:
            helper.stop()  # a usage error, or no engine to take it: nothing will be parsed


def _parse_helper(config: pytest.Config, paths: list[Path]) -> Helper | None:
    """A process parsing part of the reports beside this one, when worth its start: not in
    a pytest-xdist worker (its siblings share the cores), nor where a third party's form
    readers take part (their code stays in this process)."""
    if not paths or hasattr(config, "workerinput") or config.getoption("memreport_targets") \
            or config.hook.pytest_memreport_read_forms.get_hookimpls():
        return None
    from ..parsehelper import folders_of, start_for  # imports nothing of the package

    return start_for(folders_of(paths))


def _configure_run(config: pytest.Config, paths: list[Path], helper: Helper | None) -> bool:
    """The rest of :func:`pytest_configure`: the options read and checked, then the run's
    engine and session made; whether an engine was made (it takes ``helper``)."""
    repin = config.getoption("memreport_repin")
    if repin and not (config.getoption("memreport_write") or config.getoption("memreport_diff")):
        raise pytest.UsageError("--memreport-repin rewrites the report: give --memreport-write "
                                "(or --memreport-diff to preview it)")
    if config.getoption("memreport_comment_base") and not config.getoption("memreport_comment"):
        raise pytest.UsageError("--memreport-comment-base is what --memreport-comment compares with: "
                                "give --memreport-comment PATH too")
    try:
        affected = parse_affected(config.getoption("memreport_affected"), config.getini("memreport_affected") or None)
        if affected:
            _alone_with_affected(config)
        options = build_options(
            repos=config.getoption("memreport_repo"),
            pins=config.getoption("memreport_pin"),
            against=repin or config.getoption("memreport_against") or config.getini("memreport_against"),
            run_observations=config.getoption("memreport_run"),
            # Enclosing definitions of unchanged files are only shown in JSON.
            want_symbols=bool(config.getoption("memreport_json")),
            dialect=config.getoption("memreport_dialect"),
            claims=config.getoption("memreport_claims"),
            external=config.getoption("memreport_external"),
            strict=config.getoption("memreport_strict"),
            max_file_size=config.getoption("memreport_max_file_size"),
            rootdir=config.invocation_params.dir,
            items=config.getoption("memreport_items"),
            items_ini=config.getini("memreport_items"),
            template=config.getoption("memreport_repo_template"),
            template_ini=config.getini("memreport_repo_template") or None,
            repo_lines=config.getini("memreport_repos"),
            ini_dir=config.inipath.parent if config.inipath else None,
            require_checked=_require_checked(config),
            allow_unchecked=_flag(config, "memreport_allow_unchecked"),
            affected=affected,
        )
        shard = parse_shard(config.getoption("memreport_shard"))
        if config.hook.pytest_memreport_read_forms.get_hookimpls():
            options = replace(options, form_readers=(_FormsHook(config.hook.pytest_memreport_read_forms),))
    except OptionError as exc:
        raise pytest.UsageError(str(exc)) from None
    targets = config.getoption("memreport_targets")
    if targets and not paths:
        raise pytest.UsageError("--memreport-targets lists the repositories of reports: give them with --memreport PATH")
    if not paths:
        return False  # nothing to check: the engine and its libraries are never loaded
    from ..text.render import printable

    missing = [p for p in paths if not p.exists()]
    if missing:
        raise pytest.UsageError(f"--memreport {printable(str(missing[0]))}: no such file or folder; "
                                "give the path of a report")
    for path in paths:
        kind = _not_a_file(path)
        if kind:  # pytest would not collect it: the run would check nothing, or hang reading it
            raise pytest.UsageError(f"--memreport {printable(str(path))}: {kind}, not a report file; "
                                    "give a regular file")
    if targets:
        config.stash[TARGETS_KEY] = (options, paths, targets)
        config.stash[PATHS_KEY] = []  # listed, never collected
        return False
    from .collection import PLAN_KEY, CollectionPlan
    from .session import start

    start(config, options, paths, shard, parse_helper=helper)
    # Reports are collected even when no positional argument names them. Named on the
    # command line with no positional argument, only the reports run; named only in the
    # ini file (``memreport = ...``), they run beside the project's ``testpaths``.
    explicit = config.args_source == pytest.Config.ArgsSource.ARGS
    testpaths = config.args_source == pytest.Config.ArgsSource.TESTPATHS and not config.getoption("memreport")
    tests = list(config.args) if explicit or testpaths else []
    plan = config.stash[PLAN_KEY] = CollectionPlan(paths, config.invocation_params.dir, tests)
    config.args = tests + [arg for arg in plan.args if arg not in tests]
    return True


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config):
    """``--memreport-targets``: list the reports' repositories and exit (as ``--markers`` does)."""
    if not config.getoption("memreport_targets"):
        return None
    config._do_configure()  # this plugin's pytest_configure reads and checks the options
    try:
        options, paths, how = config.stash[TARGETS_KEY]
        from .targets import print_targets

        return print_targets(options, paths, how)
    finally:
        config._ensure_unconfigure()


# before pytest's Dir and Package; optional: pytest before 8 has no such hook (nor folder collectors)
@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_collect_directory(path: Path, parent: pytest.Collector):
    """A folder of reports is collected by one :class:`.collection.ReportFolder`, which
    yields the run's reports in it (never one pytest argument per report)."""
    if not parent.config.stash.get(PATHS_KEY, None):
        return None
    from .collection import PLAN_KEY, ReportFolder, node_id  # loaded only by a run with reports

    if not parent.config.stash[PLAN_KEY].collects(path):
        return None
    nodeid = node_id(path, parent.config.rootpath)
    return ReportFolder.from_parent(parent, path=path, nodeid=nodeid) if nodeid else \
        ReportFolder.from_parent(parent, path=path)


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    """A report pytest's own collection reaches: a folder the run's tests reach too.
    A report is collected under the name it was given (``latest.md``, a link to
    ``a.md``, is ``latest.md``), once."""
    if not parent.config.stash.get(PATHS_KEY, None):
        return None
    from .collection import PLAN_KEY, node_id

    if file_path not in parent.config.stash[PLAN_KEY].wanted:
        return None
    from .items import MemreportFile

    nodeid = node_id(file_path, parent.config.rootpath)
    return MemreportFile.from_parent(parent, path=file_path, nodeid=nodeid) if nodeid else \
        MemreportFile.from_parent(parent, path=file_path)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Count collection's errors (no item has run yet): a run they stop says it crashed."""
    if session.config.stash.get(PATHS_KEY, None):
        from .collection import COLLECTION_ERRORS_KEY

        session.config.stash[COLLECTION_ERRORS_KEY] = session.testsfailed


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    paths = config.stash.get(PATHS_KEY, [])
    if not paths:
        return None
    from .items import ENGINE_KEY

    engine = config.stash[ENGINE_KEY]
    return [f"memreport: pytest-memreport {__version__}, {len(paths)} report(s), drift against {engine.options.against}"]



def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    """``pytest report.md`` collects nothing from a report: say how reports are given."""
    # pytest says "not found" (a usage error) or "no tests ran" of a file no plugin collects.
    if config.stash.get(PATHS_KEY, []) or exitstatus not in (pytest.ExitCode.NO_TESTS_COLLECTED,
                                                              pytest.ExitCode.USAGE_ERROR):
        return
    reports = [arg for arg in config.args if arg.split("::")[0].endswith((".md", ".txt"))
               and Path(config.invocation_params.dir, arg.split("::")[0]).is_file()]
    if reports:
        terminalreporter.write_line(f"memreport: {reports[0]} is not a test file; reports are given with "
                                    f"--memreport: pytest --memreport {reports[0]}")
