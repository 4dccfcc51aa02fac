"""Every citation form of an analysis run, and nothing that is not one (issue 15).

Unit tests of :mod:`pytest_memreport.dialects.core.anchors` on cells and sentences;
end to end against a real repository (run_target.py): inline quotations, "not
evidence", exact line-range drift; and a property: a run whose citations all point
into the repository at its pin yields only passing items, one per citation written.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from conftest import summary_outcomes
from run_target import INDEX, README, TREE, build_target, check_run
from repo_builder import RepoBuilder

from pytest_memreport.checks import verify
from pytest_memreport.dialects import parse_folder, read_report
from pytest_memreport.dialects.core import anchors
from pytest_memreport.dialects.runs import RunFile
from pytest_memreport.engine import Engine
from pytest_memreport.options import RunOptions


def cited(text: str, prose: bool = False) -> list[tuple]:
    found, _ = anchors.scan(anchors.plain_unit(text, 1), prose=prose)
    return [(c.path, c.source, tuple(str(r) for r in c.ranges), c.form) for c in found]


# --------------------------------------------------------------------------- forms, unit by unit


@pytest.mark.parametrize(
    "text, expected",
    [
        ("`src/a/repo.ts:1349-1379,1549-1556`", [("src/a/repo.ts", None, ("1349-1379", "1549-1556"), "path")]),
        ("propose.ts:25–34, 58–84", [("propose.ts", None, ("25-34",), "path"),
                                     ("propose.ts", None, ("58-84",), "continuation")]),
        ("`SRC-1:96–101`", [(None, "SRC-1", ("96-101",), "source")]),
        ("SRC-1a:185 and SRC-01:3", [(None, "SRC-1a", ("185",), "source"), (None, "SRC-1", ("3",), "source")]),
        ("`src/core/worker.ts:204`, `:505`", [("src/core/worker.ts", None, ("204",), "path"),
                                              ("src/core/worker.ts", None, ("505",), "continuation")]),
        ("`SRC-1:25-131`, `249`", [(None, "SRC-1", ("25-131",), "source"),
                                   (None, "SRC-1", ("249",), "continuation")]),
        ("the grid in `view.ts:200` cols at :249-270", [("view.ts", None, ("200",), "path"),
                                                        ("view.ts", None, ("249-270",), "continuation")]),
        ("`src/core/minions/{queue,worker}.ts`", [("src/core/minions/queue.ts", None, (), "brace"),
                                                  ("src/core/minions/worker.ts", None, (), "brace")]),
        ("`src/m/{a, b}.ts:12`", [("src/m/a.ts", None, ("12",), "brace"), ("src/m/b.ts", None, ("12",), "brace")]),
        ("`.../widgets/README.md`", [("widgets/README.md", None, (), "elided")]),
        ("`/home/ana/src/w/src/a.ts:3`", [("/home/ana/src/w/src/a.ts", None, ("3",), "absolute")]),
        ("`docs/` and `src/widgets`", [("docs/", None, (), "path"), ("src/widgets", None, (), "path")]),
        ("think/index.ts:282", [("think/index.ts", None, ("282",), "path")]),
        # a line and a column, as an editor writes them
        ("`src/a/echo.ts:27:14`", [("src/a/echo.ts", None, ("27",), "path")]),
        # a range finished in words, and one announced before its file
        ("`src/a/echo.ts`, lines 27 to 34", [("src/a/echo.ts", None, (), "path"),
                                             ("src/a/echo.ts", None, ("27-34",), "continuation")]),
        ("`src/a/echo.ts` lines 6 and 11", [("src/a/echo.ts", None, (), "path"),
                                            ("src/a/echo.ts", None, ("6", "11"), "continuation")]),
        ("Lines 27–34 of `src/a/echo.ts` register it", [("src/a/echo.ts", None, ("27-34",), "path")]),
        ("lines 3 through 9 in `src/a/echo.ts`", [("src/a/echo.ts", None, ("3-9",), "path")]),
        # "of `b.ts`" names the range's file after another file's range in the same sentence
        # (it continued `a.ts`, citing lines 1-4 of the wrong file)
        ("`src/a.ts` (lines 6-27), and Lines 1-4 of `src/b.ts` import it",
         [("src/a.ts", None, (), "path"), ("src/a.ts", None, ("6-27",), "continuation"),
          ("src/b.ts", None, ("1-4",), "path")]),
        # an extension-less file with a folder before it takes the ranges after it, as `Makefile`
        # does (they were unbound, and dropped); a folder written with its slash does not
        ("`stdlib/VERSIONS` (L21-L23)", [("stdlib/VERSIONS", None, (), "path"),
                                         ("stdlib/VERSIONS", None, ("21-23",), "continuation")]),
        ("`src/` (lines 3-5)", [("src/", None, (), "path"), (None, None, ("3-5",), anchors.UNBOUND)]),
        # "to" that does not finish a range leaves the range as written
        ("`src/a/echo.ts` line 7 to the end", [("src/a/echo.ts", None, (), "path"),
                                               ("src/a/echo.ts", None, ("7",), "continuation")]),
    ],
)
def test_citation_forms(text, expected):
    assert cited(text) == expected


def test_a_continuation_never_crosses_a_sentence():
    assert cited("See `a/x.ts:4`. Later :9 is the count.") == [("a/x.ts", None, ("4",), "path"),
                                                            (None, None, ("9",), anchors.UNBOUND)]


def test_a_continuation_continues_a_file_not_an_identifier():
    # `JSON.stringify` is no file: `:109` continues index.ts.
    assert cited("`index.ts:45-55`, then `JSON.stringify` (`:109`)")[-1] == ("index.ts", None, ("109",),
                                                                              "continuation")


@pytest.mark.parametrize("text", ["`Store.remote`", "`P@5/R@5`", "doctrine/design in a cell", "a plain index.ts"])
def test_what_only_looks_like_a_path_in_a_plain_cell_is_no_citation_or_is_decided_at_the_pin(text):
    found = cited(text)
    # Backticked path-shaped words are kept (the pin decides); plain words are not citations.
    assert all(path in ("Store.remote", "P@5/R@5") for path, *_ in found)


def test_inline_quotations_bind_to_the_citation_after_them():
    unit = anchors.plain_unit('It says "verify the hypothesis first" (`SRC-1a:185`) and "two words" (`SRC-2:3`).', 1)
    found, _ = anchors.scan(unit)
    quotes = anchors.quotes(unit, found)
    assert [(q.text, q.citation.source if q.citation else None) for q in quotes] == [
        ("verify the hypothesis first", "SRC-1a"),
    ]
    unit = anchors.plain_unit('"a list of three" and "another one here" (`SRC-2:3`)', 1)
    found, _ = anchors.scan(unit)
    assert [q.citation.source for q in anchors.quotes(unit, found)] == ["SRC-2", "SRC-2"]
    unit = anchors.plain_unit('"far from its citation" is what the method says at length before `SRC-2:3`', 1)
    found, _ = anchors.scan(unit)
    assert [q.citation for q in anchors.quotes(unit, found)] == [None]



def test_a_quotation_sourced_by_a_group_of_citations_is_held_to_none_of_their_ranges_alone():
    unit = anchors.plain_unit('the reading "current estimate of work" (`SRC-1:206`, `SRC-1a:170`) holds', 1)
    found, _ = anchors.scan(unit)
    [quote] = anchors.quotes(unit, found)
    assert (quote.citation.source, quote.grouped) == ("SRC-1", True)
    # each phrase with its own citation: the second citation belongs to the second phrase
    unit = anchors.plain_unit('"estimated total of work" (`SRC-1:206`) and "current estimate of work" (`SRC-1a:170`)', 1)
    found, _ = anchors.scan(unit)
    assert [(q.citation.source, q.grouped) for q in anchors.quotes(unit, found)] == [
        ("SRC-1", False), ("SRC-1a", False)]


# --------------------------------------------------------------------------- end to end


FORMS_LENS = """\
# Lens — RUN `F-1`

