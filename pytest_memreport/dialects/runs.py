"""Analysis runs: the files of one folder written together, parsed as one unit (docs/FORMATS.md §3).

An evidence packet states the run's boundary, register and revision; lens
files, the runtime account, the result and trial notes cite ``SRC-1:26``
against it. :func:`plan_runs` groups the files of one folder into runs,
reads what each file states about its run (:func:`.tables.facts`) and merges
those facts (:func:`.runfacts.merge`); :func:`parse_member` then parses each
file with them, on its own (so files may parse in another process), and each
report carries the run's sources and pin: nothing downstream needs to know it
came from a run.

Grouping: files that name a run identity (``RUN `AGS-...```) belong to that
run; a file naming none joins the one run of its folder, or the run whose
identity it mentions; files with no identity anywhere form one run. Dialects
are detected per file and made consistent within a run: when some file of a
run is an analysis-tables file, every file of the run that does not declare
records in the record-report way is read as tables too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..model import Finding, Report, Run
from . import runfacts, tables
from .core.grammar import REGISTER_CITATION

TABLES = "tables"


@dataclass(frozen=True)
class RunFile:
    """One file of a folder as read: its display path, its text and what reading it found."""

    path: str
    text: str
    findings: tuple[Finding, ...] = ()


def group(files: list[RunFile], identities: dict[str, str | None],
          facts: dict[str, runfacts.FileFacts] | None = None) -> list[list[RunFile]]:
    """The runs among one folder's files, each in file order.

    Without a run identity, a folder is one run only when its files share a register
    (docs/FORMATS.md, "Any document"): the files holding it, and those that cite its
    entries or state no pin of their own. A folder of separately written documents, each
    stating its own pin, is a set of documents: one run each, so no document's pin or
    repository is used for another's evidence."""
    named: dict[str, list[RunFile]] = {}
    loose: list[RunFile] = []
    for run_file in files:
        identity = identities.get(run_file.path)
        if identity:
            named.setdefault(identity, []).append(run_file)
        else:
            loose.append(run_file)
    if not named:
        return _shared_register(loose, facts or {}) if loose else []
    for run_file in loose:
        mentioned = [identity for identity in named if identity in run_file.text]
        if len(named) == 1:
            named[next(iter(named))].append(run_file)
        elif len(mentioned) == 1:
            named[mentioned[0]].append(run_file)
        else:
            named.setdefault(f"\0{run_file.path}", []).append(run_file)  # a run of its own
    order = {run_file.path: index for index, run_file in enumerate(files)}
    return [sorted(members, key=lambda f: order[f.path]) for members in named.values()]


def _shared_register(files: list[RunFile], facts: dict[str, runfacts.FileFacts]) -> list[list[RunFile]]:
    """The runs of files naming no run identity: the register's (holders, the files citing its
    entries, the files stating no pin of their own), and every other file alone."""
    holders = [f for f in files if f.path in facts and _holds_register(facts[f.path])]
    if not holders:
        return [[run_file] for run_file in files]
    packet = facts[holders[0].path]
    run: list[RunFile] = []
    alone: list[list[RunFile]] = []
    for run_file in files:
        fact = facts.get(run_file.path)
        own = fact.revision[0] if fact is not None and fact.revision else None
        shares = (run_file in holders or own is None or _cites_register(run_file.text)
                  or (packet.revision is not None and runfacts.same_commit(own, packet.revision[0])))
        if shares:
            run.append(run_file)
        else:
            alone.append([run_file])
    return [run, *alone]


def _holds_register(fact: runfacts.FileFacts) -> bool:
    return any(row.registered for row in fact.registers.values())


def _cites_register(text: str) -> bool:
    """Whether a file cites a register entry's lines (``SRC-1:26``): it reads against a register."""
    return REGISTER_CITATION.search(text) is not None


@dataclass(frozen=True)
class MemberParse:
    """One file of a run, ready to parse on its own: its dialect, the file, and the
    run's merged facts (for an analysis-tables file of a run of several files)."""

    dialect: str
    file: RunFile
    context: runfacts.RunContext | None = None
    #: the keys the run gives a revision for (``--memreport-pin``; ``None``: every source):
    #: what a file that states no pin of such a repository names is read as beside a pin
    #: (:func:`.formbinding.augment`)
    run_pins: frozenset[str | None] = frozenset()


@dataclass(frozen=True)
class RunPlan:
    """One run of a folder before its files are parsed: what each file is parsed as."""

    folder: str
    members: tuple[MemberParse, ...]
    identity: str | None = None


def plan_runs(folder: str, files: list[RunFile], detect, dialect: str | None = None) -> list[RunPlan]:
    """The runs of one folder's files, each file's dialect and its run's facts decided.

    Each member then parses on its own (:func:`parse_member`), in any order or
    process: what one file means to another is all in the plan's context."""
    detected = {f.path: (dialect, True) if dialect else detect(f.text, f.path) for f in files}
    facts = {f.path: tables.facts(f.path, f.text) for f in files if detected[f.path][0] == TABLES or not detected[f.path][1]}
    identities = {path: fact.identity for path, fact in facts.items()}
    return [_plan_one(folder, members, detected, facts, forced=dialect is not None)
            for members in group(files, identities, facts)]


def _plan_one(folder: str, members: list[RunFile], detected, facts, forced: bool) -> RunPlan:
    tabular = forced and detected[members[0].path][0] == TABLES
    if not forced:
        tabular = any(detected[f.path][0] == TABLES for f in members)
    names = frozenset(os.path.basename(f.path) for f in members)
    run_facts = [facts[f.path] for f in members if f.path in facts]
    context = runfacts.merge(folder, run_facts, names) if len(members) > 1 and tabular else None
    planned = []
    for run_file in members:
        name, sure = detected[run_file.path]
        if tabular and not forced and not sure:
            name = TABLES  # a file of an analysis run that declares no records of its own kind
        planned.append(MemberParse(name, run_file, context if name == TABLES else None))
    return RunPlan(folder, tuple(planned), context.identity if context else None)


def parse_member(member: MemberParse, parsers) -> Report:
    """One file of a run parsed in its dialect, with what reading it found."""
    run_file = member.file
    if member.dialect == TABLES:
        report = tables.parse(run_file.path, run_file.text, member.context)
    else:
        report = parsers[member.dialect](run_file.path, run_file.text)
    return _with_findings(report, run_file.findings) if run_file.findings else report


def assemble(plan: RunPlan, reports: list[Report]) -> Run:
    """The run of ``plan`` from its members' reports (in the plan's order)."""
    return Run(plan.folder, plan.identity, tuple(reports))


def _with_findings(report: Report, findings: tuple[Finding, ...]) -> Report:
    from dataclasses import replace

    return replace(report, findings=tuple(findings) + report.findings)
