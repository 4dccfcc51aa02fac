"""A target repository that tries to bend git's answers: replace refs and grafts,
a tag named like the short pin, a tree given as the pin, a log output encoding,
a clean filter under ``--memreport-against worktree``, paths with special
characters, and repository names that would escape a template. Each case
reads the objects as stored, or ends in one clear line."""

from __future__ import annotations

import json
import os
import time
import re
import subprocess
import unicodedata

import pytest

from hostile_support import assert_clean, line_of, records_report, run_report
from pytest_memreport.checks import drift, verify
from pytest_memreport.gitstore import GitStore, RevisionError
from pytest_memreport.model import Evidence, EvidenceKind

STORE_PY = "LIMIT = 200\n\n\ndef keep(entries):\n    return entries[-LIMIT:]\n"


def git(*args: str, cwd=None, env=None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


def quote(path: str, text: str, line: int = 1) -> Evidence:
    return Evidence(EvidenceKind.QUOTE, path, line=line, end_line=line, text=text)


def broken_by(repo_path, evidence: Evidence, pin: str, against: str = "HEAD"):
    with GitStore.open(repo_path) as store:
        at_pin = verify.check_at_pin(evidence, store.snapshot(pin))
        assert at_pin.ok, at_pin.message
        return drift.classify(evidence, at_pin, store, pin, store.snapshot(against)).broken_by


# -- 1. replace refs and grafts ---------------------------------------------------


@pytest.fixture
def replaced_mirror(make_repo, tmp_path):
    """A mirror whose ``refs/replace`` swaps the pin's store.py for one saying 999."""
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY}, "store")
    forged = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo.path, check=True, capture_output=True,
                            input=STORE_PY.replace("200", "999").encode()).stdout.decode().strip()
    real = git("rev-parse", f"{pin}:store.py", cwd=repo.path).strip()
    git("replace", real, forged, cwd=repo.path)
    mirror = tmp_path / "mirror.git"
    git("clone", "-q", "--mirror", str(repo.path), str(mirror))
    assert git("for-each-ref", "refs/replace", cwd=mirror).strip()  # the mirror carries the replace ref
    assert "999" in git("show", f"{pin}:store.py", cwd=mirror)  # and plain git honours it
    return mirror, pin


def test_a_replace_ref_does_not_make_a_false_quotation_pass(pytester, replaced_mirror):
    mirror, pin = replaced_mirror
    result = run_report(pytester, records_report(pin, "LIMIT = 999 --- store.py", "LIMIT = 200 --- store.py"), mirror)
    out = assert_clean(result)
    assert f"report.md:{line_of(0)}: MEM-OBJ-subject quotation of store.py" in out
    assert f"report.md:{line_of(1)}: MEM-OBJ-subject quotation of store.py" not in out
    assert result.ret == 1


def test_a_replace_ref_does_not_change_what_a_store_reads(replaced_mirror):
    mirror, pin = replaced_mirror
    with GitStore.open(mirror) as store:
        assert store.snapshot(pin).read("store.py").text.startswith("LIMIT = 200")
        assert store.snapshot(pin).files() == ["store.py"]


@pytest.fixture
def history(make_repo):
    """pin (200) -> break (300) -> unrelated: the break is what "broken by" must name."""
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY, "notes.txt": "notes\n"}, "store")
    culprit = repo.commit({"store.py": STORE_PY.replace("200", "300")}, "raise the limit")
    last = repo.commit({"notes.txt": "more notes\n"}, "unrelated notes")
    return repo, pin, culprit, last


def test_a_replace_graft_does_not_change_broken_by(history):
    repo, pin, culprit, last = history
    git("replace", "--graft", last, pin, cwd=repo.path)  # pretend the break never happened
    assert git("log", "--format=%s", f"{pin}..{last}", cwd=repo.path).split("\n")[0] == "unrelated notes"
    found = broken_by(repo.path, quote("store.py", "LIMIT = 200"), pin)
    assert found is not None and found.sha == culprit


