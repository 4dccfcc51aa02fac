"""What reading the users' shapes over real repositories (benchmarks/bench_realrepos.py,
``--shape users``) found unread, each kept as a test of its own:

* a name in backticks beside a citation in a run's table row is a symbol of that file
  (docs/FORMATS.md, "Any document": forms are read in tables alike), not only in prose;
* a phrase in curly quotes may hold straight ones (`` “"bin": "dist/index.js"” ``);
* a note's sentence may attribute a quotation to a document at the top of the repository
  named in backticks alone (`` `GOVERNANCE.md` says "..." ``): a misquotation of it fails
  instead of passing as the note's own term.
"""

from __future__ import annotations

import json
import os

from run_target import build_target, check_run, materialize, packet

from pytest_memreport.dialects import parse_report
from pytest_memreport.model import EvidenceKind, EvidenceRole


def lens_evidence(lens_report: dict) -> list[dict]:
    return [e for record in lens_report["records"] for e in record["evidence"]] + lens_report.get("evidence", [])


LENS = """\
# Lens — RUN `S-1`

| ID | Finding | Anchor |
|---|---|---|
| OBJ-1 | `start` is defined there (`src/widgets/index.ts:40`) | `SRC-1:41-42` |
| OBJ-2 | `Queue` is imported there (`src/widgets/index.ts:1`) | `SRC-1:1` |
| OBJ-3 | the package reads “"bin": "dist/index.js"” (`src/widgets/package.json:4`) | `SRC-1:2` |
"""


def test_a_name_beside_a_citation_in_a_run_table_row_is_a_symbol_of_that_file(pytester, make_repo):
    result, lens = check_run(pytester, make_repo, "S-1", LENS)
    symbols = {e["text"]: e for e in lens_evidence(lens) if e["kind"] == "symbol"}
    assert set(symbols) == {"start"}  # `Queue` names no definition of index.ts: not evidence
    assert symbols["start"]["path"] == "src/widgets/index.ts"
    assert symbols["start"]["at_pin"]["status"] == "found"
    assert symbols["start"]["at_pin"]["lines"][0] == 40
    assert result.ret == 0
    # each row's names are one item: OBJ-1's checks `start`, OBJ-2's names nothing defined
    result.stdout.fnmatch_lines(["PASSED *::OBJ-1::symbols",
                                 "*OBJ-2: not evidence: `Queue` names no definition in the files cited beside it*"])


def test_a_commit_beside_a_citation_in_a_register_row_is_no_symbol(pytester, make_repo):
    """The register's revision cell (`` `9a0bae8` ``) beside ``index.ts:4-8`` names no definition."""
    repo, pin = build_target(make_repo)
    folder = materialize("subtree-run", pytester.path, PIN=pin, PIN7=pin[:7])
    result = pytester.runpytest("--memreport", str(folder), f"--memreport-repo=acme/servers={repo.path}", "-rs",
                                "--memreport-against=none", "-p", "no:cacheprovider")
    assert result.ret == 0
    assert f"`{pin[:7]}` names no definition" not in result.stdout.str()
    assert "symbol@" not in result.stdout.str()


def test_curly_quotes_may_hold_straight_ones_in_a_table_cell(pytester, make_repo):
    result, lens = check_run(pytester, make_repo, "S-1", LENS)
    quotes = [e for e in lens_evidence(lens) if e["kind"] == "quote"]
    assert [(q["text"], q["path"], q["at_pin"]["status"]) for q in quotes] == [
        ('"bin": "dist/index.js"', "src/widgets/package.json", "found")]


def test_curly_quotes_holding_a_misquotation_fail(pytester, make_repo):
    result, lens = check_run(pytester, make_repo, "S-1", LENS.replace("dist/index.js", "dist/main.js"))
    quotes = [e for e in lens_evidence(lens) if e["kind"] == "quote"]
    assert [(q["text"], q["at_pin"]["status"]) for q in quotes] == [('"bin": "dist/main.js"', "missing")]
    assert result.ret == 1


GOVERNANCE = "# Governance\n\nEvery maintainer reviews two pull requests a week, at least.\n"


def governed_note(pin: str, quoted: str) -> str:
    return (f"---\ntitle: Governance\ndate: 2026-05-14\n---\n\n**Evidence basis:** first-hand reading of the "
            f"`acme/lantern` checkout at commit [{pin[:8]}](https://github.com/acme/lantern/commit/{pin}).\n\n"
            f'The rules are short. `GOVERNANCE.md` says "{quoted}". And `os.path` says "nothing about reviews at '
            f'all", which is a name, not a file.\n')