| ID | Claim | Anchor | More |
|---|---|---|---|
| OBJ-1 | "Retry a failed job at most four times" | `SRC-1:7` | |
| OBJ-2 | the grid | `index.ts:10` | |
| OBJ-3 | the pair | `core/queue.ts:3`, `core/worker.ts:4` | `:9` |
| OBJ-4 | the start | `src/widgets/index.ts:40` | `:41-42` |
| OBJ-5 | gadgets | `src/gadgets/think/index.ts:2` and `think/index.ts:2` | |
"""


def test_run_forms_end_to_end(pytester, make_repo):
    result, lens = check_run(pytester, make_repo, "F-1", FORMS_LENS)
    outcomes = {node.split("lens.md::", 1)[-1]: verdict for node, verdict in summary_outcomes(result).items()}
    # A quoted phrase with one word changed ("four"; the file says three): not found.
    assert outcomes["OBJ-1::quote@L5"] == "FAILED"
    assert outcomes["OBJ-1::lines@L5:src/widgets/index.ts:7"] == "PASSED"
    # index.ts is ambiguous in the repository and unique in the subject subtree (an item is
    # named as the report writes its path; what it was read as is decided when it runs).
    assert outcomes["OBJ-2::lines@L6:index.ts:10"] == "PASSED"
    obj2 = next(r for r in lens["records"] if r["id"] == "OBJ-2")
    assert [e["path"] for e in obj2["evidence"]] == ["src/widgets/index.ts"]
    # `:9` in a cell of its own: the row cites two files, so nothing is guessed.
    obj3 = next(r for r in lens["records"] if r["id"] == "OBJ-3")
    assert [e["cited_lines"] for e in obj3["evidence"]] == [[3, 3], [4, 4]]
    # ... while a row citing one file continues it across the cell boundary.
    obj4 = next(r for r in lens["records"] if r["id"] == "OBJ-4")
    assert [e["cited_lines"] for e in obj4["evidence"]] == [[40, 40], [41, 42]]
    # A full path outside the subject passes; the partial one prefers the subject subtree.
    assert outcomes["OBJ-5::lines@L9:src/gadgets/think/index.ts:2"] == "PASSED"
    assert outcomes["OBJ-5::lines@L9:think/index.ts:2"] == "PASSED"
    obj5 = next(r for r in lens["records"] if r["id"] == "OBJ-5")
    assert [e["path"] for e in obj5["evidence"]] == ["src/gadgets/think/index.ts", "src/widgets/core/think/index.ts"]
    result.assert_outcomes(passed=17, failed=1)


def test_a_partial_path_ambiguous_without_a_subject_lists_its_candidates(pytester, make_repo):
    repo, pin = build_target(make_repo)
    report = pytester.path / "alone.md"
    report.write_text(f"**Revision:** `{pin}`\n\n| ID | Anchor |\n|---|---|\n| OBJ-1 | `think/index.ts:2` |\n"
                      "| OBJ-2 | `think/index.ts:3` |\n", encoding="utf-8")
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}",
                                "--memreport-against", "none")
    # ambiguous, said as a warning naming the candidates; never a failure (FORMAT §7, issue 45)
    result.assert_outcomes(passed=4)
    assert "think/index.ts names 2 files at the pin: src/gadgets/think/index.ts, " \
           "src/widgets/core/think/index.ts; cite the path" in result.stdout.str()


# --------------------------------------------------------------------------- line ranges drift exactly


def _range_report(pin: str, cited: str) -> str:
    return f"**Revision:** `{pin}`\n\n| ID | Anchor |\n|---|---|\n| OBJ-1 | `src/doc.md:{cited}` |\n"


DOC = "# Doc\n\nintro\n\n```\nrun --fast\nrun --slow\n```\n\ntail\n"


@pytest.mark.parametrize(
    "edit, cited, status, lines",
    [
        # the whole range, fence lines included, moved down by two lines
        (DOC.replace("intro\n", "intro\nmore\nmore\n"), "5-8", "shifted", [7, 10]),
        # a blank edge line is part of the range: only a change elsewhere, so unchanged
        (DOC.replace("tail", "tail two"), "4-8", "unchanged", [4, 8]),
        # the same words, indented differently, are not those lines
        (DOC.replace("run --fast", "  run --fast"), "5-8", "changed", None),
    ],
)
def test_line_ranges_follow_only_identical_lines(pytester, make_repo, edit, cited, status, lines):
    repo = make_repo()
    pin = repo.commit({"src/doc.md": DOC}, "doc")
    repo.commit({"src/doc.md": edit}, "edit")
    report = pytester.path / "r.md"
    report.write_text(_range_report(pin, cited), encoding="utf-8")
    out = pytester.path / "out.json"
    pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "--memreport-json", str(out))
    (rep,) = json.loads(out.read_text())["reports"]
    (evidence,) = rep["records"][0]["evidence"]
    assert evidence["at_pin"]["status"] == "found"
    assert (evidence["at_against"]["status"], evidence["at_against"]["lines"]) == (status, lines)


SOURCE = ("import os\n\n\ndef load_settings(path):\n    with open(path) as handle:\n"
          "        return parse_settings(handle.read())\n\n\ndef tiny():\n    x = 1\n    return x\n")
LOAD = SOURCE[SOURCE.index("def load"):SOURCE.index("\n\n\ndef tiny")] + "\n"
TINY = SOURCE[SOURCE.index("def tiny"):]


@pytest.mark.parametrize(
    "other, cited, status, where",
    [
        # the cited function left its file for another: found there by its telling line
        ({"src/b.py": "# moved here\n" + LOAD}, "4-6", "relocated", ["src/b.py", [2, 4]]),
        # the same, in a file with Windows line endings (git's lines end in a carriage return)
        ({"src/b.py": ("# moved here\n" + LOAD).replace("\n", "\r\n")}, "4-6", "relocated", ["src/b.py", [2, 4]]),
        # no line of the range is telling: the tree is searched as for a quotation
        ({"src/c.py": "\n\n" + TINY}, "9-11", "relocated", ["src/c.py", [3, 5]]),
        # the telling line went elsewhere, but not the lines around it: not those lines
        ({"src/b.py": "        return parse_settings(handle.read())\n"}, "4-6", "changed", None),
    ],
)
def test_a_range_that_left_its_file_is_found_only_as_identical_lines(pytester, make_repo, other, cited, status,
                                                                    where):
    repo = make_repo()
    pin = repo.commit({"src/a.py": SOURCE}, "source")
    repo.commit({"src/a.py": "import os\n", **other}, "move out")
    report = pytester.path / "r.md"
    report.write_text(_range_report(pin, cited).replace("src/doc.md", "src/a.py"), encoding="utf-8")
    out = pytester.path / "out.json"
    pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "--memreport-json", str(out))
    (rep,) = json.loads(out.read_text())["reports"]
    (evidence,) = rep["records"][0]["evidence"]
    assert evidence["at_pin"]["status"] == "found"
    against = evidence["at_against"]
    assert against["status"] == status
    assert ([against["path"], against["lines"]] if where else None) == where


# --------------------------------------------------------------------------- the property


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    path = tmp_path_factory.mktemp("property") / "servers"
    repo = RepoBuilder(path)
    return repo, repo.commit(TREE, "widgets and gadgets")


INDEX_LINES = len(INDEX.splitlines())
README_LINES = README.splitlines()
QUEUE_LINES = 60

_range = st.integers(1, QUEUE_LINES - 5).flatmap(lambda a: st.tuples(st.just(a), st.integers(a, a + 4)))


def _text(r: tuple[int, int]) -> str:
    return str(r[0]) if r[0] == r[1] else f"{r[0]}-{r[1]}"


#: one citation form: (text written in a cell, pieces of evidence it is)
CITATION = st.one_of(
    _range.map(lambda r: (f"`src/widgets/core/queue.ts:{_text(r)}`", 1)),
    _range.map(lambda r: (f"`queue.ts:{_text(r)}`", 1)),
    _range.map(lambda r: (f"core/queue.ts:{r[0]}–{r[1]}", 1)),
    st.tuples(_range, _range).map(lambda rs: (f"`core/worker.ts:{_text(rs[0])}, {_text(rs[1])}`", 2)),
    st.tuples(_range, _range).map(lambda rs: (f"`SRC-3:{_text(rs[0])}`, `{_text(rs[1])}`", 2)),
    _range.map(lambda r: (f"`src/widgets/core/{{queue,worker}}.ts:{_text(r)}`", 2)),
    st.integers(1, INDEX_LINES).map(lambda n: (f"SRC-1:{n}", 1)),
    st.integers(1, INDEX_LINES).map(lambda n: (f"`index.ts:{n}`", 1)),
    st.sampled_from(["`src/widgets/core/`", "`docs/`", "`src/widgets`", "`.../widgets/README.md`"]).map(
        lambda p: (p, 1)),
    st.sampled_from([5, 6, 7]).map(lambda n: (f'"{README_LINES[n - 1][2:]}" (`SRC-2:{n}`)', 2)),
)

PROPERTY_PACKET = """\
# Packet — RUN `P-1`

