"""One report's executable claims, gathered from its claims files and its blocks.

:func:`assemble` takes the claims files that apply to a report (the one
beside it and those named with ``--memreport-claims``) and the report's own
```memreport blocks, and returns a :class:`ReportClaims`: predicates and
observations by owner (a record ID, or :data:`~.model.REPORT` for the report
as a whole), the problems that fail the report's claims item, and the
warnings it gives at their lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...model import Report
from .index import ClaimsIndex
from .inline import inline_claims
from .model import REPORT, ClaimsFile, ClaimsSource, Problem


@dataclass(frozen=True)
class ReportClaims:
    """The executable claims of one report: predicates and observations by owner.

    ``files`` are the claims files that apply; ``errors`` are one-line messages
    for claims input that could not be loaded; ``warnings`` are ``(report line,
    message)`` for blocks that cannot be attached.
    """

    files: tuple[ClaimsFile, ...] = ()
    predicates: dict = field(default_factory=dict)
    observations: dict = field(default_factory=dict)
    errors: tuple[str, ...] = ()
    warnings: tuple[tuple[int, str], ...] = ()

    def source(self, source_id: str | None) -> ClaimsSource | None:
        for claims_file in self.files:
            found = claims_file.source(source_id or "SRC-1")
            if found is not None:
                return found
        return None

    @property
    def any(self) -> bool:
        """Whether there is anything for the report's claims item to say."""
        return bool(self.files or self.errors or self.warnings or self.predicates or self.observations)


def assemble(report: Report, files: list[ClaimsFile], beside: Path | None, errors: list[str],
             reports_loaded: int, beside_loaded: frozenset[Path] = frozenset(),
             index: ClaimsIndex | None = None) -> ReportClaims:
    """Claims for ``report`` from ``files`` (``beside`` is the one beside it) and its blocks.

    A ``report:`` section applies to the report its file sits beside; in a
    file named with ``--memreport-claims`` it applies only when the run loads
    one report (otherwise it is a problem: which report would it be?).
    ``beside_loaded`` are the claims files beside any loaded report (resolved):
    their ``report:`` belongs to that report alone. ``index`` (the run's) finds the
    records a report declares in a large shared claims file by lookup.
    """
    declared = report.declared_ids()
    predicates: dict[str, list] = {}
    observations: dict[str, list] = {}
    problems = list(errors)
    for claims_file in files:
        where = Path(claims_file.path).resolve()
        own = beside is not None and where == beside.resolve()
        if claims_file.report is not None and (own or where not in beside_loaded):
            section = claims_file.report
            if own or reports_loaded == 1:
                predicates.setdefault(REPORT, []).extend(section.predicates)
                observations.setdefault(REPORT, []).extend(section.observations)
            else:
                problems.append(Problem(
                    claims_file.path, section.line, "'report:' of a claims file named with --memreport-claims "
                    f"applies to one report, but {reports_loaded} are loaded; put it beside the report as "
                    f"{Path(report.path).stem}.claims.yaml"
                ))
        mine = index.records_declared(claims_file, declared) if index is not None else \
            [rid for rid in claims_file.records if rid in declared]
        for rid in mine:
            record_claims = claims_file.records[rid]
            predicates.setdefault(rid, []).extend(record_claims.predicates)
            observations.setdefault(rid, []).extend(record_claims.observations)
    inline = inline_claims(report)
    for owner, found in inline.predicates.items():
        predicates.setdefault(owner, []).extend(found)
    for owner, observed in inline.observations.items():
        observations.setdefault(owner, []).extend(observed)
    problems.extend(inline.problems)
    return ReportClaims(
        tuple(files),
        {k: tuple(v) for k, v in predicates.items() if v},
        {k: tuple(v) for k, v in observations.items() if v},
        tuple(dict.fromkeys(problems)),
        inline.warnings,
    )