def test_a_top_level_document_named_in_backticks_is_the_file_a_note_quotes(make_repo):
    repo = make_repo("lantern")
    pin = repo.commit({"GOVERNANCE.md": GOVERNANCE}, "governance")
    report = parse_report("notes/governance.md", governed_note(pin, "reviews two pull requests a week"))
    quotes = {e.text: e for e in report.all_evidence() if e.kind is EvidenceKind.QUOTE}
    attributed = quotes["reviews two pull requests a week"]
    assert (attributed.path, attributed.role) == ("GOVERNANCE.md", EvidenceRole.PROSE)
    assert quotes["nothing about reviews at all"].role is EvidenceRole.TERM


def test_a_misquoted_top_level_document_fails_instead_of_passing_as_a_term(pytester, make_repo):
    repo = make_repo("lantern")
    pin = repo.commit({"GOVERNANCE.md": GOVERNANCE}, "governance")
    note = pytester.path / "governance.md"
    note.write_text(governed_note(pin, "reviews three pull requests a week"), encoding="utf-8")
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", str(note), f"--memreport-repo=acme/lantern={repo.path}",
                                "--memreport-against=none", "--memreport-json", str(out), "-p", "no:cacheprovider")
    quote = next(e for r in json.loads(out.read_text())["reports"] for e in r["evidence"]
                 if e["kind"] == "quote" and e["text"].startswith("reviews"))
    assert (quote["path"], quote["at_pin"]["status"]) == ("GOVERNANCE.md", "missing")
    assert result.ret == 1


HELD_ELSEWHERE = """\
# Lens — RUN `S-1`

| ID | Finding | Anchor |
|---|---|---|
| OBJ-1 | the readme promises "Keep every job in one ordered queue" (`src/widgets/index.ts:5`) | `src/widgets/README.md` |
"""


def test_a_warm_rerun_reads_no_blob_to_find_which_cited_file_holds_a_quotation(pytester, make_repo):
    """A quotation of a row citing several files is bound to the one that holds it: the
    files read to decide it (the only blobs a warm rerun of a run read) are not read again."""
    repo, pin = build_target(make_repo)
    folder = pytester.path / "s-1"
    folder.mkdir()
    (folder / "packet.md").write_text(packet("S-1").format(pin=pin), encoding="utf-8")
    (folder / "lens.md").write_text(HELD_ELSEWHERE, encoding="utf-8")
    out = pytester.path / "out.json"

    def run(*extra: str) -> dict:
        pytester.runpytest("--memreport", str(folder), f"--memreport-repo=acme/servers={repo.path}",
                           "--memreport-against=none", "--memreport-json", str(out), *extra)
        return json.loads(out.read_text())

    cold, warm = run("--cache-clear"), run()
    quotes = [[e for e in lens_evidence(next(r for r in data["reports"] if r["path"].endswith("lens.md")))
               if e["kind"] == "quote"] for data in (cold, warm)]
    assert quotes[0] == quotes[1]
    assert [(q["path"], q["at_pin"]["status"]) for q in quotes[1]] == [("src/widgets/README.md", "found")]
    assert cold["timing"]["blobs_read"] > 0
    assert warm["timing"]["blobs_read"] == 0


def test_which_cited_file_holds_a_quotation_is_not_kept_while_one_of_them_is_unreadable(pytester, make_repo):
    """Its own file's blob missing from the clone, the quotation is found in the other file
    all the same; that answer is asked again on the next run (the clone may be completed)."""
    repo, pin = build_target(make_repo)
    blob = repo.repo.git.rev_parse(f"{pin}:src/widgets/index.ts")
    os.remove(repo.path / ".git" / "objects" / blob[:2] / blob[2:])
    folder = pytester.path / "s-1"
    folder.mkdir()
    (folder / "packet.md").write_text(packet("S-1").format(pin=pin), encoding="utf-8")
    (folder / "lens.md").write_text(HELD_ELSEWHERE, encoding="utf-8")
    out = pytester.path / "out.json"
    for extra in (("--cache-clear",), ()):
        pytester.runpytest("--memreport", str(folder), f"--memreport-repo=acme/servers={repo.path}",
                           "--memreport-against=none", "--memreport-json", str(out), *extra)
        data = json.loads(out.read_text())
        lens = next(r for r in data["reports"] if r["path"].endswith("lens.md"))
        assert [(q["path"], q["at_pin"]["status"]) for q in lens_evidence(lens) if q["kind"] == "quote"] == [
            ("src/widgets/README.md", "found")]
        assert data["timing"]["blobs_read"] == 1  # README.md, asked again on the warm run
