"""Observations run the target's own tests in a temporary worktree at the pin; promotion rules."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import git
import pytest

from pytest_memreport.dialects.claims import Observation
from pytest_memreport.gitstore import GitStore
from pytest_memreport.model import LineRange, Record, Status
from pytest_memreport.checks.observe import (
    ERROR,
    FAILED,
    NOT_FOUND,
    OBSERVATION_ENV,
    PASSED,
    TIMEOUT,
    ObservationResult,
    Promotion,
    PromotionError,
    Regression,
    decide,
    evidence_text,
    run_observation,
)
from pytest_memreport.checks.verify import FOUND, MISSING, PinResult

STORE_PY = textwrap.dedent(
    '''\
    """A tiny key-value store: the target system of these tests."""


    def put(store, key, value):
        store[key] = value
        return len(store)


    def get(store, key, default=None):
        return store.get(key, default)


    def unused(value):
        # nobody calls this: the tests never reach it
        doubled = value * 2
        return doubled


    # A comment block that is not code at all.
    # It cannot be executed.
    '''
)
TEST_STORE_PY = textwrap.dedent(
    """\
    import store


    def test_put_then_get():
        data = {}
        assert store.put(data, "a", 1) == 1
        assert store.get(data, "a") == 1


    def test_get_missing():
        assert store.get({}, "b", 7) == 7
    """
)
TEST_BROKEN_PY = textwrap.dedent(
    """\
    def test_broken():
        assert 1 + 1 == 3, "broken on purpose"
    """
)
# pythonpath makes ``import store`` work for every spelling of the command;
# -p no:cacheprovider keeps the run from writing a cache we would not read.
PYTEST_INI = "[pytest]\npythonpath = .\naddopts = -p no:cacheprovider\n"
#: the target's test runs need nothing from the plugins installed here
QUIET_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}

PUT_LINES = LineRange(4, 6)  # def put ... return len(store)
UNUSED_LINES = LineRange(13, 16)
COMMENT_LINES = LineRange(19, 20)


def observation(run, *, cwd=".", timeout=60.0, env=None, axis="operation", covers=False, record="MEM-OBJ-store"):
    return Observation(run, cwd, timeout, {**QUIET_ENV, **(env or {})}, axis, covers, "claims.yaml", 7, 0, record)


@pytest.fixture
def target(make_repo):
    """A target with a passing suite at the pin, a later commit that breaks it, and a dirty working tree."""
    repo = make_repo("target")
    pin = repo.commit(
        {"pytest.ini": PYTEST_INI, "store.py": STORE_PY, "tests/test_store.py": TEST_STORE_PY,
         "tests/test_broken.py": TEST_BROKEN_PY, "docs/notes.md": "# notes\n"},
        "store with tests",
    )
    later = repo.commit({"store.py": STORE_PY.replace("return len(store)", "return -1")}, "break put")
    # An uncommitted edit in the user's clone must not leak into the run.
    (repo.path / "tests" / "test_store.py").write_text("raise SystemExit('dirty working tree seen')\n")
    return repo, pin, later


@pytest.fixture
def store(target):
    repo, _, _ = target
    opened = GitStore.open(repo.path)
    yield opened
    opened.close()


def assert_cleaned(repo, before, result):
    """No trace left: the temporary worktree is gone and the target is as it was."""
    assert result.workdir, "the result names the worktree it ran in"
    assert not Path(result.workdir).exists()
    if Path(result.workdir).parent.name.startswith("memreport-worktree"):
        assert not Path(result.workdir).parent.exists()  # gitstore's private folder around it too
    assert repo.state() == before


def test_passing_observation_runs_at_the_pin_in_a_clean_worktree(target, store):
    repo, pin, _ = target
    before = repo.state()
    handler = signal.getsignal(signal.SIGTERM)
    result = run_observation(observation("python -m pytest -q tests/test_store.py"), store, pin)
    assert signal.getsignal(signal.SIGTERM) is handler  # our SIGTERM handler is gone again
    assert result.status == PASSED, result.output_tail
    assert result.ok and result.exit_code == 0
    assert "2 passed" in result.output_tail
    assert "dirty working tree" not in result.output_tail
    assert result.pin == pin and result.coverage is None
    assert result.command == "python -m pytest -q tests/test_store.py"
    assert len(result.date) == 10 and result.date[4] == "-"
    assert 0 < result.duration < 30
    assert result.as_json()["status"] == "passed" and result.as_json()["ok"] is True
    assert_cleaned(repo, before, result)


def test_the_same_test_fails_at_a_later_commit(target, store):
    repo, _, later = target
    before = repo.state()
    result = run_observation(observation(("python", "-m", "pytest", "-q", "tests/test_store.py")), store, later)
    assert result.status == FAILED and not result.ok
    assert result.exit_code == 1
    assert "assert -1 == 1" in result.output_tail
    assert result.command == "python -m pytest -q tests/test_store.py"
    assert "exit 1" in result.message and "\n" not in result.message
    assert result.message.startswith("claims.yaml:7: ")
    assert_cleaned(repo, before, result)


def test_failing_observation_keeps_the_output_tail(target, store):
    repo, pin, _ = target
    before = repo.state()
    result = run_observation(observation("python -m pytest -q tests/test_broken.py"), store, pin)
    assert result.status == FAILED and result.exit_code == 1
    assert "broken on purpose" in result.output_tail
    assert len(result.output_tail.splitlines()) <= 40
    assert_cleaned(repo, before, result)


def test_output_tail_is_the_last_forty_lines(target, store):
    repo, pin, _ = target
    script = "i=0; while [ $i -lt 5000 ]; do echo line $i; i=$((i+1)); done; exit 3"
    result = run_observation(observation(script), store, pin)
    assert result.status == FAILED and result.exit_code == 3
    tail = result.output_tail.splitlines()
    assert len(tail) == 40 and tail[-1] == "line 4999" and tail[0] == "line 4960"


def test_timeout_kills_the_whole_process_group_and_removes_the_worktree(target, store, tmp_path):
    repo, pin, _ = target
    before = repo.state()
    pid_file = tmp_path / "background.pid"
    # A background grandchild in the same group must die too.
    run = f"sleep 300 & echo $! > {pid_file}; sleep 300"
    started = time.monotonic()
    result = run_observation(observation(run, timeout=1), store, pin)
    elapsed = time.monotonic() - started
    assert result.status == TIMEOUT and not result.ok and result.exit_code is None
    assert elapsed < 120  # not kept waiting for the 300 s sleeps, however busy the machine
    assert "within 1 s" in result.message and "killed" in result.message
    background = int(pid_file.read_text())
    assert not _alive(background)
    assert_cleaned(repo, before, result)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers; it is dead for our purposes
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "zombie" not in status.read_text()


@pytest.mark.parametrize("run", ["no-such-command-memreport --flag", ("no-such-command-memreport", "--flag")])
def test_command_not_found(target, store, run):
    repo, pin, _ = target
    before = repo.state()
    result = run_observation(observation(run), store, pin)
    assert result.status == NOT_FOUND and not result.ok
    assert "command not found" in result.message and "no-such-command-memreport" in result.message
    assert "\n" not in result.message
    if result.workdir:
        assert not Path(result.workdir).exists()
    assert repo.state() == before


def test_environment_and_cwd(target, store):
    repo, pin, _ = target
    run = f'test "$MARK" = yes && test "${OBSERVATION_ENV}" = MEM-OBJ-store && test -f test_store.py'
    result = run_observation(observation(run, cwd="tests", env={"MARK": "yes"}), store, pin)
    assert result.status == PASSED, result.output_tail
    wrong = run_observation(observation(run, cwd="tests", env={"MARK": "no"}), store, pin)
    assert wrong.status == FAILED


def test_outer_pytest_variables_do_not_leak_into_the_target_run(target, store, monkeypatch):
    repo, pin, _ = target
    monkeypatch.setenv("PYTEST_ADDOPTS", "--memreport=nowhere.md")
    result = run_observation(observation('test -z "$PYTEST_ADDOPTS" && test -z "$PYTEST_CURRENT_TEST"'), store, pin)
    assert result.status == PASSED, result.output_tail


@pytest.mark.parametrize(
    ("cwd", "expected"),
    [("../..", "leaves the repository"), ("/tmp", "absolute"), ("no/such/folder", "not a folder")],
)
def test_cwd_must_stay_inside_the_worktree(target, store, cwd, expected):
    repo, pin, _ = target
    before = repo.state()
    result = run_observation(observation("true", cwd=cwd), store, pin)
    assert result.status == ERROR and expected in result.message
    assert_cleaned(repo, before, result)


def test_unknown_pin_is_an_error_result_not_an_exception(target, store):
    repo, _, _ = target
    result = run_observation(observation("true"), store, "0" * 40)
    assert result.status == ERROR and "cannot check out" in result.message
    assert "\n" not in result.message


def test_bare_clone(target, tmp_path):
    repo, pin, _ = target
    bare = tmp_path / "bare.git"
    git.Repo.clone_from(repo.path, bare, bare=True)
    with GitStore.open(bare) as store:
        result = run_observation(observation("python -m pytest -q tests/test_store.py"), store, pin)
    assert result.status == PASSED, result.output_tail
    assert not Path(result.workdir).exists()
    assert not (bare / "worktrees").exists()


def test_implementation_axis_is_refused(target, store):
    repo, pin, _ = target
    result = run_observation(observation("true", axis="implementation"), store, pin)
    assert result.status == ERROR and "implementation" in result.message


# -- covers ------------------------------------------------------------------------------


def test_covers_the_quoted_lines(target, store):
    repo, pin, _ = target
    before = repo.state()
    quoted = [("store.py", PUT_LINES), ("docs/notes.md", LineRange(1, 1))]
    result = run_observation(observation("python -m pytest -q tests/test_store.py", covers=True), store, pin, quoted)
    assert result.status == PASSED and result.ok, result.message + result.output_tail
    assert result.coverage["exercised"] is True
    assert result.coverage["missed"] == []
    assert result.coverage["lines"]["store.py"] == [[4, 6]]
    assert "docs/notes.md" not in result.coverage["lines"]  # not Python: not measured
    assert "executed the quoted code" in result.message
    assert "quoted lines executed" in evidence_text(result)
    assert_cleaned(repo, before, result)


def test_covers_fails_when_the_test_does_not_reach_the_quoted_code(target, store):
    repo, pin, _ = target
    before = repo.state()
    run = ("pytest", "-q", "tests/test_store.py")  # the bare pytest spelling is rewritten too
    result = run_observation(observation(run, covers=True), store, pin, [("store.py", UNUSED_LINES)])
    assert result.status == PASSED and result.exit_code == 0
    assert not result.ok
    assert result.coverage["exercised"] is False
    assert result.coverage["missed"] == [{"path": "store.py", "lines": [13, 16]}]
    assert "the test passed without executing the quoted code" in result.message
    assert_cleaned(repo, before, result)


def test_covers_needs_every_quoted_span(target, store):
    repo, pin, _ = target
    # a def line runs at import: alone it counts only when the function was called
    quoted = [("store.py", PUT_LINES), ("store.py", UNUSED_LINES), ("store.py", COMMENT_LINES),
              ("store.py", LineRange(4, 4)), ("store.py", LineRange(13, 13))]
    result = run_observation(observation("python -m pytest -q tests/test_store.py", covers=True), store, pin, quoted)
    assert not result.ok
    assert result.coverage["missed"] == [{"path": "store.py", "lines": [13, 16]}, {"path": "store.py", "lines": [13, 13]}]
    assert result.coverage["not_executable"] == [{"path": "store.py", "lines": [19, 20]}]
    assert result.coverage["lines"]["store.py"] == [[4, 6], [4, 4]]
    assert "did not execute the quoted code at store.py:13-16, store.py:13" in result.message


def test_covers_a_span_with_comments_counts_when_any_line_ran(target, store):
    repo, pin, _ = target
    # lines 3-6: a blank line, then put(); 19-20 (comments only) alone can never run
    quoted = [("store.py", LineRange(3, 6)), ("store.py", COMMENT_LINES)]
    result = run_observation(observation("python -m pytest -q tests", covers=True), store, pin, quoted)
    assert result.status == FAILED  # tests/ includes the broken test: the command itself fails
    only_comments = run_observation(
        observation("python -m pytest -q tests/test_store.py", covers=True), store, pin, [("store.py", COMMENT_LINES)]
    )
    assert not only_comments.ok and "no quoted line is executable" in only_comments.message
    mixed = run_observation(observation("python -m pytest -q tests/test_store.py", covers=True), store, pin, quoted)
    assert mixed.ok, mixed.message


def test_covers_ignores_the_target_coverage_settings(make_repo):
    repo = make_repo("omitting")
    rc = "[run]\nomit = store.py\nparallel = true\n"
    pin = repo.commit({"pytest.ini": PYTEST_INI, ".coveragerc": rc, "store.py": STORE_PY,
                       "tests/test_store.py": TEST_STORE_PY})
    with GitStore.open(repo.path) as store:
        result = run_observation(observation("python -m pytest -q tests", covers=True), store, pin,
                                 [("store.py", PUT_LINES)])
    assert result.ok, result.message + result.output_tail


@pytest.mark.parametrize(
    ("run", "expected"),
    [("sleep 1", "needs a python or pytest command"),
     ("python -m pytest && rm -rf /", "shell syntax"),
     ("python -c 'print(1)'", "needs a python or pytest command"),
     ("X=1 pytest", "env:"),
     ("pytest $HOME", "without a shell")],
)
def test_covers_refuses_commands_it_cannot_measure(target, store, run, expected):
    repo, pin, _ = target
    before = repo.state()
    result = run_observation(observation(run, covers=True), store, pin, [("store.py", PUT_LINES)])
    assert result.status == ERROR and expected in result.message and not result.ok
    assert result.workdir == ""  # refused before any checkout
    assert repo.state() == before


# -- SIGTERM -------------------------------------------------------------------------

SIGTERM_SCRIPT = """
import sys
from pytest_memreport.dialects.claims import Observation
from pytest_memreport.gitstore import GitStore
from pytest_memreport.checks.observe import Terminated, run_observation
store = GitStore.open(sys.argv[1])
obs = Observation("echo started; sleep 30", ".", 60.0, {}, "operation", False, "c.yaml", 1, 0, "MEM-OBJ-x")
try:
    run_observation(obs, store, sys.argv[2])
