"""A warm rerun re-parses no report whose bytes are unchanged (issue 47): a folder's
parse is kept in pytest's cache, keyed by every file's bytes, the dialect and the code.
``reports_parsed`` in the JSON's timing counts the reports parsed in the run."""

from __future__ import annotations

import json
import textwrap

from run_target import build_target, materialize
from test_result_cache import STORE_PY, report

from pytest_memreport.dialects import parse_report
from pytest_memreport.engine.reports import ParsedReport
from pytest_memreport.resultcache.serialize import dump_value


def run(pytester, paths, repo, *args: str) -> tuple:
    out = pytester.path / "out.json"
    given = [arg for path in paths for arg in ("--memreport", str(path))]
    result = pytester.runpytest(*given, f"--memreport-repo={repo}",
                                "--memreport-json", str(out), *args)
    data = json.loads(out.read_text())
    return result, data


def two_reports(pytester, make_repo):
    repo = make_repo("target")
    pin = repo.commit({"pkg/store.py": STORE_PY}, "initial")
    paths = []
    for name in ("first", "second"):
        folder = pytester.path / name
        folder.mkdir()
        (folder / "report.txt").write_text(report(pin), encoding="utf-8")
        paths.append(folder / "report.txt")
    return repo, paths


def verdicts(data) -> list:
    return [(r["path"], e["line"], e["at_pin"]["status"], (e.get("at_against") or {}).get("status"))
            for r in data["reports"] for e in [*(e for rec in r["records"] for e in rec["evidence"]), *r["evidence"]]]


def test_a_warm_rerun_parses_no_report_and_finds_the_same(pytester, make_repo):
    repo, paths = two_reports(pytester, make_repo)
    first, cold = run(pytester, paths, repo.path)
    assert cold["timing"]["reports_parsed"] == 2 and cold["timing"]["reports_cached"] == 0
    second, warm = run(pytester, paths, repo.path)
    assert warm["timing"]["reports_parsed"] == 0 and warm["timing"]["reports_cached"] == 2
    assert verdicts(warm) == verdicts(cold) and len(verdicts(cold)) == 6
    first.assert_outcomes(passed=16)
    second.assert_outcomes(passed=16)


def test_a_changed_byte_re_parses_that_report_only(pytester, make_repo):
    repo, paths = two_reports(pytester, make_repo)
    run(pytester, paths, repo.path)
    text = paths[1].read_text(encoding="utf-8")
    paths[1].write_text(text.replace("LIMIT = 200 ---", "LIMIT = 201 ---"), encoding="utf-8")
    result, warm = run(pytester, paths, repo.path)
    assert warm["timing"]["reports_parsed"] == 1 and warm["timing"]["reports_cached"] == 1
    # the changed quotation is read from the new bytes: it is no longer found at the pin
    changed = {v[2] for v in verdicts(warm) if v[0].startswith("second") and v[1] == 11}
    assert changed == {"missing"}, verdicts(warm)
    result.assert_outcomes(passed=14, failed=1, skipped=1)  # its drift: nothing to compare


def test_a_changed_sibling_in_a_run_folder_re_parses_the_run(pytester, make_repo):
    target, pin = build_target(make_repo)
    folder = materialize("subtree-run", pytester.path, PIN=pin, PIN7=pin[:7])
    repo = f"acme/servers={target.path}"
    _, cold = run(pytester, [folder], repo)
    assert cold["timing"]["reports_parsed"] == 5
    _, warm = run(pytester, [folder], repo)
    assert warm["timing"]["reports_parsed"] == 0 and warm["timing"]["reports_cached"] == 5
    # The packet holds the run's register: a byte of it may change how every file reads.
    packet = folder / "evidence-packet.md"
    packet.write_bytes(packet.read_bytes() + b"\n")
    _, changed = run(pytester, [folder], repo)
    assert changed["timing"]["reports_parsed"] == 5 and changed["timing"]["reports_cached"] == 0
    assert verdicts(changed) == verdicts(cold)


def test_cache_clear_and_no_cacheprovider_parse_every_report(pytester, make_repo):
    repo, paths = two_reports(pytester, make_repo)
    run(pytester, paths, repo.path)
    _, cleared = run(pytester, paths, repo.path, "--cache-clear")
    assert cleared["timing"]["reports_parsed"] == 2 and cleared["timing"]["reports_cached"] == 0
    _, uncached = run(pytester, paths, repo.path, "-p", "no:cacheprovider")
    assert uncached["timing"]["reports_parsed"] == 2 and "reports_cached" not in uncached["timing"]