The subtree `src/widgets` of `github.com/acme/servers`.

| Field | Value |
|---|---|
| Revision | `{pin}` |

| ID | Identity |
|---|---|
| SRC-1 | `src/widgets/index.ts` |
| SRC-2 | `src/widgets/README.md` |
| SRC-3 | `src/widgets/core/queue.ts` |
"""


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.lists(CITATION, min_size=1, max_size=3), min_size=1, max_size=8))
def test_a_run_citing_only_what_the_pin_has_passes_once_per_citation(target, tmp_path_factory, rows):
    repo, pin = target
    folder = tmp_path_factory.mktemp("run")
    (folder / "packet.md").write_text(PROPERTY_PACKET.format(pin=pin), encoding="utf-8")
    lines = ["# Lens — RUN `P-1`", "", "| ID | What | Anchor |", "|---|---|---|"]
    written = 0
    for number, row in enumerate(rows, start=1):
        lines.append(f"| OBJ-{number} | part {number} | {'; '.join(text for text, _ in row)} |")
        written += sum(count for _, count in row)
    (folder / "lens.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    files = [RunFile(str(p), read_report(p)[0]) for p in sorted(folder.glob("*.md"))]
    (run,) = parse_folder(str(folder), files)
    lens = next(r for r in run.reports if r.path.endswith("lens.md"))
    assert lens.findings == ()
    engine = Engine(RunOptions(repos={"acme/servers": str(repo.path)}, against="none", rootdir=folder))
    evidence = engine.checkable(lens, tuple(lens.all_evidence()))
    assert len(evidence) == written
    for item in evidence:
        assert engine.not_evidence(lens, item) is None
        result = engine.pin_result(lens, item)
        assert result.status == verify.FOUND, (item, result.message)
