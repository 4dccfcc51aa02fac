"""Plain-text renderings of reviews: lines ending `` --- path`` (or ``path:a-b``) quote that file."""

from __future__ import annotations

import json
import textwrap

from pytest_memreport.dialects import parse_report
from pytest_memreport.model import EvidenceKind, LineRange

STORE_PY = textwrap.dedent(
    """\
    class Store:
        def live(self, entries):
            return [e for e in entries if e.live]

        limit = 200
    """
)


def review(sha: str) -> str:
    return textwrap.dedent(
        f"""\
        ---
        description: store review
        last-checked: 2026-08-02
        ---

        Store review

        Repository: https://github.com/o/store
        Reviewed commit: {sha}

        Entries are filtered by liveness (src/store.py).

        return [e for e in entries if e.live] --- src/store.py

        limit = 200 --- src/store.py:5

        The word --- like this --- is prose, not a quotation.
        """
    )


def test_quotation_lines_of_a_plain_text_review_are_quotations_of_their_file():
    report = parse_report("review.txt", review("0" * 40))

    quotes = [e for e in report.all_evidence() if e.kind is EvidenceKind.QUOTE]
    assert report.dialect == "review"
    assert [(q.path, q.text, q.cited_lines, q.line) for q in quotes] == [
        ("src/store.py", "return [e for e in entries if e.live]", None, 13),
        ("src/store.py", "limit = 200", LineRange(5, 5), 15),
    ]
    assert all(q.source == "o/store" for q in quotes)


def test_a_plain_text_review_is_checked_quote_by_quote(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"src/store.py": STORE_PY}, "pin")
    path = pytester.path / "review.txt"
    path.write_text(review(pin).replace("limit = 200 ---", "limit = 300 ---"), encoding="utf-8")
    out = pytester.path / "out.json"

    result = pytester.runpytest("--memreport", str(path), f"--memreport-repo=o/store={repo.path}",
                                "--memreport-against", "none", "--memreport-json", str(out))

    data = json.loads(out.read_text())
    statuses = sorted((e["line"], e["at_pin"]["status"]) for e in data["reports"][0]["evidence"]
                      if e["kind"] == "quote")
    assert statuses == [(13, "found"), (15, "missing")]
    assert "quotation of src/store.py:5 missing" in result.stdout.str()
