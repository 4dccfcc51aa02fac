"""Claims in every dialect, as users run them: report-level predicates (a claims file's
``report:`` and blocks outside records), inline blocks in records, warnings for blocks
that cannot be attached, every problem of a claims file at once, renames followed at
the against-revision, the JSON, and promotion that a failing predicate blocks."""

from __future__ import annotations

import json
import textwrap

from conftest import summary_outcomes

BLOB = "https://github.com/acme/widget/blob"

ENGINE_RS = "pub struct Engine;\n\nimpl Engine {\n    pub fn tick(&mut self) -> usize { 0 }\n}\n"
QUEUE_RS = "pub struct Queue;\n// never calls unsafe_reset here\n"


def review(pin: str, block: str = "") -> str:
    return textwrap.dedent(
        f"""\
        ---
        description: Widget review
        ---

        # Widget review

        **Repository:** https://github.com/acme/widget
        **Reviewed commit:** [{pin}](https://github.com/acme/widget/commit/{pin})

        The loop is [engine.rs]({BLOB}/{pin}/src/core/engine.rs).
        """
    ) + block


REVIEW_CLAIMS = textwrap.dedent(
    """\
    schema: memreport-claims/1
    report:
      predicates:
        - contains: {path: src/core/engine.rs, text: "pub fn tick(&mut self)"}
        - absent: {glob: "src/core/**", text: "unsafe_reset(", in: code}
    """
)

INLINE = textwrap.dedent(
    """\

    Nothing in the queue resets it:

    ```memreport
    - absent: {glob: "src/queue/*.rs", regex: "unsafe_reset\\\\(", in: code}
    ```
    """
)


def widget(make_repo):
    repo = make_repo("widget")
    pin = repo.commit({"src/core/engine.rs": ENGINE_RS, "src/queue/queue.rs": QUEUE_RS}, "initial")
    return repo, pin


def run(pytester, report, repo, *args):
    return pytester.runpytest("--memreport", str(report), f"--memreport-repo=acme/widget={repo.path}", "-rA", *args)


def test_review_carries_report_predicates_from_claims_file_and_block(pytester, make_repo):
    repo, pin = widget(make_repo)
    report = pytester.path / "widget.md"
    report.write_text(review(pin, INLINE), encoding="utf-8")
    (pytester.path / "widget.claims.yaml").write_text(REVIEW_CLAIMS, encoding="utf-8")
    out = pytester.path / "out.json"
    result = run(pytester, report, repo, f"--memreport-json={out}")
    outcomes = summary_outcomes(result)
    assert outcomes["widget.md::report::predicate[0]:contains"] == "PASSED"
    assert outcomes["widget.md::report::predicate[0]:contains::drift"] == "PASSED"
    assert outcomes["widget.md::report::predicate[1]:absent"] == "PASSED"
    assert outcomes["widget.md::report::predicate[0]:absent@L15"] == "PASSED"
    assert result.ret == 0, result.stdout.str()
    data = json.loads(out.read_text())
    [entry] = data["reports"]
    assert [(p["record"], p["kind"], p["file"], p["line"], p["at_pin"]["status"], p["at_against"]["status"])
            for p in entry["predicates"]] == [
        (None, "contains", "widget.claims.yaml", 4, "holds", "holds"),
        (None, "absent", "widget.claims.yaml", 5, "holds", "holds"),
        (None, "absent", "widget.md", 15, "holds", "holds"),
    ]
    assert "no match in 1 file" in entry["predicates"][2]["at_pin"]["message"]


