"""Re-pinning an analysis run: the revision wherever the run states it, ``path:a-b``
anchors and ``SRC-n:a-b`` ranges that shifted, register rows whose file moved, bare
file names whose file was renamed.

The target's ``src/`` moved under ``pkg/`` after the pin, and the ledger gained a
header, so every cited range shifts.
"""

from __future__ import annotations

import textwrap

import pytest

from conftest import summary_outcomes

LEDGER = "".join(f"export const step{i} = {i};\n" for i in range(1, 41))
TIMER = "".join(f"// timer line {i}\n" for i in range(1, 20))
HEADER = "// Ledger of the steps.\n// Generated; do not edit.\n"


@pytest.fixture
def moved(make_repo):
    repo = make_repo("target")
    pin = repo.commit({"src/jobs/ledger.ts": LEDGER, "src/util/retry_timer.ts": TIMER, "README.md": "# r\n"},
                      "tree")
    repo.move("src/jobs/ledger.ts", "pkg/jobs/ledger.ts")
    repo.move("src/util/retry_timer.ts", "pkg/util/timer_retry.ts")
    repo.commit(message="move")
    head = repo.commit({"pkg/jobs/ledger.ts": HEADER + LEDGER}, "header")
    return repo, pin, head


def run_text(pin: str) -> str:
    return textwrap.dedent(
        f"""\
        # Analysis run 3: ledger

        **Revision:** `{pin[:7]}`

        ## Sources

        | ID | Path | Revision |
        | --- | --- | --- |
        | SRC-1 | `src/jobs/ledger.ts` | `{pin}` |

        ## Objects

        | ID | Label | Anchors |
        | --- | --- | --- |
        | OBJ-01 | Ledger | `src/jobs/ledger.ts:3-5,30–32` |
        | OBJ-02 | Timer | `retry_timer.ts:7` |
        | OBJ-03 | Steps | SRC-1:10-12 and SRC-1:20 |
        """
    )


def run(pytester, report, repo, *args):
    return pytester.runpytest("-rA", "-p", "no:cacheprovider", "--memreport", str(report),
                              f"--memreport-repo={repo.path}", *args)


def test_a_tables_run_is_repinned_with_its_register_and_ranges(pytester, moved):
    repo, pin, head = moved
    report = pytester.path / "run.md"
    report.write_text(run_text(pin), encoding="utf-8")
    result = run(pytester, report, repo, "--memreport-write", "--memreport-repin=HEAD")
    assert result.ret == 0, result.stdout.str()
    written = report.read_text(encoding="utf-8")
    assert written == (
        run_text(pin)
        .replace(f"`{pin[:7]}`", f"`{head[:7]}`")
        .replace(f"`{pin}`", f"`{head}`")
        .replace("| SRC-1 | `src/jobs/ledger.ts` |", "| SRC-1 | `pkg/jobs/ledger.ts` |")
        .replace("`src/jobs/ledger.ts:3-5,30–32`", "`pkg/jobs/ledger.ts:5-7,32–34`")
        .replace("`retry_timer.ts:7`", "`timer_retry.ts:7`")
        .replace("SRC-1:10-12 and SRC-1:20", "SRC-1:12-14 and SRC-1:22")
    )
    again = run(pytester, report, repo)
    assert again.ret == 0 and not summary_outcomes(again, ("FAILED", "ERROR")), again.stdout.str()
    nothing = run(pytester, report, repo, "--memreport-write", "--memreport-repin=HEAD")
    assert "nothing to write" in nothing.stdout.str() and report.read_text(encoding="utf-8") == written
