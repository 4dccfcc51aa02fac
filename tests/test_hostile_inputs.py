"""Inputs that are not files, and one report under two names.

A report, a claims file or a ``.md`` of a reports folder that is a FIFO, a
device or ``/dev/zero`` is refused with one line (never a hang or a
MemoryError); reads are capped. A report reached as ``a.md`` and through a
symlink is read, checked and written once; under pytest-xdist, write-back
refuses a report changed since the run started, as a serial run does.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hostile_support import records_report
from pytest_memreport.dialects import inputs
from test_interruptions import claims_text, report_text

STORE_PY = "LIMIT = 200\n\n\ndef keep(entries):\n    return entries[-LIMIT:]\n"


@pytest.fixture
def target(make_repo):
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY}, "store")
    return repo, pin


def run_plugin(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """pytest as users run it, in a subprocess: a hang shows as a timeout, not a stuck suite."""
    env = dict(os.environ)
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=timeout)


def read_in_child(path: str) -> subprocess.CompletedProcess:
    """``read_report(path)`` in a child with 512 MiB of address space and a timeout."""
    code = textwrap.dedent(
        f"""\
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))
        from pytest_memreport.dialects import ReportError, read_report
        try:
            read_report({path!r})
        except ReportError as err:
            print(err)
        """
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "too-large"])
def test_read_report_refuses_what_is_not_a_report_file(tmp_path, kind):
    if kind == "fifo":
        path = tmp_path / "pipe.md"
        os.mkfifo(path)
        expected = f"{path} is a FIFO (named pipe), not a regular file; pass a report file"
    elif kind == "dev-zero":
        path = Path("/dev/zero")
        expected = "/dev/zero is a character device, not a regular file; pass a report file"
    else:
        path = tmp_path / "huge.md"
        with open(path, "wb") as handle:  # sparse: no disk used
            handle.truncate(inputs.MAX_REPORT_BYTES + 1)
        expected = f"{path} is larger than 64 MiB; pass a report file"
    try:
        done = read_in_child(str(path))
    except subprocess.TimeoutExpired:
        pytest.fail(f"reading {kind} hung")
    assert done.returncode == 0, done.stderr[-1500:]
    assert done.stdout.strip() == expected


@pytest.mark.parametrize("where", ["named", "in-folder", "dev-zero"])
def test_a_report_that_is_no_file_is_a_usage_error(tmp_path, target, where):
    repo, pin = target
    work = tmp_path / "work"
    (work / "reports").mkdir(parents=True)
    (work / "reports" / "a.md").write_text(records_report(pin, "return entries[-LIMIT:] --- store.py"))
    if where == "named":
        os.mkfifo(work / "pipe.md")
        arg, shown = "pipe.md", "pipe.md: a FIFO (named pipe)"
    elif where == "in-folder":
        os.mkfifo(work / "reports" / "pipe.md")
        arg, shown = "reports", "reports/pipe.md: a FIFO (named pipe)"
    else:
        arg, shown = "/dev/zero", "/dev/zero: a character device"
    done = run_plugin(work, "--memreport", arg, f"--memreport-repo={repo.path}")
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout[-2000:]
    assert f"ERROR: --memreport {shown}, not a report file; give a regular file" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize("how", ["beside", "option"])
def test_a_claims_file_that_is_a_fifo_is_refused_with_one_line(tmp_path, target, how):
    repo, pin = target
    work = tmp_path / "work"
    work.mkdir()
    (work / "report.md").write_text(records_report(pin, "return entries[-LIMIT:] --- store.py"))
    args = ["--memreport", "report.md", f"--memreport-repo={repo.path}"]
    if how == "beside":
        fifo = work / "report.claims.yaml"
        shown = "report.claims.yaml"
    else:
        fifo = tmp_path / "claims.yaml"
        shown = str(fifo)
        args.append(f"--memreport-claims={fifo}")
    os.mkfifo(fifo)
    try:
        done = run_plugin(work, *args, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("reading a FIFO claims file hung")
    out = done.stdout + done.stderr
    assert "Traceback" not in out
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, out[-2000:]
    assert f"{shown}:1: claims file is a FIFO (named pipe), not a regular file; give a claims YAML file" in out


def test_one_report_under_two_names_is_checked_and_written_once(tmp_path, target):
    repo, pin = target
    work = tmp_path / "work"
    reports = work / "reports"
    reports.mkdir(parents=True)
    report = reports / "a.md"
    report.write_text(report_text(pin))
    repo.commit({"store.py": "def forget(entries, key):\n    return [e for e in entries if e != key]\n"}, "forget")
    pin = repo.repo.head.commit.hexsha
    report.write_text(report_text(pin))
    (reports / "a.claims.yaml").write_text(claims_text("true"))
    (reports / "latest.md").symlink_to("a.md")
    done = run_plugin(work, "--memreport", "reports", "--memreport", "reports/latest.md",
                      f"--memreport-repo={repo.path}", "--memreport-run", "--memreport-write")
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert "latest.md" not in out  # collected under its first name only
    assert out.count("PASSED reports/a.md::") >= 2
    assert out.count("wrote ") == 1, out[-3000:]
    text = report.read_text()
    assert text.count("operation observation: `true` passed") == 1
    assert (reports / "latest.md").is_symlink()  # written through, not replaced


EDIT_DURING_RUN = textwrap.dedent(
    """\
    import os
    import time
    from pathlib import Path


    def test_someone_saves_the_report_meanwhile():
        report = Path(os.environ["REPORT_UNDER_TEST"])
        report.write_text(report.read_text() + "\\nA note saved while the run was going.\\n")
    """
)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_write_back_refuses_a_report_changed_since_the_run_started(tmp_path, target, workers):
    repo, _ = target
    pin = repo.commit({"store.py": "def forget(entries, key):\n    return [e for e in entries if e != key]\n"}, "forget")
    work = tmp_path / "work"
    work.mkdir()
    report = work / "report.md"
    report.write_text(report_text(pin))
    (work / "report.claims.yaml").write_text(claims_text("true"))
    (work / "test_edit.py").write_text(EDIT_DURING_RUN)
    env_report = str(report)
    os.environ["REPORT_UNDER_TEST"] = env_report
    try:
        done = run_plugin(work, "--memreport", "report.md", f"--memreport-repo={repo.path}", "--memreport-run",
                          "--memreport-write", "test_edit.py", *workers)
    finally:
        del os.environ["REPORT_UNDER_TEST"]
    out = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, out[-3000:]
    assert "report.md: not written: " in out and "changed on disk since it was read" in out, out[-3000:]
    final = report.read_text()
    assert final.endswith("A note saved while the run was going.\n")
    assert "operation observation" not in final
