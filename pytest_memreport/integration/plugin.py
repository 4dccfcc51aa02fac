"""The pytest plugin: options, and collection of report files.

Registered under the ``pytest11`` entry point as ``memreport``, so it is loaded
by every pytest run where it is installed: this module imports only pytest and
the option parser. Options are read once, in :func:`pytest_configure`, into
plain :class:`~pytest_memreport.options.RunOptions`; a run with reports then
starts the engine and the session (:mod:`.session`: summary, JSON, write-back).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..options import OptionError, build_options, parse_shard

PATHS_KEY = pytest.StashKey[list]()
RESOLVED_KEY = pytest.StashKey[frozenset]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("memreport", "code-analysis report checks (pytest-memreport)")
    group.addoption("--memreport", action="append", default=[], metavar="PATH",
                    help="a report to check (repeatable); a folder collects every .md in it")
    group.addoption("--memreport-repo", action="append", default=[], metavar="[KEY=]PATH",
                    help="the target repository (default: the git repository holding the report); "
                         "KEY is SRC-n or owner/name for one source")
    group.addoption("--memreport-pin", action="append", default=[], metavar="[SRC-n=]REV",
                    help="override the report's pinned commit (for every source, or one)")
    group.addoption("--memreport-against", default=None, metavar="REV",
                    help="revision to check drift against: a revision (default HEAD), 'worktree', or 'none'")
    group.addoption("--memreport-json", default=None, metavar="PATH", help="write results as JSON (memreport/1)")
    group.addoption("--memreport-strict", action="store_true", default=False,
                    help="fail, rather than warn, when a quotation's enclosing definition changed")
    group.addoption("--memreport-claims", action="append", default=[], metavar="PATH",
                    help="a claims file (memreport-claims/1); repeatable. <report>.claims.yaml beside a report is always read")
    group.addoption("--memreport-external", action="append", default=[], metavar="PREFIX",
                    help="record-ID prefix declared outside the loaded reports on purpose (e.g. RT); repeatable")
    group.addoption("--memreport-run", action="store_true", default=False,
                    help="run claims-file observations (the target's tests) in a temporary worktree at the pin")
    group.addoption("--memreport-write", action="store_true", default=False,
                    help="rewrite reports in place: promoted statuses with their evidence (atomic; only those bytes)")
    group.addoption("--memreport-repin", default=None, metavar="REV",
                    help="with --memreport-write: move the pin to REV when everything holds there (and write moved paths "
                         "and shifted line ranges); refuses, listing blockers, otherwise")
    group.addoption("--memreport-diff", action="store_true", default=False,
                    help="print what --memreport-write would change (reports and claims files) as a unified "
                         "diff, and write nothing; the exit code is as with --memreport-write")
    group.addoption("--memreport-dialect", default=None, choices=["records", "review", "tables"],
                    help="force the report dialect (default: detected per report)")
    group.addoption("--memreport-shard", default=None, metavar="K/N",
                    help="run only the K-th of N deterministic slices of the report items (CI matrices)")
    group.addoption("--memreport-items", default=None, metavar="evidence|record",
                    help="evidence: a pin and a drift item per evidence (default); record: one item per record "
                         "checking all its evidence (large report sets)")
    group.addoption("--memreport-max-file-size", default=None, metavar="BYTES",
                    help="target files larger than this are not read (default 5M)")
    parser.addini("memreport", type="paths", default=[], help="reports to check (like --memreport)")
    parser.addini("memreport_against", default="HEAD", help="default for --memreport-against")
    parser.addini("memreport_items", default="evidence", help="default for --memreport-items")


def report_paths(config: pytest.Config) -> list[Path]:
    """Every report this run checks, in the order given (folders expanded)."""
    given = [Path(p) for p in config.getoption("memreport")]
    given += [Path(p) for p in config.getini("memreport")]
    here = config.invocation_params.dir
    # Reports are named relative to where pytest runs, as the user typed them.
    given = [p.relative_to(here) if p.is_absolute() and p.is_relative_to(here) else p for p in given]
    out: list[Path] = []
    for path in given:
        candidates = sorted(path.rglob("*.md")) if path.is_dir() else [path]
        for candidate in candidates:
            if candidate not in out:
                out.append(candidate)
    return out


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "memreport: a check compiled from a code-analysis report")
    config.addinivalue_line("markers", "memreport_drift: what became of a report's evidence since its pin")
    config.addinivalue_line("markers", "memreport_predicate: a claims-file predicate")
    config.addinivalue_line("markers", "memreport_refs: reference integrity across loaded reports")
    config.addinivalue_line("markers", "memreport_structure: structural findings of a report")
    config.addinivalue_line("markers", "memreport_observe: an observation running the target's tests")
    paths = report_paths(config)
    config.stash[PATHS_KEY] = paths
    repin = config.getoption("memreport_repin")
    if repin and not (config.getoption("memreport_write") or config.getoption("memreport_diff")):
        raise pytest.UsageError("--memreport-repin rewrites the report: give --memreport-write "
                                "(or --memreport-diff to preview it)")
    try:
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
        )
        shard = parse_shard(config.getoption("memreport_shard"))
    except OptionError as exc:
        raise pytest.UsageError(str(exc)) from None
    if not paths:
        return  # nothing to check: the engine and its libraries are never loaded
    missing = [p for p in paths if not p.exists()]
    if missing:
        raise pytest.UsageError(f"--memreport {missing[0]}: no such file or folder; give the path of a report")
    from .session import start

    start(config, options, paths, shard)
    # Reports are collected even when no positional argument names them; with
    # none at all, only the reports run (not the project's default testpaths).
    explicit = config.args_source == pytest.Config.ArgsSource.ARGS
    wanted = [str(p) for p in paths]
    if explicit:
        config.args = list(config.args) + [w for w in wanted if w not in config.args]
    else:
        config.args = wanted


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    paths = parent.config.stash.get(PATHS_KEY, [])
    if not paths:
        return None
    wanted = parent.config.stash.get(RESOLVED_KEY, None)
    if wanted is None:  # resolved once: pytest asks for every file it walks
        wanted = parent.config.stash[RESOLVED_KEY] = frozenset(p.resolve() for p in paths)
    if file_path.resolve() in wanted:
        from .items import MemreportFile

        return MemreportFile.from_parent(parent, path=file_path)
    return None


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    paths = config.stash.get(PATHS_KEY, [])
    if not paths:
        return None
    from .items import ENGINE_KEY

    engine = config.stash[ENGINE_KEY]
    return [f"memreport: {len(paths)} report(s), drift against {engine.options.against}"]