def test_a_grafts_file_does_not_change_broken_by(history):
    repo, pin, culprit, last = history
    (repo.path / ".git" / "info").mkdir(exist_ok=True)
    (repo.path / ".git" / "info" / "grafts").write_text(f"{last} {pin}\n", encoding="ascii")
    found = broken_by(repo.path, quote("store.py", "LIMIT = 200"), pin)
    assert found is not None and found.sha == culprit


# -- 13. a fixed output encoding, and a tree as the pin --------------------------------


def test_broken_by_survives_a_utf16_log_output_encoding(history):
    repo, pin, culprit, _ = history
    git("config", "i18n.logOutputEncoding", "UTF-16", cwd=repo.path)
    found = broken_by(repo.path, quote("store.py", "LIMIT = 200"), pin)
    assert found is not None and found.sha == culprit
    assert found.subject == "raise the limit"


def test_a_tree_given_as_the_pin_is_named_a_tree(pytester, make_repo):
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY}, "store")
    tree = git("rev-parse", f"{pin}^{{tree}}", cwd=repo.path).strip()
    result = run_report(pytester, records_report(tree, "LIMIT = 200 --- store.py"), repo.path)
    out = assert_clean(result)
    assert result.ret == 1
    assert f"report.md:5: not checked: revision '{tree}' is a tree in {repo.path}, not a commit: give the sha" in out
    assert "predate" not in out
    with GitStore.open(repo.path) as store, pytest.raises(RevisionError, match="is a tree in"):
        store.resolve(tree[:12])


# -- 2. a pin written in hex is an object name -----------------------------------------


@pytest.fixture
def tagged_like_the_pin(make_repo):
    """A tag and a branch named like the short pin, both pointing at a later commit."""
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY}, "store")
    later = repo.commit({"store.py": STORE_PY.replace("200", "999")}, "raise the limit")
    git("tag", pin[:12], later, cwd=repo.path)
    git("branch", pin[:9], later, cwd=repo.path)
    assert git("rev-parse", f"{pin[:12]}^{{commit}}", cwd=repo.path).strip() == later  # git prefers the tag
    return repo, pin, later


def test_a_short_pin_is_the_commit_not_a_tag_named_like_it(pytester, tagged_like_the_pin):
    repo, pin, _ = tagged_like_the_pin
    report = records_report(pin[:12], "LIMIT = 999 --- store.py", "LIMIT = 200 --- store.py")
    result = run_report(pytester, report, repo.path, "--memreport-against", pin)
    out = assert_clean(result)
    assert f"report.md:{line_of(0)}: MEM-OBJ-subject quotation of store.py" in out
    assert f"report.md:{line_of(1)}: MEM-OBJ-subject quotation of store.py" not in out
    assert result.ret == 1


def test_resolve_reads_hex_as_an_object_name(tagged_like_the_pin):
    repo, pin, later = tagged_like_the_pin
    with GitStore.open(repo.path) as store:
        assert store.resolve(pin[:12]) == pin
        assert store.resolve(pin[:9].upper()) == pin
        assert store.resolve(pin) == pin
        assert store.resolve("main") == later  # names that are not hex are still refs
        git("tag", "-a", "-m", "annotated", "release", pin, cwd=repo.path)
        tag_object = git("rev-parse", "release", cwd=repo.path).strip()
        assert store.resolve(tag_object[:10]) == pin  # an annotated tag's id peels to its commit


# -- 5. repository names cannot escape a template ---------------------------------------


def review(repo: str, sha: str, path: str) -> str:
    return (f"# A review\n\n**Repository:** https://github.com/{repo}\n"
            f"**Reviewed commit:** [{sha}](https://github.com/{repo}/commit/{sha})\n\n## Finding\n\n"
            f"The behaviour lives in [{path}](https://github.com/{repo}/blob/{sha}/{path}#L1).\n")


