"""A pilot written as a list of fields under a front matter that nests its target
(docs/FORMATS.md, "Any document"): the repository and commit in a mapping of their own
(``target: {repo: ..., commit: ...}``), a file and its lines as fields on lines of their own
(``- **File:** ...`` then ``- **Lines:** ...``), a table column headed ``Line(s)``, and a
name the sentence says the file defines (`` `Queue` is defined in `src/queue.py` ``).

Each was read as nothing, or as a file alone: the document was "unpinned", its lines
unchecked, and a misnamed class passed as a word.
"""

from __future__ import annotations

import textwrap

from finding_support import QUEUE, run_one



def _pilot(pin: str) -> str:
    return textwrap.dedent(f"""\
        ---
        title: Queue pilot
        target:
          repo: acme/widgets
          commit: {pin}
        ---
        # Queue pilot

        - **File:** `src/queue.py`
        - **Lines:** 5-6
        - **Claim:** pushing appends.

        `Queue` is defined in `src/queue.py`.
        `Dequeue` is defined in `src/queue.py`.

        | Claim | File | Line(s) |
        | --- | --- | --- |
        | draining empties | `src/queue.py` | 8-10 |
        """)


def test_a_pilots_nested_pin_fields_and_defined_names_are_checked(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"src/queue.py": QUEUE})

    # unmapped, outside any clone: the key to give, as the document names it
    result, report = run_one(pytester, _pilot(pin), "--memreport-against=none")
    assert "give --memreport-repo acme/widgets=PATH" in result.stdout.str()
    assert result.ret == 1

    result, report = run_one(pytester, _pilot(pin), f"--memreport-repo=acme/widgets={repo.path}",
                             "--memreport-against=none")
    checked = sorted((e["kind"], e.get("cited_lines") or e.get("text") or "", e["at_pin"]["status"])
                     for e in report["evidence"] if e["kind"] in ("lines", "symbol"))
    assert checked == [("lines", [5, 6], "found"), ("lines", [8, 10], "found"),
                       ("symbol", "Dequeue", "missing"), ("symbol", "Queue", "found")], result.stdout.str()[-2000:]
    assert report["state"] == "stale" and result.ret == 1