def test_a_registered_form_reader_keeps_every_report_parsed(pytester, make_repo):
    # A third party's reader is code no key names: its reports are parsed in every run.
    pytester.makeconftest(textwrap.dedent(
        """\
        def pytest_memreport_read_forms(path, text):
            return None
        """
    ))
    repo, paths = two_reports(pytester, make_repo)
    run(pytester, paths, repo.path)
    _, warm = run(pytester, paths, repo.path)
    assert warm["timing"]["reports_parsed"] == 2 and warm["timing"]["reports_cached"] == 0


def test_another_dialect_asked_for_is_parsed_afresh(pytester, make_repo):
    repo, paths = two_reports(pytester, make_repo)
    run(pytester, paths, repo.path)
    _, other = run(pytester, paths, repo.path, "--memreport-dialect=records")
    assert other["timing"]["reports_parsed"] == 2 and other["timing"]["reports_cached"] == 0


def test_xdist_workers_read_the_reports_their_controller_parsed(pytester, make_repo):
    # The controller parses every report before it sets up the workers (to hand them the
    # clones and revisions); written to the cache then, they are not parsed again by each
    # worker, even on a cold cache.
    repo, paths = two_reports(pytester, make_repo)
    result, spread = run(pytester, paths, repo.path, "-n", "2")
    assert spread["timing"]["reports_parsed"] == 2  # the controller's parse, once
    assert spread["timing"]["reports_cached"] == 4  # each worker read both
    result.assert_outcomes(passed=16)
    alone, serial = run(pytester, paths, repo.path, "-p", "no:cacheprovider")
    assert verdicts(spread) == verdicts(serial) and len(verdicts(serial)) == 6



def long_note(pin: str, copies: int) -> str:
    """A note of ``copies`` quotations, each beside its file."""
    said = [f"---\ntitle: Quotations\n---\n\n# Quotations\n\nRead at commit {pin}.\n"]
    said += [f'Copy {copy} says "LIMIT = 200" (`pkg/store.py`).\n' for copy in range(copies)]
    return "\n".join(said)


def test_a_folder_parsed_to_more_than_a_row_holds_is_not_parsed_again(pytester, make_repo, monkeypatch):
    # A folder's parse was one row; past the longest row a run reads back it was written and
    # never read, so every rerun parsed the folder again (20 notes of 10,000 quotations: 5.7 MB
    # where a row holds 4 MiB). Each report is a row now. The limit is lowered here to what
    # the folder's two reports exceed together and each stays under.
    from pytest_memreport.resultcache import store

    repo = make_repo("target")
    pin = repo.commit({"pkg/store.py": STORE_PY}, "initial")
    folder = pytester.path / "notes"
    folder.mkdir()
    paths = [folder / "first.md", folder / "second.md"]
    for path in paths:
        path.write_text(long_note(pin, 150), encoding="utf-8")
    monkeypatch.setattr(store, "MAX_VALUE_CHARS", 30_000)
    _, cold = run(pytester, paths, repo.path, "-p", "no:xdist")
    assert cold["timing"]["reports_parsed"] == 2
    sizes = [len(dump_value(ParsedReport(parse_report(f"notes/{path.name}", path.read_text(encoding="utf-8")))))
             for path in paths]
    assert max(sizes) < store.MAX_VALUE_CHARS < sum(sizes), sizes
    _, warm = run(pytester, paths, repo.path, "-p", "no:xdist")
    assert warm["timing"]["reports_parsed"] == 0 and warm["timing"]["reports_cached"] == 2
    assert verdicts(warm) == verdicts(cold) and len(verdicts(cold)) == 2 * 150
    assert {verdict[2] for verdict in verdicts(cold)} == {"found"}


def test_xdist_workers_without_pytest_cache_read_the_reports_their_controller_parsed(pytester, make_repo, monkeypatch):
    # Without pytest's cache each worker parsed every report again, after the controller:
    # three parses of each with two workers. The controller hands its parses over in a
    # folder of the run's own, removed when the run ends.
    import tempfile

    handover = pytester.path / "tmp"
    handover.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(handover))
    repo, paths = two_reports(pytester, make_repo)
    result, spread = run(pytester, paths, repo.path, "-n", "2", "-p", "no:cacheprovider")
    assert spread["timing"]["reports_parsed"] == 2  # the controller's parse, once
    assert spread["timing"]["reports_cached"] == 4  # each worker read both
    result.assert_outcomes(passed=16)
    assert list(handover.iterdir()) == []  # nothing left behind
    alone, serial = run(pytester, paths, repo.path, "-p", "no:cacheprovider")
    assert verdicts(spread) == verdicts(serial) and len(verdicts(serial)) == 6
