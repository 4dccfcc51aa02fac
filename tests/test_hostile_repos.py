"""Odd target repositories through the plugin: bare and shallow clones, a
missing against-revision, a detached HEAD, an empty repository, git's
``safe.directory`` refusal, a corrupt object. Each ends in one clear line (or
a correct verdict), never a traceback."""

from __future__ import annotations

import shutil
import subprocess
import textwrap

import pytest

from hostile_support import assert_clean, line_of, records_report, run_report

STORE_PY = "LIMIT = 200\n\n\ndef keep(entries):\n    return entries[-LIMIT:]\n"


@pytest.fixture
def target(make_repo):
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY, "notes.txt": "plain notes line\n"}, "store")
    return repo, pin


def git(*args: str, cwd=None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def report_for(pin: str) -> str:
    return records_report(pin, "return entries[-LIMIT:] --- store.py", "plain notes line --- notes.txt")


def test_bare_clone_checks_pin_and_drift(pytester, target, tmp_path):
    repo, pin = target
    repo.commit({"store.py": "# moved down\n" + STORE_PY}, "shift")
    bare = tmp_path / "bare.git"
    git("clone", "-q", "--bare", str(repo.path), str(bare))
    result = run_report(pytester, report_for(pin), bare)
    assert_clean(result)
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["fresh*report.md  4 checks hold"])


def test_bare_clone_against_worktree_is_one_failing_source_item(pytester, target, tmp_path):
    repo, pin = target
    bare = tmp_path / "bare.git"
    git("clone", "-q", "--bare", str(repo.path), str(bare))
    result = run_report(pytester, report_for(pin), bare, "--memreport-against", "worktree")
    out = assert_clean(result)
    result.assert_outcomes(passed=3, failed=1, skipped=2)
    assert (f"report.md:5: --memreport-against worktree: {bare} is a bare repository and has no working tree; "
            "give a revision instead") in out


def test_shallow_clone_without_the_pin_says_how_to_deepen(pytester, target, tmp_path):
    repo, pin = target
    repo.commit({"notes.txt": "later notes\n"}, "later")
    shallow = tmp_path / "shallow"
    git("clone", "-q", "--depth", "1", f"file://{repo.path}", str(shallow))
    result = run_report(pytester, report_for(pin), shallow)
    out = assert_clean(result)
    assert result.ret == 1  # nothing could be checked
    # the report is unchecked: one item says why, and fails (it cites code at a commit; issue 45)
    result.assert_outcomes(failed=1)
    assert (f"report.md:5: not checked: revision '{pin}' is not in {shallow}, a shallow clone whose history is cut off: "
            "deepen it with `git fetch --unshallow` (GitHub Actions: `fetch-depth: 0` in actions/checkout)") in out


def test_missing_against_revision_is_a_usage_error(pytester, target):
    """Resolving in no target, the revision is the command's mistake: one line, exit 4."""
    repo, pin = target
    result = run_report(pytester, report_for(pin), repo.path, "--memreport-against", "no-such-branch")
    out = assert_clean(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert (f"ERROR: --memreport-against no-such-branch: resolves in none of the 1 target repositories: revision "
            f"'no-such-branch' is not a commit in {repo.path} (not a shallow clone)") in out


def test_detached_head_is_the_against_revision(pytester, target):
    repo, pin = target
    repo.commit({"store.py": STORE_PY.replace("entries[-LIMIT:]", "entries[:LIMIT]")}, "rewrite")
    # Detached at the pin: the rewrite on main is not what HEAD is.
    git("checkout", "-q", "--detach", pin, cwd=repo.path)
    before = repo.state()
    detached = run_report(pytester, report_for(pin), repo.path)
    assert_clean(detached)
    detached.assert_outcomes(passed=6)
    assert repo.state() == before
    git("checkout", "-q", "main", cwd=repo.path)
    on_main = run_report(pytester, report_for(pin), repo.path)
    out = assert_clean(on_main)
    on_main.assert_outcomes(passed=5, failed=1)
    assert f"report.md:{line_of(0)}: MEM-OBJ-subject quotation of store.py changed at" in out


def test_empty_repository_says_it_has_no_commits(pytester, make_repo):
    empty = make_repo("empty")
    result = run_report(pytester, report_for("a" * 40), empty.path)
    out = assert_clean(result)
    assert result.ret == 1
    result.assert_outcomes(failed=1)  # unchecked, and it states a pin (issue 45)
    assert f"report.md:5: not checked: revision '{'a' * 40}' cannot be resolved: {empty.path} has no commits yet" in out


def test_safe_directory_refusal_says_how_to_trust_the_repository(pytester, target, monkeypatch):
    repo, pin = target
    # git's own switch for testing its ownership check (as when the clone belongs to another user)
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    result = run_report(pytester, report_for(pin), repo.path)
    out = assert_clean(result)
    assert result.ret == 1
    result.assert_outcomes(failed=1)  # unchecked, and it states a pin (issue 45)
    assert (f"git refuses {repo.path}: it is owned by another user; if you trust it, run "
            f"`git config --global --add safe.directory {repo.path}`") in out


def test_not_a_repository_and_a_file_are_one_line_each(pytester, target, tmp_path):
    _, pin = target
    plain = tmp_path / "plain"
    plain.mkdir()
    result = run_report(pytester, report_for(pin), plain)
    out = assert_clean(result)
    assert f"{plain} is not inside a git repository: give the path of a clone of the target repository" in out
    a_file = tmp_path / "file.txt"
    a_file.write_text("x", encoding="utf-8")
    result = run_report(pytester, report_for(pin), a_file)
    out = assert_clean(result)
    assert f"{a_file} is not a folder: give the path of a clone of the target repository" in out


def corrupt_copy(repo, tmp_path, rev: str, path: str):
    """A copy of ``repo`` whose loose object for ``rev:path`` holds garbage (the original is untouched)."""
    copy = tmp_path / "corrupt"
    shutil.copytree(repo.path, copy, symlinks=True)
    oid = git("rev-parse", f"{rev}:{path}", cwd=copy).strip()
    loose = copy / ".git" / "objects" / oid[:2] / oid[2:]
    loose.chmod(0o644)
    loose.write_bytes(b"this is not a zlib stream")
    return copy, oid


def test_corrupt_object_fails_its_evidence_and_predicates_with_one_line(pytester, target, tmp_path):
    repo, pin = target
    copy, oid = corrupt_copy(repo, tmp_path, pin, "notes.txt")
    (pytester.path / "report.claims.yaml").write_text(
        textwrap.dedent(
            """\
            schema: memreport-claims/1
            records:
              MEM-OBJ-subject:
                predicates:
                  - absent: {glob: "*.txt", text: "password"}
            """
        ),
        encoding="utf-8",
    )
    result = run_report(pytester, report_for(pin), copy)
    out = assert_clean(result)
    assert result.ret == 1
    # store.py is intact and passes; notes.txt and the absence over it fail, at the pin and at HEAD.
    result.assert_outcomes(passed=5, failed=3, skipped=1)
    assert f"report.md:{line_of(1)}: MEM-OBJ-subject quotation of notes.txt unreadable at" in out
    message = (f"{copy}: cannot read notes.txt (object {oid[:12]}): git cannot read the object; it is missing or "
               "corrupt: `git fsck` in the repository names damaged objects")
    assert message in out
    assert "MEM-OBJ-subject absent predicate could not be checked at pin" in out
    assert "MEM-OBJ-subject absent predicate could not be checked at against" in out