def test_review_predicates_follow_a_rename_and_an_absence_renamed_away_fails_empty(pytester, make_repo):
    repo, pin = widget(make_repo)
    report = pytester.path / "widget.md"
    report.write_text(review(pin, INLINE), encoding="utf-8")
    (pytester.path / "widget.claims.yaml").write_text(REVIEW_CLAIMS, encoding="utf-8")
    # the core folder moves as a whole; the queue's one file is renamed away from its folder
    repo.move("src/core/engine.rs", "lib/core/engine.rs")
    repo.move("src/queue/queue.rs", "lib/jobs.rs")
    repo.commit(message="move")
    out = pytester.path / "out.json"
    result = run(pytester, report, repo, f"--memreport-json={out}")
    outcomes = summary_outcomes(result)
    assert outcomes["widget.md::report::predicate[0]:contains::drift"] == "PASSED"
    assert outcomes["widget.md::report::predicate[1]:absent::drift"] == "PASSED"
    # src/queue/*.rs cannot be followed (its file did not move with a folder): empty, never a pass
    assert outcomes["widget.md::report::predicate[0]:absent@L15::drift"] == "FAILED"
    assert "empty boundary: src/queue/*.rs matched no file" in result.stdout.str()
    entry = json.loads(out.read_text())["reports"][0]
    contains = next(p for p in entry["predicates"] if p["kind"] == "contains")
    assert contains["at_against"]["followed"] == [["src/core/engine.rs", "lib/core/engine.rs"]]
    assert "followed the rename src/core/engine.rs -> lib/core/engine.rs" in contains["at_against"]["message"]
    absent = next(p for p in entry["predicates"] if p["kind"] == "absent" and p["line"] == 5)
    assert absent["at_against"]["followed"] == [["src/core/", "lib/core/"]]


def test_report_predicates_of_an_analysis_run_pass_and_fail(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"src/jobs/ledger.ts": "export const LIMIT = 200;\n"}, "ledger")
    report = pytester.path / "run.md"
    report.write_text(textwrap.dedent(f"""\
        # Analysis run 4

        **Revision:** `{pin}`

        | ID | Label | Anchors |
        | --- | --- | --- |
        | OBJ-01 | Ledger | `src/jobs/ledger.ts:1` |

        ```memreport
        predicates:
          - value: {{path: src/jobs/ledger.ts, symbol: LIMIT, equals: 200}}
          - contains: {{path: src/jobs/ledger.ts, text: "LIMIT = 300"}}
        ```
        """), encoding="utf-8")
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-rA")
    outcomes = summary_outcomes(result)
    assert outcomes["run.md::report::predicate[0]:value@L11"] == "PASSED"
    assert outcomes["run.md::report::predicate[1]:contains@L12"] == "FAILED"
    assert "run.md:12: report contains predicate does not hold at pin" in result.stdout.str()
    assert result.ret == 1


RECORDS_MD = textwrap.dedent(
    """\
    # Store memory

    SRC-1 commit {pin} is the boundary.

    ## Claims

    MEM-CLM-bounded
    Label: Bounded store

    The store holds at most 200 entries.

    ```memreport
    - value: {{path: store.py, symbol: LIMIT, equals: 200}}
    ```

    On RT-RTE-elsewhere

    ```memreport
    - contains: {{path: store.py, text: LIMIT}}
    ```

    ```memreport-yaml
    - contains: {{path: store.py, text: LIMIT}}
    ```
    """
)


def test_blocks_in_a_record_and_unattachable_blocks_warn(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"store.py": "LIMIT = 200\n"}, "store")
    report = pytester.path / "store.md"
    report.write_text(RECORDS_MD.format(pin=pin), encoding="utf-8")
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-rA",
                                "--memreport-external=RT")
    outcomes = summary_outcomes(result)
    assert outcomes["store.md::MEM-CLM-bounded::predicate[0]:value@L13"] == "PASSED"
    assert outcomes["store.md::claims"] == "PASSED"
    out = result.stdout.str()
    # neither the annotation's block nor the misnamed fence is silently dropped
    assert "store.md:18: MemreportWarning: memreport block inside the annotation of RT-RTE-elsewhere" in out
    assert "store.md:22: MemreportWarning: ```memreport-yaml block is not read as claims" in out
    assert not any("RT-RTE-elsewhere" in node for node in outcomes)


FIVE_PROBLEMS = textwrap.dedent(
    """\
    schema: memreport-claims/1
    report:
      predicates:
        - contians: {path: a.py, text: x}
        - symbol: {path: a.py, name: f, kind: func}
        - count: {glob: "*.py", text: x, equals: many}
      observe:
        - run: "true"
          timeout: .nan
    records:
      MEM-CLM-bounded:
        predicates:
          - contains: {path: store.py, text: LIMIT, colour: red}
    """
)


