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
repositories), and returns the pages; :func:`write_site` owns the folder.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape as html_escape
from pathlib import Path
from typing import Callable

from rapidfuzz.distance import Indel

from ..text.render import printable
from . import files
from .files import OutputError, OutputFile

#: reads ``path`` at ``rev`` in the repository ``repo`` (a clone's path): its text, or ``None``
ReadFile = Callable[[str, str, str], "str | None"]

#: the most lines shown of one side of a comparison (a long range is cut, and says so)
SHOWN_LINES = 60
#: the longest line compared character by character (longer ones are marked whole)
CHARACTER_DIFF_LIMIT = 2_000
#: drift classes that pass, yet the evidence now lives elsewhere
MOVED = frozenset({"moved", "relocated", "renamed", "shifted"})
#: drift classes that fail: the evidence no longer holds at the against-revision
BROKEN = frozenset({"modified", "changed", "deleted", "unreadable", "missing", "file-missing"})
#: the order of states on the index: what needs attention first
STATE_RANK = {"stale": 0, "unchecked": 1, "fresh": 2}


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
    outcome: str  # pass | fail | moved | skip
    title: str
    evidence: dict


def outcome_of(evidence: dict) -> str:
    """``pass``, ``fail``, ``moved`` or ``skip`` for one evidence entry of the JSON."""
    pin = evidence.get("at_pin") or {}
    status = pin.get("status")
    if status in ("not-evidence", "not-checked"):
        return "skip"
    if status != "found":
        return "fail"
    drift = (evidence.get("at_against") or {}).get("status")
    if drift in BROKEN:
        return "fail"
    if drift in MOVED:
        return "moved"
    return "pass"


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
        elif (evidence.get("at_pin") or {}).get("status") not in (None, "found", "not-evidence", "not-checked"):
            counts[f"pin {evidence['at_pin']['status']}"] += 1
    return counts


def _repositories(report: dict) -> list[tuple[str, str]]:
    """The report's distinct (repository, pin) pairs; the sources' ids where none was opened."""
    opened = {(str(s["repo"]), str(s.get("pin") or "")) for s in report.get("sources", []) if s.get("repo")}
    if opened:
        return sorted(opened)
    return [(str(s.get("id") or "?"), str(s.get("pin") or "")) for s in report.get("sources", [])]


def _index(data: dict) -> str:
    reports = data.get("reports", [])
    rows = []
    states: Counter = Counter()
    repositories: set[str] = set()
    for report in sorted(reports, key=lambda r: (STATE_RANK.get(r.get("state", ""), 3), -_failing(r), r["path"])):
        state = report.get("state", "unchecked")
        states[state] += 1
        counts = _drift_counts(report)
        repos = _repositories(report)
        repositories.update(repo for repo, _ in repos)
        shown_counts = ", ".join(f"{n} {kind}" for kind, n in counts.most_common()) or "—"
        shown_repos = "<br>".join(f"{escape(repo)} <code>{escape(pin[:12])}</code>" for repo, pin in repos) or "—"
        rows.append(
            f'<tr class="state-{escape(state)}" data-state="{escape(state)}" '
            f'data-repos="{escape(chr(10).join(repo for repo, _ in repos))}" '
            f'data-rank="{STATE_RANK.get(state, 3)}" data-failing="{_failing(report)}">'
            f'<td><a href="{page_name(report["path"])}">{escape(printable(report["path"]))}</a></td>'
            f'<td class="state">{escape(state)}</td><td>{escape(str(report.get("reason") or ""))}</td>'
            f"<td>{escape(shown_counts)}</td><td>{shown_repos}</td></tr>")
    totals = ", ".join(f"{states[s]} {s}" for s in ("stale", "unchecked", "fresh") if states[s])
    options = "".join(f'<option value="{escape(r)}">{escape(r)}</option>' for r in sorted(repositories))
    body = f"""<h1>memreport</h1>
<p class="totals" id="totals">{len(reports)} report(s): {escape(totals or "none")}</p>
<form class="filters">
<label>state <select id="state-filter"><option value="">all</option><option>stale</option>
<option>unchecked</option><option>fresh</option></select></label>
<label>repository <select id="repo-filter"><option value="">all</option>{options}</select></label>
</form>
<table id="reports"><thead><tr><th data-sort="path">report</th><th data-sort="rank">state</th><th>why</th>
<th data-sort="failing">by drift class</th><th>repositories and pins</th></tr></thead>
<tbody>{"".join(rows)}</tbody></table>
<script>{_SCRIPT}</script>"""
    return _page("memreport: reports", body)


def _failing(report: dict) -> int:
    return sum(outcome_of(e) == "fail" for e in _all_evidence(report))


