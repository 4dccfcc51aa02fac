"""Worktree-mode reads stay inside the repository: a folder swapped for a
symlink to the outside between the check and the read leads nowhere."""

from __future__ import annotations

import os
import shutil

from pytest_memreport.gitstore import GitStore


def test_a_folder_swapped_for_a_symlink_after_the_check_is_not_followed(make_repo, tmp_path):
    repo = make_repo("target")
    repo.commit({"pkg/store.py": "LIMIT = 200\n"}, "store")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "store.py").write_text("SECRET = 'outside the repository'\n")
    store = GitStore.open(repo.path)
    try:
        snapshot = store.snapshot("worktree")
        clean, found, reason = snapshot._locate("pkg/store.py")  # the check: a folder, then a file
        assert reason is None and found is not None
        # The swap, in the window between that check and the read.
        shutil.rmtree(repo.path / "pkg")
        os.symlink(outside, repo.path / "pkg")
        assert snapshot._read_bytes(clean, found) is None
        # Looked up afresh, the symlink is refused with its reason.
        assert snapshot.read("pkg/store.py") is None
        assert snapshot.refuse_reason("pkg/store.py") == "goes through a symlink at pkg"
    finally:
        store.close()


def test_reads_inside_still_work(make_repo):
    repo = make_repo("target")
    repo.commit({"pkg/deep/store.py": "LIMIT = 200\n"}, "store")
    (repo.path / "pkg" / "deep" / "store.py").write_text("LIMIT = 300\n")  # the working tree, not the commit
    store = GitStore.open(repo.path)
    try:
        assert store.snapshot("worktree").read("pkg/deep/store.py").text == "LIMIT = 300\n"
    finally:
        store.close()
