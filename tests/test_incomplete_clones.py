"""Incomplete clones: a mirror missing a blob, a partial clone. What has blobs is classified; nothing is fetched.

Real repositories: one whose blob object file is deleted (git's own diff -M
then aborts), and ``git clone --filter=blob:none`` clones of a local origin,
one with the origin still there (a lazy fetch would succeed, so its absence is
observable) and one with the origin removed.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess

import pytest

from pytest_memreport.checks import drift, verify
from pytest_memreport.gitstore import GitStore
from pytest_memreport.model import Evidence, EvidenceKind

LOADER = "".join(f"def step_{i}(state):\n    return state + {i}\n\n\n" for i in range(12))
QUOTE = "def step_7(state): return state + 7"


def git(cwd, *args, env=None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}).stdout


def noise(seed: int, size: int = 6000) -> bytes:
    rng = random.Random(seed)
    return bytes(rng.randrange(256) for _ in range(size))


def quote(path: str, text: str = QUOTE) -> Evidence:
    return Evidence(EvidenceKind.QUOTE, path, line=5, end_line=5, text=text)


def cited(path: str) -> Evidence:
    return Evidence(EvidenceKind.PATH, path, line=6, end_line=6)


def missing_objects(path) -> set[str]:
    out = git(path, "rev-list", "--objects", "--missing=print", "--all", env={"GIT_NO_LAZY_FETCH": "1"})
    return {line[1:] for line in out.splitlines() if line.startswith("?")}


@pytest.fixture
def mirror(make_repo):
    """A repository whose pin has a binary blob that was renamed and edited since,
    then lost (its loose object deleted), next to a Python file renamed and edited."""
    repo = make_repo()
    pin = repo.commit({"src/loader.py": LOADER, "media/demo.bin": noise(1), "README.md": "demo\n"}, "pin")
    repo.move("src/loader.py", "src/steps.py")
    repo.move("media/demo.bin", "media/intro.bin")
    repo.commit({"src/steps.py": "# steps\n" + LOADER, "media/intro.bin": noise(1) + b"tail"}, "rename both")
    repo.commit({"README.md": "demo, documented\n"}, "readme")
    lost = git(repo.path, "rev-parse", f"{pin}:media/demo.bin").strip()
    os.remove(repo.path / ".git" / "objects" / lost[:2] / lost[2:])
    return repo, pin, lost


def test_a_lost_blob_makes_gits_rename_detection_abort_by_itself(mirror):
    repo, pin, _ = mirror
    result = subprocess.run(["git", "diff-tree", "-r", "-M", pin, "HEAD"], cwd=repo.path, capture_output=True)
    assert result.returncode != 0 and b"unable to read" in result.stderr


def test_a_mirror_missing_a_blob_classifies_everything_it_has(mirror):
    repo, pin, lost = mirror
    with GitStore.open(repo.path) as store:
        moved = classify(store, quote("src/loader.py"), pin)
        readme = classify(store, cited("README.md"), pin)
        lost_file = classify(store, cited("media/demo.bin"), pin)

        assert (moved.status, moved.path) == (drift.MOVED, "src/steps.py")
        assert readme.status == drift.MODIFIED and (readme.line_counts.added, readme.line_counts.removed) == (1, 1)
        # Not "deleted": git cannot tell where a file went without its blob.
        assert lost_file.status == drift.UNREADABLE and "lacks its blob" in lost_file.message
        assert store.missing_blobs(pin, "HEAD") == {lost}
        assert store.skipped_paths == {"media/demo.bin"}


def classify(store, evidence, pin_sha, against="HEAD"):
    pin = verify.check_at_pin(evidence, store.snapshot(pin_sha))
    assert pin.ok, pin.message
    result = drift.classify(evidence, pin, store, pin_sha, store.snapshot(against))
    json.dumps(result.as_json())
    return result


def test_the_plugin_warns_once_per_clone_and_fails_only_what_needs_the_lost_blob(pytester, mirror):
    repo, pin, lost = mirror
    report = pytester.path / "report.txt"
    report.write_text(
        f"Loader report\n\nBoundary and evidence\n\nThe loader at SRC-1 commit {pin}.\n\n"
        f"Operative objects\n\nMEM-OBJ-loader\n\nLabel: Loader\n\n"
        f"Steps add. SRC-1: src/loader.py, README.md, media/demo.bin.\n\n{QUOTE} --- src/loader.py\n",
        encoding="utf-8")
    out = pytester.path / "out.json"

    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-rA",
                                "--memreport-json", str(out))

    text = result.stdout.str()
    assert "Traceback" not in text and "unable to read" not in text
    assert text.count(f"lacks 1 object of the checked trees (e.g. {lost[:12]})") == 1
    assert "fetch --refetch" in text
    data = json.loads(out.read_text())
    statuses = {(e["kind"], e["path"]): e.get("at_against", {}).get("status")
                for r in data["reports"][0]["records"] for e in r["evidence"]}
    assert statuses == {("path", "src/loader.py"): "moved", ("quote", "src/loader.py"): "moved",
                        ("path", "README.md"): "modified", ("path", "media/demo.bin"): "unreadable"}
    result.assert_outcomes(failed=1, passed=9)


def partial_clone(tmp_path, make_repo, keep_origin: bool):
    origin = make_repo("origin")
    pin = origin.commit({"src/loader.py": LOADER, "docs/guide.md": "guide\n", "data.bin": noise(2)}, "pin")
    origin.commit({"src/loader.py": LOADER + "def extra(state):\n    return state\n", "data.bin": noise(3)}, "edit")
    git(origin.path, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "partial"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{origin.path}", str(clone))
    if not keep_origin:
        shutil.rmtree(origin.path)
    return clone, pin


@pytest.mark.parametrize("keep_origin", [True, False], ids=["origin-present", "origin-removed"])
def test_a_partial_clone_checks_what_it_has_and_never_fetches(tmp_path, make_repo, keep_origin):
    clone, pin = partial_clone(tmp_path, make_repo, keep_origin)
    absent = missing_objects(clone)
    assert absent  # the pin's versions of changed files were never fetched

    with GitStore.open(clone) as store:
        assert store.is_partial
        # Unchanged since the pin: its blob came with the checkout, so it is checked.
        guide = verify.check_at_pin(Evidence(EvidenceKind.QUOTE, "docs/guide.md", 3, 3, text="guide"),
                                    store.snapshot(pin))
        assert guide.ok
        assert drift.classify(Evidence(EvidenceKind.QUOTE, "docs/guide.md", 3, 3, text="guide"), guide, store,
                              pin, store.snapshot("HEAD")).status == drift.UNCHANGED
        # Its pin version is missing: unreadable, with the cause, and never fetched.
        with pytest.raises(Exception) as caught:
            verify.check_at_pin(quote("src/loader.py"), store.snapshot(pin))
        assert "cannot read src/loader.py" in str(caught.value)
        assert store.missing_blobs(pin, "HEAD") >= {git(clone, "rev-parse", f"{pin}:src/loader.py").strip()}
        store.renames(pin, "HEAD")
        store.first_parent_log(pin, "HEAD")

    assert missing_objects(clone) == absent  # nothing was fetched, even with the origin reachable


def test_a_partial_clone_run_as_users_run_it(pytester, tmp_path, make_repo):
    clone, pin = partial_clone(tmp_path, make_repo, keep_origin=True)
    absent = missing_objects(clone)
    report = pytester.path / "report.txt"
    report.write_text(
        f"Loader report\n\nBoundary and evidence\n\nThe loader at SRC-1 commit {pin}.\n\n"
        f"Operative objects\n\nMEM-OBJ-loader\n\nLabel: Loader\n\n"
        f"Steps add. SRC-1: docs/guide.md.\n\nguide --- docs/guide.md\n\n{QUOTE} --- src/loader.py\n",
        encoding="utf-8")

    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={clone}", "-rA")

    text = result.stdout.str()
    assert "Traceback" not in text
    assert "is a partial clone lacking" in text and "clone again without --filter" in text
    assert "quotation of src/loader.py unreadable" in text
    assert missing_objects(clone) == absent
