"""Links to files of the writer's checkout (docs/FORMATS.md, "Any document"):
``[queue.py](src/queue.py#L2-L3)`` as an agent writes them, ``[queue.py](/home/me/src/
widgets/src/queue.py#L2)``, ``../`` out of the knowledge base, and ``[L3](/queue.py#L3)``
as audit tools write them. Links with no scheme were read as nothing: their lines were
never checked (an audit contest's reports cite 600 lines so)."""

from __future__ import annotations

import textwrap

from finding_support import QUEUE, run_one



def _pilot(pin: str) -> str:
    return textwrap.dedent(f"""\
        # Queue pilot

        Pinned to acme/widgets at `{pin}`.

        - The constructor: [queue.py](/home/me/src/acme/widgets/src/queue.py#L2-L3).
        - Pushing: [queue.py:5](../../clones/widgets/src/queue.py#L5-L6).
        - Found in queue.py [Line: 6](/queue.py#L6)
        - The end: [queue.py](src/queue.py#L40).
        - Its text or the words after it: [queue.py:2-3](src/queue.py), [queue.py](src/queue.py) (lines 8-9).
        - Our other pages: [notes](notes/other.md), [its data](notes/data.json).
        """)


def test_links_to_a_checkouts_files_cite_their_lines(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"src/queue.py": QUEUE})
    (pytester.path / "notes").mkdir()
    (pytester.path / "notes" / "other.md").write_text("# Other\n", encoding="utf-8")
    (pytester.path / "notes" / "data.json").write_text("{}\n", encoding="utf-8")

    result, report = run_one(pytester, _pilot(pin), f"--memreport-repo=acme/widgets={repo.path}",
                             "--memreport-against=none")
    cited = sorted((e["line"], e["path"], tuple(e["cited_lines"]), e["at_pin"]["status"])
                   for e in report["evidence"] if e["kind"] == "lines")
    assert cited == [(5, "src/queue.py", (2, 3), "found"), (6, "src/queue.py", (5, 6), "found"),
                     (7, "src/queue.py", (6, 6), "found"), (8, "src/queue.py", (40, 40), "missing"),
                     (9, "src/queue.py", (2, 3), "found"), (9, "src/queue.py", (8, 9), "found")], \
        result.stdout.str()[-3000:]
    # the knowledge base's own pages are no evidence: a Markdown page not read, its data not the target's
    others = [(e["path"], e["at_pin"]["status"]) for e in report["evidence"] if e["kind"] != "lines"]
    assert others == [("notes/data.json", "not-evidence")], others
    assert report["state"] == "stale" and result.ret == 1


def test_a_link_in_a_code_block_or_to_a_hosts_page_cites_nothing(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"src/queue.py": QUEUE})
    text = textwrap.dedent(f"""\
        # Queue pilot

        Pinned to acme/widgets at `{pin}`.

        ```md
        [queue.py](src/queue.py#L40)
        ```

        [a template](@REPO@/blob/@PIN@/src/queue.py#L40), [a page](#pushing), [mail](mailto:a@b.c).

        `src/queue.py:2` builds it.
        """)
    result, report = run_one(pytester, text, f"--memreport-repo=acme/widgets={repo.path}", "--memreport-against=none")
    assert [(e["line"], e["path"]) for e in report["evidence"]] == [(11, "src/queue.py")], report["evidence"]
    assert result.ret == 0


def test_a_repin_rewrites_the_lines_a_local_links_text_or_the_words_after_it_give(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"src/queue.py": QUEUE})
    later = repo.commit({"src/queue.py": '"""The queue."""\n\n' + QUEUE})
    (pytester.path / "pilot.md").write_text(textwrap.dedent(f"""\
        # Queue pilot

        Pinned to acme/widgets at `{pin}`.

        - Pushing: [queue.py](src/queue.py) (lines 5-6), building [queue.py:1-3](src/queue.py),
          draining [queue.py](src/queue.py#L8-L10).
        """), encoding="utf-8")
    result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", "pilot.md",
                                f"--memreport-repo=acme/widgets={repo.path}", "--memreport-repin", "HEAD",
                                "--memreport-write")
    written = (pytester.path / "pilot.md").read_text(encoding="utf-8")
    # (the first version refused: "cannot find where the report writes it")
    assert "(lines 7-8)" in written and "[queue.py:3-5]" in written and "#L10-L12" in written, \
        result.stdout.str()[-2000:] + written
    assert later in written and result.ret == 0