@pytest.mark.parametrize("named", ["../secret", "%2e%2e/secret", "..%2fclones%2f../secret", "acme/..", "./secret"])
def test_a_repository_name_cannot_escape_the_template(pytester, make_repo, tmp_path, named):
    secret = make_repo("secret")  # beside the template's root: <root>/../secret
    sha = secret.commit({"key.txt": "the secret key line\n"}, "secret")
    root = tmp_path / "clones"
    (root / "acme").mkdir(parents=True)
    (pytester.path / "review.md").write_text(review(named, sha, "key.txt"), encoding="utf-8")
    result = pytester.runpytest("--memreport", "review.md", f"--memreport-repo-template={root}/{{owner}}/{{name}}",
                                "-rA")
    out = assert_clean(result)
    assert "the secret key line" not in out
    assert result.ret != 0
    assert re.search(r"review\.md:4: not checked: '[^']+' is not a GitHub owner/name \(.*\): correct the repository "
                     r"URL in the report", out), out


@pytest.mark.parametrize("named", ["acme/widget", "Acme-Corp/widget.js", "a_b/.github", "x/y..z"])
def test_names_github_allows_fill_the_template(tmp_path, named):
    from pytest_memreport.repomap import RepoMap, name_problem

    assert name_problem(named) is None
    owner, name = named.split("/")
    (tmp_path / owner / name).mkdir(parents=True)
    found = RepoMap((), "{owner}/{name}", "--memreport-repo-template", tmp_path).lookup(named)
    assert found.path == tmp_path / owner / name


@pytest.mark.parametrize("named", ["../x", "a/..", "a/.", "a/b/c", "a b/c", "a/c%2f", "a/", "/a", "a\\b/c", "é/c"])
def test_other_names_never_reach_the_disk(tmp_path, named):
    from pytest_memreport.repomap import RepoMap

    found = RepoMap((), "{owner}/{name}", "--memreport-repo-template", tmp_path / "root").lookup(named)
    assert found.path is None and "is not a GitHub owner/name" in found.problem


# -- 4. the target's filters never run -------------------------------------------------------


@pytest.fixture
def filtered(make_repo, tmp_path):
    """A target whose attributes send *.py through a clean filter (and a process filter) that leave a marker."""
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY, ".gitattributes": "*.py filter=mark\n*.txt filter=proc\n",
                       "notes.txt": "notes\n"}, "store")
    marker = tmp_path / "filter-ran"
    git("config", "filter.mark.clean", f"touch '{marker}'; cat", cwd=repo.path)
    git("config", "filter.mark.smudge", f"touch '{marker}'; cat", cwd=repo.path)
    git("config", "filter.proc.process", f"touch '{marker}'", cwd=repo.path)
    # edited on disk after the pin, so git would have to hash them (through the filter) to diff them
    (repo.path / "store.py").write_text("# moved down\n" + STORE_PY.replace("200", "300"), encoding="utf-8")
    (repo.path / "notes.txt").write_text("notes\nmore\n", encoding="utf-8")
    (repo.path / "extra.py").write_text("x = 1\n", encoding="utf-8")
    assert not marker.exists()
    return repo, pin, marker


def test_the_targets_clean_filter_never_runs_against_the_worktree(pytester, filtered):
    repo, pin, marker = filtered
    before = repo.state()
    report = records_report(pin, "LIMIT = 200 --- store.py", "notes --- notes.txt", "SRC-1: store.py, notes.txt.")
    result = run_report(pytester, report, repo.path, "--memreport-against", "worktree")
    out = assert_clean(result)
    assert not marker.exists()
    assert repo.state() == before
    assert f"report.md:{line_of(0)}: MEM-OBJ-subject quotation of store.py changed at worktree" in out


