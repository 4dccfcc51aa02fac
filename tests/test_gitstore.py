"""GitStore and snapshots against real repositories built with RepoBuilder (no mocks)."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path

import git
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_memreport.gitstore import (
    BlobCache,
    GitStore,
    RepoError,
    RevisionError,
    TreeEntry,
    normalize_path,
)
from pytest_memreport.text.textfile import TextFile


def numbered(stem: str, count: int) -> str:
    """Distinct, realistic lines so git's similarity scores are predictable."""
    return "".join(f"def {stem}_{i}(value):\n    return value * {i} + {len(stem)}\n" for i in range(count))


def admin_entries(repo_git_dir: Path) -> list[str]:
    worktrees = repo_git_dir / "worktrees"
    return sorted(p.name for p in worktrees.iterdir()) if worktrees.exists() else []


@pytest.fixture
def history(make_repo):
    """pin: three files; later: one edited, one deleted, one added."""
    repo = make_repo()
    pin = repo.commit({"src/app.py": "x = 1\n", "src/util/io.py": "def read():\n    pass\n", "README.md": "hi\n"}, "pin")
    repo.repo.git.tag("v1")
    repo.delete("README.md")
    later = repo.commit({"src/app.py": "x = 2\n", "docs/guide.md": "guide\n"}, "later")
    return repo, pin, later


# -- opening and resolving ---------------------------------------------------------------


def test_resolve_accepts_short_sha_branch_tag_and_head(history):
    repo, pin, later = history
    with GitStore.open(repo.path) as store:
        assert store.resolve("HEAD") == later
        assert store.resolve("main") == later
        assert store.resolve("v1") == pin
        assert store.resolve(pin[:8]) == pin
        assert store.resolve(pin) == pin
        assert store.resolve("HEAD~1") == pin
        assert store.path == repo.path.resolve()
        assert not store.is_bare and not store.is_shallow


def test_open_from_a_subfolder_finds_the_top_level(history):
    repo, _, later = history
    with GitStore.open(repo.path / "src" / "util") as store:
        assert store.path == repo.path.resolve()
        assert store.snapshot("HEAD").files() == ["docs/guide.md", "src/app.py", "src/util/io.py"]


def test_missing_revision_says_what_and_that_the_clone_is_complete(history):
    repo, _, _ = history
    with GitStore.open(repo.path) as store:
        with pytest.raises(RevisionError) as caught:
            store.resolve("0123456789abcdef0123456789abcdef01234567")
    message = str(caught.value)
    assert "'0123456789abcdef0123456789abcdef01234567'" in message
    assert "not a shallow clone" in message
    assert "\n" not in message
    # A short sha that begins no commit says so, with the clone's newest commit date.
    with GitStore.open(repo.path) as store, pytest.raises(
            RevisionError, match=r"revision 'abcdef12' matches no commit in .*; its newest commit is from \d{4}-"):
        store.resolve("abcdef12")


@pytest.mark.parametrize("rev", ["", "--all", "main\nHEAD"])
def test_option_like_or_multiline_revisions_are_refused(history, rev):
    repo, _, _ = history
    with GitStore.open(repo.path) as store, pytest.raises(RevisionError):
        store.resolve(rev)


def test_shallow_clone_says_it_is_shallow_and_how_to_deepen(make_repo, tmp_path):
    repo = make_repo()
    old = repo.commit({"a.txt": "one\n"}, "one")
    repo.commit({"a.txt": "two\n"}, "two")
    head = repo.commit({"a.txt": "three\n"}, "three")
    clone = tmp_path / "shallow"
    git.Repo.clone_from(f"file://{repo.path}", clone, depth=1)
    with GitStore.open(clone) as store:
        assert store.is_shallow
        assert store.resolve("HEAD") == head
        assert store.snapshot("HEAD").read("a.txt").text == "three\n"
        assert not store.has_commit(old)
        with pytest.raises(RevisionError) as caught:
            store.resolve(old)
    message = str(caught.value)
    assert old in message and "shallow" in message
    assert "git fetch --unshallow" in message and "fetch-depth: 0" in message
    assert "\n" not in message


def test_not_a_repository_and_missing_folder_are_repo_errors(tmp_path, monkeypatch):
    plain = tmp_path / "plain"
    plain.mkdir()
    # A ceiling keeps git from finding a repository above tmp_path on odd machines.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    with pytest.raises(RepoError, match=r"not inside a git repository") as caught:
        GitStore.open(plain)
    assert str(plain) in str(caught.value)
    with pytest.raises(RepoError, match="does not exist"):
        GitStore.open(tmp_path / "nowhere")


