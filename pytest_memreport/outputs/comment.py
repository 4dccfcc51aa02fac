"""One pull-request comment in Markdown (``--memreport-comment FILE``), rewritten on each push.

What a reviewer of a pull request to a knowledge base asks first: which reports this
change made stale, and which it fixed, relative to the base branch's run (its
``--memreport-json``, given as ``--memreport-comment-base``); then the counts; then
each failing piece of evidence, a line with a link to the report line and to the
commit that broke it. The first line is a hidden marker (:data:`MARKER`) by which the
poster (the GitHub Action) finds its own comment and rewrites it instead of adding
another. The text stays within GitHub's limit for a comment (:data:`LIMIT`): what does
not fit is "and N more" (the step summary, JSON and SARIF list every one).

Like the step summary, it reads only the staleness rows and the verdicts of the run
(:mod:`.staleness`, :mod:`.verdicts`); every name is escaped for Markdown.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from urllib.parse import quote, urlsplit

from .. import repomap
from ..errors import MemreportError
from ..model import Report
from ..text.render import printable
from .annotations import workspace_path
from .staleness import FRESH, PARTIAL, STALE, Row
from .stepsummary import markdown_text, totals
from .kinds import Verdict
from .verdicts import CheckVerdict, Place

#: the hidden first line the poster finds its comment by
MARKER = "<!-- pytest-memreport -->"

#: GitHub refuses a comment body longer than this many characters
LIMIT = 65536

#: room kept below :data:`LIMIT` for the "and N more" lines and the closing note
_RESERVE = 1024

DEFAULT_SERVER = "https://github.com"


class BaseRunError(MemreportError):
    """A base run's results that cannot be read; the message is one line naming the option."""

    code = "MR503"


def read_base(path: str | os.PathLike, option: str = "--memreport-comment-base") -> dict[str, str]:
    """Each report's state in a previous run's ``--memreport-json`` (``memreport/1``), by path."""
    shown = printable(str(path))
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaseRunError(f"{option} {shown}: no such file; give the --memreport-json of the base branch's run") \
            from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise BaseRunError(f"{option} {shown}: cannot be read ({reason})") from None
    except json.JSONDecodeError as exc:
        raise BaseRunError(f"{option} {shown}: not JSON (line {exc.lineno}): give the file a --memreport-json "
                           "run wrote") from None
    reports = data.get("reports") if isinstance(data, dict) else None
    if not isinstance(reports, list) or not all(isinstance(r, dict) and "path" in r for r in reports):
        raise BaseRunError(f"{option} {shown}: not the results of a --memreport-json run (no \"reports\" list); "
                           "give the file a --memreport-json run wrote")
    return {str(r["path"]): str(r.get("state") or "") for r in reports}


@dataclass(frozen=True)
class Links:
    """Where the comment's links point: the knowledge base's report lines at the run's
    commit (``server/repository/blob/ref/path#Lline``) and the targets' commits
    (``targets[(report, evidence line)]`` is a repository's web address). Without a
    repository or ref, report lines are plain text."""

    server: str = DEFAULT_SERVER
    repository: str | None = None
    ref: str | None = None
    rootdir: Path = Path(".")
    workspace: str | None = None
    targets: Mapping[tuple[str, int], str] = field(default_factory=dict)

    @classmethod
    def from_environment(cls, env: Mapping[str, str], rootdir: Path, reports: Iterable[Report]) -> Links:
        """From GitHub Actions' variables (``GITHUB_SERVER_URL``, ``GITHUB_REPOSITORY``,
        ``GITHUB_SHA``, ``GITHUB_WORKSPACE``) and the reports' sources."""
        server = (env.get("GITHUB_SERVER_URL") or DEFAULT_SERVER).rstrip("/")
        return cls(server, env.get("GITHUB_REPOSITORY") or None, env.get("GITHUB_SHA") or None, rootdir,
                   env.get("GITHUB_WORKSPACE") or None, target_addresses(reports, server))

    def report_line(self, place: Place) -> str:
        """``[file:line](address)``, or ``file:line`` as text when there is no address."""
        file = workspace_path(place.file, self.rootdir, self.workspace)
        text = f"{markdown_text(file)}:{place.line}"
        if not (self.repository and self.ref) or Path(file).is_absolute():
            return text
        return f"[{text}]({self.server}/{self.repository}/blob/{self.ref}/{quote(file)}#L{place.line})"

    def commit(self, report: str, line: int, sha: str) -> str:
        """The commit ``sha`` of the repository the evidence at ``report:line`` cites: a link
        when its address is known."""
        shown = f"`{sha[:12]}`"
        base = self.targets.get((report, line))
        if not base:
            return shown
        # (a commit's page: ``/commit/<sha>`` on GitHub, GitLab, Gitea; Bitbucket's is ``/commits/``)
        page = "commits" if urlsplit(base).hostname == "bitbucket.org" else "commit"
        return f"[{shown}]({base}/{page}/{sha})"


