"""Notes end to end (docs/FORMATS.md §4): the fixture notes of ``fixtures/notes/`` run with
``pytest --memreport`` against ``acme/lantern``, a real repository built in a temporary
folder (:mod:`notes_target`), mapped with ``--memreport-repo-template``."""

from __future__ import annotations

import json

import pytest

from notes_target import build, note

from pytest_memreport.dialects import parse_report
from pytest_memreport.model import EvidenceKind, EvidenceRole


def write(pytester, name: str, text: str):
    folder = pytester.path / "notes"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def run(pytester, target, *paths, against: str | None = "none", extra: tuple[str, ...] = ()):
    args = [arg for path in paths for arg in ("--memreport", str(path))]
    args += [f"--memreport-repo-template={target.path.parent}/{{name}}", "-rA", "-p", "no:cacheprovider",
             f"--memreport-json={pytester.path / 'results.json'}"]
    if against is not None:
        args += ["--memreport-against", against]
    return pytester.runpytest(*args, *extra)


def staleness_row(result, name: str) -> list[str]:
    return next(line.split(None, 2) for line in result.stdout.lines if line.split()[1:2] == [f"notes/{name}"])


@pytest.fixture
def lantern(make_repo, monkeypatch):
    return build(make_repo, monkeypatch)


def test_a_true_note_holds_at_its_pin(pytester, lantern):
    (pytester.path / "notes").mkdir()
    (pytester.path / "notes" / "lantern-ops.md").write_text("# Deploying lantern\n", encoding="utf-8")
    path = write(pytester, "lantern-ordering.md", note("lantern-ordering.md", lantern))
    before = lantern.path.stat().st_mtime_ns
    result = run(pytester, lantern, path, extra=("-v",))
    out = result.stdout.str()
    assert result.ret == 0, out
    # Every quotation tied to a file passed; the term, the reader's own file and the
    # knowledge base's own note are "not evidence", each with its reason.
    assert "FAILED" not in out
    assert 'not evidence: "a distributed consensus engine" is in quotation marks, but the note attributes it to no file' in out
    assert "not evidence: `.lantern/config.toml` is a file of the reader's own project" in out
    assert "not evidence: `notes/lantern-ops.md` is a path of the report's own folders" in out
    assert "no pinned commit" not in out
    row = staleness_row(result, "lantern-ordering.md")
    assert row[0] == "fresh" and "3 not evidence" in row[2]
    data = json.loads((pytester.path / "results.json").read_text())
    [report] = data["reports"]
    quotes = [e for e in report["evidence"] if e["kind"] == "quote"]
    assert len(quotes) == 9
    assert all(e["at_pin"]["status"] in ("found", "not-evidence") for e in quotes)
    project = next(e for e in quotes if "restores are idempotent" in str(e.get("text", "")) or
                   e["path"] == "docs/OPERATIONS.md" or "OPERATIONS" in json.dumps(e))
    assert "docs/OPERATIONS.md" in json.dumps(project)
    assert lantern.path.stat().st_mtime_ns == before


def test_the_pin_is_the_evidence_basis_commit_not_its_history(lantern):
    report = parse_report("notes/lantern-ordering.md", note("lantern-ordering.md", lantern))
    assert report.dialect == "notes"
    [source] = report.sources
    assert (source.id, source.pin) == ("acme/lantern", lantern.pin)
    assert report.meta["originally-written-against"] == [lantern.old[:7]]
    assert report.meta["pin-date"] == "2026-05-14"
    # the pin's own link and the history are not commit evidence; the fix's link is
    commits = [e for e in report.evidence if e.kind is EvidenceKind.COMMIT]
    assert [c.pin for c in commits] == [lantern.fix]


def test_every_tie_is_read(lantern):
    report = parse_report("notes/lantern-ordering.md", note("lantern-ordering.md", lantern))
    quotes = {e.text: e for e in report.evidence if e.kind is EvidenceKind.QUOTE}
    beside = quotes["runs jobs in order of arrival"]
    assert (beside.path, beside.role, beside.pin) == ("README.md", EvidenceRole.PROSE, lantern.pin)
    assert quotes["never drops a job silently"].path == "README.md"  # curly quotation marks
    blockquote = quotes["The planner keeps every rewrite *reversible*: each step\nrecords its inverse."]
    assert blockquote.path == "docs/DESIGN.md"  # the introducing sentence links it
    assert quotes["Workers never block the queue; the planner hands them slices."].path == "docs/DESIGN.md"
    assert quotes["a two-phase commit of the plan"].path == "docs/DESIGN.md"  # named in backticks
    assert quotes["restores are idempotent"].role is EvidenceRole.PROJECT
    assert quotes["a distributed consensus engine"].role is EvidenceRole.TERM


