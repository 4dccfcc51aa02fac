"""Hostile cited paths through the plugin: absolute paths, ``..`` escaping the
root, git's own files, committed symlinks (to a file inside, to files outside),
submodule gitlinks, and a working tree full of symlinks pointing out.

Every refusal is a failing item that says why; no symlink is ever followed,
which the tests prove with a secret file outside the repository whose content
would be found (and shown) if one were.
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap

import pytest

from hostile_support import assert_clean, evidence_results, line_of, records_report, run_report

SECRET_LINES = "OUTSIDE-ONLY first line\nOUTSIDE-ONLY hidden second line 7f3e\n"
#: never written in any report: appears in output only if the secret file was read
SECRET_MARK = "hidden second line 7f3e"


@pytest.fixture
def outside(tmp_path):
    """A folder outside every repository, holding a secret file and a look-alike docs/d.txt."""
    folder = tmp_path / "outside"
    (folder / "docs").mkdir(parents=True)
    (folder / "secret.txt").write_text(SECRET_LINES, encoding="utf-8")
    (folder / "docs" / "d.txt").write_text("hello doc\n" + SECRET_LINES, encoding="utf-8")
    return folder


@pytest.fixture
def linked(make_repo, outside):
    """A target with committed symlinks (mode 120000) in and out, and a submodule gitlink."""
    repo = make_repo("target")
    repo.write({"pkg/a.py": "X = 1\n", "inner/notes.txt": "inside marker\n"})
    root = repo.path
    os.symlink(outside / "secret.txt", root / "secret_link.txt")
    os.symlink(outside, root / "out_dir")
    os.symlink("a.py", root / "pkg" / "alias.py")
    os.symlink("../inner", root / "pkg" / "inner_link")
    repo.repo.git.add("secret_link.txt", "out_dir", "pkg/alias.py", "pkg/inner_link")
    sub = make_repo("sub")
    sub_sha = sub.commit({"s.py": "Y = 2\n"}, "sub")
    repo.repo.git.update_index("--add", "--cacheinfo", f"160000,{sub_sha},vendor/sub")
    pin = repo.commit(message="links")
    modes = repo.repo.git.ls_tree("-r", pin)
    assert "120000 blob" in modes and "160000 commit" in modes
    return repo, pin


def refused(out: str, index: int, title: str, reason: str) -> None:
    """The failure of the ``index``-th evidence line names the evidence and says why."""
    assert f"report.md:{line_of(index)}: MEM-OBJ-subject {title} refused at" in out, out[-4000:]
    assert reason in out, reason


def test_quotations_through_hostile_paths_are_refused_saying_why(pytester, linked):
    repo, pin = linked
    text = records_report(
        pin,
        "OUTSIDE-ONLY first line --- /etc/passwd",
        "OUTSIDE-ONLY first line --- ../../outside/secret.txt",
        "repositoryformatversion --- .git/config",
        "OUTSIDE-ONLY first line --- secret_link.txt",
        "OUTSIDE-ONLY first line --- out_dir/secret.txt",
        "inside marker --- pkg/inner_link/notes.txt",
        "X = 1 --- pkg/alias.py",
        "Y = 2 --- vendor/sub/s.py",
        "X = 1 --- pkg/../pkg/a.py",
        "hooks --- pkg/.GIT/hooks/pre-commit.sample",
    )
    out_json = pytester.path / "out.json"
    result = run_report(pytester, text, repo.path, "--memreport-json", str(out_json))
    out = assert_clean(result)
    refused(out, 0, "quotation of /etc/passwd", "/etc/passwd: absolute path")
    refused(out, 1, "quotation of ../../outside/secret.txt", "../../outside/secret.txt: escapes the repository")
    refused(out, 2, "quotation of .git/config", ".git/config: git-internal path")
    refused(out, 3, "quotation of secret_link.txt", "secret_link.txt is a symbolic link (not followed)")
    refused(out, 4, "quotation of out_dir/secret.txt", "out_dir/secret.txt: goes through a symlink at out_dir")
    refused(out, 5, "quotation of pkg/inner_link/notes.txt",
            "pkg/inner_link/notes.txt: goes through a symlink at pkg/inner_link")
    refused(out, 6, "quotation of pkg/alias.py", "pkg/alias.py is a symbolic link (not followed)")
    refused(out, 7, "quotation of vendor/sub/s.py", "vendor/sub/s.py: inside the submodule at vendor/sub")
    refused(out, 9, "quotation of pkg/.GIT/hooks/pre-commit.sample", "git-internal path")
    # `pkg/../pkg/a.py` stays inside the repository: it is simply pkg/a.py.
    result.assert_outcomes(passed=4, failed=9, skipped=9)
    assert SECRET_MARK not in out
    statuses = {line: evidence["at_pin"]["status"] for (line, _, _), evidence in evidence_results(out_json).items()}
    assert [statuses[line_of(i)] for i in range(10)] == ["refused"] * 8 + ["found", "refused"]
    assert SECRET_MARK not in out_json.read_text(encoding="utf-8")


def test_cited_path_lists_keep_every_path_and_refuse_the_hostile_ones(pytester, linked):
    repo, pin = linked
    text = records_report(pin, "SRC-1: /etc/passwd, ../outside/secret.txt, .git/config, out_dir/secret.txt, pkg/a.py.")
    result = run_report(pytester, text, repo.path, "--memreport-against", "none")
    out = assert_clean(result)
    # An absolute path first in the list does not swallow the rest of the list.
    result.assert_outcomes(passed=3, failed=4)
    refused(out, 0, "cited path /etc/passwd", "/etc/passwd: absolute path")
    refused(out, 0, "cited path ../outside/secret.txt", "../outside/secret.txt: escapes the repository")
    refused(out, 0, "cited path .git/config", ".git/config: git-internal path")
    refused(out, 0, "cited path out_dir/secret.txt", "out_dir/secret.txt: goes through a symlink at out_dir")
    result.stdout.fnmatch_lines(["PASSED report.md::MEM-OBJ-subject::path@L13:pkg/a.py"])


def test_a_cited_symlink_or_gitlink_exists_as_what_it_is(pytester, linked):
    repo, pin = linked
    out_json = pytester.path / "out.json"
    text = records_report(pin, "SRC-1: secret_link.txt, vendor/sub.")
    result = run_report(pytester, text, repo.path, "--memreport-json", str(out_json))
    assert_clean(result)
    result.assert_outcomes(passed=6)
    found = evidence_results(out_json)
    link = found[(line_of(0), "path", "secret_link.txt")]["at_pin"]
    gitlink = found[(line_of(0), "path", "vendor/sub")]["at_pin"]
    assert link == {"status": "found", "lines": None, "note": "secret_link.txt is a symbolic link (not followed)"}
    assert gitlink["status"] == "found"
    assert gitlink["note"] == "vendor/sub is a submodule (gitlink); its content is another repository"


def test_a_path_that_becomes_a_symlink_since_the_pin_fails_drift_as_refused(pytester, make_repo, outside):
    repo = make_repo("target")
    pin = repo.commit({"docs/d.txt": "hello doc\n", "pkg/a.py": "X = 1\n"}, "docs")
    repo.delete("docs/d.txt")
    os.symlink(outside / "docs", repo.path / "docs")
    repo.repo.git.add("docs")
    repo.commit(message="docs now point outside")
    text = records_report(pin, "hello doc --- docs/d.txt", "SRC-1: docs/d.txt.")
    result = run_report(pytester, text, repo.path)
    out = assert_clean(result)
    result.assert_outcomes(passed=4, failed=2)
    # The look-alike docs/d.txt outside would match if the symlink were followed.
    assert f"report.md:{line_of(0)}: MEM-OBJ-subject quotation of docs/d.txt refused at" in out
    assert f"report.md:{line_of(1)}: MEM-OBJ-subject cited path docs/d.txt refused at" in out
    assert "docs/d.txt at " in out and ": goes through a symlink at docs" in out
    assert SECRET_MARK not in out


def test_worktree_against_reads_nothing_outside_the_working_tree(pytester, make_repo, outside):
    """Untracked symlinks out, a tracked file and a folder replaced by symlinks out:
    none is followed, though following them would make every check pass."""
    repo = make_repo("target")
    pin = repo.commit({"pkg/a.py": "X = 1\n", "pkg/b.py": "OUTSIDE-ONLY first line\n", "docs/d.txt": "hello doc\n",
                       "gone/g.txt": "OUTSIDE-ONLY first line\n"}, "init")
    root = repo.path
    os.symlink(outside / "secret.txt", root / "leak.txt")  # untracked, outside
    os.symlink(outside, root / "leak_dir")  # untracked folder, outside
    (root / "pkg" / "b.py").unlink()
    os.symlink(outside / "secret.txt", root / "pkg" / "b.py")  # tracked file replaced
    shutil.rmtree(root / "docs")
    os.symlink(outside / "docs", root / "docs")  # tracked folder replaced
    (root / "gone" / "g.txt").unlink()  # its quote now only exists outside, behind leak.txt
    before = repo.state()
    text = records_report(
        pin,
        "OUTSIDE-ONLY first line --- pkg/b.py",
        "hello doc --- docs/d.txt",
        "OUTSIDE-ONLY first line --- gone/g.txt",
        "X = 1 --- pkg/a.py",
    )
    result = run_report(pytester, text, root, "--memreport-against", "worktree")
    out = assert_clean(result)
    result.assert_outcomes(passed=7, failed=3)
    assert f"report.md:{line_of(0)}: MEM-OBJ-subject quotation of pkg/b.py deleted at worktree" in out
    assert ("pkg/b.py is now a symbolic link (not followed) in the working tree "
            "and the quotation occurs nowhere") in out
    assert f"report.md:{line_of(1)}: MEM-OBJ-subject quotation of docs/d.txt refused at worktree" in out
    assert "docs/d.txt in the working tree: goes through a symlink at docs" in out
    assert f"report.md:{line_of(2)}: MEM-OBJ-subject quotation of gone/g.txt deleted at worktree" in out
    assert "gone/g.txt is gone in the working tree and the quotation occurs nowhere" in out
    assert SECRET_MARK not in out and "leak" not in out
    assert repo.state() == before


CLAIMS_THROUGH_LINKS = textwrap.dedent(
    """\
    schema: memreport-claims/1
    records:
      MEM-OBJ-subject:
        predicates:
          - contains: {path: secret_link.txt, text: "OUTSIDE-ONLY"}
          - contains: {glob: "out_dir/**", text: "OUTSIDE-ONLY"}
          - absent: {glob: "**", text: "OUTSIDE-ONLY"}
          - contains: {path: .git/config, text: "repositoryformatversion"}
          - count: {glob: "**/*.txt", text: "inside marker", equals: 1}
    """
)


def test_claims_predicates_honour_the_same_refusals(pytester, linked):
    repo, pin = linked
    (pytester.path / "report.claims.yaml").write_text(CLAIMS_THROUGH_LINKS, encoding="utf-8")
    out_json = pytester.path / "out.json"
    text = records_report(pin, "SRC-1: pkg/a.py.")
    result = run_report(pytester, text, repo.path, "--memreport-against", "none", "--memreport-json", str(out_json))
    out = assert_clean(result)
    result.assert_outcomes(passed=6, failed=3)
    assert "secret_link.txt is a symlink, not a regular file" in out
    assert "no file matches out_dir/**" in out
    assert ".git/config is refused (git-internal path)" in out
    # Through no symlink: the absence holds over the regular files, the count sees only inner/notes.txt.
    result.stdout.fnmatch_lines(["PASSED *predicate?2?:absent*", "PASSED *predicate?4?:count*"])
    assert SECRET_MARK not in out


def test_worktree_predicates_do_not_search_through_untracked_symlinks(pytester, make_repo, outside):
    repo = make_repo("target")
    pin = repo.commit({"pkg/a.py": "X = 1\n"}, "init")
    os.symlink(outside / "secret.txt", repo.path / "leak.txt")
    os.symlink(outside, repo.path / "leak_dir")
    (pytester.path / "report.claims.yaml").write_text(
        "schema: memreport-claims/1\nrecords:\n  MEM-OBJ-subject:\n    predicates:\n"
        '      - absent: {glob: "**", text: "OUTSIDE-ONLY"}\n', encoding="utf-8")
    out_json = pytester.path / "out.json"
    text = records_report(pin, "SRC-1: pkg/a.py.")
    result = run_report(pytester, text, repo.path, "--memreport-against", "worktree", "--memreport-json", str(out_json))
    assert_clean(result)
    result.assert_outcomes(passed=7)
    data = json.loads(out_json.read_text(encoding="utf-8"))
    assert SECRET_MARK not in json.dumps(data)
