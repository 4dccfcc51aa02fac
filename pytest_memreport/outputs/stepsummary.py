"""The staleness table as Markdown, appended to GitHub's step summary (``GITHUB_STEP_SUMMARY``).

One row per report that ran, ``state`` first (``stale``, then ``unchecked``, then
``fresh``, as a reviewer reads them), a totals line, then where moved evidence went and
every failure and warning (GitHub shows only ten annotations of each kind per step).
The rows are the terminal table's: :func:`render` reads only the fields of
:class:`.staleness.Row` (``report``, ``state``, ``failing``, ``summary``, ``reason_code``,
``moves``), so the terminal and the step summary can never disagree.

Every name is escaped for Markdown and HTML (GitHub renders both in a summary): a report
called ``a|b.md`` or ``<img src=x>.md`` is shown as its name, never as markup.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from ..text.render import printable
from .staleness import Row
from .kinds import ReportState, Verdict
from .verdicts import CheckVerdict

#: how a reviewer reads the table: what needs work first
STATE_ORDER = ("stale", "unchecked", "partial", "fresh")

#: Markdown and HTML punctuation a name could be read as: escaped with a backslash
#: (CommonMark allows it before any ASCII punctuation; GFM tables also before ``|``)
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+!|~&$])")

#: unchecked reports of one reason beyond this many are one row
HANDFUL = 5

#: failures and warnings listed under the table (the JSON and SARIF have every one)
LISTED_VERDICTS = 200


def markdown_text(text: str) -> str:
    """``text`` shown as itself in Markdown (a table cell): controls escaped, markup inert."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", printable(text))


def _ordered(rows: Iterable) -> list:
    def key(row):
        rank = STATE_ORDER.index(row.state) if row.state in STATE_ORDER else len(STATE_ORDER)
        return (rank, row.report)

    return sorted(rows, key=key)


def _cells(rows: list) -> list[tuple[str, str, str]]:
    """(state, report, why) cells; unchecked reports of one reason beyond a handful are one row."""
    groups = Counter(row.reason_code or row.summary for row in rows if row.state == ReportState.UNCHECKED)
    cells, done = [], set()
    for row in rows:
        code = row.reason_code or row.summary
        if row.state == ReportState.UNCHECKED and groups[code] > HANDFUL:
            if code not in done:
                done.add(code)
                cells.append(("unchecked", f"{groups[code]} reports", markdown_text(row.summary)))
            continue
        cells.append((markdown_text(row.state), markdown_text(row.report), markdown_text(row.summary)))
    return cells


def totals(rows: list) -> str:
    """``3 reports: 1 stale, 1 unchecked, 1 fresh; failing: 2 changed, 1 deleted``."""
    states = Counter(row.state for row in rows)
    failing: Counter = Counter()
    for row in rows:
        failing.update(dict(row.failing))
    parts = [f"{states[s]} {s}" for s in STATE_ORDER if states[s]]
    parts += [f"{n} {s}" for s, n in sorted(states.items()) if s not in STATE_ORDER]
    text = f"{len(rows)} report{'s' if len(rows) != 1 else ''}: " + ", ".join(parts)
    if failing:
        text += "; failing: " + ", ".join(f"{n} {k}" for k, n in sorted(failing.items(), key=lambda kv: (-kv[1], kv[0])))
    return text


def _verdict_lines(verdicts: list[CheckVerdict]) -> list[str]:
    ordered = sorted(verdicts, key=lambda v: (v.verdict != Verdict.FAIL, v.sort_key()))
    out = [f"- **{'error' if v.verdict == Verdict.FAIL else 'warning'}** "
           f"{markdown_text(v.place.file)}:{v.place.line}: {markdown_text(v.message)}"
           for v in ordered[:LISTED_VERDICTS]]
    if len(ordered) > LISTED_VERDICTS:
        out.append(f"- ... and {len(ordered) - LISTED_VERDICTS} more (the JSON and SARIF results list them all)")
    return out


def render(rows: Iterable[Row] | None, verdicts: Sequence[CheckVerdict] = (),
           heading: str = "memreport: which reports are stale") -> str:
    """The step summary's section: a heading, the table, the totals, then (folded) where
    moved evidence went and every failure and warning with its file and line.

    ``rows=None``: no table (a run whose rows are not known), only the failures."""
    ordered = _ordered(rows or ())
    out = [f"## {markdown_text(heading)}", ""]
    if rows is None:
        pass
    elif not ordered:
        out += ["No report ran.", ""]
    else:
        out += ["| state | report | why |", "| --- | --- | --- |"]
        out += [f"| {state} | {report} | {why} |" for state, report, why in _cells(ordered)]
        out += ["", f"**Totals:** {markdown_text(totals(ordered))}", ""]
    moves = [(row.report, move) for row in ordered for move in row.moves]
    if moves:
        out += ["<details><summary>Where moved evidence went</summary>", ""]
        out += [f"- {markdown_text(report)}:{move.line}: {markdown_text(move.path)} {markdown_text(move.status)} to "
                f"{markdown_text(', '.join(move.to))}" for report, move in moves]
        out += ["", "</details>", ""]
    if verdicts:
        failed = sum(1 for v in verdicts if v.verdict == Verdict.FAIL)
        out += [f"<details><summary>{failed} failures, {len(verdicts) - failed} warnings</summary>", ""]
        out += _verdict_lines(list(verdicts))
        out += ["", "</details>", ""]
    return "\n".join(out)