def test_safe_directory_refusal_names_the_fix(history, monkeypatch):
    repo, _, _ = history
    # git's own switch for its ownership check: git really refuses the repository.
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    with pytest.raises(RepoError) as caught:
        GitStore.open(repo.path)
    message = str(caught.value)
    assert f"git config --global --add safe.directory {repo.path}" in message
    assert "\n" not in message


def test_empty_repository_opens_and_resolving_fails_clearly(make_repo):
    repo = make_repo("empty")
    with GitStore.open(repo.path) as store:
        assert store.snapshot("worktree").files() == []
        with pytest.raises(RevisionError, match="has no commits yet"):
            store.resolve("HEAD")


def test_has_commit(history):
    repo, pin, _ = history
    with GitStore.open(repo.path) as store:
        assert store.has_commit(pin)
        blob = store.snapshot(pin).oid("src/app.py")
        assert blob is not None and not store.has_commit(blob)
        assert not store.has_commit("f" * 40)


def test_detached_head(history):
    repo, pin, _ = history
    repo.repo.git.checkout("-q", "--detach", pin)
    with GitStore.open(repo.path) as store:
        assert store.resolve("HEAD") == pin


# -- reading ---------------------------------------------------------------------------------


def test_read_at_pin_and_at_later_commit(history):
    repo, pin, later = history
    with GitStore.open(repo.path) as store:
        at_pin, at_later = store.snapshot(pin), store.snapshot(later)
        assert at_pin.rev == pin and at_later.rev == later
        assert at_pin.read("src/app.py").text == "x = 1\n"
        assert at_later.read("src/app.py").text == "x = 2\n"
        assert at_pin.read("README.md").text == "hi\n"
        assert at_later.read("README.md") is None
        assert at_pin.read("docs/guide.md") is None
        # Reads come from git objects, not from the disk.
        (repo.path / "src" / "app.py").write_text("edited on disk\n")
        assert store.snapshot("HEAD").read("src/app.py").text == "x = 2\n"


def test_snapshots_are_cached_per_resolved_commit(history):
    repo, pin, later = history
    with GitStore.open(repo.path) as store:
        assert store.snapshot("main") is store.snapshot(later)
        assert store.snapshot("v1") is store.snapshot(pin[:10])
        assert store.snapshot(later) is not store.snapshot(pin)


def test_same_blob_is_decoded_once_and_shared_between_snapshots(history):
    repo, pin, later = history
    with GitStore.open(repo.path) as store:
        first = store.snapshot(pin).read("src/util/io.py")
        again = store.snapshot(later).read("src/util/io.py")
        assert first is again


def test_bare_clone_reads(history, tmp_path):
    repo, pin, later = history
    bare = tmp_path / "bare.git"
    git.Repo.clone_from(str(repo.path), bare, bare=True)
    with GitStore.open(bare) as store:
        assert store.is_bare and store.path == bare.resolve()
        assert store.resolve("main") == later
        assert store.snapshot(pin).read("README.md").text == "hi\n"
        assert store.snapshot("main").files() == ["docs/guide.md", "src/app.py", "src/util/io.py"]
        with pytest.raises(RepoError, match="bare repository"):
            store.snapshot("worktree")


def test_tree_listing_entries_and_directories(history):
    repo, pin, _ = history
    with GitStore.open(repo.path) as store:
        snap = store.snapshot(pin)
        assert snap.files() == ["README.md", "src/app.py", "src/util/io.py"]
        assert snap.is_dir("src") and snap.is_dir("src/util") and snap.is_dir("src/util/")
        assert snap.is_dir("") and snap.exists_dir("./src")
        assert not snap.is_dir("src/app.py") and not snap.is_dir("nope")
        app = snap.entry("src/app.py")
        assert app == TreeEntry("src/app.py", app.oid, "file", 6)
        assert snap.entry("src").kind == "dir" and snap.entry("src").size is None
        assert snap.oid("src/app.py") == app.oid and snap.oid("missing.py") is None
        assert snap.entry("src/./util/../app.py") == app
        assert snap.read("src\\util\\io.py").text == "def read():\n    pass\n"  # cited from Windows


