"""Properties over generated reports and small git histories.

Reports in the records dialect are generated whole (sources, records, labels,
statuses, quotations, cited paths, Markdown noise), documents of no dialect's shape
line by line from the forms every document is read for (pins, links, tables, code
blocks, manifests, names), both then mutated, and random bytes are read as reports
too. Properties:

* nothing but :class:`ReportError` escapes ``read_report``; nothing escapes
  ``parse_report`` in any dialect, nor ``Engine.pin_result``/``drift_result``
  over a real repository built from a generated history;
* every finding and every piece of evidence points at a line of the report;
* parsing and checking are deterministic; verifying a report twice writes the
  same JSON (timing aside).
"""

from __future__ import annotations

import json
import string
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hostile_support import run_report
from pytest_memreport.dialects import ReportError, parse_report, read_report
from pytest_memreport.engine import Engine, RunOptions
from pytest_memreport.repomap import RepoMap, parse_repo_lines
from repo_builder import RepoBuilder

# -- report strategies ------------------------------------------------------------------------------

PATHS = ("pkg/store.py", "pkg/cache.ts", "conf/limits.yaml", "README.md", "src/deep/x.go", "notes.txt")
CODE_LINES = (
    "LIMIT = 200",
    "def keep(entries):",
    "    return entries[-LIMIT:]",
    "const MAX = 600;",
    "export function drop(key) { cache.delete(key); }",
    "limits:",
    "  - ttl: 30",
    "func Get(k string) (v int) {",
    "# the newest entries only",
    "x = `${name}.json`",
)
WORDS = st.sampled_from(
    "the cache keeps entries and drops stale ones when limit is reached by writer reader store".split()
)
_SHA = st.text(alphabet="0123456789abcdef", min_size=40, max_size=40)
_SLUG = st.text(alphabet=string.ascii_lowercase + string.digits, min_size=1, max_size=8)
_RECORD_ID = st.builds(
    lambda lens, kind, slug: f"{lens}-{kind}-{slug}",
    st.sampled_from(["MEM", "RT", "EPI"]),
    st.sampled_from(["CMP", "OBJ", "RTE", "CLM", "ABS", "BAP", "XYZ"]),
    _SLUG,
)
_PROSE = st.lists(WORDS, min_size=1, max_size=12).map(lambda w: " ".join(w).capitalize() + ".")
_RANGE = st.one_of(
    st.just(""),
    st.builds(lambda a, b: f":{min(a, b)}-{max(a, b)}", st.integers(0, 40), st.integers(0, 40)),
    st.builds(lambda a: f":{a}", st.integers(1, 40)),
)


def _quotation(code_lines) -> st.SearchStrategy[str]:
    return st.builds(
        lambda lines, path, cited: " ".join(lines) + f" --- {path}{cited}",
        st.lists(st.sampled_from(code_lines), min_size=1, max_size=3),
        st.sampled_from(PATHS + ("/etc/passwd", "../up.py", ".git/config")),
        _RANGE,
    )


_CITATION = st.lists(st.sampled_from(PATHS), min_size=1, max_size=4).map(lambda p: "SRC-1: " + ", ".join(p) + ".")
_STATUS = st.builds(
    lambda q, axis, value: f"  • {q}{axis} conclusion status: {value}",
    st.sampled_from(["", "signoff and "]),
    st.sampled_from(["implementation", "operation"]),
    st.sampled_from(["uninspected", "afforded", "observed", "wired", "bogus", "causally supported"]),
)
_NOISE = st.sampled_from(
    [
        "## Routes", "> quoted aside", "- a list item", "1. numbered", "```", "```memreport",
        "| a | b |", "|---|---|", "| MEM-OBJ-x | y |", "---", "* * *", "<div>", "[link](https://x.invalid)",
        "Part of: MEM-OBJ-parent", "On MEM-RTE-other", "\t\tindented", "•", "…", "[...]",
        "- contains: {path: pkg/store.py, text: LIMIT}", "Selection predicate: everything",
    ]
)


@st.composite
def _record(draw, code_lines=CODE_LINES) -> list[str]:
    lines = [draw(_RECORD_ID), ""]
    if draw(st.booleans()):
        lines += [f"Label: {draw(_PROSE)}", ""]
    body = st.one_of(_quotation(code_lines), _CITATION, _PROSE, _STATUS, _NOISE)
    for part in draw(st.lists(body, min_size=1, max_size=6)):
        lines += [part, ""]
    return lines


