"""``--memreport-targets``: the repositories a run's reports need, listed instead of checked.

A CI job clones its targets before it checks anything; this is the list it clones
from (``owner/name``, the pins the reports cite, whether the run's mappings or
template found a clone), so that nobody keeps a ``targets.txt`` by hand. The
reports are read and their sources bound (each pin resolved where a clone is
found); no evidence is checked and nothing is written.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .. import repomap
from ..dialects import ReportError
from ..engine import Engine
from ..options import RunOptions

#: what ``--memreport-targets=json`` prints, by name and version
TARGETS_FORMAT = "memreport-targets/1"

#: ``--memreport-targets`` values
TARGET_FORMATS = ("lines", "json")


@dataclass
class Target:
    """One repository the reports name: its pins, the reports citing it, and its clone."""

    repository: str
    pins: set[str] = field(default_factory=set)
    reports: set[str] = field(default_factory=set)
    #: the clone the run's mappings or template found, else ``None``
    clone: Path | None = None
    #: what found it (``--memreport-repo-template ...``), or where it was looked for
    origin: str | None = None
    #: why no clone was found, in one line (``None`` when found, or nothing maps it)
    problem: str | None = None

    def as_json(self) -> dict:
        owner, _, name = self.repository.partition("/")
        return {"repository": self.repository, "owner": owner, "name": name, "pins": sorted(self.pins),
                "reports": sorted(self.reports), "clone": str(self.clone) if self.clone else None,
                "found": self.clone is not None, "found_by": self.origin if self.clone else None,
                "problem": None if self.clone else (self.problem or "nothing maps it to a clone: give "
                                                    "--memreport-repo-template TEMPLATE")}

    def line(self) -> str:
        pins = ", ".join(sorted(self.pins)) or "no pin"
        where = f"clone {self.clone} ({self.origin})" if self.clone else f"no clone: {self.as_json()['problem']}"
        return f"{self.repository}  pins {pins}  {where}"


def gather(options: RunOptions, paths: list[Path]) -> tuple[list[Target], list[str]]:
    """Every ``owner/name`` the reports at ``paths`` name, sorted, and the reports that
    could not be read (one line each)."""
    engine = Engine(options, paths)
    found: dict[str, Target] = {}
    problems = []
    try:
        for path in paths:
            try:
                report = engine.report(path)
            except ReportError as exc:
                problems.append(str(exc))
                continue
            wanted = {(e.source, e.pin) for e in report.all_evidence()}
            wanted |= {(source.id, None) for source in report.sources}
            # in order: the first spelling of a name met (reports as given) is the one listed
            for source_id, pin in sorted(wanted, key=lambda k: (k[0] or "", k[1] or "")):
                named = repomap.repo_id(report, source_id)
                if named is None:
                    continue  # checked in the report's own repository (or --memreport-repo): nothing to clone
                target = found.setdefault(named.casefold(), Target(named))
                target.reports.add(report.path)
                stated = engine.binding(report, source_id, pin).stated_pin
                if stated:
                    target.pins.add(stated)
    finally:
        engine.close()
    for target in found.values():
        lookup = options.repo_map.lookup(target.repository) if options.repo_map else None
        if lookup is not None:
            target.clone, target.origin, target.problem = lookup.path, lookup.origin, lookup.problem
    return sorted(found.values(), key=lambda t: t.repository.casefold()), problems


def render(targets: list[Target], how: str) -> str:
    """The list as lines (one per repository) or as JSON (:data:`TARGETS_FORMAT`)."""
    if how == "json":
        return json.dumps({"format": TARGETS_FORMAT, "targets": [t.as_json() for t in targets]}, indent=2) + "\n"
    if not targets:
        return "memreport: the reports name no owner/name repository\n"
    return "".join(t.line() + "\n" for t in targets)


def print_targets(options: RunOptions, paths: list[Path], how: str) -> int:
    """Print the targets of ``paths`` on stdout (problems on stderr); the exit code: 0."""
    targets, problems = gather(options, paths)
    for problem in problems:  # the checking run fails on them; the list is still of use
        print(f"memreport: {problem}", file=sys.stderr)
    sys.stdout.write(render(targets, how))
    sys.stdout.flush()
    return 0
