"""What CI sees: xdist workers, shards, GitHub annotations, JUnit properties, JSON timing."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from conftest import summary_outcomes

MODULE = "".join(f"LIMIT_{i} = {i * 7}\n" for i in range(1, 31))


def report_text(pin: str) -> str:
    records = []
    for r in range(1, 7):
        quotes = "\n\n".join(f"LIMIT_{i} = {i * 7} --- pkg/limits.py" for i in range(r * 4 - 3, r * 4 + 1))
        records.append(f"MEM-OBJ-limit-{r}\n\nLabel: Limit {r}\n\n{quotes}\n")
    body = "\n".join(records)
    return f"Limits report\n\nBoundary and evidence\n\nSRC-1 commit {pin}.\n\nOperative objects\n\n{body}"


@pytest.fixture
def setup(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/limits.py": MODULE}, "limits")
    # One quote edited since the pin, so runs contain a failure.
    repo.commit({"pkg/limits.py": MODULE.replace("LIMIT_5 = 35", "LIMIT_5 = 36")}, "edit")
    report = pytester.path / "limits.txt"
    report.write_text(report_text(pin), encoding="utf-8")
    return repo, report


def test_xdist_and_shards_cover_the_serial_run(pytester, setup):
    repo, report = setup
    base = ["--memreport", str(report), f"--memreport-repo={repo.path}", "-rA", "-p", "no:randomly"]
    serial = summary_outcomes(pytester.runpytest(*base))
    assert len(serial) == 1 + 1 + 24 * 2 and list(serial.values()).count("FAILED") == 1
    parallel = summary_outcomes(pytester.runpytest_subprocess(*base, "-n", "2"))
    assert parallel == serial
    union: dict[str, str] = {}
    for k in (1, 2, 3):
        run = pytester.runpytest(*base, "--memreport-shard", f"{k}/3")
        shard = summary_outcomes(run)
        assert not set(shard) & set(union), "shards overlap"
        union.update(shard)
        # The report's one (repository, pin) pair is checked whole by one shard; a shard left
        # with its structure item alone (or nothing) is no failing run.
        checks = [node for node in shard if "MEM-OBJ" in node]
        assert not checks or len(checks) == 24 * 2
        assert run.ret == (1 if checks else 0), run.stdout.str()
    assert union == serial


def test_bad_shard_is_a_usage_error(pytester, setup):
    repo, report = setup
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}",
                                "--memreport-shard", "4/3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--memreport-shard '4/3': give K/N*"])


def test_github_annotation_on_the_report_line(pytester, setup, monkeypatch):
    repo, report = setup
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    # A report whose pin is not in the clone is unchecked: required to be checked, it fails.
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}",
                                "--memreport-require-checked")
    annotations = [line for line in result.stdout.lines if line.startswith("::error ")]
    assert len(annotations) == 1
    assert annotations[0].startswith("::error file=limits.txt,line=25,title=MEM-OBJ-limit-2%3A changed::MEM-OBJ-limit-2 ")


def test_an_unknown_pin_is_annotated_on_the_source_line(pytester, setup, monkeypatch):
    repo, report = setup
    text = report.read_text(encoding="utf-8")
    pin = text.split("SRC-1 commit ", 1)[1].split(".", 1)[0]
    report.write_text(text.replace(pin, "0" * 40), encoding="utf-8")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    # A report whose pin is not in the clone is unchecked: required to be checked, it fails.
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}",
                                "--memreport-require-checked")
    annotations = [line for line in result.stdout.lines if line.startswith("::error ")]
    assert annotations and annotations[0].startswith("::error file=limits.txt,line=5,title=limits.txt%3A unchecked::")
    assert f"revision '{'0' * 40}'" in annotations[0]


def test_junit_properties_and_json_timing(pytester, setup):
    repo, report = setup
    xml_path = pytester.path / "junit.xml"
    json_path = pytester.path / "out.json"
    pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}",
                       f"--junitxml={xml_path}", "--memreport-json", str(json_path))
    root = ET.parse(xml_path).getroot()
    # JUnit splits node ids at "::": the drift item is "drift" in class "...quote@L25".
    case = next(c for c in root.iter("testcase")
                if c.get("name") == "drift" and c.get("classname", "").endswith("MEM-OBJ-limit-2.quote@L25"))
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["record"] == "MEM-OBJ-limit-2"
    assert props["evidence"] == "quote:pkg/limits.py"
    assert props["status"] == "changed"
    assert props["location"] == "limits.txt:25"
    timing = json.loads(json_path.read_text())["timing"]
    assert {"parse", "matching", "drift"} <= set(timing)
    assert all(isinstance(v, float) for v in timing.values())


def test_verbose_runs_say_when_the_tree_is_searched(pytester, setup):
    repo, report = setup
    # uncached, so that the verbose run below does the work (a rerun answered from the cache follows nothing)
    quiet = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-p", "no:cacheprovider")
    assert "memreport: searching" not in quiet.stdout.str()
    loud = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-v")
    # the one edited quotation is no longer in its file: the tree is searched for it
    loud.stdout.fnmatch_lines(["memreport: following *", "memreport: searching * for 1 quotation(s) no longer in their files"])
