"""Claims files (``memreport-claims/1``) and inline ```memreport blocks.

A claims file sits beside a report (``<report stem>.claims.yaml``) and turns
its prose into executable checks: *predicates* over the target's source
(``contains``, ``absent``, ``count``, ``symbol``, ``value``) and
*observations* (target test runs, executed elsewhere), for records
(``records:``) or for the report as a whole (``report:``). The schema is
documented in ``docs/CLAIMS.md``.

Modules: :mod:`.model` (the frozen objects), :mod:`.nodes` (YAML nodes with
their lines; every problem collected; hostile input refused), :mod:`.schema`
(the sections), :mod:`.loading` (files), :mod:`.inline` (blocks in reports).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .inline import InlineClaims, inline_claims, inline_predicates, memreport_blocks, parse_block, parse_inline
from .loading import claims_path_for, describe_unknown_record, find_claims, load_claims, parse_claims, unknown_records
from .model import (
    CLAIMS_SUFFIX,
    COVERS_FORMATS,
    IN_VALUES,
    PREDICATE_KINDS,
    REPORT,
    SCHEMA,
    SYMBOL_KINDS,
    ClaimsError,
    ClaimsFile,
    ClaimsSource,
    Observation,
    Predicate,
    RecordClaims,
)

__all__ = [
    "CLAIMS_SUFFIX", "COVERS_FORMATS", "IN_VALUES", "PREDICATE_KINDS", "REPORT", "SCHEMA", "SYMBOL_KINDS",
    "ClaimsError", "ClaimsFile", "ClaimsSource", "InlineClaims", "Observation", "Predicate", "RecordClaims",
    "claims_path_for", "describe_unknown_record", "find_claims", "inline_claims", "inline_predicates",
    "load_claims", "memreport_blocks", "merge_predicates", "parse_block", "parse_claims", "parse_inline",
    "unknown_records",
]


def merge_predicates(*sources: Mapping[str, Iterable[Predicate]]) -> dict[str, tuple[Predicate, ...]]:
    """Predicates by record from several origins (claims files, inline blocks), in order."""
    merged: dict[str, list[Predicate]] = {}
    for mapping in sources:
        for rid, predicates in mapping.items():
            merged.setdefault(rid, []).extend(predicates)
    return {rid: tuple(preds) for rid, preds in merged.items()}
