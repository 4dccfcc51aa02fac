"""JUnit carries a compact payload per item (record, evidence, status, location, where the
evidence went), bounded in size; the JSON results stay complete."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from ci_support import build
from pytest_memreport.integration.items import JUNIT_VALUE_LIMIT


@pytest.fixture
def base(pytester, make_repo):
    return build(pytester, make_repo)


def cases(xml_path) -> dict[str, dict[str, str]]:
    root = ET.parse(xml_path).getroot()
    out = {}
    for case in root.iter("testcase"):
        name = f"{case.get('classname')}.{case.get('name')}"
        out[name] = {p.get("name"): p.get("value") for p in case.iter("property")}
    return out


def test_properties_say_status_location_and_new_location_only(pytester, base):
    xml_path = pytester.path / "junit.xml"
    json_path = pytester.path / "out.json"
    pytester.runpytest(*base.args(f"--junitxml={xml_path}", "--memreport-json", str(json_path)))
    props = cases(xml_path)
    moved = props["store.txt.MEM-OBJ-helper.quote@L33.drift"]
    assert moved == {"record": "MEM-OBJ-helper", "evidence": "quote:pkg/util.py", "status": "moved",
                     "location": "store.txt:33", "new_location": "pkg/core/util.py:1"}
    changed = props["store.txt.MEM-OBJ-limits.quote@L15.drift"]
    assert changed["status"] == "changed" and "new_location" not in changed
    assert all(set(p) <= {"record", "evidence", "status", "location", "new_location"} for p in props.values())
    # the JSON still has everything: the nearest candidate, the old and new place
    data = json.loads(json_path.read_text())
    evidence = {e["line"]: e for r in data["reports"][0]["records"] for e in r["evidence"]}
    assert evidence[15]["at_against"]["status"] == "changed"
    assert evidence[33]["at_against"]["path"] == "pkg/core/util.py"
    assert data["tool"]["name"] == "pytest-memreport" and data["tool"]["version"]


def test_junit_size_per_item_is_bounded_whatever_the_evidence(pytester, make_repo):
    # a quote relocated to many files: the JSON lists every place, JUnit a bounded line (a
    # quote long enough to be followed anywhere: a plain one several files gained goes nowhere)
    repo = make_repo()
    line = "PAYLOAD_MARKER = 'relocated everywhere in the whole tree'\n"
    pin = repo.commit({"pkg/origin.py": "import os\n" + line}, "first")
    copies = {f"pkg/copies/long_directory_name_{i:03}/copy_{i}.py": f"X_{i} = {i}\n" + line for i in range(60)}
    repo.commit({"pkg/origin.py": "import os\n", **copies}, "copies")
    report = pytester.path / "wide.txt"
    report.write_text(f"Wide\n\nBoundary and evidence\n\nSRC-1 commit {pin}.\n\nOperative objects\n\n"
                      f"MEM-OBJ-wide\n\nLabel: Wide\n\n{line.strip()} --- pkg/origin.py\n",
                      encoding="utf-8")
    xml_path = pytester.path / "junit.xml"
    json_path = pytester.path / "out.json"
    pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", f"--junitxml={xml_path}",
                       "--memreport-json", str(json_path))
    drift = cases(xml_path)["wide.txt.MEM-OBJ-wide.quote@L13.drift"]
    assert drift["status"] == "relocated"
    assert len(drift["new_location"]) == JUNIT_VALUE_LIMIT and drift["new_location"].endswith("…")
    for props in cases(xml_path).values():
        assert sum(len(k) + len(v) for k, v in props.items()) < 5 * JUNIT_VALUE_LIMIT
    at_against = json.loads(json_path.read_text())["reports"][0]["records"][0]["evidence"][0]["at_against"]
    assert len(at_against["candidates"]) == 60


def test_record_items_carry_the_compact_payload_too(pytester, base):
    xml_path = pytester.path / "junit.xml"
    pytester.runpytest(*base.args(f"--junitxml={xml_path}", "--memreport-items=record"))
    limits = cases(xml_path)["store.txt.MEM-OBJ-limits.evidence"]
    assert limits == {"record": "MEM-OBJ-limits", "status": "changed", "location": "store.txt:9"}