@st.composite
def records_reports(draw, pin: str | None = None, code_lines=CODE_LINES) -> str:
    """A whole record report: title, boundary with a pin, records in sections."""
    stated = pin or draw(_SHA)  # a given pin is always stated; a made-up one may be left out
    forms = [f"The target is at SRC-1 commit {stated}.", f"git rev-parse HEAD matched {stated}"]
    if pin is None:
        forms.append("No pin is stated.")
    lines = [draw(_PROSE), "", "Boundary and evidence", ""]
    lines += [draw(st.sampled_from(forms)), ""]
    for section in draw(st.lists(st.sampled_from(["Operative objects", "Routes", "Claims"]), min_size=1, max_size=3)):
        lines += [section, ""]
        for record in draw(st.lists(_record(code_lines), min_size=1, max_size=3)):
            lines += record
    return "\n".join(lines)


_HOSTILE = "\r\n\t\x00\x07\ufeff\u2028`*_>#-|[]()•…:/\\ "


@st.composite
def mutated(draw, base) -> str:
    """``base`` with a few edits: characters inserted or deleted, lines repeated, dropped or swapped."""
    text = draw(base)
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["insert", "delete", "repeat", "drop", "swap", "truncate"]))
        lines = text.split("\n")
        if kind == "insert":
            at = draw(st.integers(0, len(text)))
            text = text[:at] + draw(st.text(alphabet=_HOSTILE, min_size=1, max_size=4)) + text[at:]
        elif kind == "delete" and text:
            at = draw(st.integers(0, len(text) - 1))
            text = text[:at] + text[at + draw(st.integers(1, 5)):]
        elif kind == "repeat":
            at = draw(st.integers(0, len(lines) - 1))
            text = "\n".join(lines[: at + 1] + lines[at:])
        elif kind == "drop" and len(lines) > 1:
            at = draw(st.integers(0, len(lines) - 1))
            text = "\n".join(lines[:at] + lines[at + 1:])
        elif kind == "swap" and len(lines) > 1:
            a, b = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        elif kind == "truncate":
            text = text[: draw(st.integers(0, len(text)))]
    return text


ANY_REPORT = st.one_of(records_reports(), mutated(records_reports()), st.text(alphabet=_HOSTILE + "abcMEOBJ-1 ", max_size=300))


# -- properties of reading and parsing -------------------------------------------------------------------


def assert_positions(report, line_count: int) -> None:
    """Every finding, record and piece of evidence points at a line of the report."""
    last = max(line_count, 1)
    for finding in report.findings:
        assert 1 <= finding.line <= last, finding
    for record in report.records:
        assert 1 <= record.line <= record.end_line <= last, record
        for status in record.statuses:
            assert 1 <= status.line <= last, status
    for evidence in report.all_evidence():
        assert 1 <= evidence.line <= evidence.end_line <= last, evidence


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=400) | ANY_REPORT.map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_read_report_raises_only_report_error(data):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "report.md"
        path.write_bytes(data)
        try:
            text, findings = read_report(path)
        except ReportError as exc:
            assert str(exc).startswith(str(path)) and "\n" not in str(exc)
            return
    # one BOM is dropped; a second U+FEFF after it is the report's own text
    assert "\r" not in text and (not text.startswith("\ufeff") or data[3:].startswith(b"\xef\xbb\xbf"))
    for finding in findings:
        assert 1 <= finding.line <= text.count("\n") + 1


@settings(max_examples=200, deadline=None)
@given(text=ANY_REPORT, dialect=st.sampled_from([None, "records", "review", "notes", "tables"]))
def test_parse_report_never_raises_and_points_inside_the_report(text, dialect):
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # as read_report hands it over
    report = parse_report("report.md", text, dialect)
    assert report.line_count in (text.count("\n"), text.count("\n") + 1)
    assert_positions(report, text.count("\n") + 1)
    # Deterministic: the same text parses to the same report.
    assert parse_report("report.md", text, dialect) == report


# -- properties over small git histories -------------------------------------------------------------------

_FILE_CONTENT = st.lists(st.sampled_from(CODE_LINES + ("", "pass", "}")), min_size=0, max_size=6).map(
    lambda lines: "\n".join(lines) + ("\n" if lines else "")
)
# A commit: each path gets new content, is deleted (None), or is left alone (absent key).
_COMMIT = st.dictionaries(st.sampled_from(PATHS), st.none() | _FILE_CONTENT, max_size=4)
_FIRST_COMMIT = st.dictionaries(st.sampled_from(PATHS), _FILE_CONTENT, min_size=3, max_size=len(PATHS))
_HISTORY = st.builds(lambda first, later: [first, *later], _FIRST_COMMIT, st.lists(_COMMIT, max_size=2))