def test_worktree_line_counts_are_read_from_disk(filtered):
    repo, pin, marker = filtered
    with GitStore.open(repo.path) as store:
        counts = store.line_counts(pin, "worktree", "store.py")
        assert (counts.added, counts.removed) == (2, 1)
        assert (store.line_counts(pin, "worktree", "notes.txt").added) == 1
        assert store.line_counts(pin, "worktree", "extra.py") is None  # untracked, as in git diff
    assert not marker.exists()


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_the_disk_tree_of_a_clean_checkout_is_the_commits_tree(tmp_path, object_format):
    """The trees written from disk are git's own: same bytes, same order, same ids."""
    repo = tmp_path / "target"
    git("init", "-q", f"--object-format={object_format}", str(repo))
    files = {"a.b": "x\n", "a/b.py": "y\n", "a-b/c": "z\n", "a/é.txt": "accent\n", "run.sh": "#!/bin/sh\n",
             "deep/er/still/x.py": "deep\n"}
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    (repo / "run.sh").chmod(0o755)
    (repo / "link").symlink_to("a.b")
    git("add", "-A", cwd=repo)
    git("-c", "user.name=A", "-c", "user.email=a@example.invalid", "commit", "-qm", "all", cwd=repo)
    head_tree = git("rev-parse", "HEAD^{tree}", cwd=repo).strip()
    with GitStore.open(repo) as store, store.disk_tree() as (_, tree):
        assert tree == head_tree
    (repo / "a.b").write_text("x\nchanged\n", encoding="utf-8")
    (repo / "deep/er/still/x.py").unlink()
    with GitStore.open(repo) as store:
        assert (store.line_counts("HEAD", "worktree", "a.b").added) == 1
        assert (store.line_counts("HEAD", "worktree", "deep/er/still/x.py").removed) == 1
        assert store.line_counts("HEAD", "worktree", "a/b.py") is None
    assert git("status", "--porcelain", cwd=repo).split("\n")[0].endswith("a.b")


# -- 3. paths with special characters in a record report ----------------------------------

UNUSUAL_NAMES = [
    "app/(auth)/page.tsx", "pages/posts/[id].tsx", "docs/release notes.md", "lib/{curly}.js", "bang!.py",
    "cash$.py", "a,b.py", "k=v.py", "100%.py", "r&d.py", "issue#7.py", "🎉/party.py",
    unicodedata.normalize("NFD", "café/menu.py"),
]


@pytest.fixture
def unusual_target(make_repo):
    repo = make_repo("target")
    files = {name: f"header line\nconst KEY_{i} = {i};\nfooter line\n" for i, name in enumerate(UNUSUAL_NAMES)}
    pin = repo.commit({**files, "plain.py": "plain = 1\n"}, "unusual names")
    return repo, pin


def test_unusual_paths_are_evidence_in_a_record_report(pytester, unusual_target):
    repo, pin = unusual_target
    evidence = ["plain = 1 --- plain.py"]
    for i, name in enumerate(UNUSUAL_NAMES):
        evidence += [f"const KEY_{i} = {i}; --- {name}",  # true
                     f"const KEY_{i} = 999; --- {name}",  # false: must fail
                     f"SRC-1: `{name}`:40-50."]  # beyond the file's 3 lines: must fail
    out_json = pytester.path / "out.json"
    result = run_report(pytester, records_report(pin, *evidence), repo.path, f"--memreport-json={out_json}")
    out = assert_clean(result)
    found = json.loads(out_json.read_text(encoding="utf-8"))["reports"][0]["records"][0]["evidence"]
    by_line = {e["line"]: e for e in found}
    for i, name in enumerate(UNUSUAL_NAMES):
        true_quote, false_quote, citation = (line_of(1 + 3 * i + k) for k in range(3))
        for line in (true_quote, false_quote, citation):
            assert line in by_line and by_line[line]["path"] == name, (name, line, out[-4000:])
        assert f"report.md:{true_quote}: " not in out, name
        assert f"report.md:{false_quote}: MEM-OBJ-subject quotation of {name}" in out, name
        assert f"report.md:{citation}: " in out, name
    assert result.ret == 1


