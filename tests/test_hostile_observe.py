"""Hostile observations: the run is inside a git hook, the target's config
names filters, the command prints without end, detaches a daemon, or the run
is interrupted while the worktree is being checked out. The target is left as
it was and nothing the observation started outlives the run."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pytest_memreport.checks.observe import PASSED, run_observation
from pytest_memreport.dialects.claims import Observation
from pytest_memreport.gitstore import GitStore
from test_interruptions import claims_text, report_text, setup, start_pytest  # noqa: F401 - setup is a fixture

QUIET_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def observation(run, *, timeout=60.0, env=None, record="MEM-OBJ-store"):
    return Observation(run, ".", timeout, {**QUIET_ENV, **(env or {})}, "operation", False, "claims.yaml", 7, 0,
                       record)


@pytest.fixture
def target(make_repo):
    repo = make_repo("target")
    pin = repo.commit({"store.py": "LIMIT = 3\n", "data.bin": "payload\n"}, "store")
    return repo, pin


@pytest.fixture
def store(target):
    repo, _ = target
    opened = GitStore.open(repo.path)
    yield opened
    opened.close()


def test_hook_variables_do_not_point_the_observation_at_the_target(target, store, monkeypatch):
    """As inside a pre-commit hook: GIT_DIR and GIT_INDEX_FILE name the target's real ones."""
    repo, pin = target
    monkeypatch.setenv("GIT_DIR", str(repo.path / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(repo.path / ".git" / "index"))
    monkeypatch.setenv("GIT_WORK_TREE", str(repo.path))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(repo.path / ".git" / "objects"))
    monkeypatch.setenv("GIT_COMMON_DIR", str(repo.path / ".git"))
    before = repo.state()
    result = run_observation(
        observation("env | grep '^GIT_' ; echo staged > new.txt && git add new.txt && git status --porcelain"),
        store, pin)
    assert result.status == PASSED, result.message + result.output_tail
    assert "GIT_DIR" not in result.output_tail and "GIT_INDEX_FILE" not in result.output_tail
    assert "A  new.txt" in result.output_tail  # staged into the worktree's own index
    # Only the blob `git add` wrote into the shared object store is new (SECURITY.md says so).
    assert without_objects(repo.state()) == without_objects(before)


def without_objects(state: dict) -> dict:
    files = {k: v for k, v in state["files"].items() if not k.startswith(".git/objects/")}
    return {**state, "files": files}


@pytest.mark.parametrize("kind", ["smudge", "process"])
def test_checkout_runs_no_filter_of_the_target(target, store, tmp_path, kind):
    repo, _ = target
    witness = tmp_path / "filter-ran"
    pin = repo.commit({".gitattributes": "*.bin filter=evil\n"}, "attributes")
    with repo.repo.config_writer() as cfg:
        cfg.set_value('filter "evil"', kind, f"sh -c 'touch {witness}; cat'")
        cfg.set_value('filter "evil"', "required", "true")
        cfg.set_value('filter "lfs"', "smudge", f"sh -c 'touch {witness}; cat'")
    before = files_and_worktrees(repo)  # (git status would run the clean filter itself)
    result = run_observation(observation("cat data.bin"), store, pin)
    assert result.status == PASSED, result.message + result.output_tail
    assert "payload" in result.output_tail  # checked out as stored, unfiltered
    assert not witness.exists()
    assert files_and_worktrees(repo) == before


def files_and_worktrees(repo):
    files = {str(p.relative_to(repo.path)): p.read_bytes() for p in repo.path.rglob("*") if p.is_file()}
    return files, repo.repo.git.worktree("list", "--porcelain"), repo.repo.git.for_each_ref()


def test_checkout_runs_no_filter_defined_only_for_worktrees(target, store, tmp_path):
    """A driver included only where the git dir is a worktree's is still switched off."""
    repo, _ = target
    witness = tmp_path / "filter-ran"
    pin = repo.commit({".gitattributes": "*.bin filter=Sneaky.Name\n"}, "attributes")
    included = tmp_path / "worktrees-only.cfg"
    included.write_text(f'[filter "Sneaky.Name"]\n\tsmudge = "sh -c \'touch {witness}; cat\'"\n\trequired = true\n')
    with repo.repo.config_writer() as cfg:
        cfg.set_value('includeIf "gitdir:**/worktrees/**"', "path", str(included))
    before = files_and_worktrees(repo)
    result = run_observation(observation("cat data.bin"), store, pin)
    assert result.status == PASSED, result.message + result.output_tail
    assert not witness.exists()
    assert files_and_worktrees(repo) == before


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie no longer runs
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return True


