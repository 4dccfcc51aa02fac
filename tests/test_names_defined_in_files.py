"""A name a sentence says a file defines (`` `Queue` is defined in `queue/core.py` ``,
docs/FORMATS.md, "Any document"), read on real tutorials checked against their projects'
histories (celery, click, flask, requests, the MCP SDK): a file written without the tree's
``src/`` folder made the check fail as a file the pin lacks, where the same file in backticks
was read by the one path of the tree ending so; and a member written on its instance
(`` `self.config_class` ``, a class attribute no definition names) failed as no definition."""

from __future__ import annotations

import textwrap

from finding_support import QUEUE, run_one

CORE = QUEUE + textwrap.dedent("""\

    class Settings:
        config_class = dict

        def make_config(self):
            return self.config_class()
    """)


def test_a_file_written_without_its_trees_folder_is_the_one_ending_so(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"src/queue/core.py": CORE, "src/queue/other.py": "X = 1\n"})
    text = textwrap.dedent(f"""\
        # Queue tutorial

        Read at commit `{pin}`.

        The `Queue` class is defined in `queue/core.py`, and `Drained` is defined in `queue/core.py` too.
        The `Stack` class is defined in `queue/stack.py`.
        `self.make_config` is defined in `queue/core.py`, which uses `self.config_class` defined in `queue/core.py`.
        """)
    result, report = run_one(pytester, text, f"--memreport-repo={repo.path}", "--memreport-against=none")
    symbols = {e["text"]: (e["path"], e["at_pin"]["status"]) for e in report["evidence"] if e["kind"] == "symbol"}
    out = result.stdout.str()
    # read in the tree's file (a misnamed one still fails, naming where it looked)
    assert symbols["Queue"] == ("src/queue/core.py", "found"), out[-3000:]
    assert symbols["Drained"] == ("src/queue/core.py", "missing")
    # a file the tree has nowhere is the document's word, as its mention is: no failure
    assert "Stack" not in symbols
    # a member on its instance: the method is checked, the attribute (no definition) is a word
    assert symbols["make_config"] == ("src/queue/core.py", "found")
    assert "config_class" not in symbols and "self.config_class" not in symbols
    # (the one failure: counted in the results, as a wide terminal repeats it in its summary)
    assert [status for _, status in symbols.values()].count("missing") == 1 and result.ret == 1, out[-3000:]
