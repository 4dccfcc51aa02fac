"""``--memreport-write`` / ``--memreport-diff`` at the end of a run: plans, applies or previews.

What changes is decided by :mod:`..outputs.rewrite` from the run's results;
this module gathers its inputs from the engine (the report's bytes as parsed,
its claims files as loaded, the evidence that became checks) and, for a
re-pin, asks git for the new commit, each re-pinned source's old commit and
the renames between them (:class:`~..outputs.repin.RepinTarget`).

A re-pin moves the sources kept in the same repository as the report's first
source (the one ``REV`` is resolved in); sources of other repositories keep
their pins.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..dialects.core.links import repository_of
from ..engine import Engine
from ..errors import MemreportError
from ..gitstore import RepoError, RevisionError
from ..model import Report
from ..outputs import preview, rewrite, writeback
from ..outputs.repin import PinnedSource, RepinTarget, same_commit


@dataclass
class WriteOutcome:
    """What the write step says, and whether it failed the run."""

    messages: list[str] = field(default_factory=list)
    failed: bool = False
    diff: bytes = b""
    #: with --memreport-diff: every file's edits, rendered as one preview at the end
    previewed: list[writeback.FileEdits] = field(default_factory=list)


def stated_pin(report: Report, engine: Engine, source_id: str) -> str | None:
    """The commit the report (or its claims file) states for a source; for a review whose
    links carry the commits, the one most of its links of that repository use."""
    source = report.source(source_id)
    if source is not None and source.pin:
        return source.pin
    claimed = engine.claims_for(report).source(source_id)
    if claimed is not None and claimed.pin:
        return claimed.pin
    pins = Counter(e.pin for e in report.all_evidence() if e.pin and (e.source or "").casefold() == source_id.casefold())
    return pins.most_common(1)[0][0] if pins else None


def repositories(report: Report, source_id: str) -> frozenset[str]:
    names = {source_id.casefold()} if "/" in source_id else set()
    source = report.source(source_id)
    for url in (source.url if source else None, getattr(source, "repository", None)):
        found = repository_of(url) if url and "://" in url else ((url, "") if url and "/" in url else None)
        if found:
            names.add(found[0].casefold())
    return frozenset(names)


def repin_target(engine: Engine, report: Report, rev: str) -> RepinTarget:
    """The re-pin of ``report`` to ``rev``; raises RepoError / RevisionError (one line)."""
    default = engine.binding(report, report.sources[0].id if report.sources else None)
    if default.store is None:
        raise RepoError(default.problem or "no target repository")
    store = default.store
    new = store.resolve(rev)
    sources = []
    renames: dict[str, str] = {}
    for source in report.sources:
        binding = engine.binding(report, source.id)
        if binding.store is None:
            continue
        own = binding.store.path == store.path
        if own:
            moved_to = new
        else:
            # Another repository's pin moves to what ``rev`` names there (its own HEAD); a
            # commit of the first repository names nothing there, and that pin stays.
            try:
                moved_to = binding.store.resolve(rev)
            except RevisionError:
                continue
        written = stated_pin(report, engine, source.id)
        if written is None:
            continue
        try:
            old, known = binding.store.resolve(written), True
        except RevisionError:
            old, known = written.lower(), False  # not in this clone: the written sha still names it
        if same_commit(old, moved_to):
            continue
        sources.append(PinnedSource(source.id, old, repositories(report, source.id), "" if own else moved_to))
        if known and own:  # (git's renames are the first repository's: another's follow its drift)
            try:
                found = store.renames(old, new)
            except RepoError:
                found = {}  # e.g. a mirror missing a blob the diff needs: drift's own moves still apply
            for path, moved in found.items():
                renames.setdefault(path, moved)
    return RepinTarget(new, tuple(sources), renames)


def checked_keys(engine: Engine, report: Report) -> set[str]:
    """Keys of the evidence that became checks (a backticked word naming nothing is not evidence)."""
    evidence = list(engine.checkable(report, report.evidence))
    for record in report.records:
        evidence.extend(engine.checkable(report, record.evidence))
    return {e.key for e in evidence}


def claims_inputs(engine: Engine, report: Report) -> tuple[tuple[rewrite.ClaimsInput, ...], tuple]:
    """The report's claims files as read (with their predicates), and its inline predicates."""
    claims = engine.claims_for(report)
    predicates = [p for group in claims.predicates.values() for p in group]
    report_file = engine.report_file(report).resolve()
    inline = tuple(p for p in predicates if Path(p.file).resolve() == report_file)
    inputs = []
    for claims_file in claims.files:
        data = engine.claims_bytes.get(str(Path(claims_file.path).resolve()))
        if data is None:
            continue
        own = tuple(p for p in predicates if p.file == claims_file.path)
        inputs.append(rewrite.ClaimsInput(claims_file.path, data, own, claims_file.sources))
    return tuple(inputs), inline


