"""SARIF 2.1.0 (``--memreport-sarif``): one result per failing or warning check, rule ids
by status, report-line locations, the target as a related location, fingerprints that
survive edits above the evidence and new target commits; valid against the OASIS schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from ci_support import build

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
# Every format jsonschema knows, not only draft 4's: the schema's URIs are "uri-reference"
# (checked through rfc3986-validator, a test dependency).
VALIDATOR = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker())

CLAIMS = """schema: memreport-claims/1
records:
  MEM-OBJ-limits:
    predicates:
      - contains: {path: pkg/limits.py, text: "LIMIT_9 = 63"}
"""


@pytest.fixture
def base(pytester, make_repo):
    return build(pytester, make_repo)


def run_sarif(pytester, base, *more: str, name: str = "out.sarif") -> dict:
    path = pytester.path / name
    pytester.runpytest(*base.args("--memreport-sarif", str(path), *more))
    data = json.loads(path.read_text(encoding="utf-8"))
    errors = sorted(VALIDATOR.iter_errors(data), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    return data


def by_rule(data: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for result in data["runs"][0]["results"]:
        out.setdefault(result["ruleId"], []).append(result)
    return out


def test_failures_and_warnings_are_results_valid_against_the_schema(pytester, base):
    (pytester.path / "store.claims.yaml").write_text(CLAIMS, encoding="utf-8")
    data = run_sarif(pytester, base)
    run = data["runs"][0]
    assert data["version"] == "2.1.0" and run["tool"]["driver"]["name"] == "pytest-memreport"
    rules = by_rule(data)
    assert set(rules) == {"memreport/changed", "memreport/deleted", "memreport/enclosing-changed",
                          "memreport/predicate-fails"}
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == sorted(rules)
    for result in run["results"]:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    changed, = rules["memreport/changed"]
    assert changed["level"] == "error"
    location = changed["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "store.txt", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 15}
    assert changed["message"]["text"].startswith("MEM-OBJ-limits quotation of pkg/limits.py changed at ")
    head = base.repo.repo.head.commit.hexsha[:12]
    related, = changed["relatedLocations"]
    # the target: repository, against-revision, path and the nearest candidate's lines
    assert related["message"]["text"] == f"{base.repo.path}@{head}:pkg/limits.py:2"
    assert related["physicalLocation"]["artifactLocation"]["uri"] == "pkg/limits.py"
    assert rules["memreport/enclosing-changed"][0]["level"] == "warning"
    # the predicate fails at the pin and at the against-revision: two results at its claims-file line
    predicates = rules["memreport/predicate-fails"]
    assert len(predicates) == 2
    for predicate in predicates:
        assert predicate["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "store.claims.yaml"
        assert predicate["locations"][0]["physicalLocation"]["region"]["startLine"] == 5
    assert len({p["partialFingerprints"]["memreportCheck/v1"] for p in predicates}) == 2


def test_a_pin_failure_names_the_pinned_commit(pytester, base):
    base.report.write_text(base.report.read_text().replace("LIMIT_1 = 7 ---", "LIMIT_1 = 8 ---"), encoding="utf-8")
    rules = by_rule(run_sarif(pytester, base, "--memreport-against", "none"))
    missing, = rules["memreport/missing"]
    assert missing["locations"][0]["physicalLocation"]["region"]["startLine"] == 13
    assert missing["relatedLocations"][0]["message"]["text"] == f"{base.repo.path}@{base.pin[:12]}:pkg/limits.py:1"


def fingerprints(data: dict) -> dict[str, str]:
    return {r["ruleId"]: r["partialFingerprints"]["memreportCheck/v1"] for r in data["runs"][0]["results"]}


def test_fingerprints_survive_reruns_edits_above_and_new_target_commits(pytester, base):
    first = fingerprints(run_sarif(pytester, base, name="a.sarif"))
    assert len(set(first.values())) == len(first) == 3
    assert fingerprints(run_sarif(pytester, base, name="b.sarif")) == first
    # two lines written above the evidence: every line moves, no identity changes
    text = base.report.read_text(encoding="utf-8")
    base.report.write_text(text.replace("Operative objects\n", "Operative objects\n\nA note.\n", 1), encoding="utf-8")
    shifted = run_sarif(pytester, base, name="c.sarif")
    assert shifted["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 17
    assert fingerprints(shifted) == first
    # the target moves on (a new HEAD that touches none of it)
    base.repo.commit({"README": "more\n"}, "unrelated")
    assert fingerprints(run_sarif(pytester, base, name="d.sarif")) == first


def test_two_identical_quotes_get_distinct_fingerprints(pytester, base):
    text = base.report.read_text(encoding="utf-8")
    base.report.write_text(text.replace("LIMIT_2 = 14 --- pkg/limits.py\n",
                                        "LIMIT_2 = 14 --- pkg/limits.py\n\nLIMIT_2 = 14 --- pkg/limits.py\n"),
                           encoding="utf-8")
    changed = by_rule(run_sarif(pytester, base))["memreport/changed"]
    assert len(changed) == 2
    assert len({r["partialFingerprints"]["memreportCheck/v1"] for r in changed}) == 2


def test_a_clean_run_writes_an_empty_valid_log(pytester, make_repo):
    base = build(pytester, make_repo)
    data = run_sarif(pytester, base, "--memreport-against", "none")
    assert data["runs"][0]["results"] == [] and data["runs"][0]["tool"]["driver"]["rules"] == []


def test_the_same_log_under_xdist(pytester, base):
    serial = run_sarif(pytester, base, name="serial.sarif")
    path = pytester.path / "parallel.sarif"
    pytester.runpytest_subprocess(*base.args("--memreport-sarif", str(path), "-n", "2"))
    assert json.loads(path.read_text(encoding="utf-8")) == serial


def test_record_items_give_the_same_results(pytester, base):
    per_evidence = run_sarif(pytester, base, name="evidence.sarif")
    per_record = run_sarif(pytester, base, "--memreport-items=record", name="record.sarif")
    assert per_record == per_evidence


def test_a_target_file_outside_the_workspace_is_an_absolute_file_uri_without_base(pytester, base, monkeypatch,
                                                                                   tmp_path_factory):
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path_factory.mktemp("checkout")))
    data = run_sarif(pytester, base)
    location = data["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": (pytester.path / "store.txt").as_uri()}  # a file: URI, percent-encoded