def target_addresses(reports: Iterable[Report], server: str = DEFAULT_SERVER) -> dict[tuple[str, int], str]:
    """``(report, evidence line) → https://host/owner/name``: the repository each piece of
    evidence cites, when its source names ``owner/name`` (the host of the source's own web
    address, else ``server``). A line citing two repositories gets no address."""
    out: dict[tuple[str, int], str] = {}
    ambiguous = set()
    for report in reports:
        for evidence in report.all_evidence():
            named = repomap.repo_id(report, evidence.source)
            if not named or repomap.name_problem(named):
                continue
            source = report.source(evidence.source)
            url = urlsplit(source.url) if source is not None and source.url else None
            host = f"{url.scheme}://{url.netloc}" if url and url.scheme in ("http", "https") and url.netloc \
                else server
            key = (report.path, evidence.line)
            if out.setdefault(key, f"{host}/{named}") != f"{host}/{named}":
                ambiguous.add(key)
    return {key: address for key, address in out.items() if key not in ambiguous}


class ChangeKind(StrEnum):
    """How a report's state changed since the base run (as the comment says it)."""

    BECAME_STALE = "became stale"
    FIXED = "fixed"


@dataclass(frozen=True)
class Change:
    """A report whose state differs from the base run's in a way a reviewer acts on."""

    kind: ChangeKind
    row: Row
    before: str | None


def changes(rows: Sequence[Row], base: Mapping[str, str]) -> list[Change]:
    """Reports that became stale (new reports included) and stale reports now fixed."""
    out = []
    for row in rows:
        before = base.get(row.report)
        if row.state == STALE and before != STALE:
            out.append(Change(ChangeKind.BECAME_STALE, row, before))
        elif before == STALE and row.state in (FRESH, PARTIAL):
            out.append(Change(ChangeKind.FIXED, row, before))
    return sorted(out, key=lambda c: (c.kind is not ChangeKind.BECAME_STALE, c.row.report))


def _change_line(change: Change) -> str:
    was = f"was {change.before}" if change.before else "new"
    return (f"- **{change.kind}**: {markdown_text(change.row.report)} ({was}; now {change.row.state}: "
            f"{markdown_text(change.row.summary)})")


def _breaking(verdict: CheckVerdict, links: Links) -> str:
    broken = verdict.check.broken_by
    if broken is None:
        return ""
    subject = f" {markdown_text(broken.subject)}" if broken.subject else ""
    return f"; broken by {links.commit(verdict.report, verdict.check.line, broken.commit)}{subject}"


def _failure_line(verdict: CheckVerdict, links: Links) -> str:
    return f"- {links.report_line(verdict.place)}: {markdown_text(verdict.message)}{_breaking(verdict, links)}"


def _fit(lines: list[str], room: int) -> tuple[list[str], int]:
    """The first of ``lines`` that fit in ``room`` characters (with their newlines), and how many did not."""
    kept, used = [], 0
    for line in lines:
        if used + len(line) + 1 > room:
            break
        kept.append(line)
        used += len(line) + 1
    return kept, len(lines) - len(kept)


def _heading(rows: Sequence[Row], failures: int) -> str:
    stale = sum(1 for row in rows if row.state == STALE)
    if not rows:
        return "memreport: no report ran"
    if stale or failures:
        return f"memreport: {stale} stale report{'s' if stale != 1 else ''}, {failures} failing check" \
               f"{'s' if failures != 1 else ''}"
    return "memreport: every checked report holds"


def render(rows: Sequence[Row], verdicts: Sequence[CheckVerdict], base: Mapping[str, str] | None,
           links: Links = Links(), limit: int = LIMIT) -> str:
    """The comment: the marker, a heading, what changed since the base run, the totals,
    then every failing piece of evidence (as many as fit within ``limit`` characters)."""
    failing = sorted((v for v in verdicts if v.verdict == Verdict.FAIL), key=CheckVerdict.sort_key)
    warnings = sum(1 for v in verdicts if v.verdict == Verdict.WARN)
    head = [MARKER, f"## {markdown_text(_heading(rows, len(failing)))}", ""]
    changed_lines: list[str] = []
    if base is None:
        head += ["No base run to compare with (give `--memreport-comment-base` the base branch's "
                 "`--memreport-json`).", ""]
    else:
        found = changes(rows, base)
        stale = sum(1 for c in found if c.kind is ChangeKind.BECAME_STALE)
        head += [f"**Since the base run:** {stale} became stale, {len(found) - stale} fixed." if found
                 else "**Since the base run:** no report became stale or was fixed.", ""]
        changed_lines = [_change_line(c) for c in found]
    counts = [f"**Totals:** {markdown_text(totals(list(rows)))}", ""] if rows else []
    counts += [f"{len(failing)} failing check{'s' if len(failing) != 1 else ''}, {warnings} warning"
               f"{'s' if warnings != 1 else ''}.", ""]
    room = limit - _RESERVE - sum(len(line) + 1 for line in head + counts) - 64
    failure_lines = [_failure_line(v, links) for v in failing]
    # the changes come first, but leave the failing evidence half the room at least
    kept_changes, more_changes = _fit(changed_lines, room // 2 if failure_lines else room)
    room -= sum(len(line) + 1 for line in kept_changes)
    kept_failures, more_failures = _fit(failure_lines, room)
    out = list(head)
    if changed_lines:
        out += kept_changes + ([f"- ... and {more_changes} more"] if more_changes else []) + [""]
    out += counts
    if failure_lines:
        out += ["### Failing evidence", ""] + kept_failures
        if more_failures:
            out.append(f"- ... and {more_failures} more (the step summary, JSON and SARIF list them all)")
        out.append("")
    return "\n".join(out)