def test_special_contents_go_through_textfile(make_repo):
    repo = make_repo()
    big = "y" * 5000
    pin = repo.commit(
        {
            "image.png": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
            "empty.txt": b"",
            "dos.txt": b"one\r\ntwo\r\n",
            "legacy.txt": "caf\u00e9 = 1\n".encode("latin-1"),
            "big.txt": big,
        },
        "contents",
    )
    with GitStore.open(repo.path, max_file_bytes=1000) as store:
        snap = store.snapshot(pin)
        binary = snap.read("image.png")
        assert binary.status == "binary" and binary.text is None and binary.size == 16
        empty = snap.read("empty.txt")
        assert empty.is_text and empty.text == "" and empty.size == 0
        assert snap.read("dos.txt").text == "one\ntwo\n"
        legacy = snap.read("legacy.txt")
        assert legacy.text == "caf\u00e9 = 1\n" and legacy.encoding == "latin-1" and "Latin-1" in legacy.note
        large = snap.read("big.txt")
        assert large.status == "too-large" and large.size == 5000 and large.text is None


# -- path hygiene -----------------------------------------------------------------------------


def _add_symlink(repo, link: str, target: str) -> None:
    os.symlink(target, repo.path / link)
    repo.repo.git.add("--", link)


def _add_gitlink(repo, path: str, sha: str) -> None:
    repo.repo.git.update_index("--add", "--cacheinfo", f"160000,{sha},{path}")


@pytest.fixture
def tricky(make_repo):
    """Committed symlinks (mode 120000) to a folder and a file, and a submodule gitlink."""
    repo = make_repo()
    first = repo.commit({"real/inside.py": "secret = 1\n", "top.py": "top = 1\n"}, "files")
    _add_symlink(repo, "linkdir", "real")
    _add_symlink(repo, "linkfile.py", "top.py")
    _add_gitlink(repo, "vendor/lib", first)
    sha = repo.commit(message="links")
    return repo, sha, first


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/etc/passwd", "absolute path"),
        ("C:\\Windows\\win.ini", "absolute path"),
        ("real/../c:/x", "absolute path"),
        ("\\\\server\\share", "absolute path"),
        ("../outside.py", "escapes the repository"),
        ("real/../../outside.py", "escapes the repository"),
        (".git/config", "git-internal path"),
        ("real/.GIT/config", "git-internal path"),
        ("linkdir/inside.py", "goes through a symlink at linkdir"),
        ("vendor/lib/setup.py", "inside the submodule at vendor/lib"),
    ],
)
def test_refused_paths_at_a_commit(tricky, path, reason):
    repo, sha, _ = tricky
    with GitStore.open(repo.path) as store:
        snap = store.snapshot(sha)
        assert snap.refuse_reason(path) == reason
        assert snap.read(path) is None and snap.entry(path) is None and not snap.is_dir(path)


def test_symlinks_and_submodules_are_entries_never_followed(tricky):
    repo, sha, first = tricky
    with GitStore.open(repo.path) as store:
        snap = store.snapshot(sha)
        assert snap.refuse_reason("real/inside.py") is None
        assert snap.read("real/inside.py").text == "secret = 1\n"
        assert snap.entry("linkdir").kind == "symlink" and snap.read("linkdir") is None
        link = snap.entry("linkfile.py")
        assert link.kind == "symlink" and link.size == len("top.py")
        assert snap.read("linkfile.py") is None and snap.refuse_reason("linkfile.py") is None
        sub = snap.entry("vendor/lib")
        assert sub == TreeEntry("vendor/lib", first, "submodule", None)
        assert snap.read("vendor/lib") is None
        assert snap.files() == ["real/inside.py", "top.py"]


# -- the working tree ------------------------------------------------------------------------