def build_history(root: Path, history: list[dict]) -> tuple[RepoBuilder, str]:
    """A real repository from generated commits; returns it and its first commit (the pin)."""
    repo = RepoBuilder(root)
    first = None
    for number, commit in enumerate(history):
        for path, content in sorted(commit.items()):
            present = (root / path).exists()
            if content is None and present:
                repo.delete(path)
            elif content is not None:
                repo.write({path: content})
        sha = repo.commit(message=f"commit {number}")
        first = first or sha
    return repo, first


def engine_results(repo_path: Path, report, repo_map: RepoMap | None = None) -> list:
    """Every evidence's pin and drift result as JSON, from a fresh engine."""
    engine = Engine(RunOptions(repos={None: str(repo_path)}, repo_map=repo_map, against="HEAD",
                               rootdir=repo_path.parent))
    try:
        out = []
        for evidence in report.all_evidence():
            pin = engine.pin_result(report, evidence)
            drift = engine.drift_result(report, evidence)
            out.append((evidence.line, pin.as_json(), drift.as_json() if drift is not None else None))
        return out
    finally:
        engine.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=_HISTORY, data=st.data())
def test_engine_checks_never_raise_and_are_deterministic(history, data):
    with tempfile.TemporaryDirectory() as folder:
        repo, pin = build_history(Path(folder) / "target", history)
        text = data.draw(st.one_of(records_reports(pin=pin), mutated(records_reports(pin=pin))), label="report")
        report = parse_report("report.md", text)
        first = engine_results(repo.path, report)
        assert engine_results(repo.path, report) == first
        for line, at_pin, _ in first:
            assert 1 <= line <= max(report.line_count, 1)
            assert at_pin["status"] in {"found", "missing", "file-missing", "commit-missing", "refused",
                                        "unreadable", "ambiguous"}


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(history=_HISTORY, data=st.data())
def test_verifying_twice_writes_the_same_json(pytester, history, data, tmp_path_factory):
    root = tmp_path_factory.mktemp("history") / "target"
    repo, pin = build_history(root, history)
    text = data.draw(records_reports(pin=pin), label="report")
    outputs = []
    for run in ("first", "second"):
        out_json = pytester.path / f"{run}.json"
        result = run_report(pytester, text, repo.path, "--memreport-json", str(out_json))
        assert "Traceback" not in result.stdout.str()
        data_json = json.loads(out_json.read_text(encoding="utf-8"))
        assert "timing" in data_json
        data_json.pop("timing")
        outputs.append(data_json)
    assert outputs[0] == outputs[1]


# -- documents of no dialect's shape: the forms read in any document ----------------------------------

_FORM_PATHS = st.sampled_from(PATHS + ("src/Pool.sol", "VERSION", "../../clones/widgets/src/a.ts", "/home/me/w/src/a.ts",
                                       "tests/test_queue.py", "a b.md", "src/ünï.rs", "src/", "Makefile"))
_NUMBER = st.integers(0, 120) | st.sampled_from([99999999999, 2019, 1])
_SHORT_SHA = _SHA.map(lambda sha: sha[:12])
_BLOB_URL = st.builds(lambda sha, path, a, b: f"https://github.com/acme/widgets/blob/{sha}/{path}#L{a}-L{b}",
                      _SHA, _FORM_PATHS, _NUMBER, _NUMBER)


def _form(template: str) -> st.SearchStrategy[str]:
    """A line of one form, its holes filled: {sha} {short} {path} {a} {b} {url} {words}."""
    return st.builds(lambda sha, short, path, a, b, url, words: template.format(
        sha=sha, short=short, path=path, a=a, b=b, url=url, words=words),
        _SHA, _SHORT_SHA, _FORM_PATHS, _NUMBER, _NUMBER, _BLOB_URL, _PROSE)