def test_a_claims_file_with_five_problems_reports_five(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"store.py": "LIMIT = 200\n"}, "store")
    report = pytester.path / "store.md"
    report.write_text(RECORDS_MD.format(pin=pin), encoding="utf-8")
    (pytester.path / "store.claims.yaml").write_text(FIVE_PROBLEMS, encoding="utf-8")
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-rA")
    out = result.stdout.str()
    assert "store.md: claims input has 5 problem(s)" in out
    for line, phrase in ((4, "unknown predicate kind 'contians'"), (5, "kind: 'func' is not a definition kind"),
                         (6, "equals must be a whole number"), (9, "timeout must be a finite number"),
                         (13, "unknown key 'colour'")):
        assert f"store.claims.yaml:{line}: {phrase}" in out
    assert result.ret == 1


OBSERVED_MD = textwrap.dedent(
    """\
    Store report

    SRC-1 commit {pin} is the boundary.

    Claims

    MEM-CLM-bounded

    Label: Bounded

    LIMIT = 200 --- store.py

      • operation conclusion status: uninspected
    """
)


def test_a_record_whose_predicate_fails_at_the_pin_is_never_promoted(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"store.py": "LIMIT = 200\n"}, "store")
    report = pytester.path / "store.txt"
    report.write_text(OBSERVED_MD.format(pin=pin), encoding="utf-8")
    claims = pytester.path / "store.claims.yaml"
    claims.write_text(textwrap.dedent("""\
        schema: memreport-claims/1
        records:
          MEM-CLM-bounded:
            predicates:
              - value: {path: store.py, symbol: LIMIT, equals: 300}
            observe:
              - run: "true"
        """), encoding="utf-8")
    original = report.read_bytes()
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "--memreport-run",
                                "--memreport-write", "-rA")
    outcomes = summary_outcomes(result)
    assert outcomes["store.txt::MEM-CLM-bounded::observe[0]"] == "PASSED"
    assert outcomes["store.txt::MEM-CLM-bounded::predicate[0]:value"] == "FAILED"
    assert report.read_bytes() == original
    # with the predicate true, the same observation promotes
    claims.write_text(claims.read_text().replace("equals: 300", "equals: 200"), encoding="utf-8")
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "--memreport-run",
                                "--memreport-write")
    assert result.ret == 0, result.stdout.str()
    assert "operation conclusion status: observed" in report.read_text(encoding="utf-8")


def test_hostile_claims_input_is_one_line_per_problem_at_load(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"store.py": "LIMIT = 200\n"}, "store")
    report = pytester.path / "store.txt"
    report.write_text(OBSERVED_MD.format(pin=pin), encoding="utf-8")
    (pytester.path / "store.claims.yaml").write_text(textwrap.dedent(f"""\
        schema: memreport-claims/1
        records:
          MEM-CLM-bounded:
            predicates:
              - count: {{glob: "*.py", text: x, equals: !!int abc}}
              - value: {{path: store.py, symbol: LIMIT, equals: {"9" * 5001}}}
            observe:
              - run: "true"
                timeout: {"9" * 401}
              - run: "true"
                env: {{"A=B": x}}
        """), encoding="utf-8")
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-rA")
    out = result.stdout.str()
    assert "Traceback" not in out
    assert "store.claims.yaml:5: YAML tag 'tag:yaml.org,2002:int' is not allowed" in out
    assert "store.claims.yaml:6: value equals is a number of 5001 characters" in out
    assert "store.claims.yaml:9: timeout is a number of 401 characters" in out
    assert "store.claims.yaml:11: env name 'A=B' is not a variable name" in out
    assert result.ret == 1


