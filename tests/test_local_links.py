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
                     (7, "src/queue.py", (6, 6), "found"), (8, "src/queue.py", (40, 40), "missing")], \
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
