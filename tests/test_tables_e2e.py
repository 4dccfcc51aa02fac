"""Analysis tables as users run them: line anchors, basenames resolved against the pinned tree."""

from __future__ import annotations

import json
import textwrap

LEDGER = "".join(f"export const step{i} = {i};\n" for i in range(1, 41))
TIMER = "".join(f"// timer line {i}\n" for i in range(1, 20))


def table_report(pin: str) -> str:
    return textwrap.dedent(
        f"""\
        # Analysis run 3: ledger

        **Revision:** `{pin}`

        ## Objects

        | ID | Label | Anchors |
        | --- | --- | --- |
        | OBJ-01 | Ledger | `src/jobs/ledger.ts:3-5,30–32` |
        | OBJ-02 | Timer | `retry_timer.ts:7` |
        | OBJ-03 | Entry | `index.ts:1` |
        | OBJ-04 | Gone | `missing_file.ts:2` |
        """
    )


def test_tables_anchor_lines_and_resolve_basenames(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({
        "src/jobs/ledger.ts": LEDGER,
        "src/util/retry_timer.ts": TIMER,
        "src/a/index.ts": "export {};\n",
        "src/b/index.ts": "export {};\n",
    }, "tree")
    report = pytester.path / "run.md"
    report.write_text(table_report(pin), encoding="utf-8")
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-v",
                                "--memreport-json", str(out))
    stdout = result.stdout.str()
    assert "OBJ-01::lines@L9:src/jobs/ledger.ts:3-5 PASSED" in stdout
    assert "OBJ-01::lines@L9:src/jobs/ledger.ts:30-32 PASSED" in stdout
    assert "OBJ-02::lines@L10:retry_timer.ts:7 PASSED" in stdout  # named as written; read as below
    assert "OBJ-03::lines@L11:index.ts:1 PASSED" in stdout  # ambiguous: a warning, never a failure (issue 45)
    assert "index.ts names 2 files at the pin: src/a/index.ts, src/b/index.ts; cite the path" in stdout
    assert "OBJ-04::lines@L12:missing_file.ts:2 FAILED" in stdout
    data = json.loads(out.read_text())
    (rep,) = data["reports"]
    assert rep["dialect"] == "tables"
    timer = next(r for r in rep["records"] if r["id"] == "OBJ-02")["evidence"][0]
    assert timer["path"] == "src/util/retry_timer.ts"
    assert timer["at_pin"]["status"] == "found" and timer["at_against"]["status"] == "unchanged"
