"""Interrupted runs, as users interrupt them: pytest as a subprocess, signalled.

* SIGTERM or SIGINT while an observation runs removes the temporary worktree
  (``git worktree list``, its admin entry and the temporary folder) and the
  command's process group;
* SIGKILL while ``--memreport-write`` writes leaves the old report or the new
  one, never a mix, and the next run cleans up and writes it.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

STORE_PY = "def forget(entries, key):\n    return [e for e in entries if e != key]\n"


def report_text(pin: str) -> str:
    return textwrap.dedent(
        f"""\
        Interrupted report

        Boundary and evidence

        SRC-1 commit {pin} is the boundary.

        Routes

        MEM-RTE-forget

        Label: Forget

        return [e for e in entries if e != key] --- store.py

          • Selection predicate: the exact key.
          • implementation conclusion status: afforded
          • operation conclusion status: uninspected
        """
    )


def claims_text(command: str) -> str:
    return textwrap.dedent(
        f"""\
        schema: memreport-claims/1
        records:
          MEM-RTE-forget:
            observe:
              - run: {command!r}
                timeout: 300
        """
    )


@pytest.fixture
def setup(make_repo, tmp_path):
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY}, "store")
    work = tmp_path / "work"
    work.mkdir()
    temp = tmp_path / "temp"  # the run's TMPDIR: whatever it leaves behind shows here
    temp.mkdir()
    report = work / "report.md"
    report.write_text(report_text(pin), encoding="utf-8")
    return repo, pin, work, temp, report


def start_pytest(work: Path, temp: Path, repo: Path, *args: str) -> subprocess.Popen:
    env = dict(os.environ, TMPDIR=str(temp))
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--memreport", "report.md",
         f"--memreport-repo={repo}", *args],
        cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        # A shell started in the background ignores SIGINT; the run under test must not.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def wait_for(condition, timeout: float = 60.0, step: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return False


def git_worktrees(repo: Path) -> str:
    return subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie no longer runs; only a live process counts.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
    except (OSError, IndexError):
        return True
    return state != "Z"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_during_an_observation_removes_the_worktree(setup, sig):
    repo, pin, work, temp, report = setup
    pid_file = temp.parent / "observation.pid"
    (work / "report.claims.yaml").write_text(
        claims_text(f"echo $$ > {pid_file}; exec sleep 60"), encoding="utf-8")
    before = repo.state()
    proc = start_pytest(work, temp, repo.path, "--memreport-run")
    try:
        assert wait_for(lambda: pid_file.exists() and pid_file.read_text().strip()), "the observation never started"
        worktrees = git_worktrees(repo.path)
        assert worktrees.count("worktree ") == 2 and "detached" in worktrees
        observed_pid = int(pid_file.read_text())
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    text = out.decode("utf-8", "replace")
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, text[-2000:]
    assert git_worktrees(repo.path).count("worktree ") == 1
    assert not (repo.path / ".git" / "worktrees").exists()
    assert os.listdir(temp) == []
    assert wait_for(lambda: not alive(observed_pid), timeout=60), "the observed command survived"
    assert repo.state() == before
    assert report.read_text(encoding="utf-8") == report_text(pin)


def kill_at(point: str) -> str:
    """A conftest.py that SIGKILLs the run at one point of the write-back."""
    return textwrap.dedent(
        f"""\
        import os
        import signal

        from pytest_memreport.outputs import writeback

        _calls = {{"read": 0}}
        _read_unchanged = writeback._read_unchanged
        _fsync_folder = writeback._fsync_folder


        def _read_then_maybe_die(target, original):
            _read_unchanged(target, original)
            _calls["read"] += 1
            # The second check runs once the temporary file is complete, before the rename.
            if {point!r} == "before-rename" and _calls["read"] == 2:
                os.kill(os.getpid(), signal.SIGKILL)


        def _fsync_then_die(folder):
            _fsync_folder(folder)
            if {point!r} == "after-rename":
                os.kill(os.getpid(), signal.SIGKILL)


        writeback._read_unchanged = _read_then_maybe_die
        writeback._fsync_folder = _fsync_then_die
        """
    )


@pytest.mark.parametrize(("point", "survivor"), [("before-rename", "old"), ("after-rename", "new")])
def test_sigkill_during_write_leaves_old_or_new_report(setup, point, survivor):
    repo, pin, work, temp, report = setup
    (work / "report.claims.yaml").write_text(claims_text("true"), encoding="utf-8")
    (work / "conftest.py").write_text(kill_at(point), encoding="utf-8")
    old = report.read_bytes()
    proc = start_pytest(work, temp, repo.path, "--memreport-run", "--memreport-write")
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL, out.decode("utf-8", "replace")[-2000:]
    now = report.read_bytes()
    if survivor == "old":
        assert now == old
        # The killed writer's complete temporary file is all that is left over.
        assert [p.name for p in work.iterdir() if p.name.startswith(".report.md.")] != []
    else:
        text = now.decode("utf-8")
        assert "  • operation conclusion status: observed\n  • operation observation: `true` passed at" in text
        assert text.replace("status: observed", "status: uninspected").startswith(report_text(pin).rstrip("\n"))
    # The next run removes the killed run's temporary file and converges on the new report.
    (work / "conftest.py").unlink()
    again = start_pytest(work, temp, repo.path, "--memreport-run", "--memreport-write")
    text = again.communicate(timeout=120)[0].decode("utf-8", "replace")
    assert again.returncode == 0, text[-2000:]
    final = report.read_text(encoding="utf-8")
    assert "  • operation conclusion status: observed\n" in final
    assert final.count("operation observation:") == 1
    assert [p.name for p in work.iterdir() if p.name.startswith(".report.md.")] == []
    assert git_worktrees(repo.path).count("worktree ") == 1


def test_sigkill_at_random_moments_never_leaves_a_mixed_report(setup):
    repo, pin, work, temp, report = setup
    (work / "report.claims.yaml").write_text(claims_text("true"), encoding="utf-8")
    # Enough report for the write to take a moment: 20,000 lines of notes after the record.
    notes = "".join(f"Note {i}: nothing to check here.\n" for i in range(20_000))
    report.write_text(report_text(pin) + "\n" + notes, encoding="utf-8")
    old = report.read_bytes()
    probe = start_pytest(work, temp, repo.path, "--memreport-run", "--memreport-write")
    began = time.monotonic()
    probe.communicate(timeout=120)
    duration = time.monotonic() - began
    assert probe.returncode == 0
    new = report.read_bytes()
    assert new != old
    rng = random.Random(20240229)
    for _ in range(4):
        report.write_bytes(old)
        proc = start_pytest(work, temp, repo.path, "--memreport-run", "--memreport-write")
        time.sleep(rng.uniform(0.5, 1.0) * duration)
        proc.kill()
        proc.communicate(timeout=60)
        assert report.read_bytes() in (old, new)


def test_ctrl_c_while_the_pins_are_checked_interrupts_the_run(pytester, make_repo):
    # Ctrl-C inside the batch of pin checks reaches pytest as itself: the run says it was
    # interrupted (exit 2), not an internal error raised while the batch cleaned up after it.
    # (The interrupt is raised where the batch runs, by a conftest of the run's own.)
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY}, "initial")
    (pytester.path / "report.md").write_text(report_text(pin), encoding="utf-8")
    pytester.makeconftest("""
        from pytest_memreport.checks import atpin

        def interrupted(*args, **kwargs):
            raise KeyboardInterrupt

        atpin.check_batch = interrupted
        """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--memreport", "report.md",
                                           f"--memreport-repo={repo.path}")
    output = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.INTERRUPTED, output
    assert "KeyboardInterrupt" in output and "INTERNALERROR" not in output
