"""An internal error never passes silently: whatever breaks inside the plugin
fails its item or the run (exit status != 0), and an absence whose search
could not run fails.

Internal errors are injected the only honest way available: a ``conftest.py``
in the pytester folder wraps one product function to raise (restored when
the run ends), so the item layer meets an unexpected exception exactly as it
would meet a bug.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from hostile_support import assert_clean, records_report, run_report

STORE_PY = "LIMIT = 200\n\n\ndef keep(entries):\n    return entries[-LIMIT:]\n"

CLAIMS = textwrap.dedent(
    """\
    schema: memreport-claims/1
    records:
      MEM-OBJ-subject:
        predicates:
          - absent: {glob: "*.py", text: "compare_and_swap"}
        observe:
          - run: "true"
    """
)


@pytest.fixture
def target(make_repo, pytester):
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY, "logo.bin": b"\x00\x01\x02 compare_and_swap"}, "store")
    (pytester.path / "report.claims.yaml").write_text(CLAIMS, encoding="utf-8")
    return repo, pin


def report_for(pin: str) -> str:
    return records_report(pin, "return entries[-LIMIT:] --- store.py")


def break_function(pytester, module: str, name: str,
                   error: str = 'RuntimeError("injected failure in {module}.{name}")') -> None:
    """A conftest.py that makes ``pytest_memreport.<module>.<name>`` raise ``error`` for one run."""
    error = error.format(module=module, name=name)
    pytester.makeconftest(
        textwrap.dedent(
            f"""\
            import importlib

            from pytest_memreport.gitstore import RepoError

            _module = importlib.import_module("pytest_memreport.{module}")
            _original = getattr(_module, "{name}")


            def _broken(*args, **kwargs):
                raise {error}


            def pytest_configure(config):
                setattr(_module, "{name}", _broken)


            def pytest_unconfigure(config):
                setattr(_module, "{name}", _original)
            """
        )
    )


def test_the_healthy_run_passes(pytester, target):
    repo, pin = target
    result = run_report(pytester, report_for(pin), repo.path, "--memreport-run")
    assert_clean(result)
    assert result.ret == 0
    result.assert_outcomes(passed=8)


@pytest.mark.parametrize(
    ("module", "name", "failing_items"),
    [
        # the observation needs the record's quoted lines at the pin, so it fails too
        ("checks.verify", "check_at_pin", ["quote@L13", "quote@L13::drift", "observe?0?"]),
        ("checks.drift", "classify", ["quote@L13::drift"]),
        ("checks.predicates", "evaluate", ["predicate?0?:absent", "predicate?0?:absent::drift"]),
        ("checks.structure", "structure_findings", ["structure"]),
        ("checks.observe", "run_observation", ["observe?0?"]),
    ],
)
def test_an_exception_inside_a_check_fails_its_items(pytester, target, module, name, failing_items):
    repo, pin = target
    break_function(pytester, module, name)
    result = run_report(pytester, report_for(pin), repo.path, "--memreport-run")
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    for item in failing_items:
        result.stdout.fnmatch_lines([f"FAILED report.md::*{item} - Runtime*"])
    assert f"RuntimeError: injected failure in {module}.{name}" in out
    assert out.count("FAILED report.md::") == len(failing_items)


def test_a_repository_failure_inside_a_check_is_one_line(pytester, target):
    """A clone removed or damaged mid-run: the check says so in one line, no traceback."""
    repo, pin = target
    break_function(pytester, "checks.drift", "classify", 'RepoError("/gone/repo: `git diff-tree` failed: bad object")')
    result = run_report(pytester, report_for(pin), repo.path)
    out = assert_clean(result)
    result.assert_outcomes(passed=6, failed=1, skipped=1)
    # The evidence is unreadable at the against-revision (a status, in JSON too), with git's reason.
    assert "report.md:13: MEM-OBJ-subject quotation of store.py unreadable at" in out
    assert "\n  /gone/repo: `git diff-tree` failed: bad object\n" in out


@pytest.mark.parametrize(
    ("module", "name", "option", "status"),
    [
        # a collection error; the summary meets it again: an internal error
        ("engine.reports", "load_folder", None, pytest.ExitCode.INTERNAL_ERROR),
        ("integration.session", "build_json", "--memreport-json=out.json", pytest.ExitCode.INTERNAL_ERROR),
        ("integration.session", "staleness_lines", None, pytest.ExitCode.INTERNAL_ERROR),
        ("outputs.writeback", "apply_files", "--memreport-write", pytest.ExitCode.INTERNAL_ERROR),
    ],
)
def test_an_exception_outside_items_fails_the_run(pytester, target, module, name, option, status):
    repo, pin = target
    text = report_for(pin).replace("Label: Subject under test", "Label: Subject under test\n\n"
                                   "  • operation conclusion status: uninspected")
    break_function(pytester, module, name)
    args = ["--memreport-run"] + ([option] if option else [])
    result = run_report(pytester, text, repo.path, *args)
    assert result.ret == status, result.stdout.str()[-2000:]
    assert f"RuntimeError: injected failure in {module}.{name}" in result.stdout.str() + result.stderr.str()


def test_absence_over_only_unreadable_files_fails_as_not_searched(pytester, target):
    repo, pin = target
    (pytester.path / "report.claims.yaml").write_text(
        CLAIMS.replace('glob: "*.py"', 'glob: "*.bin"'), encoding="utf-8")
    result = run_report(pytester, report_for(pin), repo.path, "-k", "absent")
    out = assert_clean(result)
    result.assert_outcomes(failed=2)
    assert "MEM-OBJ-subject absent predicate could not be checked at pin" in out
    assert "no readable file in the boundary, so nothing was searched" in out
    assert "logo.bin is a binary file" in out


def test_absence_over_an_empty_boundary_fails(pytester, target):
    repo, pin = target
    (pytester.path / "report.claims.yaml").write_text(
        CLAIMS.replace('glob: "*.py"', 'glob: "src/**/*.py"'), encoding="utf-8")
    result = run_report(pytester, report_for(pin), repo.path, "-k", "absent")
    out = assert_clean(result)
    result.assert_outcomes(failed=2)
    assert "empty boundary: src/**/*.py matched no file" in out
    assert "an absence over no files proves nothing" in out


def test_absence_that_cannot_tell_code_from_comments_fails(pytester, target):
    repo, pin = target
    repo.commit({"notes.cfg": "compare_and_swap = off\n"}, "config")
    (pytester.path / "report.claims.yaml").write_text(
        CLAIMS.replace('{glob: "*.py", text: "compare_and_swap"}',
                       '{glob: "*.cfg", text: "compare_and_swap", in: code}'), encoding="utf-8")
    result = run_report(pytester, report_for(pin), repo.path, "-k", "absent and drift")
    out = assert_clean(result)
    result.assert_outcomes(failed=1)
    assert "could not be checked at against" in out
    assert "cannot tell code from comments in notes.cfg" in out


def test_an_against_revision_missing_in_one_repository_fails_its_reports(pytester, target, make_repo):
    """Resolving in another target, the revision is no usage error: this target's checks say why."""
    repo, pin = target
    other = make_repo("other")
    other_pin = other.commit({"store.py": STORE_PY}, "store")
    other.repo.git.branch("release")
    # Each report lies in its target's working tree, which is then its repository.
    first, second = repo.path / "report.md", other.path / "second.md"
    first.write_text(report_for(pin), encoding="utf-8")
    second.write_text(report_for(other_pin), encoding="utf-8")
    (repo.path / "report.claims.yaml").write_text(CLAIMS, encoding="utf-8")
    result = pytester.runpytest("--memreport", str(first), "--memreport", str(second),
                                "--memreport-against", "release", "-rA")
    out = assert_clean(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # The absence is not checked there (skipped, saying why) and the source item fails once with the reason.
    assert "absent not checked: --memreport-against release" in out
    result.stdout.fnmatch_lines(["PASSED *second.md::source:SRC-1", "FAILED *report.md::source:SRC-1*"])
    # What could not be read is not drift: partly unchecked, not stale (issue 34, rule 5).
    result.stdout.fnmatch_lines(["partial *report.md *2 checks hold; partly unchecked: 1 source(s) whose clone "
                                 "lacks the against-revision", "fresh *second.md *2 checks hold"])


def test_an_exception_in_one_check_of_a_record_item_leaves_the_others_running(pytester, target):
    repo, pin = target
    break_function(pytester, "checks.drift", "classify")
    json_path = pytester.path / "out.json"
    result = run_report(pytester, report_for(pin), repo.path, "--memreport-items=record",
                        f"--memreport-json={json_path}")
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["MEM-OBJ-subject: 1 of 2 checks failed"])
    assert "internal error in pytest-memreport: RuntimeError: injected failure in checks.drift.classify" in out
    assert 'raise RuntimeError("injected failure in checks.drift.classify")' in out  # the traceback is shown
    statuses = [e["at_pin"]["status"] for r in json.loads(json_path.read_text())["reports"]
                for rec in r["records"] for e in rec["evidence"]]
    assert statuses and set(statuses) == {"found"}  # the pin checks ran and reported
