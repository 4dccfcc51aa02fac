"""A static site to triage stale reports from (``--memreport-html DIR``).

One page per report and an index, over the same results the JSON has
(:func:`.results.build_json`, with the staleness states): nothing is checked
again here. The index lists every report with its state, its counts by drift
class, its repositories and pins, sorted by staleness and filterable by state
and repository. A report's page shows the report's own text, every piece of
evidence marked at its line and coloured by outcome; beside each piece that
failed or moved, the cited lines at the pin and at the against-revision side by
side with the difference marked, the nearest candidate, the commit that broke
it and where it went.

Everything from reports and targets is escaped: a quotation holding ``<script>``
is text. The only script is a few lines of plain JavaScript for sorting and
filtering the index; the site needs no server and no network.

Rendering is pure: :func:`render_site` takes the results, the reports' texts and
a function reading a file at a revision (the session's, through the engine's
repositories), and returns the pages; :func:`write_site` owns the folder. The
markup is in Jinja2 templates (``outputs/templates/``: ``page.html`` around
``index.html`` and ``report.html``, ``detail.html`` beside a piece of evidence,
``diff.html`` for compared lines, the style sheet and the index's script), which
receive plain values (:class:`IndexRow`, :class:`PageLine`, :class:`Detail`) and
escape every one (:func:`escape`).
"""

from __future__ import annotations

import errno
import functools
import hashlib
import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from html import escape as html_escape
from pathlib import Path
from typing import Callable

import jinja2
from markupsafe import Markup
from rapidfuzz.distance import Indel

from ..text.render import printable
from .kinds import CheckOutcome, Drift, PinStatus, ReportState
from . import files
from .files import OutputError, OutputFile

#: reads ``path`` at ``rev`` in the repository ``repo`` (a clone's path): its text, or ``None``
ReadFile = Callable[[str, str, str], "str | None"]

#: the most lines shown of one side of a comparison (a long range is cut, and says so)
SHOWN_LINES = 60
#: the longest line compared character by character (longer ones are marked whole)
CHARACTER_DIFF_LIMIT = 2_000
#: drift classes that pass, yet the evidence now lives elsewhere
MOVED = frozenset({Drift.MOVED, Drift.RELOCATED, Drift.RENAMED, Drift.SHIFTED})
#: drift classes that fail: the evidence no longer holds at the against-revision
BROKEN = frozenset({Drift.MODIFIED, Drift.CHANGED, Drift.DELETED, Drift.UNREADABLE, Drift.MISSING, Drift.FILE_MISSING})
#: the order of states on the index: what needs attention first
STATE_RANK = {ReportState.STALE: 0, ReportState.UNCHECKED: 1, ReportState.FRESH: 2}
#: pin statuses of evidence that was not checked (the site shows it as skipped)
_NOT_CHECKED = frozenset({PinStatus.NOT_EVIDENCE, PinStatus.NOT_CHECKED})


class Shown(StrEnum):
    """How the site shows a piece of evidence (a badge and its line's colour), worst first."""

    FAIL = "fail"
    MOVED = "moved"
    PASS = "pass"
    SKIP = "skip"


#: line breaks as character references: the same text in a browser, no line of its own in
#: the file (``cat index.html`` in a CI log could start a workflow command with one)
_LINE_BREAKS = str.maketrans({"\n": "&#10;", "\r": "&#13;"})


def escape(text: str) -> str:
    """``text`` as HTML text or an attribute's value: markup inert, line breaks as character
    references, other control characters and bytes that are not UTF-8 escaped as everywhere
    (``\\x1b``, ``bad\\xff.py``: :func:`printable`, tabs kept)."""
    return printable(html_escape(text).translate(_LINE_BREAKS), keep_tabs=True)


@dataclass(frozen=True)
class Mark:
    """One piece of evidence as the site shows it."""

    line: int
    outcome: Shown
    title: str
    evidence: dict
    #: what the page shows beside it, when it failed or moved
    detail: "Detail | None" = None


def outcome_of(evidence: dict) -> Shown:
    """How the site shows one evidence entry of the JSON."""
    check = CheckOutcome.of(evidence)
    if check.at_pin in _NOT_CHECKED:
        return Shown.SKIP
    if check.at_pin is not PinStatus.FOUND:
        return Shown.FAIL
    if check.at_against in BROKEN:
        return Shown.FAIL
    if check.at_against in MOVED:
        return Shown.MOVED
    return Shown.PASS