def test_worktree_snapshot_reads_uncommitted_edits(make_repo):
    repo = make_repo()
    repo.commit({"a.py": "old\n", ".gitignore": "build/\n"}, "pin")
    (repo.path / "a.py").write_text("new, not committed\n")
    (repo.path / "fresh.py").write_text("untracked\n")
    (repo.path / "build").mkdir()
    (repo.path / "build" / "out.py").write_text("ignored\n")
    with GitStore.open(repo.path) as store:
        disk = store.snapshot("worktree")
        assert disk.rev == "worktree"
        assert disk.read("a.py").text == "new, not committed\n"
        assert disk.read("fresh.py").text == "untracked\n"
        assert disk.files() == [".gitignore", "a.py", "fresh.py"]
        assert disk.read("build/out.py").text == "ignored\n"  # readable when cited, just not listed
        assert disk.read("missing.py") is None
        assert disk.is_dir("build") and not disk.is_dir("a.py")
        # Worktree object ids are git's blob ids.
        (repo.path / "same.py").write_text("old\n")
        assert disk.oid("same.py") == store.snapshot("HEAD").oid("a.py")
        assert disk.refuse_reason(".git/config") == "git-internal path"
        assert disk.read(".git/HEAD") is None


def test_a_files_content_sha256_is_of_its_bytes_as_stored_at_a_commit_and_on_disk(make_repo):
    # A manifest's SHA-256 column names each file by its content's digest: of the bytes, not
    # of the text matching reads (CRLF line ends normalised, a Latin-1 file decoded).
    repo = make_repo()
    crlf, latin = b"one\r\ntwo\r\n", "caf\u00e9\n".encode("latin-1")
    pin = repo.commit({"crlf.txt": crlf, "latin.txt": latin}, "pin")
    (repo.path / "latin.txt").write_bytes(b"edited\n")
    with GitStore.open(repo.path) as store:
        at_pin, disk = store.snapshot(pin), store.snapshot("worktree")
        assert at_pin.content_sha256("crlf.txt") == disk.content_sha256("crlf.txt") == hashlib.sha256(crlf).hexdigest()
        assert at_pin.content_sha256("latin.txt") == hashlib.sha256(latin).hexdigest()
        assert disk.content_sha256("latin.txt") == hashlib.sha256(b"edited\n").hexdigest()
        assert at_pin.content_sha256("missing.txt") is None and disk.content_sha256("missing.txt") is None
        assert at_pin.content_sha256("") is None  # (the root is a tree)


def test_worktree_snapshot_never_follows_symlinks(make_repo, tmp_path):
    repo = make_repo()
    repo.commit({"real/a.py": "a\n"}, "pin")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    os.symlink(outside, repo.path / "escape")
    os.symlink(outside / "secret.txt", repo.path / "secret-link.txt")
    nested = repo.path / "nested"
    git.Repo.init(nested)
    (nested / "n.py").write_text("n\n")
    with GitStore.open(repo.path) as store:
        disk = store.snapshot("worktree")
        assert disk.refuse_reason("escape/secret.txt") == "goes through a symlink at escape"
        assert disk.read("escape/secret.txt") is None
        assert disk.entry("secret-link.txt").kind == "symlink"
        assert disk.read("secret-link.txt") is None
        assert disk.entry("nested").kind == "submodule"
        assert disk.refuse_reason("nested/n.py") == "inside the submodule at nested"
        assert disk.read("nested/n.py") is None
        assert disk.read("../outside/secret.txt") is None
        assert "secret-link.txt" not in disk.files()


# -- renames ---------------------------------------------------------------------------------


def test_simple_rename(make_repo):
    repo = make_repo()
    pin = repo.commit({"old_name.py": numbered("f", 10), "keep.py": "k\n"}, "pin")
    repo.move("old_name.py", "new_name.py")
    later = repo.commit(message="rename")
    with GitStore.open(repo.path) as store:
        assert store.renames(pin, later) == {"old_name.py": "new_name.py"}
        assert store.follow("old_name.py", pin, later) == "new_name.py"
        assert store.follow("keep.py", pin, later) == "keep.py"
        assert store.changed_paths(pin, later) == {"old_name.py", "new_name.py"}


def test_whole_tree_moved_under_a_new_top_folder_with_small_edits(make_repo):
    repo = make_repo()
    files = {
        "pkg/__init__.py": numbered("init", 8),
        "pkg/core.py": numbered("core", 20),
        "pkg/sub/deep.py": numbered("deep", 15),
        "setup.cfg": "[metadata]\nname = pkg\nversion = 1\n" + "# padding line\n" * 20,
    }
    pin = repo.commit(files, "pin")
    for path in files:
        repo.move(path, f"project/{path}")
    repo.write({"project/pkg/core.py": numbered("core", 20).replace("value * 3 ", "value * 33 ")})
    repo.write({"project/pkg/sub/deep.py": numbered("deep", 15) + "# trailing comment\n"})
    later = repo.commit(message="move everything under project/")
    with GitStore.open(repo.path) as store:
        moved = store.renames(pin, later)
        assert moved == {path: f"project/{path}" for path in files}
        assert store.snapshot(later).read("project/pkg/core.py").text != files["pkg/core.py"]
        assert store.follow("pkg/sub/deep.py", pin, later) == "project/pkg/sub/deep.py"