#: a line of each form docs/FORMATS.md's "Any document" reads (and of their near misses)
_FORM_TEMPLATES = (
    "**Reviewed revisions:** `widgets` `{sha}`; `gadgets` `{sha}`.", "**Repository snapshot:** `{sha}`",
    "The audit is pinned to the Acme Widgets revision `{short}`.", "Source: https://github.com/acme/widgets/tree/{sha}",
    "## acme/widgets (`{short}`)", "Target: `widgets@{short}`", "**Before:** `acme/widgets@{sha}`",
    "**After:** `acme/widgets@{short}`", "We cloned acme/widgets and checked out `{short}`.",
    "The earlier review, pinned to `{sha}`, said so.", "[see]({url}) and [{path}:{a}-{b}]({path})",
    "[L{a}](/{path}#L{a})", "[a.ts](../../clones/widgets/src/a.ts#L{a}-L{b}) lines {b}-{a}",
    "`{path}` (lines {a}-{b}) holds it", "{path}:{a}-{b}, {b} and (:{a}-{b})", "lines {a}, {b} and {a}-{b} of `{path}`",
    "Lines {a}-{b} of `{path}` drain.", "- **File:** `{path}`", "- **Lines:** {a}-{b}", "## `{path}`",
    "### File: {path}", "- L{a}-L{b}: {words}", "| File | Lines | Blob | Function |", "| --- | --- | --- | --- |",
    "| `{path}` | L{a}-L{b} | `{short}` | `drain` |", "| Repository | Commit |", "| acme/widgets | `{sha}` |",
    "| | Before | After |", "| Commit | `{short}` | `{sha}` |", "| `{path}:{a}` | \"{words}\" |", "```ts title=\"{path}\"",
    "```", "```diff", "diff --git a/{path} b/{path}", "@@ -{a},3 +{b},3 @@", "-LIMIT = 200", "+LIMIT = 300",
    " def keep(entries):", "```yaml", "files:", "  - path: {path}", "    blob: {sha}", "    lines: {a}",
    "    quote: {words}", "```sh", "git clone https://github.com/acme/widgets", "git checkout {short}",
    "{a}:     return entries[-LIMIT:]", "File: {path}", "    const MAX = 600;", "In `{path}`:",
    "`{path}` says \"{words}\"", "> {words}", "> — [{path}]({url})", "The page [{path}]({url}) puts it this way:",
    "`Pool::drain` and the `claimFighters` function", "`tests/test_queue.py::TestQueue::test_drain`",
    "`{short}:{path}` and `{path}@{short}:{a}-{b}`", "`Queue` is defined in `{path}`",
    "Tokens are minted through the Pool.sol contract, see {path}.", "- `{path}` — blob `{short}`",
    "100644 blob {sha}\t{path}", "{sha}  {path}", "---", "commit: {sha}", "source: {url}",
    "code_revisions: {{acme/widgets: {sha}}}", "repository: acme/widgets", "files: [{{path: {path}, blob: {sha}}}]",
    "{words}",
)
_FORM_LINES = st.one_of([_form(template) for template in _FORM_TEMPLATES])
ANY_DOCUMENT = st.lists(_FORM_LINES, min_size=3, max_size=30).map("\n".join)


@settings(max_examples=150, deadline=None)
@given(text=st.one_of(ANY_DOCUMENT, mutated(ANY_DOCUMENT)))
def test_a_document_of_any_form_parses_and_points_inside_itself(text):
    # The forms are read in every document, whatever its shape: each reader (pins, links,
    # tables, code blocks, manifests written as data, local links, names) gets lines of its
    # form and of its near misses, in any order, cut and repeated.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    report = parse_report("notes.md", text)
    assert_positions(report, text.count("\n") + 1)
    assert parse_report("notes.md", text) == report


def form_documents(pin: str) -> st.SearchStrategy[str]:
    """Documents of the forms (:data:`_FORM_LINES`' templates) whose commits are mostly ``pin``
    and whose words are mostly the target's own lines: pieces that the checks find, miss,
    or cannot place."""
    sha = st.just(pin) | _SHA
    words = st.sampled_from(CODE_LINES) | _PROSE

    def line(template: str) -> st.SearchStrategy[str]:
        return st.builds(lambda sha, path, a, b, words: template.format(
            sha=sha, short=sha[:12], path=path, a=a, b=b, words=words,
            url=f"https://github.com/acme/widgets/blob/{sha}/{path}#L{a}-L{b}"),
            sha, st.sampled_from(PATHS) | _FORM_PATHS, _NUMBER, _NUMBER, words)

    return st.lists(st.one_of([line(template) for template in _FORM_TEMPLATES]), min_size=3, max_size=20).map(
        "\n".join)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=_HISTORY, data=st.data())
def test_engine_checks_of_documents_of_any_form_never_raise_and_are_deterministic(history, data, tmp_path_factory):
    # The same property as for record reports, over documents of the forms pinned to a real
    # history: what the forms read (files at a revision, labelled pins, manifests, local
    # links, names in the pinned tree) is checked without an internal error, twice alike.
    root = tmp_path_factory.mktemp("history") / "target"
    repo, pin = build_history(root, history)
    text = data.draw(st.one_of(form_documents(pin), mutated(form_documents(pin))), label="document")
    report = parse_report("notes.md", text)
    mapped = RepoMap(parse_repo_lines([f"acme/widgets = {repo.path}"], root.parent, "the test"))
    first = engine_results(repo.path, report, mapped)
    assert engine_results(repo.path, report, mapped) == first
    for line, at_pin, _ in first:
        assert 1 <= line <= max(report.line_count, 1)
        assert at_pin["status"] in {"found", "missing", "file-missing", "commit-missing", "refused", "unreadable",
                                    "ambiguous", "not-evidence", "unpinned", "unmapped"}, at_pin