@dataclass
class _Planned:
    report: Report
    original: bytes
    plan: rewrite.RewritePlan
    inputs: tuple


def _plan(engine: Engine, report: Report, log, repin: str | None, original: bytes, allow_repin: bool = True):
    target = repin_target(engine, report, repin) if repin and allow_repin else None
    claims, inline = claims_inputs(engine, report)
    checked = checked_keys(engine, report)
    return rewrite.plan(report, original, log, target, checked, claims, inline,
                        engine.claims_for(report).predicates)


def write_back(engine: Engine, reports: list[Report], log, repin: str | None, diff: bool) -> WriteOutcome:
    """Plan every report's rewrite; apply it (or, with ``diff``, render it and write nothing).

    The files of one analysis run share their pin: when any of them cannot be
    re-pinned, none is (each still gets its promotions and range corrections).
    """
    out = WriteOutcome()
    planned: list[_Planned] = []
    for report in reports:
        original = engine.report_bytes.get(report.path)
        if original is None:
            continue
        try:
            planned.append(_Planned(report, original, _plan(engine, report, log, repin, original), ()))
        except MemreportError as exc:  # a refused edit, an unreadable repository or revision
            out.messages.append(f"{report.path}: not written: {exc}")
            out.failed = True
    blocked_runs = {getattr(p.report, "run", None) for p in planned if p.plan.blockers} - {None}
    for item in planned:
        run = getattr(item.report, "run", None)
        if run in blocked_runs and not item.plan.blockers and repin:
            item.plan = _plan(engine, item.report, log, None, item.original, allow_repin=False)
            out.messages.append(f"{item.report.path}: not re-pinned: another file of its run {run} "
                                "does not hold at the new pin (see its blockers)")
            out.failed = True
    for item in planned:
        try:
            _write(item, engine.options.rootdir, repin, diff, out)
        except MemreportError as exc:  # a refused edit, an unreadable repository or revision
            out.messages.append(f"{item.report.path}: not written: {exc}")
            out.failed = True
    if out.previewed:
        out.diff = preview.render(out.previewed, engine.options.rootdir)
    return out


def _write(item: _Planned, root: Path, repin: str | None, diff: bool, out: WriteOutcome) -> None:
    report, plan = item.report, item.plan
    if plan.blockers:
        out.messages.append(f"{report.path}: re-pin to {repin} refused; these do not hold there:")
        out.messages.extend(f"  {b}" for b in plan.blockers)
        out.failed = True
    out.messages.extend(f"regression: {r}" for r in plan.regressions)
    out.messages.extend(plan.skipped)
    out.messages.extend(plan.unwritten)
    if plan.unwritten:
        out.failed = True  # a wrong or stale range stays in the report: never green
    files = plan.files(root / report.path, item.original)
    if diff:
        for one in files:
            writeback.check_unchanged(one.path, one.original)
        out.previewed.extend(files)
        if any(one.edits for one in files):
            out.messages.extend(f"would write {c}" for c in plan.changes)
        else:
            out.messages.append(f"{report.path}: nothing to write")
        return
    if any(writeback.apply_files(files)):
        out.messages.extend(f"wrote {c}" for c in plan.changes)
    else:
        out.messages.append(f"{report.path}: nothing to write")
