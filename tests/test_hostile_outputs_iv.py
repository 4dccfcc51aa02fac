"""Hostile names and places of outputs, fourth round (issue 48): file names that are not
UTF-8 in every output, outputs inside a target's ``.git``, the HTML site beside what it did
not write, report names that would be workflow commands, and previews of every name shape
applied by ``patch -p1`` and ``git apply``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hostile_support import assert_clean, records_report

#: a report's and a target file's names that are not UTF-8, as Python holds them (``os.fsdecode``)
REPORT_NOT_UTF8 = os.fsdecode(b"r\xfe.md")
TARGET_NOT_UTF8 = os.fsdecode(b"bad\xff.py")


def utf8(path: Path) -> str:
    """The file's text, which must be valid UTF-8 (no lone surrogate, no stray byte)."""
    return path.read_bytes().decode("utf-8")


# ---------------------------------------------------------------- 6: names that are not UTF-8

def test_names_that_are_not_utf8_are_shown_escaped_in_every_output(pytester, make_repo, monkeypatch):
    repo = make_repo()
    pin = repo.commit({"ok.py": "LIMIT = 1\nRATE = 2\n"}, "first")
    repo.move("ok.py", TARGET_NOT_UTF8)
    repo.commit({TARGET_NOT_UTF8: "LIMIT = 1\nRATE = 3\n"}, "renamed to a name that is not UTF-8")
    report = pytester.path / REPORT_NOT_UTF8
    report.write_text(records_report(pin, "LIMIT = 1 --- ok.py", "RATE = 2 --- ok.py"), encoding="utf-8")
    summary = pytester.path / "summary.md"
    summary.write_text("", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    out = pytester.path / "out"
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-p", "no:randomly",
                                f"--memreport-json={out}.json", f"--memreport-sarif={out}.sarif",
                                f"--memreport-html={out}-site")
    text = assert_clean(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # RATE changed: a real failure, every output written
    for line in ("wrote JSON to", "wrote SARIF to", "appended the step summary to", "wrote the HTML report to"):
        assert f"memreport: {line}" in text
    # the terminal's table names the report escaped
    assert "r\\xfe.md" in text

    data = json.loads(utf8(Path(f"{out}.json")))
    (entry,) = data["reports"]
    assert entry["path"].endswith("r\\xfe.md")
    went = {e["at_against"]["path"] for record in entry["records"] for e in record["evidence"] if e.get("at_against")}
    assert went == {"bad\\xff.py"}

    sarif = json.loads(utf8(Path(f"{out}.sarif")))
    (failure,) = sarif["runs"][0]["results"]
    assert failure["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("r%FE.md")
    assert failure["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad%FF.py"

    shown = utf8(summary)
    assert "r\\\\xfe.md" in shown and "bad\\\\xff.py" in shown  # a backslash, escaped for Markdown

    site = Path(f"{out}-site")
    pages = {page.name: utf8(page) for page in site.iterdir() if page.suffix == ".html"}
    assert len(pages) == 2 and "r\\xfe.md" in pages.pop("index.html")
    (page,) = pages.values()
    assert "r\\xfe.md" in page and "bad\\xff.py" in page
