"""GitHub Actions: annotations (paths relative to the checkout, titles, warnings, escaping,
claims files), and the guard that keeps file names from being read as workflow commands."""

from __future__ import annotations

import pytest

from ci_support import build


@pytest.fixture
def base(pytester, make_repo):
    return build(pytester, make_repo)


@pytest.fixture
def github(monkeypatch, pytester):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(pytester.path))


def commands(result) -> list[str]:
    """The lines GitHub reads as workflow commands: those after the last resume token."""
    lines = result.stdout.lines
    stops = [i for i, line in enumerate(lines) if line.startswith("::stop-commands::")]
    assert stops, "the run never stopped command processing"
    token = lines[stops[0]].split("::")[2]
    resumed = lines.index(f"::{token}::")
    return [line for line in lines[resumed + 1:] if line.startswith("::")]


def test_each_failure_and_warning_is_one_annotation_with_a_title_and_no_repeated_prefix(pytester, base, github):
    result = pytester.runpytest(*base.args())
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert commands(result) == [
        "::error file=store.txt,line=15,title=MEM-OBJ-limits%3A changed::"
        f"MEM-OBJ-limits quotation of pkg/limits.py changed at {base.repo.repo.head.commit.hexsha[:12]}",
        "::error file=store.txt,line=27,title=MEM-OBJ-cache%3A deleted::"
        f"MEM-OBJ-cache quotation of pkg/cache.py deleted at {base.repo.repo.head.commit.hexsha[:12]}",
        "::warning file=store.txt,line=21,title=MEM-OBJ-put%3A enclosing-changed::"
        f"MEM-OBJ-put quotation of pkg/store.py: enclosing definition changed by "
        f"{base.repo.repo.head.commit.hexsha[:12]} (function put)",
    ]


def test_paths_are_relative_to_the_workspace_wherever_pytest_runs(pytester, make_repo, github, monkeypatch):
    kb = pytester.mkdir("kb")
    (kb / "reviews").mkdir()
    base = build(pytester, make_repo, name="kb/reviews/store.txt")
    # run from inside the knowledge base, naming the report relative to there
    monkeypatch.chdir(kb)
    result = pytester.runpytest("--memreport", "reviews/store.txt", f"--memreport-repo={base.repo.path}")
    files = {line.split("file=", 1)[1].split(",", 1)[0] for line in commands(result)}
    assert files == {"kb/reviews/store.txt"}
    # and naming it by its absolute path
    result = pytester.runpytest("--memreport", str(base.report), f"--memreport-repo={base.repo.path}")
    assert {line.split("file=", 1)[1].split(",", 1)[0] for line in commands(result)} == {"kb/reviews/store.txt"}


def test_a_report_outside_the_workspace_keeps_its_absolute_path(pytester, base, github, monkeypatch, tmp_path_factory):
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path_factory.mktemp("elsewhere")))
    result = pytester.runpytest(*base.args())
    assert all(line.split("file=", 1)[1].startswith(str(pytester.path) + "/store.txt,") for line in commands(result))


def test_percent_comma_colon_and_newlines_are_encoded(pytester, make_repo, github):
    base = build(pytester, make_repo, name="50%,a:b.txt")
    result = pytester.runpytest(*base.args())
    first = commands(result)[0]
    assert first.startswith("::error file=50%25%2Ca%3Ab.txt,line=15,title=MEM-OBJ-limits%3A changed::")
    # the message repeats no file:line: prefix, so the name appears only in the property
    assert "50%" not in first.split("::", 2)[2]


EVIL = "pkg/a\n::warning title=pwned::owned.py"


def test_a_file_name_cannot_inject_a_workflow_command(pytester, base, github):
    # A tracked file whose name holds a newline and a workflow command, listed by a failing
    # absent predicate: pytest prints the failure's lines, the name's newline included.
    base.repo.commit({EVIL: "FORBIDDEN = 1\n"}, "evil name")
    (pytester.path / "store.claims.yaml").write_text(
        "schema: memreport-claims/1\nrecords:\n  MEM-OBJ-limits:\n    predicates:\n"
        "      - absent: {glob: 'pkg/**', regex: 'FORBIDDEN'}\n", encoding="utf-8")
    result = pytester.runpytest(*base.args())
    out = result.stdout.lines
    injected = [i for i, line in enumerate(out) if "title=pwned" in line and not line.startswith("::error file=")]
    token = next(line for line in out if line.startswith("::stop-commands::")).split("::")[2]
    stopped, resumed = out.index(f"::stop-commands::{token}"), out.index(f"::{token}::")
    # whatever pytest printed of the name lies where GitHub reads no command
    assert injected and all(stopped < i < resumed for i in injected)
    after = commands(result)
    assert not any(line.startswith("::warning title=pwned") for line in after)
    assert all(line.startswith(("::error file=", "::warning file=")) for line in after)


