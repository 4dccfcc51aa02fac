"""Tutorials of real projects, written by a language model and checked against each project's
history at the tutorial's date (`--memreport-pin`): DSPy, PocketFlow (docs/FORMATS.md, "Any
document"; §4's ties). Three false verdicts, each a test here:

* a phrase in quotation marks labelling a concept (``Common `types` (The "Vocabulary and
  Grammar"): these are pre-defined models (found in `common/types.py`)``) was read as a quotation
  of the file, "pre-defined" taken for the verb "defined": it failed as missing there;
* a class whose file was renamed away, while another file took the old name, was "deleted"
  (the new file of that name was searched), where it had gone with its file;
* the writer's own example phrase, found at the pin only by searching the tree, failed as
  deleted when the file it was found in was removed, though other files hold it."""

from __future__ import annotations

import textwrap

from finding_support import run_one


def test_a_concept_labelled_in_quotation_marks_beside_a_pre_defined_file_is_no_quotation_of_it(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"common/types.py": 'class Task:\n    """One job to run."""\n'})
    text = textwrap.dedent(f"""\
        # Agents talking

        Read at commit `{pin}`.

        2. **Common `types` (The "Vocabulary and Grammar")**: These are pre-defined models (found in `common/types.py`) that shape every message.
        3. `common/types.py` describes a task as "One job to run".
        """)
    result, report = run_one(pytester, text, f"--memreport-repo={repo.path}", "--memreport-against=none")
    quotes = {e["text"]: (e.get("role"), e["at_pin"]["status"]) for e in report["evidence"] if e["kind"] == "quote"}
    assert quotes["Vocabulary and Grammar"][1] != "missing", quotes
    assert quotes["One job to run"] == ("prose", "found"), quotes  # (a verb of saying still ties a phrase)
    assert result.ret == 0, result.stdout.str()[-2000:]


def test_a_definition_whose_file_was_renamed_while_another_took_its_name_moved_with_its_file(pytester, make_repo):
    repo = make_repo("widgets")
    base = "class BaseModule:\n    def named_parameters(self):\n        return []\n"
    program = "class Program:\n    def run(self):\n        return 1\n"
    pin = repo.commit({"pkg/module.py": base, "pkg/program.py": program})
    repo.move("pkg/module.py", "pkg/base_module.py")
    repo.move("pkg/program.py", "pkg/modules.py")
    repo.commit(message="split the module")
    repo.move("pkg/modules.py", "pkg/module.py")
    repo.commit(message="the program is the module now")
    text = f"# Modules\n\nRead at commit `{pin}`.\n\nThe `BaseModule` class is defined in `pkg/module.py`.\n"
    result, report = run_one(pytester, text, f"--memreport-repo={repo.path}")
    (symbol,) = [e for e in report["evidence"] if e["kind"] == "symbol"]
    assert symbol["at_against"]["status"] == "moved", symbol["at_against"]
    assert symbol["at_against"]["path"] == "pkg/base_module.py"
    assert result.ret == 0, result.stdout.str()[-2000:]


def test_the_writers_phrase_found_by_searching_the_tree_holds_while_the_tree_holds_it(pytester, make_repo):
    repo = make_repo("widgets")
    phrase = "Which planet in the solar system has the largest number of moons?"
    pin = repo.commit({"docs/old.md": f"Ask: {phrase}\n", "site/cheatsheet.md": f"Try {phrase}\n"})
    repo.delete("docs/old.md")
    repo.commit(message="remove old examples")
    text = f'# Evaluating\n\nRead at commit `{pin}`.\n\nWe ask the program "{phrase}" and compare.\n'
    result, report = run_one(pytester, text, f"--memreport-repo={repo.path}")
    (quote,) = [e for e in report["evidence"] if e["kind"] == "quote"]
    assert quote["role"] == "term" and quote["at_pin"]["status"] == "found", quote
    assert quote["at_against"]["status"] == "relocated", quote["at_against"]
    assert result.ret == 0, result.stdout.str()[-2000:]
    # A plain one ("call the LLM", a writer's example) is looked for in no file it does not
    # name: its few letters match some page of a large tree by chance, which later goes.
    repo.commit({"docs/llm.md": "Then call the LLM.\n"}, "an unrelated page")
    pin = repo.repo.head.commit.hexsha
    plain = f'# Nodes\n\nRead at commit `{pin}`.\n\nA node may "call the LLM" for its answer.\n'
    result, report = run_one(pytester, plain, f"--memreport-repo={repo.path}", name="plain.md")
    (quote,) = [e for e in report["evidence"] if e["kind"] == "quote"]
    assert quote["at_pin"]["status"] == "not-evidence", quote
    assert "too few to tell a quotation of the tree" in quote["at_pin"]["reason"], quote


def test_a_programs_output_in_an_unlabelled_block_cites_no_file_the_target_lacks(pytester, make_repo):
    # Read in a tutorial of serena: the output its example prints ("Found reference in
    # main.py at line 4"), in a fenced block of no language, failed as lines of a file the
    # target does not have. A block of no language is output as often as code: a file it
    # cites that the pinned tree lacks is its own text, not a failure.
    repo = make_repo("widgets")
    pin = repo.commit({"src/queue.py": "LIMIT = 200\n"})
    text = textwrap.dedent(f"""\
        # References

        Read at commit `{pin}`.

        The server returns the two calls in `main.py`:

        ```
        Found reference in main.py at line 4
        Found reference in src/queue.py at line 1
        ```

        The limit is set in `src/queue.py` at line 1.
        """)
    result, report = run_one(pytester, text, f"--memreport-repo={repo.path}", "--memreport-against=none")
    lines = sorted((e["line"], e["path"], e["at_pin"]["status"]) for e in report["evidence"] if e["kind"] == "lines")
    # (the target's own file there is still evidence, as a pasted stack trace's own frame is)
    assert lines == [(8, "main.py", "not-evidence"), (9, "src/queue.py", "found"), (12, "src/queue.py", "found")], \
        report["evidence"]
    assert result.ret == 0, result.stdout.str()[-2000:]