# -- a report's page ---------------------------------------------------------------------------


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
    lines = (text or "").splitlines() or [""]
    rows = []
    for number, line in enumerate(lines, start=1):
        here = marks.get(number, [])
        worst = _worst(here)
        badges = "".join(f'<span class="badge {m.outcome}" title="{escape(m.title)}">{escape(m.outcome)}</span>'
                         for m in here)
        rows.append(f'<tr id="L{number}" class="{worst}"><td class="num"><a href="#L{number}">{number}</a></td>'
                    f'<td class="src">{escape(line)}</td><td class="badges">{badges}</td></tr>')
        for mark in here:
            if mark.outcome in ("fail", "moved"):
                rows.append(f'<tr class="detail {mark.outcome}"><td></td><td colspan="2">'
                            f"{_detail(report, mark.evidence, read)}</td></tr>")
    repos = ", ".join(f"{escape(repo)} at <code>{escape(pin[:12])}</code>" for repo, pin in _repositories(report))
    against = report.get("against")
    body = f"""<p><a href="index.html">all reports</a></p>
<h1>{escape(printable(report["path"]))}</h1>
<p class="state-{escape(str(report.get("state")))}"><span class="state">{escape(str(report.get("state")))}</span>
{escape(str(report.get("reason") or ""))}</p>
<p>{repos or "no repository"}{f" — drift against <code>{escape(str(against)[:12])}</code>" if against else ""}</p>
<table class="report"><tbody>{"".join(rows)}</tbody></table>"""
    return _page(f"memreport: {printable(report['path'])}", body)


def _worst(marks: list[Mark]) -> str:
    for outcome in ("fail", "moved", "pass", "skip"):
        if any(m.outcome == outcome for m in marks):
            return outcome
    return ""


def _detail(report: dict, evidence: dict, read: ReadFile) -> str:
    """Beside a failing or moved piece of evidence: both sides, the candidate, the commit."""
    pin = evidence.get("at_pin") or {}
    against = evidence.get("at_against") or {}
    repo, pin_rev = _source_of(report, evidence)
    parts = [f'<div class="what">{escape(str(evidence.get("kind")))} <code>{escape(str(evidence.get("path")))}</code>'
             f' — at pin: <b>{escape(str(pin.get("status")))}</b>'
             + (f', at against: <b>{escape(str(against.get("status")))}</b>' if against else "") + "</div>"]
    if evidence.get("text"):
        parts.append(f'<div class="quote">quoted: <code>{escape(str(evidence["text"]))}</code></div>')
    old_lines = pin.get("lines") or evidence.get("cited_lines")
    old_text = _cut(read(repo, pin_rev, str(evidence.get("path"))), old_lines) if repo and pin_rev else None
    new_path = against.get("path") or evidence.get("path")
    # Where the evidence is now, else where its nearest candidate is, else the same lines.
    new_lines = against.get("lines") or (against.get("candidate") or {}).get("lines") or old_lines
    new_text = _cut(read(repo, str(against.get("rev")), str(new_path)), new_lines) \
        if repo and against.get("rev") and against.get("status") not in ("deleted",) else None
    if old_text is not None or new_text is not None:
        old_html, new_html = side_by_side(old_text or [], new_text or [])
        parts.append(
            '<table class="sides"><tr>'
            f'<th>at the pin: {escape(str(evidence.get("path")))}{_range(old_lines)}</th>'
            f'<th>at the against-revision: {escape(str(new_path))}{_range(new_lines)}</th>'
            f'</tr><tr><td><pre>{old_html}</pre></td><td><pre>{new_html}</pre></td></tr></table>')
    candidate = against.get("candidate") or pin.get("candidate")
    if candidate:
        parts.append(f'<div class="candidate">nearest candidate{_range(candidate.get("lines"))}: '
                     f'<code>{escape(str(candidate.get("text", "")))}</code></div>')
    if against.get("status") in MOVED and against.get("path"):
        parts.append(f'<div class="went">went to <code>{escape(str(against["path"]))}</code>'
                     f'{_range(against.get("lines"))}</div>')
    broken = against.get("broken_by")
    if broken:
        parts.append(f'<div class="commit">broken by <code>{escape(str(broken.get("commit", ""))[:12])}</code> '
                     f'{escape(str(broken.get("subject", "")))} — {escape(str(broken.get("author", "")))}, '
                     f'{escape(str(broken.get("date", "")))}</div>')
    if pin.get("message") or against.get("message"):
        parts.append(f'<div class="message">{escape(str(against.get("message") or pin.get("message")))}</div>')
    return "".join(parts)


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


def _range(lines) -> str:
    if not lines:
        return ""
    start, end = lines[0], lines[-1]
    return f":{start}" if start == end else f":{start}-{end}"


def _cut(text: str | None, lines) -> list[str] | None:
    """The cited lines of ``text`` (at most :data:`SHOWN_LINES`), ``None`` when unreadable."""
    if text is None:
        return None
    all_lines = text.splitlines()
    if not lines:
        return all_lines[:SHOWN_LINES]
    start, end = max(1, int(lines[0])), int(lines[-1])
    return all_lines[start - 1:min(end, start - 1 + SHOWN_LINES)]