def test_an_unusual_tail_absent_from_the_tree_is_no_evidence_and_prose_stays_prose(pytester, unusual_target):
    repo, pin = unusual_target
    report = records_report(pin, "plain = 1 --- plain.py", "const X = 1; --- docs/not here (draft).md",
                            "We tried it twice --- see the notes above.", "An aside --- (sic)")
    result = run_report(pytester, report, repo.path)
    out = assert_clean(result)
    assert "`docs/not here (draft).md` is not a path at the pin" in out
    assert "notes above" not in out and "(sic)" not in out
    assert result.ret == 0


def test_the_records_dialect_reads_unusual_tails(tmp_path):
    from pytest_memreport.dialects.core import UNUSUAL_PATH
    from pytest_memreport.dialects.records import parse

    text = records_report("a" * 40, "x = 1 --- app/(auth)/page.tsx", "y --- `docs/my notes.md`:2",
                          "SRC-1: pages/[id].tsx:3-4, src/plain.py.", "prose --- as said before.")
    found = {(e.kind.value, e.path, e.label) for e in parse("report.md", text).all_evidence()}
    assert found == {("quote", "app/(auth)/page.tsx", UNUSUAL_PATH), ("quote", "docs/my notes.md", UNUSUAL_PATH),
                     ("lines", "pages/[id].tsx", UNUSUAL_PATH), ("path", "src/plain.py", None)}


def test_a_file_over_the_size_limit_is_never_copied_for_the_worktree_diff(make_repo):
    repo = make_repo("target")
    pin = repo.commit({"big.bin": b"x" * 2000, "small.py": "a = 1\n"}, "pin")
    (repo.path / "big.bin").write_bytes(b"y" * 4000)
    (repo.path / "small.py").write_text("a = 2\n", encoding="utf-8")
    with GitStore.open(repo.path, max_file_bytes=1000) as store:
        with store.disk_tree() as (runner, tree):
            entries = runner.run(["ls-tree", "-r", tree]).decode()
        assert git("rev-parse", f"{pin}:big.bin", cwd=repo.path).strip() in entries  # the index's blob
        assert store.line_counts(pin, "worktree", "small.py").added == 1
        assert store.line_counts(pin, "worktree", "big.bin") is None


@pytest.mark.parametrize(("version", "read_all"), [(2, False), (3, False), (4, True), ("split", True)])
def test_the_index_stat_cache_spares_reading_unchanged_files(make_repo, version, read_all):
    """Files the index recorded, unchanged since, are not read (git's own rule); an index
    form not read here (version 4, split) means every file is read, with the same answer."""
    repo = make_repo("target")
    files = {f"pkg/m{i}.py": f"value = {i}\n" for i in range(30)}
    pin = repo.commit(files, "pin")
    if version == "split":
        git("update-index", "--split-index", cwd=repo.path)
    else:
        git("update-index", f"--index-version={version}", cwd=repo.path)
    if version == 3:
        (repo.path / "new.py").write_text("n = 1\n", encoding="utf-8")
        git("add", "-N", "new.py", cwd=repo.path)  # intent to add: an extended entry
    (repo.path / "pkg/m3.py").write_text("value = 3\nmore = 1\n", encoding="utf-8")
    # same size, mtime put back: only the change time tells
    stamp = (repo.path / "pkg/m4.py").stat()
    (repo.path / "pkg/m4.py").write_text("value = 9\n", encoding="utf-8")
    os.utime(repo.path / "pkg/m4.py", ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    time.sleep(0.01)
    git("status", "--porcelain", cwd=repo.path)  # git refreshes its stat cache as a developer's would
    os.utime(repo.path / "pkg/m4.py", ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    with GitStore.open(repo.path) as store:
        assert store.line_counts(pin, "worktree", "pkg/m3.py").added == 1
        counts = store.line_counts(pin, "worktree", "pkg/m4.py")
        assert (counts.added, counts.removed) == (1, 1)
        assert store.line_counts(pin, "worktree", "pkg/m5.py") is None
        hashed = store.snapshot("worktree").files_hashed
    assert hashed >= 30 if read_all else hashed <= 4