def _move_then_rewrite(repo):
    """A file moved at ~98% similarity, then rewritten in a later commit."""
    original = numbered("calc", 50)
    pin = repo.commit({"calc.py": original, "other.py": "o\n"}, "pin")
    repo.move("calc.py", "lib/calculator.py")
    repo.write({"lib/calculator.py": original.replace("value * 7 ", "value * 77 ")})
    moved = repo.commit(message="move at ~98%")
    rewritten = numbered("calc", 8) + numbered("brand_new_implementation_detail", 42)
    repo.write({"lib/calculator.py": rewritten})
    return pin, moved, repo.commit(message="rewrite")


def test_move_then_rewrite_missed_by_whole_diff_found_by_follow(make_repo):
    repo = make_repo()
    pin, moved, last = _move_then_rewrite(repo)
    with GitStore.open(repo.path) as store:
        assert store.renames(pin, moved) == {"calc.py": "lib/calculator.py"}
        assert "calc.py" not in store.renames(pin, last)  # too different end to end
        assert store.follow("calc.py", pin, last) == "lib/calculator.py"
        assert store.follow("other.py", pin, last) == "other.py"


def test_follow_through_a_merged_branch(make_repo):
    repo = make_repo()
    original = numbered("calc", 50)
    pin = repo.commit({"calc.py": original}, "pin")
    repo.repo.git.checkout("-q", "-b", "feature")
    repo.move("calc.py", "lib/calculator.py")
    repo.write({"lib/calculator.py": original.replace("value * 7 ", "value * 77 ")})
    repo.commit(message="move on a branch")
    repo.repo.git.checkout("-q", "main")
    repo.commit({"unrelated.txt": "u\n"}, "meanwhile")
    repo.repo.git.merge("-q", "--no-ff", "feature", "-m", "merge feature")
    repo.write({"lib/calculator.py": numbered("calc", 8) + numbered("brand_new_implementation_detail", 42)})
    last = repo.commit(message="rewrite")
    with GitStore.open(repo.path) as store:
        assert "calc.py" not in store.renames(pin, last)
        assert store.follow("calc.py", pin, last) == "lib/calculator.py"


def test_deleted_file_follows_to_none(make_repo):
    repo = make_repo()
    pin = repo.commit({"gone.py": numbered("gone", 10), "stay.py": "s\n"}, "pin")
    repo.move("gone.py", "tmp/gone.py")
    repo.commit(message="move")
    repo.delete("tmp/gone.py")
    last = repo.commit(message="delete")
    with GitStore.open(repo.path) as store:
        assert store.renames(pin, last) == {}
        assert store.follow("gone.py", pin, last) is None
        assert store.follow("never-existed.py", pin, last) is None
        assert store.changed_paths(pin, last) == {"gone.py"}


def test_rename_maps_are_computed_once_per_pair(make_repo, git_calls):
    repo = make_repo()
    pin, _, last = _move_then_rewrite(repo)
    with GitStore.open(repo.path) as store:
        git_calls.clear()
        for _ in range(5):
            assert store.follow("calc.py", pin, last) == "lib/calculator.py"
            store.renames(pin, last)
            store.changed_paths(pin, last)
        commands = git_calls.commands()
    assert sum("diff-tree" in c and "-M" in c for c in commands) == 1
    assert sum(" log " in f" {c} " for c in commands) == 1
    assert sum("--name-only" in c for c in commands) == 1


# -- temporary worktrees ---------------------------------------------------------------------


def test_worktree_is_removed_after_normal_exit(history):
    repo, pin, _ = history
    git_dir = repo.path / ".git"
    with GitStore.open(repo.path) as store:
        with store.worktree("v1") as tree:
            assert (tree / "README.md").read_text() == "hi\n"
            assert (tree / "src" / "app.py").read_text() == "x = 1\n"
            assert len(admin_entries(git_dir)) == 1
            assert git.Repo(tree).head.commit.hexsha == pin
        assert not tree.exists() and not tree.parent.exists()
    assert admin_entries(git_dir) == []
    assert not (git_dir / "worktrees").exists()
    assert repo.repo.git.worktree("list", "--porcelain").count("worktree ") == 1