def wait_for(condition, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


DOUBLE_FORK = (
    "import os, sys, time\n"
    "if os.fork(): sys.exit(0)\n"
    "os.setsid()\n"
    "if os.fork(): sys.exit(0)\n"
    "open(sys.argv[1], 'w').write(str(os.getpid()))\n"
    "time.sleep(300)\n"
)


@pytest.mark.parametrize("how", ["setsid", "double-fork"])
def test_a_detached_daemon_does_not_outlive_the_observation(target, store, tmp_path, how):
    repo, pin = target
    pid_file = tmp_path / "daemon.pid"
    if how == "setsid":
        start = f"setsid sh -c 'echo $$ > {pid_file}; exec sleep 300' </dev/null >/dev/null 2>&1 &"
    else:
        script = tmp_path / "daemon.py"
        script.write_text(DOUBLE_FORK)
        start = f"{sys.executable} {script} {pid_file} </dev/null >/dev/null 2>&1"
    command = f"{start}\nwhile [ ! -s {pid_file} ]; do sleep 0.05; done; echo started"
    result = run_observation(observation(command), store, pin)
    daemon = int(pid_file.read_text())
    try:
        assert result.status == PASSED, result.message + result.output_tail
        assert wait_for(lambda: not alive(daemon), timeout=60), f"the daemon ({how}) outlived the observation"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(daemon, signal.SIGKILL)


FLOOD_SCRIPT = textwrap.dedent(
    """\
    import resource, sys
    from pytest_memreport.checks.observe import run_observation
    from pytest_memreport.dialects.claims import Observation
    from pytest_memreport.gitstore import GitStore

    # No file of this run may grow past 4 MiB: an output kept in a temporary
    # file would end the command with SIGXFSZ.
    resource.setrlimit(resource.RLIMIT_FSIZE, (4 << 20, 4 << 20))
    store = GitStore.open(sys.argv[1])
    # A quiet observation first: what one run costs whatever it prints (the checkout,
    # git's readers) is in the baseline, so only what the output adds is measured.
    quiet = Observation("echo quiet", ".", 120.0, {}, "operation", False, "claims.yaml", 7, 0, "MEM-OBJ-store")
    run_observation(quiet, store, sys.argv[2])
    # Then at most 32 MiB more address space than that run left: holding half of the
    # 60 MB printed fails the allocation (MemoryError), however busy the machine is.
    with open("/proc/self/status") as status:
        size = next(int(line.split()[1]) for line in status if line.startswith("VmSize:")) * 1024
    resource.setrlimit(resource.RLIMIT_AS, (size + (32 << 20), size + (32 << 20)))
    run = "head -c 60000000 /dev/zero | tr '\\\\0' x; echo; echo the-last-line"
    obs = Observation(run, ".", 120.0, {}, "operation", False, "claims.yaml", 7, 0, "MEM-OBJ-store")
    result = run_observation(obs, store, sys.argv[2])
    print(result.status, (result.output_tail.splitlines() or ['<none>'])[-1], len(result.output_tail))
    store.close()
    """
)


def test_an_endless_output_keeps_a_bounded_tail_in_bounded_memory(target, tmp_path):
    repo, pin = target
    env = dict(os.environ, TMPDIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", FLOOD_SCRIPT, str(repo.path), pin], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    status, last, size = done.stdout.split()
    assert (status, last) == (PASSED, "the-last-line")
    assert int(size) <= 64 * 1024


SHIM = textwrap.dedent(
    """\
    #!/bin/sh
    # Real git, except that after `worktree add` a helper keeps running, as a
    # slow checkout (a filter, git's own children) does.
    {git} "$@"
    status=$?
    case " $* " in
        *" worktree add "*) sleep 300 & echo "$$ $!" > {pids}; wait ;;
    esac
    exit $status
    """
)
CHECKOUT_SCRIPT = textwrap.dedent(
    """\
    import sys
    from pytest_memreport.checks.observe import Terminated, run_observation
    from pytest_memreport.dialects.claims import Observation
    from pytest_memreport.gitstore import GitStore

    store = GitStore.open(sys.argv[1])
    obs = Observation("true", ".", 60.0, {}, "operation", False, "claims.yaml", 7, 0, "MEM-OBJ-store")
    try:
        run_observation(obs, store, sys.argv[2])
    except Terminated:
        print("terminated cleanly")
        sys.exit(3)
    """
)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT], ids=lambda s: s.name)
def test_a_signal_during_the_checkout_stops_it_and_removes_the_worktree(target, tmp_path, sig):
    repo, pin = target
    shims = tmp_path / "shims"
    shims.mkdir()
    pids = tmp_path / "checkout.pids"
    shim = shims / "git"
    shim.write_text(SHIM.format(git=shutil.which("git"), pids=pids))
    shim.chmod(0o755)
    temp = tmp_path / "temp"
    temp.mkdir()
    before = repo.state()
    env = dict(os.environ, PATH=f"{shims}{os.pathsep}{os.environ['PATH']}", TMPDIR=str(temp))
    proc = subprocess.Popen([sys.executable, "-c", CHECKOUT_SCRIPT, str(repo.path), pin], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert wait_for(lambda: pids.exists() and len(pids.read_text().split()) == 2), "the checkout never started"
        assert (repo.path / ".git" / "worktrees").is_dir()
        helpers = [int(pid) for pid in pids.read_text().split()]
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 3, out
    assert "terminated cleanly" in out
    assert wait_for(lambda: not any(alive(pid) for pid in helpers), timeout=60), "the checkout's helpers survived"
    assert not (repo.path / ".git" / "worktrees").exists()
    assert os.listdir(temp) == []
    assert repo.state() == before


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGQUIT], ids=lambda s: s.name)
def test_sighup_and_sigquit_end_a_plugin_run_like_sigterm(setup, sig):
    """As test_interruptions does for SIGTERM and SIGINT: pytest as users run it, signalled."""
    repo, pin, work, temp, report = setup
    pid_file = temp.parent / "observation.pid"
    (work / "report.claims.yaml").write_text(
        claims_text(f"echo $$ > {pid_file}; exec sleep 60"), encoding="utf-8")
    before = repo.state()
    proc = start_pytest(work, temp, repo.path, "--memreport-run")
    try:
        assert wait_for(lambda: pid_file.exists() and pid_file.read_text().strip()), "the observation never started"
        observed_pid = int(pid_file.read_text())
        proc.send_signal(sig)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    text = out.decode("utf-8", "replace")
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, text[-2000:]
    assert f"terminated ({sig.name})" in text
    assert not (repo.path / ".git" / "worktrees").exists()
    assert os.listdir(temp) == []
    assert wait_for(lambda: not alive(observed_pid), timeout=60), "the observed command survived"
    assert repo.state() == before
    assert report.read_text(encoding="utf-8") == report_text(pin)