except Terminated:
    print("terminated cleanly", flush=True)
    sys.exit(3)
"""


def test_sigterm_during_a_run_removes_the_worktree(target, tmp_path):
    repo, pin, _ = target
    before = repo.state()
    proc = subprocess.Popen([sys.executable, "-c", SIGTERM_SCRIPT, str(repo.path), pin],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while "memreport-worktree" not in repo.repo.git.worktree("list") and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # let the command start
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 3, out
    assert "terminated cleanly" in out
    assert repo.state() == before


# -- decide() --------------------------------------------------------------------------


def status(value, axis="operation", line=12, qualifier=""):
    return Status(axis, qualifier, value, line, 26)


def record(*statuses):
    return Record("MEM-OBJ-store", "MEM", "OBJ", 10, 20, "Store", statuses=statuses)


def result(status_=PASSED, coverage=None, axis="operation"):
    return ObservationResult(
        status_, "python -m pytest -q tests/test_store.py", "1a2b3c4d5e6f" + "0" * 28,
        0 if status_ == PASSED else 1, 3.21, "2026-11-29", "", coverage, f"`x` {status_}",
        "MEM-OBJ-store", axis,
    )


FOUND_PIN = PinResult(FOUND, "pin", "store.py", lines=LineRange(4, 6))
MISSING_PIN = PinResult(MISSING, "pin", "store.py")
COVERED = {"exercised": True, "lines": {"store.py": [[4, 6]]}, "missed": [], "not_executable": []}
UNCOVERED = {"exercised": False, "lines": {}, "missed": [{"path": "store.py", "lines": [4, 6]}], "not_executable": []}


@pytest.mark.parametrize(
    ("current", "results", "pins", "expected"),
    [
        ("uninspected", [result()], [FOUND_PIN], "promote"),
        ("claimed", [result()], [FOUND_PIN], "promote"),
        ("afforded", [result()], [FOUND_PIN], "promote"),
        ("wired", [result()], [FOUND_PIN], "promote"),
        ("implemented", [result()], [], "promote"),
        ("uninspected", [result(coverage=COVERED)], [FOUND_PIN], "promote"),
        ("uninspected", [result(coverage=UNCOVERED)], [FOUND_PIN], None),
        ("uninspected", [result(), result(FAILED)], [FOUND_PIN], None),
        ("uninspected", [result(TIMEOUT)], [FOUND_PIN], None),
        ("uninspected", [], [FOUND_PIN], None),  # reading alone promotes nothing
        ("uninspected", [result()], [FOUND_PIN, MISSING_PIN], None),  # a quote missing at the pin
        ("observed", [result()], [FOUND_PIN], None),  # never beyond observed; idempotent
        ("causally supported", [result()], [FOUND_PIN], None),
        ("absent", [result()], [FOUND_PIN], None),
        ("inapplicable", [result()], [FOUND_PIN], None),
        ("observed", [result(FAILED)], [FOUND_PIN], "regress"),
        ("observed", [result(coverage=UNCOVERED)], [FOUND_PIN], "regress"),
        ("observed", [result(TIMEOUT)], [MISSING_PIN], "regress"),
        ("causally supported", [result(FAILED)], [FOUND_PIN], "regress"),
        ("uninspected", [result(axis="performance")], [FOUND_PIN], None),  # another axis's observation
    ],
)
def test_decide_rules(current, results, pins, expected):
    rec = record(status("wired", axis="implementation", line=11), status(current))
    decision = decide(rec, results, pins)
    if expected is None:
        assert decision is None
    elif expected == "promote":
        assert isinstance(decision, Promotion)
        assert decision.old == current and decision.new == "observed"
        assert decision.status.axis == "operation" and decision.status.line == 12
        assert decision.record_id == "MEM-OBJ-store"
    else:
        assert isinstance(decision, Regression)
        assert decision.status.value == current and "MEM-OBJ-store" in decision.message
        assert "\n" not in decision.message


def test_decide_never_touches_the_implementation_axis():
    rec = record(status("wired", axis="implementation"), status("uninspected"))
    with pytest.raises(PromotionError, match="implementation"):
        decide(rec, [result(axis="implementation")], [FOUND_PIN], axis="implementation")


def test_decide_without_a_status_on_the_axis():
    assert decide(record(status("wired", axis="implementation")), [result()], [FOUND_PIN]) is None


def test_decide_prefers_the_unqualified_status_line():
    qualified = Status("operation", "signoff", "uninspected", 13, 30)
    plain = status("claimed", line=14)
    decision = decide(record(qualified, plain), [result()], [FOUND_PIN])
    assert decision.status == plain


def test_evidence_line_follows_the_status_line_style():
    text_report = "x\n" * 11 + "  • operation conclusion status: uninspected\n"
    markdown = "x\n" * 11 + "- operation conclusion status: uninspected\n"
    rec = record(status("uninspected"))
    plain = decide(rec, [result()], [FOUND_PIN], report_text=text_report).evidence_line
    assert plain == (
        "  • operation observation: `python -m pytest -q tests/test_store.py` passed at 1a2b3c4d5e6f "
        "on 2026-11-29 (exit 0, 3.2 s)"
    )
    md = decide(rec, [result(coverage=COVERED)], [FOUND_PIN], report_text=markdown).evidence_line
    assert md.startswith("- operation observation: `python -m pytest")
    assert md.endswith("(exit 0, 3.2 s; quoted lines executed)")
    two = decide(rec, [result(), result(coverage=COVERED)], [FOUND_PIN], report_text=markdown).evidence_line
    assert two.count("\n") == 1 and all(part.startswith("- ") for part in two.split("\n"))


# -- end to end: a parsed report, verified at the pin, observed, written back ----------------------

REPORT = """\
Boundary and evidence
SRC-1 commit {pin}