def side_by_side(old: list[str], new: list[str]) -> tuple[str, str]:
    """Both sides as escaped HTML, lines and characters that differ marked (``del``/``ins``).

    Lines are aligned by rapidfuzz's Indel opcodes (both sides are at most
    :data:`SHOWN_LINES` lines); a replaced line is compared character by character."""
    old, new = old[:SHOWN_LINES], new[:SHOWN_LINES]
    left: list[str] = []
    right: list[str] = []
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
                left.append(f"<del>{escape(one)}</del>")
            elif two is not None:
                right.append(f"<ins>{escape(two)}</ins>")
        olds.clear()
        news.clear()

    for op in Indel.opcodes(old, new):
        i1, i2, j1, j2 = op.src_start, op.src_end, op.dest_start, op.dest_end
        if op.tag == "equal":
            flush()
            left.extend(escape(line) for line in old[i1:i2])
            right.extend(escape(line) for line in new[j1:j2])
        else:
            olds.extend(old[i1:i2])
            news.extend(new[j1:j2])
    flush()
    return "\n".join(left), "\n".join(right)


#: the pieces a changed line is compared by: words, runs of spaces, single other characters
_PIECES = re.compile(r"\w+|\s+|[^\w\s]")


def _characters(one: str, two: str) -> tuple[str, str]:
    """Two versions of a line, the words and characters that differ marked."""
    if len(one) > CHARACTER_DIFF_LIMIT or len(two) > CHARACTER_DIFF_LIMIT:
        return f"<del>{escape(one)}</del>", f"<ins>{escape(two)}</ins>"
    a, b = _PIECES.findall(one), _PIECES.findall(two)
    left, right = [], []
    for op in Indel.opcodes(a, b):
        i1, i2, j1, j2 = op.src_start, op.src_end, op.dest_start, op.dest_end
        if op.tag == "equal":
            left.append(escape("".join(a[i1:i2])))
            right.append(escape("".join(b[j1:j2])))
            continue
        if i2 > i1:
            left.append(f"<del>{escape(''.join(a[i1:i2]))}</del>")
        if j2 > j1:
            right.append(f"<ins>{escape(''.join(b[j1:j2]))}</ins>")
    return "".join(left), "".join(right)


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
    pages = {"index.html": _index(data), "style.css": _STYLE}
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


def _page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<link rel="stylesheet" href="style.css"></head><body>{body}</body></html>\n')


_STYLE = """body{font:14px/1.45 system-ui,sans-serif;margin:1.5em;color:#1d1d1f;background:#fff}
h1{font-size:1.4em}code,pre,td.src{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
table{border-collapse:collapse}#reports{width:100%}#reports th,#reports td{border-bottom:1px solid #ddd;
padding:.35em .6em;text-align:left;vertical-align:top}#reports th[data-sort]{cursor:pointer;text-decoration:underline dotted}
.state{font-weight:600}.state-stale .state{color:#b3261e}.state-fresh .state{color:#1b7f3b}
.state-unchecked .state{color:#8a6d00}.filters label{margin-right:1.5em}.totals{font-weight:600}
table.report td{padding:0 .5em;vertical-align:top}td.num{color:#888;text-align:right;user-select:none}
td.src{white-space:pre-wrap;word-break:break-word}tr.fail td.src{background:#fde7e6}
tr.moved td.src{background:#fff4d6}tr.pass td.src{background:#e8f6ec}tr.skip td.src{background:#f1f1f1}
.badge{display:inline-block;border-radius:3px;padding:0 .4em;margin-right:.2em;font-size:11px;color:#fff}
.badge.fail{background:#b3261e}.badge.moved{background:#a66b00}.badge.pass{background:#1b7f3b}
.badge.skip{background:#777}tr.detail td{padding:.4em .5em 1em}table.sides{width:100%;table-layout:fixed}
table.sides td,table.sides th{border:1px solid #ddd;vertical-align:top;text-align:left;padding:.3em}
table.sides pre{margin:0;white-space:pre-wrap;word-break:break-word}del{background:#fbb;text-decoration:none}
ins{background:#bfb;text-decoration:none}.commit,.candidate,.went,.message,.quote{margin-top:.3em}
"""

# Sorting and filtering only; a hash such as ``#state=stale&repo=acme/widget`` sets the filters.
_SCRIPT = """(function(){
var table=document.getElementById('reports'),body=table.tBodies[0];
var state=document.getElementById('state-filter'),repo=document.getElementById('repo-filter');
function apply(){var s=state.value,r=repo.value;Array.prototype.forEach.call(body.rows,function(row){
var ok=(!s||row.dataset.state===s)&&(!r||row.dataset.repos.split('\\n').indexOf(r)>=0);
row.hidden=!ok;});}
var hash=new URLSearchParams(location.hash.slice(1));
if(hash.get('state'))state.value=hash.get('state');if(hash.get('repo'))repo.value=hash.get('repo');
state.onchange=apply;repo.onchange=apply;apply();
Array.prototype.forEach.call(table.tHead.rows[0].cells,function(cell){if(!cell.dataset.sort)return;
cell.onclick=function(){var key=cell.dataset.sort,rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){if(key==='path')return a.cells[0].textContent.localeCompare(b.cells[0].textContent);
if(key==='failing')return b.dataset.failing-a.dataset.failing;return a.dataset.rank-b.dataset.rank;});
rows.forEach(function(row){body.appendChild(row);});};});
})();"""
