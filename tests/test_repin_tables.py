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


def ledger_run(title: str, pin: str, prose: str) -> str:
    """A one-file run citing ``src/jobs/ledger.ts`` as SRC-1 at ``pin``, then ``prose``."""
    return (f"# Analysis run {title}\n\n**Revision:** `{pin[:7]}`\n\n| ID | Path |\n| --- | --- |\n"
            f"| SRC-1 | `src/jobs/ledger.ts` |\n\n" + textwrap.dedent(prose))


def test_an_inline_quotation_cited_on_the_next_line_gets_its_range_corrected_and_moved(pytester, moved):
    """A quotation wrapped over two lines, its citation after it on the second, one line off at
    the pin: the write corrects the citation where it is written, then the re-pin shifts it."""
    repo, pin, head = moved
    text = ledger_run("4: ledger steps", pin, """\
        The ledger declares its seventh step as "export const
        step7 = 7" (`SRC-1:6`), right after the sixth.
        """)
    report = pytester.path / "steps.md"
    report.write_text(text, encoding="utf-8")
    at_pin = run(pytester, report, repo, "--memreport-against=none")
    assert at_pin.ret == 1 and "cited 6, found at 7" in at_pin.stdout.str()

    result = run(pytester, report, repo, "--memreport-write", "--memreport-repin=HEAD")
    assert result.ret == 0, result.stdout.str()
    assert "range corrected: the quotation is at line 7 at the pin" in result.stdout.str()
    written = report.read_text(encoding="utf-8")
    assert written == (text.replace(f"`{pin[:7]}`", f"`{head[:7]}`")
                       .replace("| `src/jobs/ledger.ts` |", "| `pkg/jobs/ledger.ts` |")
                       .replace("(`SRC-1:6`)", "(`SRC-1:9`)"))
    again = run(pytester, report, repo)
    assert again.ret == 0 and not summary_outcomes(again, ("FAILED", "ERROR")), again.stdout.str()
    nothing = run(pytester, report, repo, "--memreport-write", "--memreport-repin=HEAD")
    assert "nothing to write" in nothing.stdout.str() and report.read_text(encoding="utf-8") == written


def test_a_continuation_on_the_next_line_of_its_sentence_moves_with_its_file(pytester, moved):
    """``:30-32`` continues the path cited on the line before it (same sentence): both shift."""
    repo, pin, head = moved
    text = ledger_run("5: ledger", pin, """\
        The ledger starts at `src/jobs/ledger.ts:3` and, much further down the
        same file, goes on at :30-32 before it ends.
        """)
    report = pytester.path / "ledger.md"
    report.write_text(text, encoding="utf-8")
    result = run(pytester, report, repo, "--memreport-write", "--memreport-repin=HEAD")
    assert result.ret == 0, result.stdout.str()
    written = report.read_text(encoding="utf-8")
    assert written == (text.replace(f"`{pin[:7]}`", f"`{head[:7]}`")
                       .replace("| `src/jobs/ledger.ts` |", "| `pkg/jobs/ledger.ts` |")
                       .replace("`src/jobs/ledger.ts:3`", "`pkg/jobs/ledger.ts:5`")
                       .replace("at :30-32 before", "at :32-34 before"))
    again = run(pytester, report, repo)
    assert again.ret == 0 and not summary_outcomes(again, ("FAILED", "ERROR")), again.stdout.str()