LIB_TS = "export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport const unused = 1;\n"
#: a stand-in for a JavaScript coverage tool: the target's own script writes LCOV
RUN_TESTS_SH = textwrap.dedent(
    """\
    #!/bin/sh
    mkdir -p coverage
    cat > coverage/lcov.info <<LCOV
    TN:
    SF:$PWD/src/lib.ts
    FN:1,add
    DA:1,1
    DA:2,HITS
    DA:5,1
    LF:3
    LH:3
    end_of_record
    LCOV
    """
)
TS_REPORT = textwrap.dedent(
    """\
    Adder report

    SRC-1 commit {pin} is the boundary.

    Routes

    MEM-RTE-add

    Label: Add

    return a + b; --- src/lib.ts:2

      • implementation conclusion status: afforded
      • operation conclusion status: uninspected
    """
)


def test_covers_file_lcov_observes_a_non_python_command(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"src/lib.ts": LIB_TS, "run_tests.sh": RUN_TESTS_SH.replace("HITS", "3")}, "lib")
    missed = repo.commit({"run_tests.sh": RUN_TESTS_SH.replace("HITS", "0")}, "a test that misses add")
    report = pytester.path / "adder.txt"
    report.write_text(TS_REPORT.format(pin=pin), encoding="utf-8")
    (pytester.path / "adder.claims.yaml").write_text(textwrap.dedent("""\
        schema: memreport-claims/1
        records:
          MEM-RTE-add:
            observe:
              - run: "sh run_tests.sh"
                covers_file: coverage/lcov.info
        """), encoding="utf-8")
    out = pytester.path / "out.json"
    # at a pin whose script reports zero hits on the quoted line: the run passes, the observation does not
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "--memreport-run",
                                f"--memreport-pin={missed}", "--memreport-write", "-rA")
    assert "did not execute the quoted code" in result.stdout.str() or "without executing" in result.stdout.str()
    assert "status: uninspected" in report.read_text(encoding="utf-8")
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "--memreport-run",
                                "--memreport-write", f"--memreport-json={out}")
    assert result.ret == 0, result.stdout.str()
    text = report.read_text(encoding="utf-8")
    assert "operation conclusion status: observed" in text and "quoted lines executed" in text
    [observed] = json.loads(out.read_text())["reports"][0]["observations"]
    assert (observed["record"], observed["file"], observed["line"], observed["status"]) == (
        "MEM-RTE-add", "adder.claims.yaml", 5, "passed")
    assert observed["result"]["coverage"]["lines"] == {"src/lib.ts": [[2, 2]]}
    assert observed["result"]["coverage"]["format"] == "lcov"


def test_covers_true_on_a_command_coverage_py_cannot_measure_is_refused_at_load(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"src/lib.ts": LIB_TS}, "lib")
    report = pytester.path / "adder.txt"
    report.write_text(TS_REPORT.format(pin=pin), encoding="utf-8")
    (pytester.path / "adder.claims.yaml").write_text(textwrap.dedent("""\
        schema: memreport-claims/1
        records:
          MEM-RTE-add:
            observe:
              - run: "npx jest"
                covers: true
        """), encoding="utf-8")
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-rA")
    out = result.stdout.str()
    assert "adder.claims.yaml:5: covers: true needs a python or pytest command" in out
    assert "name the file with covers_file:" in out
    assert summary_outcomes(result)["adder.txt::claims"] == "FAILED"


def test_report_level_observation_runs_and_promotes_nothing(pytester, make_repo):
    repo, pin = widget(make_repo)
    report = pytester.path / "widget.md"
    report.write_text(review(pin) + "\n- operation conclusion status: uninspected\n", encoding="utf-8")
    (pytester.path / "widget.claims.yaml").write_text(textwrap.dedent("""\
        schema: memreport-claims/1
        report:
          observe:
            - run: "test -f src/core/engine.rs"
        """), encoding="utf-8")
    original = report.read_bytes()
    out = pytester.path / "out.json"
    result = run(pytester, report, repo, "--memreport-run", "--memreport-write", f"--memreport-json={out}")
    assert summary_outcomes(result)["widget.md::report::observe[0]"] == "PASSED"
    assert report.read_bytes() == original
    [observed] = json.loads(out.read_text())["reports"][0]["observations"]
    assert (observed["record"], observed["line"], observed["status"]) == (None, 4, "passed")
