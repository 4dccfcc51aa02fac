"""The staleness table as Markdown, appended to GitHub's step summary (``GITHUB_STEP_SUMMARY``).

One row per report that ran, ``state`` first (``stale``, then ``unchecked``, then
``fresh``, as a reviewer reads them), and a totals line. The rows are the terminal
table's (:class:`StalenessRow`); this module only lays them out, so the terminal and the
step summary can never disagree.

Every name is escaped for Markdown and HTML (GitHub renders both in a summary): a report
called ``a|b.md`` or ``<img src=x>.md`` is shown as its name, never as markup.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..text.render import printable

#: how a reviewer reads the table: what needs work first
STATE_ORDER = ("stale", "unchecked", "fresh")

#: Markdown and HTML punctuation a name could be read as: escaped with a backslash
#: (CommonMark allows it before any ASCII punctuation; GFM tables also before ``|``)
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~&$])")

#: unchecked reports of one reason beyond this many are one row
COLLAPSE_AFTER = 5


@dataclass(frozen=True)
class StalenessRow:
    """One report's line of the staleness table.

    ``state`` is ``fresh`` (everything checked holds), ``stale`` (``failing`` counts
    failing evidence by kind: ``{"changed": 2, "deleted": 1}``) or ``unchecked``
    (``reason``: no repository, pin missing, ...). ``moves`` says where moved or
    relocated evidence went (``old → new``), shown in the summary's details.
    """

    report: str
    state: str
    failing: dict = field(default_factory=dict)
    reason: str = ""
    moves: tuple[str, ...] = ()

    def why(self) -> str:
        if self.state == "stale":
            return ", ".join(f"{n} {kind}" for kind, n in sorted(self.failing.items(), key=lambda kv: (-kv[1], kv[0])))
        if self.state == "unchecked":
            return self.reason
        return ""


def markdown_text(text: str) -> str:
    """``text`` shown as itself in Markdown (a table cell): controls escaped, markup inert."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", printable(text))


def _ordered(rows: Iterable[StalenessRow]) -> list[StalenessRow]:
    def key(row: StalenessRow):
        rank = STATE_ORDER.index(row.state) if row.state in STATE_ORDER else len(STATE_ORDER)
        return (rank, row.report)

    return sorted(rows, key=key)


def _table_rows(rows: list[StalenessRow]) -> list[tuple[str, str, str]]:
    """(state, report, why) cells; many unchecked reports of one reason collapse into one row."""
    unchecked = Counter(row.reason for row in rows if row.state == "unchecked")
    collapsed = {reason for reason, n in unchecked.items() if n > COLLAPSE_AFTER}
    cells, done = [], set()
    for row in rows:
        if row.state == "unchecked" and row.reason in collapsed:
            if row.reason not in done:
                done.add(row.reason)
                cells.append(("unchecked", f"{unchecked[row.reason]} reports", markdown_text(row.reason)))
            continue
        cells.append((markdown_text(row.state), markdown_text(row.report), markdown_text(row.why())))
    return cells


def totals(rows: list[StalenessRow]) -> str:
    """``3 reports: 1 stale, 1 unchecked, 1 fresh; failing evidence: 2 changed, 1 deleted``."""
    states = Counter(row.state for row in rows)
    failing: Counter = Counter()
    for row in rows:
        failing.update(row.failing)
    parts = [f"{states[s]} {s}" for s in STATE_ORDER if states[s]]
    parts += [f"{n} {s}" for s, n in sorted(states.items()) if s not in STATE_ORDER]
    text = f"{len(rows)} report{'s' if len(rows) != 1 else ''}: " + ", ".join(parts)
    if failing:
        text += "; failing evidence: " + ", ".join(f"{n} {k}" for k, n in sorted(failing.items(), key=lambda kv: (-kv[1], kv[0])))
    return text


def render(rows: Iterable[StalenessRow], heading: str = "memreport: which reports are stale") -> str:
    """The step summary's section: a heading, the table, the totals, and (folded) the moves."""
    ordered = _ordered(rows)
    out = [f"## {markdown_text(heading)}", ""]
    if not ordered:
        out += ["No report ran.", ""]
        return "\n".join(out)
    out += ["| state | report | why |", "| --- | --- | --- |"]
    out += [f"| {state} | {report} | {why} |" for state, report, why in _table_rows(ordered)]
    out += ["", f"**Totals:** {markdown_text(totals(ordered))}", ""]
    moves = [(row.report, move) for row in ordered for move in row.moves]
    if moves:
        out += ["<details><summary>Where moved evidence went</summary>", ""]
        out += [f"- {markdown_text(report)}: {markdown_text(move)}" for report, move in moves]
        out += ["", "</details>", ""]
    return "\n".join(out)