@pytest.mark.parametrize("error", [RuntimeError("boom"), KeyboardInterrupt()])
def test_worktree_is_removed_after_an_exception(history, error):
    repo, _, _ = history
    with GitStore.open(repo.path) as store:
        with pytest.raises(type(error)):
            with store.worktree("HEAD") as tree:
                (tree / "scratch.txt").write_text("left behind on purpose\n")
                raise error
        assert not tree.exists()
    assert admin_entries(repo.path / ".git") == []


def test_worktree_admin_entry_is_removed_even_if_the_folder_vanished(history):
    repo, _, _ = history
    with GitStore.open(repo.path) as store:
        with store.worktree("HEAD") as tree:
            shutil.rmtree(tree)  # e.g. a test run inside it cleaned up too eagerly
    assert admin_entries(repo.path / ".git") == []
    assert repo.repo.git.worktree("list", "--porcelain").count("worktree ") == 1


def test_worktree_of_a_bare_repository(history, tmp_path):
    repo, pin, _ = history
    bare = tmp_path / "bare.git"
    git.Repo.clone_from(str(repo.path), bare, bare=True)
    with GitStore.open(bare) as store:
        with store.worktree(pin) as tree:
            assert (tree / "README.md").read_text() == "hi\n"
        assert not tree.exists()
    assert admin_entries(bare) == []


def test_worktree_leaves_other_stale_entries_alone(history):
    """Cleanup prunes only its own admin entry, not someone else's stale one."""
    repo, _, _ = history
    stale = repo.path.parent / "somebody-elses-worktree"
    repo.repo.git.worktree("add", "--detach", str(stale), "HEAD")
    shutil.rmtree(stale)  # now stale: `git worktree prune` would delete its entry
    before = admin_entries(repo.path / ".git")
    with GitStore.open(repo.path) as store, store.worktree("HEAD"):
        pass
    assert admin_entries(repo.path / ".git") == before and len(before) == 1


def test_worktree_runs_no_hooks_from_the_target(history):
    repo, _, _ = history
    hook = repo.path / ".git" / "hooks" / "post-checkout"
    marker = repo.path.parent / "hook-ran"
    hook.write_text(f"#!/bin/sh\ntouch '{marker}'\n")
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    with GitStore.open(repo.path) as store, store.worktree("HEAD") as tree:
        assert (tree / "src" / "app.py").exists()
    assert not marker.exists()


# -- never writing to the target ----------------------------------------------------------------


def test_target_state_is_byte_identical_after_reads_and_worktrees(tricky):
    repo, sha, first = tricky
    (repo.path / "top.py").write_text("uncommitted edit\n")  # a dirty tree must stay dirty
    repo.state()  # let git settle its own index stat cache once
    before = repo.state()
    with GitStore.open(repo.path) as store:
        for rev in (first, sha, "HEAD", "main"):
            snap = store.snapshot(rev)
            for path in snap.files():
                snap.read(path)
            snap.refuse_reason("linkdir/inside.py")
        store.renames(first, sha)
        store.follow("top.py", first, sha)
        store.changed_paths(first, sha)
        disk = store.snapshot("worktree")
        for path in disk.files():
            disk.read(path)
        with store.worktree(first) as tree:
            (tree / "top.py").write_text("edits in the temporary worktree stay there\n")
        with pytest.raises(ValueError), store.worktree(sha):
            raise ValueError("interrupted run")
    assert repo.state() == before


# -- cost: one batched reader -------------------------------------------------------------------


def test_reads_are_batched_through_one_persistent_process(make_repo, git_calls):
    repo = make_repo()
    pin = repo.commit({f"pkg/m{i:03}.py": f"value = {i}\n" for i in range(200)}, "pin")
    later = repo.commit({f"pkg/m{i:03}.py": f"value = {i + 1}\n" for i in range(0, 200, 2)}, "edit half")
    git_calls.clear()
    with GitStore.open(repo.path) as store:
        texts = []
        for rev in (pin, later):
            snap = store.snapshot(rev)
            texts += [snap.read(path).text for path in snap.files()]
        after_first_pass = len(git_calls.commands())
        for rev in (pin, later):
            snap = store.snapshot(rev)
            texts += [snap.read(path).text for path in snap.files()]
        commands = git_calls.commands()
    assert len(texts) == 800 and texts[1] == "value = 1\n" and texts[200] == "value = 1\n"
    # open (rev-parse) + 2 resolves + 2 tree listings + one cat-file --batch
    assert sum("cat-file --batch" in c for c in commands) == 1
    assert len(commands) <= 6, commands
    assert len(commands) == after_first_pass  # the second pass is served from caches


