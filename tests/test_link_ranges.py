"""A link to a file at a commit, with no line anchor, whose lines the writer gives in the
link's text (``[src/a.py:3-4](<url>)``) or right after it (``[a.py](<url>) lines 3-4``,
``(L3-L4)``): those lines of that file at the link's commit (docs/FORMATS.md, "Any
document"). Each was read as the file alone, the lines unchecked; and a re-pin that moved
them rewrote the link and left the range the words give as it was.
"""

from __future__ import annotations

import textwrap

import pytest

from pytest_memreport.dialects import parse_report
from pytest_memreport.model import EvidenceKind, LineRange

SHA = "1234567890abcdef1234567890abcdef12345678"
URL = f"https://github.com/acme/widgets/blob/{SHA}/src/a.py"


@pytest.mark.parametrize("line", [
    f"The function is [src/a.py:3-4]({URL}).",
    f"The function is [`src/a.py:3-4`]({URL}).",
    f"The function is [a.py]({URL}) lines 3-4.",
    f"The function is [a.py]({URL}) (L3-L4).",
    f"The function is [a.py]({URL}):3-4.",
])
def test_a_links_lines_in_its_text_or_right_after_it_are_cited(line):
    report = parse_report("kb/p.md", f"# P\n\nPinned to acme/widgets at `{SHA}`.\n\n{line}\n")

    cited = [(e.kind, e.path, e.cited_lines, e.pin) for e in report.all_evidence()]
    assert cited == [(EvidenceKind.LINES, "src/a.py", LineRange(3, 4), SHA)]


@pytest.mark.parametrize("line", [
    f"The function is [lib/b.py:3-4]({URL}).",  # (the text names another file: its own words)
    f"The function is [a.py]({URL}), and 3-4 others.",  # (a number after words is no range of it)
])
def test_a_range_beside_a_link_that_is_not_its_files_is_not_cited(line):
    report = parse_report("kb/p.md", f"# P\n\nPinned to acme/widgets at `{SHA}`.\n\n{line}\n")

    assert [e.kind for e in report.all_evidence() if e.path == "src/a.py"] == [EvidenceKind.PATH]


def test_a_repin_rewrites_the_range_written_after_a_link(pytester, make_repo):
    repo = make_repo("widgets")
    old = repo.commit({"src/a.py": "a = 1\nb = 2\ndef f():\n    return 3\n"})
    new = repo.commit({"src/a.py": "# head\n# more\na = 1\nb = 2\ndef f():\n    return 3\n"})
    url = f"https://github.com/acme/widgets/blob/{old}/src/a.py"
    (pytester.path / "doc.md").write_text(textwrap.dedent(f"""\
        # Doc

        Pinned to acme/widgets at `{old}`.

        Again [a.py]({url}) lines 3-4.

        And [a.py]({url}) (L3-L4) too.
        """), encoding="utf-8")
    result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", "doc.md",
                                f"--memreport-repo=acme/widgets={repo.path}", f"--memreport-repin={new}",
                                "--memreport-write")

    text = (pytester.path / "doc.md").read_text(encoding="utf-8")
    assert f"blob/{new}/src/a.py) lines 5-6." in text, result.stdout.str()[-2000:]
    assert f"blob/{new}/src/a.py) (L5-L6) too." in text
    assert "not rewritten" not in result.stdout.str()


def test_a_repin_rewrites_a_fields_lines_and_a_table_cells_range_where_it_said_it_did(pytester, make_repo):
    # A list's `- **Lines:** 3-4` and a `Line(s)` cell were read as the file's lines but no
    # rewrite reached them: the re-pin said "wrote doc.md:6: src/a.py:3-4 -> 5-6" for each,
    # because another citation of the same file and range was rewritten elsewhere.
    repo = make_repo("widgets")
    old = repo.commit({"src/a.py": "a = 1\nb = 2\ndef f():\n    return 3\n"})
    new = repo.commit({"src/a.py": "# head\n# more\na = 1\nb = 2\ndef f():\n    return 3\n"})
    (pytester.path / "doc.md").write_text(textwrap.dedent(f"""\
        # Doc

        Pinned to acme/widgets at `{old}`.

        - **File:** `src/a.py`
        - **Lines:** 3-4

        | Claim | File | Line(s) |
        | --- | --- | --- |
        | f returns | `src/a.py` | L3-L4 |

        The function is `src/a.py:3-4`.
        """), encoding="utf-8")
    result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", "doc.md",
                                f"--memreport-repo=acme/widgets={repo.path}", f"--memreport-repin={new}",
                                "--memreport-write")

    text = (pytester.path / "doc.md").read_text(encoding="utf-8")
    assert "- **Lines:** 5-6\n" in text, result.stdout.str()[-2000:]
    assert "| f returns | `src/a.py` | L5-L6 |" in text and "`src/a.py:5-6`" in text
    assert "not rewritten" not in result.stdout.str()


def test_a_range_read_on_a_line_and_rewritten_nowhere_there_is_unwritten_whatever_else_was():
    from pytest_memreport.model import Evidence
    from pytest_memreport.outputs.repin.report import unwritten
    from pytest_memreport.outputs.repin.target import Move

    cited = Evidence(EvidenceKind.LINES, "src/a.py", 6, 6, cited_lines=LineRange(3, 4))
    move = Move("src/a.py", "src/a.py", LineRange(3, 4), LineRange(5, 6))
    elsewhere = {("src/a.py", LineRange(3, 4))}  # (the same range rewritten on another line)

    assert not unwritten(cited, move, 6, elsewhere)
    assert unwritten(cited, move, 6, elsewhere | {("unwritten", "src/a.py", LineRange(3, 4), 6)})
