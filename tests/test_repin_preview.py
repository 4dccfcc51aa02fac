"""``--memreport-diff`` previews a write as a unified diff that ``patch`` applies to give
exactly what ``--memreport-write`` writes; blockers are real evidence only, once each;
``--memreport-pin`` moves link-pinned evidence of the repository it names."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_repin_review import BLOB, HEADER, ENGINE_RS, moved, review_text, run  # noqa: F401 - the fixture


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """pytest as a user runs it, stdout kept as bytes."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args], cwd=cwd,
                          capture_output=True, env=env, timeout=300)


@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_the_preview_applied_with_patch_is_what_write_writes(tmp_path, moved, eol):
    if shutil.which("patch") is None:
        pytest.fail("GNU patch is needed to check the preview")
    repo, first, pin, head = moved
    preview, written = tmp_path / "preview", tmp_path / "written"
    for folder in (preview, written):
        folder.mkdir()
        # no final newline: the diff must say so for patch to reproduce it
        (folder / "widget.md").write_bytes(review_text(pin, first).rstrip("\n").replace("\n", eol).encode())
    original = (preview / "widget.md").read_bytes()
    args = ("--memreport", "widget.md", f"--memreport-repo=acme/widget={repo.path}", "--memreport-repin=HEAD")
    shown = cli(preview, *args, "--memreport-diff")
    wrote = cli(written, *args, "--memreport-write")
    assert shown.returncode == wrote.returncode == 0, shown.stdout.decode(errors="replace")
    assert (preview / "widget.md").read_bytes() == original  # the preview wrote nothing
    assert b"--- a/widget.md\n+++ b/widget.md\n" in shown.stdout
    assert b"would write widget.md: acme/widget pin" in shown.stdout
    patched = subprocess.run(["patch", "-p1", "--binary", "-s"], cwd=preview, input=shown.stdout,
                             capture_output=True, timeout=60)
    assert patched.returncode == 0, patched.stderr + patched.stdout
    assert (preview / "widget.md").read_bytes() == (written / "widget.md").read_bytes() != original


def test_the_preview_exit_code_is_that_of_the_write(pytester, moved):
    repo, first, pin, head = moved
    report = pytester.path / "widget.md"
    text = review_text(pin, first).replace("pub struct Queue;", "pub struct Queue<T>;")
    report.write_text(text, encoding="utf-8")
    shown = run(pytester, report, repo, "--memreport-diff", "--memreport-repin=HEAD")
    wrote = run(pytester, report, repo, "--memreport-write", "--memreport-repin=HEAD")
    assert shown.ret == wrote.ret == pytest.ExitCode.TESTS_FAILED
    # refused: the pin stays; what holds at the old pin (a corrected range) is still written
    assert report.read_text(encoding="utf-8") == text.replace("engine.rs#L2-L4)", "engine.rs#L8-L10)")


def test_only_real_evidence_blocks_and_each_blocker_once(pytester, moved):
    """Backticked words naming no definition are never evidence; a changed quotation and a
    deleted file are blockers, each once, at their report lines."""
    repo, first, pin, head = moved
    repo.commit({"crates/widget/src/core/engine.rs": HEADER + ENGINE_RS.replace("drain_ready()", "drain_all()")},
                "rename the drain")
    repo.delete("docs/tuning.md")
    repo.commit(message="drop the tuning notes")
    report = pytester.path / "widget.md"
    report.write_text(review_text(pin, first), encoding="utf-8")
    result = run(pytester, report, repo, "--memreport-write", "--memreport-repin=HEAD")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if "re-pin to HEAD refused" in line)
    blockers = []
    for line in lines[start + 1:]:
        if not line.startswith("  "):
            break
        blockers.append(line.strip())
    assert blockers == [
        "widget.md:13: lines src/core/engine.rs:8-10 is changed at " + repo.repo.head.commit.hexsha[:12],
        "widget.md:16: path docs/tuning.md is deleted at " + repo.repo.head.commit.hexsha[:12],
        "widget.md:22: quote src/core/engine.rs:2-4 is changed at " + repo.repo.head.commit.hexsha[:12],
    ]
    assert not any("retry_budget" in b or "Engine::new" in b or "not checked" in b for b in blockers)


def test_memreport_pin_moves_the_links_at_the_reviewed_commit(pytester, moved):
    """The review's links are at a commit missing from the clone; --memreport-pin names the
    commit to check them at, and a re-pin writes from there. A link at another commit on
    purpose keeps its own."""
    repo, first, pin, head = moved
    gone = "0123456789abcdef0123456789abcdef01234567"
    report = pytester.path / "widget.md"
    text = review_text(pin, first).replace(pin, gone).replace(pin[:12], gone[:12]).replace(pin[:10], gone[:10])
    report.write_text(text, encoding="utf-8")
    checked = run(pytester, report, repo, f"--memreport-pin=acme/widget={pin}")
    # Only the quotation cited at the wrong lines fails (the write below corrects its anchor).
    assert checked.parseoutcomes()["failed"] == 1
    assert "quotation of src/core/engine.rs:2-4 outside its cited lines" in checked.stdout.str()
    assert f"path@L13:src/core/engine.rs@{gone[:12]} PASSED" not in checked.stdout.str()
    result = run(pytester, report, repo, f"--memreport-pin=acme/widget={pin}", "--memreport-write",
                 "--memreport-repin=HEAD")
    assert result.ret == 0, result.stdout.str()
    new = report.read_text(encoding="utf-8")
    # only the fork's link (another repository) still names the old commit
    assert new.count(gone) == 1 and f"github.com/other/widget/blob/{gone}/" in new
    assert gone[:10] not in new.replace(gone, "")
    assert f"{BLOB}/{head}/crates/widget/src/core/engine.rs#L11-L13" in new
    assert f"{BLOB}/{first}/src/core/limits.rs#L1-L2" in new
    again = run(pytester, report, repo)
    assert again.ret == 0, again.stdout.str()