def test_blob_cache_is_bounded_by_total_bytes():
    cache = BlobCache(max_bytes=1000)
    for i in range(50):
        cache.put(f"{i:040x}", TextFile(f"f{i}", f"{i:040x}", "text", text="x" * 100, size=100))
    assert cache.total_bytes <= 1000
    assert cache.get(f"{49:040x}") is not None and cache.get(f"{0:040x}") is None
    cache.put("big", TextFile("big", "big", "text", text="x" * 5000, size=5000))
    assert cache.get("big") is None  # larger than the whole budget: never cached


def test_store_cache_budget_holds_while_reading_many_files(make_repo):
    repo = make_repo()
    pin = repo.commit({f"f{i}.txt": f"{i}\n" * 200 for i in range(60)}, "pin")
    with GitStore.open(repo.path, cache_bytes=20_000) as store:
        snap = store.snapshot(pin)
        for path in snap.files():
            assert snap.read(path).text.startswith(path[1:-4])
        assert store.blobs.total_bytes <= 20_000
        assert 0 < len(store.blobs) < 60


def test_close_ends_the_reader_and_the_store_still_works(history):
    repo, pin, _ = history
    store = GitStore.open(repo.path)
    assert store.snapshot(pin).read("README.md").text == "hi\n"
    store.close()
    assert store.snapshot(pin).read("src/app.py").text == "x = 1\n"
    store.close()


def test_opening_is_cheap(history, git_calls):
    repo, _, _ = history
    git_calls.clear()
    GitStore.open(repo.path).close()
    assert len(git_calls.commands()) == 1


def test_outer_git_environment_does_not_redirect_the_store(history, make_repo, monkeypatch):
    repo, pin, _ = history
    other = make_repo("other")
    other.commit({"README.md": "other repository\n"}, "other")
    monkeypatch.setenv("GIT_DIR", str(other.path / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other.path / ".git" / "index"))
    with GitStore.open(repo.path) as store:
        assert store.snapshot(pin).read("README.md").text == "hi\n"
        with store.worktree(pin) as tree:
            assert (tree / "README.md").read_text() == "hi\n"


# -- properties -------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", ".", "/", "..", ".git", ".GIT", "\\", "C:", " "]), max_size=12).map("".join))
def test_normalized_paths_stay_inside_the_repository(raw):
    clean, reason = normalize_path(raw)
    assert (clean is None) != (reason is None)
    if clean is not None:
        parts = clean.split("/") if clean else []
        assert not clean.startswith("/")
        assert "\\" not in clean and not (parts and parts[0][1:] == ":")
        assert all(part not in ("", ".", "..") and part.casefold() != ".git" for part in parts)
        assert normalize_path(clean) == (clean, None)


def test_prefetch_reads_ahead_within_half_the_blob_cache(make_repo):
    repo = make_repo("target")
    files = {f"pkg/m{i}.py": f"VALUE_{i} = {i}\n" + "x" * 1000 + "\n" for i in range(6)}
    sha = repo.commit({**files, "pkg/sub/keep.txt": "kept\n"}, "files")
    store = GitStore.open(repo.path, cache_bytes=7000)  # half of it holds three of the files
    try:
        snapshot = store.snapshot(sha)
        snapshot.prefetch(["pkg/missing.py", "pkg/sub", *sorted(files)])
        cached = [path for path in sorted(files) if store.blobs.get(snapshot.oid(path)) is not None]
        assert cached == ["pkg/m0.py", "pkg/m1.py", "pkg/m2.py"]
        assert snapshot.read("pkg/m1.py").text.startswith("VALUE_1 = 1")
    finally:
        store.close()


