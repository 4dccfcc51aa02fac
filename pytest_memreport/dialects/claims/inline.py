"""Fenced ```memreport blocks in a report, in any dialect, and where they belong.

A block holds either a YAML list of predicates or a mapping
``{predicates: [...], observe: [...]}``. Inside a record it belongs to that
record; outside every record, to the report as a whole. Nothing is dropped
without a word:

* a block that does not parse is a *problem* (``report:line: ...``), which
  fails the report's claims item like a bad claims file;
* a block that cannot be attached (inside an annotation of a record this
  report does not declare) or a fence that looks meant for us but is not
  ```` ```memreport ```` (``memreport-yaml``, ``MemReport``) is a *warning* at its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from yaml.nodes import MappingNode, SequenceNode

from ...model import Record, Report, TextBlock
from . import schema
from .model import REPORT, ClaimsError, Observation, Predicate, Problem
from .nodes import Reader

#: the fence info word of a claims block
INFO = "memreport"

#: a fence opening whose info might be ours: cheap test before a Markdown parse
_FENCE_HINT = re.compile(r"(?im)^[ \t>*+-]*(?:```|~~~)[ \t]*memreport")


def memreport_blocks(text: str) -> tuple[TextBlock, ...]:
    """Every fenced block of ``text`` whose info word starts with ``memreport``
    (any case), with its content and the report line of its first content line."""
    if not _FENCE_HINT.search(text):
        return ()
    from .. import core

    skip = core.front_matter_end(core.numbered_lines(text))
    found = []
    for block in core.markdown_blocks(text, skip_through=skip):
        if block.kind != "code" or not block.info.lower().startswith(INFO):
            continue
        lines = block.code.count("\n") + 1 if block.code else 1
        found.append(TextBlock(block.code, block.line + 1, block.line + lines, info=block.info))
    return tuple(found)


@dataclass(frozen=True)
class InlineClaims:
    """What a report's blocks say: predicates and observations by owner (a record ID,
    or :data:`REPORT`), problems (blocks that do not parse) and warnings
    (``(line, message)``: blocks that cannot be attached)."""

    predicates: dict[str, tuple[Predicate, ...]] = field(default_factory=dict)
    observations: dict[str, tuple[Observation, ...]] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    warnings: tuple[tuple[int, str], ...] = ()


def parse_block(text: str, report_path: str, first_line: int, owner: str) -> tuple[tuple[Predicate, ...],
                                                                                      tuple[Observation, ...]]:
    """One block's predicates and observations; raises :class:`ClaimsError` listing every problem."""
    r = Reader(report_path, first_line)
    parsed = None
    root = r.compose(text)
    whose = owner or "the report"
    if root is None:
        raise ClaimsError(Problem(report_path, first_line, f"empty memreport block for {whose}; "
                                  "list predicates in it, e.g. '- contains: {path: a.py, text: x}'"))

    def read():
        if isinstance(root, SequenceNode):
            return schema.predicates_list(r, root, owner), ()
        keys = [k.value for k, _ in root.value] if isinstance(root, MappingNode) else None
        if keys is None or not set(keys) <= set(schema.ENTRY_KEYS):
            r.bad(root, "a memreport block must be a YAML list of predicates (start each with '- '), "
                        "or a mapping with 'predicates:' and 'observe:'")
        found = schema.entry(r, owner, r.line(root), root)
        return found.predicates, found.observations

    with r.each():
        parsed = r.guarded(read)
    if r.problems or parsed is None:
        raise ClaimsError(r.problems)
    return parsed


def parse_inline(block_text: str, report_path: str, first_line: int, record_id: str) -> tuple[Predicate, ...]:
    """The predicates of one block (fence lines, if given, are skipped keeping the line mapping)."""
    lines = block_text.split("\n")
    if lines and lines[0].lstrip().startswith(("```", "~~~")):
        lines = lines[1:]
        first_line += 1
    if lines and lines[-1].strip() in ("```", "~~~"):
        lines = lines[:-1]
    predicates, _ = parse_block("\n".join(lines), report_path, first_line, record_id)
    return predicates


def _owner(report: Report, line: int) -> tuple[Record | None, str | None]:
    """The record a block at ``line`` sits in (``None``: the report), or a reason it cannot be attached."""
    for record in report.records:
        if record.line <= line <= record.end_line:
            if record.is_annotation and record.id not in report.declared_ids():
                return record, (
                    f"memreport block inside the annotation of {record.id}, which this report does not declare, "
                    "is not checked; move it to the report that declares the record, or out of the annotation "
                    "to check it for this report"
                )
            return record, None
    return None, None


def inline_claims(report: Report) -> InlineClaims:
    """Attach every ```memreport block of ``report`` (see :func:`memreport_blocks`)."""
    predicates: dict[str, list[Predicate]] = {}
    observations: dict[str, list[Observation]] = {}
    problems: list[str] = []
    warnings: list[tuple[int, str]] = []
    for block in report.blocks:
        fence_line = block.line - 1
        if block.info != INFO:
            warnings.append((fence_line, f"```{block.info} block is not read as claims; "
                                         f"name the fence ```{INFO} for its checks to run"))
            continue
        record, refused = _owner(report, block.line)
        if refused:
            warnings.append((fence_line, refused))
            continue
        owner = record.id if record is not None else REPORT
        try:
            found, observed = parse_block(block.text, report.path, block.line, owner)
        except ClaimsError as exc:
            problems.extend(exc.messages)
            continue
        predicates.setdefault(owner, []).extend(found)
        observations.setdefault(owner, []).extend(observed)
    return InlineClaims(
        {k: tuple(v) for k, v in predicates.items()},
        {k: tuple(v) for k, v in observations.items()},
        tuple(problems),
        tuple(warnings),
    )


def inline_predicates(report: Report) -> dict[str, tuple[Predicate, ...]]:
    """The predicates of the blocks a dialect kept on its records (``Record.inline_predicates``),
    by record. Raises :class:`ClaimsError` at the first bad block."""
    found: dict[str, list[Predicate]] = {}
    for record in report.records:
        for block in record.inline_predicates:
            found.setdefault(record.id, []).extend(parse_inline(block.text, report.path, block.line, record.id))
    return {rid: tuple(preds) for rid, preds in found.items()}