def _all_evidence(report: dict) -> list[dict]:
    found = list(report.get("evidence", []))
    for record in report.get("records", []):
        found.extend(record.get("evidence", []))
    return found


def page_name(report_path: str) -> str:
    """A report's page: readable, unique, and safe as one file name whatever the report is called."""
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in report_path)[-80:].lstrip(".")
    digest = hashlib.sha256(report_path.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"report-{stem}-{digest}.html"


# -- the index ------------------------------------------------------------------------------


def _drift_counts(report: dict) -> Counter:
    counts: Counter = Counter()
    for evidence in _all_evidence(report):
        status = (evidence.get("at_against") or {}).get("status")
        if status:
            counts[status] += 1
        elif (evidence.get("at_pin") or {}).get("status") not in (None, PinStatus.FOUND, *_NOT_CHECKED):
            counts[f"pin {evidence['at_pin']['status']}"] += 1
    return counts


def _repositories(report: dict) -> list[tuple[str, str]]:
    """The report's distinct (repository, pin) pairs; the sources' ids where none was opened."""
    opened = {(str(s["repo"]), str(s.get("pin") or "")) for s in report.get("sources", []) if s.get("repo")}
    if opened:
        return sorted(opened)
    return [(str(s.get("id") or "?"), str(s.get("pin") or "")) for s in report.get("sources", [])]


@dataclass(frozen=True)
class IndexRow:
    """One report's row of the index."""

    path: str
    page: str
    state: str
    rank: int
    failing: int
    reason: str
    counts: str
    repositories: list[tuple[str, str]]

    @property
    def repository_list(self) -> str:
        """The row's repositories, one a line (the filter's ``data-repos``)."""
        return "\n".join(repo for repo, _ in self.repositories)


def _index(data: dict) -> str:
    reports = data.get("reports", [])
    rows = []
    states: Counter = Counter()
    for report in sorted(reports, key=lambda r: (STATE_RANK.get(r.get("state", ""), 3), -_failing(r), r["path"])):
        state = report.get("state", ReportState.UNCHECKED)
        states[state] += 1
        counts = _drift_counts(report)
        rows.append(IndexRow(
            path=printable(report["path"]), page=page_name(report["path"]), state=state,
            rank=STATE_RANK.get(state, 3), failing=_failing(report), reason=str(report.get("reason") or ""),
            counts=", ".join(f"{n} {kind}" for kind, n in counts.most_common()), repositories=_repositories(report)))
    totals = ", ".join(f"{states[s]} {s}" for s in STATE_RANK if states[s])
    repositories = sorted({repo for row in rows for repo, _ in row.repositories})
    return _render("index.html", title="memreport: reports", rows=rows, totals=totals, repositories=repositories)


def _failing(report: dict) -> int:
    return sum(outcome_of(e) is Shown.FAIL for e in _all_evidence(report))


# -- a report's page ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Sides:
    """The cited lines at the pin and at the against-revision, compared (:func:`compare_lines`)."""

    old_path: str
    old_lines: object
    new_path: str
    new_lines: object
    old: list[DiffLine]
    new: list[DiffLine]


@dataclass(frozen=True)
class Detail:
    """What the page shows beside a failing or moved piece of evidence (``detail.html``)."""

    kind: str
    path: str
    at_pin: str
    at_against: str | None
    quoted: str | None
    sides: Sides | None
    candidate: dict | None
    went: dict | None
    broken_by: dict | None
    message: str | None


@dataclass(frozen=True)
class PageLine:
    """One line of the report's text with the evidence marked at it."""

    number: int
    text: str
    worst: str
    marks: list[Mark]


def _marks(report: dict) -> dict[int, list[Mark]]:
    by_line: dict[int, list[Mark]] = {}
    for evidence in _all_evidence(report):
        outcome = outcome_of(evidence)
        drift = (evidence.get("at_against") or {}).get("status")
        pin = (evidence.get("at_pin") or {}).get("status")
        title = f"{evidence.get('kind')} {evidence.get('path')}: at pin {pin}" + (f", at against {drift}" if drift else "")
        line = int(evidence.get("line") or 1)
        by_line.setdefault(line, []).append(Mark(line, outcome, title, evidence))
    return by_line


def _report_page(report: dict, text: str | None, read: ReadFile) -> str:
    marks = _marks(report)
    lines = []
    for number, line in enumerate((text or "").splitlines() or [""], start=1):
        here = [replace(mark, detail=_detail(report, mark.evidence, read)) if mark.outcome in (Shown.FAIL, Shown.MOVED)
                else mark for mark in marks.get(number, [])]
        lines.append(PageLine(number, line, _worst(here), here))
    against = report.get("against")
    return _render("report.html", title=f"memreport: {printable(report['path'])}", path=printable(report["path"]),
                   state=str(report.get("state")), reason=str(report.get("reason") or ""),
                   repositories=_repositories(report), against=str(against) if against else None, lines=lines)


def _worst(marks: list[Mark]) -> str:
    for outcome in Shown:
        if any(m.outcome is outcome for m in marks):
            return outcome
    return ""


def _detail(report: dict, evidence: dict, read: ReadFile) -> Detail:
    """Beside a failing or moved piece of evidence: both sides, the candidate, the commit."""
    pin = evidence.get("at_pin") or {}
    against = evidence.get("at_against") or {}
    repo, pin_rev = _source_of(report, evidence)
    old_lines = pin.get("lines") or evidence.get("cited_lines")
    old_text = _cut(read(repo, pin_rev, str(evidence.get("path"))), old_lines) if repo and pin_rev else None
    new_path = against.get("path") or evidence.get("path")
    # Where the evidence is now, else where its nearest candidate is, else the same lines.
    new_lines = against.get("lines") or (against.get("candidate") or {}).get("lines") or old_lines
    new_text = _cut(read(repo, str(against.get("rev")), str(new_path)), new_lines) \
        if repo and against.get("rev") and against.get("status") != Drift.DELETED else None
    sides = None
    if old_text is not None or new_text is not None:
        old, new = compare_lines(old_text or [], new_text or [])
        sides = Sides(str(evidence.get("path")), old_lines, str(new_path), new_lines, old, new)
    candidate = against.get("candidate") or pin.get("candidate")
    broken = against.get("broken_by")
    message = against.get("message") or pin.get("message")
    return Detail(
        kind=str(evidence.get("kind")), path=str(evidence.get("path")), at_pin=str(pin.get("status")),
        at_against=str(against.get("status")) if against else None,
        quoted=str(evidence["text"]) if evidence.get("text") else None, sides=sides,
        candidate={"lines": candidate.get("lines"), "text": str(candidate.get("text", ""))} if candidate else None,
        went={"path": str(against["path"]), "lines": against.get("lines")}
        if against.get("status") in MOVED and against.get("path") else None,
        broken_by={key: str(broken.get(key, "")) for key in ("commit", "subject", "author", "date")}
        if broken else None,
        message=str(message) if message else None)


def _source_of(report: dict, evidence: dict) -> tuple[str | None, str | None]:
    """The clone and pin an evidence entry was checked in: its own source's, else the
    first source of the report that names a clone (a run's register rows share one)."""
    sources = report.get("sources", [])
    wanted = evidence.get("source")
    ranked = [s for s in sources if s.get("id") == wanted] + [s for s in sources if s.get("repo")]
    for source in ranked:
        if source.get("repo"):
            return source["repo"], evidence.get("pin") or source.get("pin")
    return None, None


def _cut(text: str | None, lines) -> list[str] | None:
    """The cited lines of ``text`` (at most :data:`SHOWN_LINES`), ``None`` when unreadable."""
    if text is None:
        return None
    all_lines = text.splitlines()
    if not lines:
        return all_lines[:SHOWN_LINES]
    start, end = max(1, int(lines[0])), int(lines[-1])
    return all_lines[start - 1:min(end, start - 1 + SHOWN_LINES)]


@dataclass(frozen=True)
class Piece:
    """Text of a compared line: kept (``mark`` empty), removed or added (``mark`` the HTML
    element that marks it: ``del``, ``ins``)."""

    mark: str
    text: str


KEPT, REMOVED, ADDED = "", "del", "ins"


#: one line of a comparison, as its pieces
DiffLine = tuple[Piece, ...]


def compare_lines(old: list[str], new: list[str]) -> tuple[list[DiffLine], list[DiffLine]]:
    """Both sides, lines and characters that differ marked (``del``/``ins``).

    Lines are aligned by rapidfuzz's Indel opcodes (both sides are at most
    :data:`SHOWN_LINES` lines); a replaced line is compared character by character."""
    old, new = old[:SHOWN_LINES], new[:SHOWN_LINES]
    left: list[DiffLine] = []
    right: list[DiffLine] = []
    olds: list[str] = []
    news: list[str] = []

    def flush() -> None:
        # The lines between two equal runs, paired in order: a pair is compared by characters.
        for k in range(max(len(olds), len(news))):
            one = olds[k] if k < len(olds) else None
            two = news[k] if k < len(news) else None
            if one is not None and two is not None:
                a, b = _characters(one, two)
                left.append(a)
                right.append(b)
            elif one is not None:
                left.append((Piece(REMOVED, one),))
            elif two is not None:
                right.append((Piece(ADDED, two),))
        olds.clear()
        news.clear()

    for op in Indel.opcodes(old, new):
        i1, i2, j1, j2 = op.src_start, op.src_end, op.dest_start, op.dest_end
        if op.tag == "equal":
            flush()
            left.extend((Piece(KEPT, line),) for line in old[i1:i2])
            right.extend((Piece(KEPT, line),) for line in new[j1:j2])
        else:
            olds.extend(old[i1:i2])
            news.extend(new[j1:j2])
    flush()
    return left, right


def side_by_side(old: list[str], new: list[str]) -> tuple[str, str]:
    """Both sides as escaped HTML (``diff.html``), lines and characters that differ marked."""
    left, right = compare_lines(old, new)
    lines = _environment().get_template("diff.html").module.lines  # type: ignore[attr-defined]
    return str(lines(left)), str(lines(right))


#: the pieces a changed line is compared by: words, runs of spaces, single other characters
_PIECES = re.compile(r"\w+|\s+|[^\w\s]")


def _characters(one: str, two: str) -> tuple[DiffLine, DiffLine]:
    """Two versions of a line, the words and characters that differ marked."""
    if len(one) > CHARACTER_DIFF_LIMIT or len(two) > CHARACTER_DIFF_LIMIT:
        return (Piece(REMOVED, one),), (Piece(ADDED, two),)
    a, b = _PIECES.findall(one), _PIECES.findall(two)
    left, right = [], []
    for op in Indel.opcodes(a, b):
        i1, i2, j1, j2 = op.src_start, op.src_end, op.dest_start, op.dest_end
        if op.tag == "equal":
            left.append(Piece(KEPT, "".join(a[i1:i2])))
            right.append(Piece(KEPT, "".join(b[j1:j2])))
            continue
        if i2 > i1:
            left.append(Piece(REMOVED, "".join(a[i1:i2])))
        if j2 > j1:
            right.append(Piece(ADDED, "".join(b[j1:j2])))
    return tuple(left), tuple(right)


# -- the templates -----------------------------------------------------------------------------


def _escaped(value: object) -> object:
    """Every value a template shows, through :func:`escape` (line breaks and control characters
    too, which Jinja's own escaping keeps); markup the templates made (a macro's) as it is."""
    return value if isinstance(value, Markup) else Markup(escape(str(value)))


@functools.cache
def _environment() -> jinja2.Environment:
    """The site's templates (``outputs/templates/``, package data), autoescaped."""
    return jinja2.Environment(loader=jinja2.PackageLoader("pytest_memreport.outputs", "templates"),
                              autoescape=True, finalize=_escaped, keep_trailing_newline=True,
                              undefined=jinja2.StrictUndefined)


def _render(template: str, **values) -> str:
    return _environment().get_template(template).render(**values)


# -- the site ----------------------------------------------------------------------------------


#: the site's manifest: the files this plugin wrote in the folder (the next run replaces or
#: removes those, and touches nothing else there)
MARKER = ".memreport-site"
_MANIFEST_HEAD = ("written by pytest-memreport: the files below are its own, replaced by its next run; "
                  "nothing else in this folder is touched")
#: what a site's file may be called: a name its manifest lists is acted on only when it is
#: one of these (a manifest edited to say ``../x`` or ``.git`` removes nothing else)
_SITE_FILE = re.compile(r"(?:index\.html|style\.css|report-[^/\\\x00]*\.html)\Z")


def prepare_site(option: str, folder: str | os.PathLike, outputs: Sequence[OutputFile] = (),
                 inputs: Sequence[tuple[str, Path]] = ()) -> Path:
    """Check that ``folder`` can take the site before the run starts; raises
    :class:`~.files.OutputError` (one line).

    The site replaces only the files its manifest lists (what it wrote before): a file
    of the site's names that it did not write, any file the run reads (``inputs``) and
    any other output file (``outputs``) in the folder are refused, and so is a folder
    inside a repository's own (``.git``) folder. Anything else in the folder is kept."""
    path = Path(folder)
    shown = printable(str(path))
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise OutputError(f"{option} {shown}: not a folder; give a new folder, or one the site was written to")
    if files.git_folder_of(path) is not None:
        raise OutputError(f"{option} {shown}: {files.GIT_FOLDER}")
    if path.is_dir():
        owned = _owned(path)
        for name in sorted(os.listdir(path)):
            if _SITE_FILE.match(name) and name not in owned:
                raise OutputError(f"{option} {shown}: {printable(name)} in it was not written by this plugin, and the "
                                  "site would replace it; move it away, or give another folder")
        if (path / MARKER).exists() and not (path / MARKER).is_file():
            raise OutputError(f"{option} {shown}: {MARKER} in it is not the site's manifest; give another folder")
    for other in outputs:
        if files.first_inside(path, [(other.option, other.path)]) is not None:
            raise other.problem(f"is inside the {option} folder {shown}, which the site writes; "
                                "give it a path outside that folder")
    read = files.first_inside(path, inputs)
    if read is not None:
        what, where = read
        raise OutputError(f"{option} {shown}: holds {what} {printable(str(where))}, which this run reads; "
                          "give the site a folder of its own")
    parent = path.resolve().parent
    while not parent.exists():
        parent = parent.parent
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {shown}: {printable(str(parent))} cannot be written")
    return path


def _owned(folder: Path) -> set[str]:
    """The files of ``folder`` its manifest says this plugin wrote (none without one).

    The marker of an earlier version (one line, no list) owned the whole folder: its
    site's files are those of the site's names."""
    try:
        lines = (folder / MARKER).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return set()
    if lines[:1] != [_MANIFEST_HEAD]:
        return {name for name in os.listdir(folder) if _SITE_FILE.match(name)}
    return {name for name in lines[1:] if _SITE_FILE.match(name)}


def render_site(data: dict, texts: dict[str, str], read: ReadFile) -> dict[str, str]:
    """Every page of the site by file name: ``index.html`` and one page per report."""
    pages = {"index.html": _index(data), "style.css": _render("style.css")}
    for report in data.get("reports", []):
        pages[page_name(report["path"])] = _report_page(report, texts.get(report["path"]), read)
    return pages


def write_site(folder: Path, pages: dict[str, str]) -> str:
    """Write the site's ``pages`` into ``folder``, each file replaced as one step, and
    remove the files of the site written before that it no longer has; nothing else in
    the folder is touched. Returns the line the run prints.

    The manifest is written first listing the files of both sites (a run stopped half
    way leaves none the next run does not know), the index last (a reader never follows
    it to a page not there yet), then the manifest of this site alone."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    before = _owned(folder)
    for name in sorted(pages):
        if name not in before and os.path.lexists(folder / name):  # saved there since the run started
            raise OSError(errno.EEXIST, f"{printable(name)} in it was not written by this plugin; the site was not "
                                        "written (move the file away, or give another folder)")
    names = sorted((name for name in pages if name != "index.html"), key=lambda n: n != "style.css")
    names += ["index.html"] if "index.html" in pages else []
    _write_manifest(folder, before | set(pages))
    for name in names:
        files.replace_file(folder / name, pages[name].encode("utf-8"))
    for name in sorted(before - set(pages)):
        if os.path.lexists(folder / name) and not os.path.isdir(folder / name):
            os.unlink(folder / name)
    _write_manifest(folder, set(pages))
    return f"memreport: wrote the HTML report to {printable(str(folder / 'index.html'))}"


def _write_manifest(folder: Path, names: set[str]) -> None:
    text = "\n".join([_MANIFEST_HEAD, *sorted(n for n in names if _SITE_FILE.match(n))]) + "\n"
    files.replace_file(folder / MARKER, text.encode("utf-8"))
