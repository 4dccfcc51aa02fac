"""Report sets: a folder of reviews, cross-report references, inline predicates, unmapped repositories."""

from __future__ import annotations

import json
import textwrap

ENGINE_RS = "pub fn run() {\n    let limit = 64;\n    step(limit);\n}\n"


def review(sha: str, other: str = "") -> str:
    return textwrap.dedent(
        f"""\
        ---
        description: Engine review
        type: code-review
        ---

        # Engine review

        **Repository:** https://github.com/acme/widget
        **Reviewed commit:** [{sha}](https://github.com/acme/widget/commit/{sha})

        ## Loop

        The loop lives in [engine.rs](https://github.com/acme/widget/blob/{sha}/src/engine.rs#L1-L3).
        {other}
        """
    )


def test_folder_of_reviews_and_an_unmapped_repository(pytester, make_repo):
    repo = make_repo()
    sha = repo.commit({"src/engine.rs": ENGINE_RS}, "engine")
    folder = pytester.path / "reviews"
    folder.mkdir()
    (folder / "a.md").write_text(review(sha), encoding="utf-8")
    other = f"It calls [a helper](https://github.com/other/lib/blob/{sha}/src/lib.rs) too."
    (folder / "b.md").write_text(review(sha, other), encoding="utf-8")
    (folder / "notes.txt").write_text("not a report", encoding="utf-8")
    result = pytester.runpytest("--memreport", str(folder), f"--memreport-repo=acme/widget={repo.path}", "-v", "-rs")
    stdout = result.stdout.str()
    assert "reviews/a.md::lines@L13:src/engine.rs:1-3@" in stdout and "reviews/b.md::lines@L13" in stdout
    assert "notes.txt" not in stdout
    # The unmapped repository is one skipped item that names the option, and none of its links run.
    assert "b.md::source:other/lib SKIPPED" in stdout
    assert "give --memreport-repo other/lib=PATH" in stdout
    assert "src/lib.rs" not in stdout.replace("/src/lib.rs)", "")
    assert result.ret == 0


MEMORY = textwrap.dedent(
    """\
    # Memory report

    ## Boundary and evidence

    SRC-1 commit {pin} is the boundary.

    ## Routes

    MEM-RTE-recall

    Label: Recall

    Part of: RT-RTE-turn-loop

    Recall feeds RT-RTE-turn-loop and the planner EPI-CLM-planner. SRC-1: store.py.

    ```memreport
    - contains: {{path: store.py, text: "LIMIT = 200"}}
    - absent: {{glob: "*.py", regex: "pickle"}}
    ```

    - implementation conclusion status: afforded
    - operation conclusion status: uninspected
    """
)

RUNTIME = textwrap.dedent(
    """\
    # Runtime report

    ## Boundary and evidence

    SRC-1 commit {pin} is the boundary.

    ## Routes

    RT-RTE-turn-loop

    Label: Turn loop

    The loop consults MEM-RTE-recall and RT-OBJ-missing-thing. SRC-1: store.py.

    - implementation conclusion status: afforded
    - operation conclusion status: uninspected
    """
)


def test_cross_references_inline_predicates_and_external_prefixes(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"store.py": "LIMIT = 200\n"}, "store")
    memory = pytester.path / "memory.md"
    runtime = pytester.path / "runtime.md"
    memory.write_text(MEMORY.format(pin=pin), encoding="utf-8")
    runtime.write_text(RUNTIME.format(pin=pin), encoding="utf-8")
    out = pytester.path / "out.json"
    args = [f"--memreport-repo={repo.path}", "--memreport-json", str(out), "-v"]
    # Alone, the memory report's references to the runtime report dangle.
    alone = pytester.runpytest("--memreport", str(memory), *args)
    alone.stdout.fnmatch_lines(["*memory.md::references FAILED*"])
    assert "memory.md:13: RT-RTE-turn-loop is not declared in any loaded report" in alone.stdout.str()
    # Loaded together, only the truly missing records dangle; EPI is declared elsewhere on purpose.
    both = pytester.runpytest("--memreport", str(memory), "--memreport", str(runtime),
                              "--memreport-external", "EPI", *args)
    stdout = both.stdout.str()
    assert "memory.md::references PASSED" in stdout
    assert "runtime.md::references FAILED" in stdout
    assert "runtime.md:13: RT-OBJ-missing-thing is not declared in any loaded report" in stdout
    assert "memory.md::MEM-RTE-recall::predicate[0]:contains@L18 PASSED" in stdout
    assert "memory.md::MEM-RTE-recall::predicate[1]:absent@L19 PASSED" in stdout
    data = json.loads(out.read_text())
    by_path = {r["path"]: r for r in data["reports"]}
    assert by_path["memory.md"]["coverage"]["selection_predicates_total"] == 0
    assert by_path["memory.md"]["coverage"]["records_guarded"] == 1
