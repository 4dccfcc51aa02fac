"""Finding, reading and validating claims files (``<report stem>.claims.yaml``).

:func:`parse_claims` validates the whole document and raises one
:class:`~.model.ClaimsError` listing every problem (``file:line: ...`` each),
so an author fixes a file in one round rather than one mistake per run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ..inputs import MAX_CLAIMS_BYTES, InputRefused, read_regular
from . import schema
from .model import CLAIMS_SUFFIX, SCHEMA, ClaimsError, ClaimsFile, ClaimsSource, Problem, RecordClaims
from .nodes import Reader, is_null

_TOP_KEYS = ("schema", "sources", "report", "records")
# Record IDs are PREFIX-KIND-slug; kept loose so a typo is reported by
# ``unknown_records`` (which can name the declared IDs) rather than here.
_RECORD_ID = re.compile(r"[A-Za-z][A-Za-z0-9]*-[A-Za-z]+-\S+")


def claims_path_for(report_path: str | Path) -> Path:
    """Where a report's claims file lives: beside it, ``<stem>.claims.yaml``."""
    report = Path(report_path)
    return report.with_name(report.stem + CLAIMS_SUFFIX)


def find_claims(report_path: str | Path) -> ClaimsFile | None:
    """Load the claims file beside ``report_path``, or ``None`` if there is none."""
    candidate = claims_path_for(report_path)
    if not candidate.exists():  # one that exists but is no file is refused by load_claims
        return None
    return load_claims(candidate)


def load_claims(path: str | Path) -> ClaimsFile:
    """Read and validate a claims file; raises :class:`ClaimsError`."""
    path = Path(path)
    try:
        data = read_regular(path, MAX_CLAIMS_BYTES)
    except InputRefused as refused:
        raise ClaimsError(Problem(str(path), 1, f"claims file {refused.reason}; give a claims YAML file")) from None
    except OSError as exc:
        raise ClaimsError(Problem(str(path), 1, f"cannot read claims file ({exc.strerror}); check the path")) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ClaimsError(Problem(str(path), 1, f"claims file is not UTF-8 (byte {exc.start}); save it as UTF-8")) from None
    return parse_claims(text, str(path))


def parse_claims(text: str, path: str) -> ClaimsFile:
    """Validate claims-file ``text`` (named ``path`` in messages)."""
    r = Reader(path, 1)
    root = r.compose(text)
    if root is None:
        raise ClaimsError(Problem(path, 1, f"claims file is empty; start it with 'schema: {SCHEMA}'"))
    claims = r.guarded(lambda: _document(r, root))
    if r.problems or claims is None:
        raise ClaimsError(r.problems)
    return claims


def _document(r: Reader, root) -> ClaimsFile | None:
    top = {}
    with r.each():
        top = r.mapping(root, "the claims file", _TOP_KEYS)
    if not top and r.problems:
        return None
    with r.each():
        if "schema" not in top:
            r.bad(root, f"no 'schema' key; add 'schema: {SCHEMA}' as the first line")
        schema_node = top["schema"][1]
        written = r.string(schema_node, "schema")
        if written != SCHEMA:
            r.bad(schema_node, f"unsupported schema {written!r}; this version of pytest-memreport reads {SCHEMA!r}")
    sources: list[ClaimsSource] = []
    if "sources" in top and not is_null(top["sources"][1]):
        with r.each():
            for sid, (key_node, value_node) in r.mapping(top["sources"][1], "sources", None).items():
                found = schema.source(r, sid, key_node, value_node)
                if found is not None:
                    sources.append(found)
    report = None
    if "report" in top:
        key_node, value_node = top["report"]
        report = schema.entry(r, "", r.line(key_node), value_node)
    records: dict[str, RecordClaims] = {}
    if "records" in top and not is_null(top["records"][1]):
        with r.each():
            for rid, (key_node, value_node) in r.mapping(top["records"][1], "records", None).items():
                with r.each():
                    if not _RECORD_ID.fullmatch(rid):
                        r.bad(key_node, f"{rid!r} is not a record ID; use the report's ID, e.g. "
                                        "MEM-CLM-some-slug (claims about the whole report go under 'report:')")
                    records[rid] = schema.entry(r, rid, r.line(key_node), value_node)
    return ClaimsFile(path=r.file, sources=tuple(sources), records=records, report=report)


def unknown_records(claims: Iterable[ClaimsFile], declared_ids: Iterable[str]) -> list[tuple[str, int, str]]:
    """Records named by claims files that no loaded report declares.

    Returns ``(claims file, line, record id)`` in file and line order; such
    predicates would otherwise never run, silently.
    """
    declared = set(declared_ids)
    missing: list[tuple[str, int, str]] = []
    for claims_file in claims:
        for rid, record in claims_file.records.items():
            if rid not in declared:
                missing.append((claims_file.path, record.line, rid))
    return sorted(missing)


def describe_unknown_record(file: str, line: int, record_id: str, declared_ids: Iterable[str]) -> Problem:
    """The one-line message for an entry of :func:`unknown_records`, with the
    nearest declared ID as a suggestion when one is close."""
    from rapidfuzz import process

    suggestion = ""
    choices = sorted(set(declared_ids))
    if choices:
        best = process.extractOne(record_id, choices, score_cutoff=80)
        if best is not None:
            suggestion = f" (did you mean {best[0]}?)"
    return Problem(file, line, f"no loaded report declares {record_id}{suggestion}; "
                   "fix the ID or load the report that declares it")