def test_word_search_split_over_several_patterns_and_processes(make_repo, monkeypatch):
    """However many words, each -e alternation and each git grep stays within
    the kernel's argument limits; the answer does not depend on the split."""
    from pytest_memreport.gitstore import grep

    repo = make_repo("target")
    names = [f"name_{i:03d}" for i in range(40)]
    sha = repo.commit({"a.py": " ".join(names[:20]) + "\n", "b.py": " ".join(names[10:]) + "\nother_name\n"}, "w")
    store = GitStore.open(repo.path)
    try:
        whole = store.snapshot(sha).files_with_words(names + ["missing_name"])
        monkeypatch.setattr(grep, "_GREP_ALTERNATION_CHARS", 30)  # three words per -e
        monkeypatch.setattr(grep, "_GREP_PROCESS_CHARS", 60)  # a few -e per git grep
        chunks = list(grep._word_chunks(sorted(names)))
        assert len(chunks) > 3 and all(len(alternation) <= 30 for chunk in chunks for alternation in chunk)
        assert [w for chunk in chunks for alternation in chunk for w in alternation.split("|")] == sorted(names)
        split = store.snapshot(sha).files_with_words(names + ["missing_name"])
    finally:
        store.close()
    assert split == whole
    assert whole["name_005"] == {"a.py"} and whole["name_015"] == {"a.py", "b.py"}
    assert whole["name_035"] == {"b.py"} and whole["missing_name"] == set()


def test_word_search_reads_paths_with_newlines(make_repo):
    repo = make_repo("target")
    sha = repo.commit({"odd\nname.py": "load_entry = 1\nload_entry()\n", "plain.py": "load_entry\n"}, "odd")
    store = GitStore.open(repo.path)
    try:
        assert store.snapshot(sha).files_with_words(["load_entry"]) == {"load_entry": {"odd\nname.py", "plain.py"}}
    finally:
        store.close()



def test_word_search_names_each_file_once_and_reads_the_same(make_repo):
    """The headed form (each file's name once, above its words) answers as the form
    naming the file on every match: for unquoted unusual names too (git quotes a
    path with a non-ASCII letter or a double quote unless told not to)."""
    from pytest_memreport.gitstore import grep

    repo = make_repo("target")
    files = {
        "café/naïve.py": "load_entry(1)\nload_entry(2)\nscan_quota\n",
        'q"uote d.py': "scan_quota load_entry\n",
        "plain.py": "nothing_here\n",
        "-dash.py": "scan_quota\n",
    }
    sha = repo.commit(files, "odd names")
    store = GitStore.open(repo.path)
    try:
        snapshot = store.snapshot(sha)
        words = ["load_entry", "scan_quota", "absent_word"]
        headed = grep.grep_words(snapshot._runner, words, snapshot._grep_scope(), headed=True)
        paired = grep.grep_words(snapshot._runner, words, snapshot._grep_scope(), headed=False)
        assert snapshot.files_with_words(words) == headed
    finally:
        store.close()
    assert headed == paired == {
        "load_entry": {"café/naïve.py", 'q"uote d.py'},
        "scan_quota": {"café/naïve.py", 'q"uote d.py', "-dash.py"},
        "absent_word": set(),
    }


#: lines whose characters mean something to a regular expression, or to git's options
REGEX_LINES = [
    "    result = table[key](*args) + {x|y}$^.",
    r"    pattern = re.compile(r'\d+\.\d*|\\n?')",
    "-e --not-an-option (a line starting like one)",
    "    return a|b || c && d ^ e",
]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(".^$*+?()[]{}|\\-ab ="), min_size=1, max_size=12),
                min_size=1, max_size=6, unique=True))
def test_files_with_lines_match_each_line_as_written(tmp_path_factory, extra):
    """One search for many lines, each matched as the plain text it is: the file holding a
    line is found for it, and a line no file holds (one character off) finds nothing."""
    from repo_builder import RepoBuilder

    repo = RepoBuilder(tmp_path_factory.mktemp("lines") / "target")
    lines = [line for line in [*REGEX_LINES, *(f"  {e}  " for e in extra)] if line.strip()]
    files = {f"f{i}.py": f"before\n{line}\nafter\n" for i, line in enumerate(lines)}
    sha = repo.commit({**files, "other.py": "nothing here\n"}, "pin")
    snapshot = GitStore.open(repo.path).snapshot(sha)
    found = snapshot.files_with_lines([*lines, "    result = table[key](*args) + {x|y}$^!"])
    for i, line in enumerate(lines):
        assert f"f{i}.py" in found[line], line
        assert "other.py" not in found[line]
    assert found["    result = table[key](*args) + {x|y}$^!"] == set()