Shared records
MEM-OBJ-store
Label: Key-value store
Writes go straight into the dict — naïve, no locking:
store[key] = value return len(store) --- store.py:4-6
  • implementation conclusion status: wired
  • operation conclusion status: uninspected
"""


def test_report_record_is_promoted_once(target, store, tmp_path):
    from pytest_memreport.dialects import parse_report
    from pytest_memreport.checks.verify import check_at_pin
    from pytest_memreport.outputs.writeback import apply_edits, promotion_edits

    repo, pin, _ = target
    before = repo.state()
    path = tmp_path / "report.txt"
    path.write_text(REPORT.format(pin=pin), encoding="utf-8")

    def observe_once() -> bool:
        original = path.read_bytes()
        text = original.decode("utf-8")
        record = parse_report(str(path), text).records[0]
        snapshot = store.snapshot(pin)
        pins = [check_at_pin(e, snapshot) for e in record.evidence]
        quoted = [(p.path, p.lines) for p in pins if p.ok]
        assert quoted == [("store.py", LineRange(5, 6))]  # where the excerpt is, inside the cited 4-6
        obs = observation("python -m pytest -q tests/test_store.py", covers=True, record=record.id)
        results = [run_observation(obs, store, pin, quoted)]
        decision = decide(record, results, pins, report_text=text)
        if decision is None:
            return False
        assert isinstance(decision, Promotion)
        return apply_edits(path, original, promotion_edits(original, decision))

    assert observe_once() is True
    written = path.read_text(encoding="utf-8")
    assert "  • operation conclusion status: observed\n  • operation observation: " in written
    assert "; quoted lines executed)\n" in written
    assert written.replace("observed", "uninspected", 1).splitlines()[:10] == REPORT.format(pin=pin).splitlines()
    assert observe_once() is False  # idempotent: already observed
    assert path.read_text(encoding="utf-8") == written
    assert repo.state() == before