def test_misquotations_fail_with_the_nearest_candidate(pytester, make_repo, monkeypatch):
    lantern = build(make_repo, monkeypatch, later=True)
    path = write(pytester, "lantern-misquoted.md", note("lantern-misquoted.md", lantern))
    result = run(pytester, lantern, path, against="HEAD")
    out = result.stdout.str()
    assert result.ret == 1
    # a dropped word, beside its link
    assert "quotation of docs/DESIGN.md missing at" in out and "keeps every reversible" in out
    assert "nearest candidate at lines 3" in out
    # a dropped parenthesis, in a sentence naming the file in backticks
    assert "The planner owns the queue order" in out
    assert "(never the workers)" in out
    # attributed to the project: looked for in the linked files and the whole tree
    assert "quotation not found in docs/DESIGN.md nor in any other file of the pinned tree" in out
    # written against newer code: missing at the pin, and drift says it holds at HEAD
    data = json.loads((pytester.path / "results.json").read_text())
    [ahead] = [e for e in data["reports"][0]["evidence"] if e.get("text") == "keeps every rewrite undoable"]
    assert (ahead["at_pin"]["status"], ahead["at_against"]["status"]) == ("missing", "ahead")
    # a commit link on a branch never merged
    assert f"commit {lantern.side[:12]} is not an ancestor of" in out
    row = staleness_row(result, "lantern-misquoted.md")
    # a blockquote its introducing sentence links, a word dropped
    assert "quotation: Workers never block the queue; the planner hands slices." in out
    assert row[0] == "stale" and "1 diverged" in row[2] and "5 missing" in row[2]


def test_drift_of_a_quoted_phrase_names_the_commit_that_broke_it(pytester, make_repo, monkeypatch):
    lantern = build(make_repo, monkeypatch, later=True)
    (pytester.path / "notes").mkdir()
    (pytester.path / "notes" / "lantern-ops.md").write_text("# Deploying lantern\n", encoding="utf-8")
    path = write(pytester, "lantern-ordering.md", note("lantern-ordering.md", lantern))
    result = run(pytester, lantern, path, against="HEAD")
    out = result.stdout.str()
    assert result.ret == 1
    # the blockquote found only once its emphasis was set aside follows its lines exactly
    assert "design: say undoable" in out
    row = staleness_row(result, "lantern-ordering.md")
    assert row[0] == "stale" and "changed" in row[2]
    # the fix is in HEAD's history
    assert f"commit {lantern.fix[:12]} is not an ancestor" not in out


def test_a_second_repository_without_a_clone_leaves_the_note_partly_unchecked(pytester, lantern):
    path = write(pytester, "lantern-two-repos.md", note("lantern-two-repos.md", lantern))
    result = run(pytester, lantern, path)
    out = result.stdout.str()
    assert result.ret == 0, out
    row = staleness_row(result, "lantern-two-repos.md")
    assert row[0] == "partial", row
    assert "partly unchecked: 1 source(s) with no clone" in row[2]
    data = json.loads((pytester.path / "results.json").read_text())
    assert data["reports"][0]["state"] == "partial"


def test_a_clone_older_than_the_note_is_told_so(pytester, lantern):
    path = write(pytester, "lantern-newer.md", note("lantern-newer.md", lantern))
    result = run(pytester, lantern, path)
    out = result.stdout.str()
    assert "no pinned commit" not in out
    assert "is older than the report (its pin is dated 2026-05-14)" in out
    assert f"git -C {lantern.path} fetch" in out
    row = staleness_row(result, "lantern-newer.md")
    assert row[0] == "unchecked"


def test_an_unread_pin_is_never_stale_under_against_none(pytester, lantern):
    two = write(pytester, "lantern-two-repos.md", note("lantern-two-repos.md", lantern))
    text = note("lantern-ordering.md", lantern)
    # the second source of this note is pinned at a commit the clone lacks
    text += f"\nThe same scheduler in the fork: [sched.py]({'https://github.com/acme/lantern'}/blob/" \
            "9c8d7e6f5a4b3c2d1e0f9c8d7e6f5a4b3c2d1e0f/src/lantern/sched.py), rewritten in " \
            "[9c8d7e6](https://github.com/acme/lantern/commit/9c8d7e6f5a4b3c2d1e0f9c8d7e6f5a4b3c2d1e0f).\n"
    (pytester.path / "notes").mkdir(exist_ok=True)
    (pytester.path / "notes" / "lantern-ops.md").write_text("# Deploying lantern\n", encoding="utf-8")
    one = write(pytester, "lantern-ordering.md", text)
    result = run(pytester, lantern, one, two)
    assert result.ret == 0
    one_row, two_row = staleness_row(result, "lantern-ordering.md"), staleness_row(result, "lantern-two-repos.md")
    # the blob link at that commit, and the commit link itself: checked to exist, and said unread
    assert one_row[0] == "partial" and "partly unchecked: 2 citation(s) at a commit the clone lacks" in one_row[2]
    assert "SKIPPED [2] notes/lantern-ordering.md:45: not checked: " in result.stdout.str()
    assert two_row[0] == "partial" and "partly unchecked: 1 source(s) with no clone" in two_row[2]
