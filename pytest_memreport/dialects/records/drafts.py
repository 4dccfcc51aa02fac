"""A record while it is being parsed (the model's records are frozen) and
the shown lines the passes walk, each with its block.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...model import Evidence, Record, Reference, Status, TextBlock
from ..core import Block, ShownLine


@dataclass
class Draft:
    """A record while it is being parsed (the model's records are frozen)."""

    id: str
    lens: str
    kind: str
    line: int
    is_annotation: bool
    heading_level: int | None
    end_line: int = 0
    label: str | None = None
    label_line: int | None = None
    part_of: str | None = None
    statuses: list[Status] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    selection: list[TextBlock] = field(default_factory=list)
    inline: list[TextBlock] = field(default_factory=list)

    def freeze(self) -> Record:
        return Record(
            id=self.id,
            lens=self.lens,
            kind=self.kind,
            line=self.line,
            end_line=max(self.line, self.end_line),
            label=self.label,
            label_line=self.label_line,
            part_of=self.part_of,
            is_annotation=self.is_annotation,
            statuses=tuple(sorted(self.statuses, key=lambda s: (s.line, s.column))),
            evidence=tuple(sorted(self.evidence, key=lambda e: (e.line, e.end_line))),
            references=tuple(sorted(self.references, key=lambda r: r.line)),
            selection_predicates=tuple(self.selection),
            inline_predicates=tuple(self.inline),
        )


@dataclass(frozen=True, slots=True)
class Entry:
    """One shown line in document order, with the block it belongs to."""

    shown: ShownLine
    block: Block

    @property
    def bullet(self) -> bool:
        """The first line of a list item (whose marker was dropped)."""
        return self.block.bullet and self.block.lines[:1] == (self.shown,)