def test_the_guard_token_differs_between_runs(pytester, base, github):
    tokens = {commands.__name__}
    for _ in range(2):
        result = pytester.runpytest(*base.args())
        tokens.add(next(line for line in result.stdout.lines if line.startswith("::stop-commands::")))
    assert len(tokens) == 3


def test_outside_github_actions_nothing_is_printed_as_a_command(pytester, base):
    result = pytester.runpytest(*base.args())
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert not [line for line in result.stdout.lines if line.startswith("::")]


CLAIMS = """schema: memreport-claims/1
records:
  MEM-OBJ-limits:
    predicates:
      - contains: {path: pkg/limits.py, text: "LIMIT_9 = 63"}
  MEM-OBJ-nowhere:
    predicates:
      - contains: {path: pkg/limits.py, text: "LIMIT_1 = 7"}
"""


def test_claims_file_problems_and_failing_predicates_are_annotated_on_the_claims_file(pytester, base, github):
    (pytester.path / "store.claims.yaml").write_text(CLAIMS, encoding="utf-8")
    result = pytester.runpytest(*base.args())
    claims = [line for line in commands(result) if "file=store.claims.yaml" in line]
    # the unknown record, at its line; the predicate that does not hold, at its own
    assert any(line.startswith("::error file=store.claims.yaml,line=6,title=") and "MEM-OBJ-nowhere" in line
               for line in claims), claims
    assert any(line.startswith("::error file=store.claims.yaml,line=5,title=MEM-OBJ-limits%3A predicate-fails::")
               for line in claims), claims


def test_more_annotations_than_github_shows_end_with_a_notice(pytester, make_repo, github):
    repo = make_repo()
    pin = repo.commit({"a.py": "".join(f"V{i} = {i}\n" for i in range(12))}, "first")
    repo.commit({"a.py": "".join(f"V{i} = {i + 1}\n" for i in range(12))}, "edit all")
    quotes = "\n\n".join(f"V{i} = {i} --- a.py" for i in range(12))
    report = pytester.path / "many.txt"
    report.write_text(f"Many\n\nBoundary and evidence\n\nSRC-1 commit {pin}.\n\nOperative objects\n\n"
                      f"MEM-OBJ-many\n\nLabel: Many\n\n{quotes}\n", encoding="utf-8")
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}")
    lines = commands(result)
    assert sum(line.startswith("::error ") for line in lines) == 12
    assert lines[-1].startswith("::notice title=memreport::12 failures and 0 warnings in all; GitHub shows 10")


def test_the_step_summary_is_appended_with_every_failure_and_warning(pytester, base, monkeypatch):
    summary = pytester.path / "step_summary.md"
    summary.write_text("## An earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = pytester.runpytest(*base.args())
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## An earlier step\n## memreport: which reports are stale\n")
    assert "2 failures, 1 warnings" in text
    assert "**error** store.txt:15: MEM-OBJ-limits quotation of pkg/limits.py changed at" in text
    assert "**warning** store.txt:21: MEM-OBJ-put quotation of pkg/store.py: enclosing definition changed" in text
    result.stdout.fnmatch_lines([f"memreport: appended the step summary to {summary}"])
    # a second run appends again, as each step of a job does
    pytester.runpytest(*base.args())
    assert summary.read_text(encoding="utf-8").count("## memreport: which reports are stale") == 2


def test_a_claims_problem_is_placed_by_its_file_and_line_as_data_not_read_back_from_its_text(pytester, base,
                                                                                               github):
    """A claims file whose name itself holds ``:3: `` is annotated at its own line 6: the place
    is carried with the problem, never split out of the ``file:line: message`` it shows."""
    odd = pytester.path / "odd:3: name.claims.yaml"
    odd.write_text(CLAIMS, encoding="utf-8")
    result = pytester.runpytest(*base.args(), f"--memreport-claims={odd}")
    unknown = [line for line in commands(result) if "MEM-OBJ-nowhere" in line and line.startswith("::error ")]
    assert unknown and all(",line=6," in line and "odd%3A3%3A name.claims.yaml" in line for line in unknown), commands(result)


def test_a_warning_names_the_commit_that_changed_the_definition_not_the_one_checked(pytester, make_repo, github):
    # Read on a real tutorial checked against celery's history: every warning said its
    # enclosing definition "changed at" the revision checked (a dependency bump at HEAD that
    # touched no source), where its JSON named the commit that changed it.
    base = build(pytester, make_repo)
    edit = base.repo.repo.head.commit.hexsha
    base.repo.commit({"README.md": "notes\n"}, "docs only")
    result = pytester.runpytest(*base.args())
    warning = next(line for line in commands(result) if line.startswith("::warning"))
    assert warning.endswith(f"enclosing definition changed by {edit[:12]} (function put)"), warning
