"""A document that states no pin, read again when the run gives one (``--memreport-pin``).

Read in real audit findings: a finding names its files in backticks and quotes their code
under them, or links them at a branch, and states no commit; the contest's commit is the
user's to give. In a document that pins nothing those are words (a guide, a cheat sheet),
so with the commit given each still said "no evidence to check". Given a revision for the
document's repository, what it names is read as in a document that states its pin.
"""

from __future__ import annotations

import json
import textwrap

POOL = "def newest(entries):\n    return entries[-1]\n\n\ndef oldest(entries):\n    return entries[0]\n"


def finding() -> str:
    return textwrap.dedent("""\
        # The pool returns its last entry

        The function `newest` in `pool.py` returns the last entry:

        ```python
        def newest(entries):
            return entries[-1]
        ```

        Nothing checks that `entries` is not empty.
        """)


def linked_at_a_branch() -> str:
    return textwrap.dedent("""\
        # The pool returns its last entry

        See [pool.py](https://github.com/acme/widgets/blob/main/pool.py): nothing checks for an empty list.
        """)


def run(pytester, text: str, *args: str):
    (pytester.path / "finding.md").write_text(text, encoding="utf-8")
    out = pytester.path / "out.json"
    result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", "finding.md", "--memreport-against=none",
                                "--memreport-json", str(out), *args)
    return result, json.loads(out.read_text(encoding="utf-8"))


def checked(data: dict) -> list[tuple[str, str, str]]:
    (report,) = data["reports"]
    return sorted((e["kind"], e["path"], e["at_pin"]["status"])
                  for e in [*report["evidence"], *(e for rec in report["records"] for e in rec["evidence"])])


def test_a_finding_stating_no_pin_is_checked_at_the_revision_the_run_gives(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"pool.py": POOL})

    _, alone = run(pytester, finding(), f"--memreport-repo={repo.path}")
    assert alone["reports"][0]["state"] == "unchecked"  # words: nothing says at which commit
    assert checked(alone) == []

    result, pinned = run(pytester, finding(), f"--memreport-repo={repo.path}", f"--memreport-pin={pin}")
    assert ("path", "pool.py", "found") in checked(pinned)
    assert pinned["reports"][0]["state"] == "fresh"
    assert result.ret == 0


def test_a_link_at_a_branch_is_checked_at_the_revision_the_run_gives_its_repository(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"pool.py": POOL})

    _, alone = run(pytester, linked_at_a_branch(), f"--memreport-repo=acme/widgets={repo.path}")
    assert checked(alone) == []

    _, pinned = run(pytester, linked_at_a_branch(), f"--memreport-repo=acme/widgets={repo.path}",
                    f"--memreport-pin=acme/widgets={pin}")
    assert checked(pinned) == [("path", "pool.py", "found")]
    # a pin given for another repository leaves the document's words as they were
    _, other = run(pytester, linked_at_a_branch(), f"--memreport-repo=acme/widgets={repo.path}",
                   f"--memreport-pin=acme/gadgets={pin}")
    assert checked(other) == []


def test_lines_linked_at_a_branch_stay_evidence_when_the_run_pins_their_repository(pytester, make_repo):
    # (a first reading of run pins dropped them: a document naming no source of its own, read
    # as pinned, took its links at a branch for references to another repository)
    repo = make_repo("widgets")
    pin = repo.commit({"pool.py": POOL})
    text = textwrap.dedent("""\
        # The pool returns its last entry

        https://github.com/acme/widgets/blob/main/pool.py#L1-L2

        Nothing checks for an empty list; `oldest` has the same gap.
        """)

    _, alone = run(pytester, text, f"--memreport-repo=acme/widgets={repo.path}")
    assert alone["reports"][0]["state"] == "unchecked"  # cited only by a link to a branch

    for key in ("acme/widgets=", ""):
        _, pinned = run(pytester, text, f"--memreport-repo=acme/widgets={repo.path}", f"--memreport-pin={key}{pin}")
        assert ("lines", "pool.py", "found") in checked(pinned), key
        assert pinned["reports"][0]["state"] == "fresh", key



def test_what_names_no_repository_is_the_one_linked_repositorys_when_the_run_pins_it():
    # Read in real analyses of a contest: links to the target's files at `main`, the files
    # also named in backticks, and no source of the document's own once read. With the
    # target's commit given, the names were the default source's (the report's own folder,
    # "not inside a git repository") and failed.
    from pytest_memreport.dialects import formbinding
    from pytest_memreport.model import Evidence, EvidenceKind, EvidenceRole, Report

    linked = Evidence(EvidenceKind.PATH, "pool.py", 3, 3, source="acme/widgets", ref="main")
    named = Evidence(EvidenceKind.PATH, "guard.py", 5, 5, role=EvidenceRole.BASENAME)
    report = Report(path="finding.md", dialect="records", title="Scope", sources=(), records=(),
                    evidence=(linked, named))

    settled = formbinding._settled(report, None, frozenset({"acme/widgets"}))
    assert {(e.path, e.source) for e in settled.all_evidence()} == {("pool.py", "acme/widgets"),
                                                                     ("guard.py", "acme/widgets")}
    # a pin for another repository, or two repositories linked, leave the name the document's
    assert {e.source for e in formbinding._settled(report, None, frozenset({"acme/gadgets"})).all_evidence()} >= {None}
    two = replace_evidence(report, Evidence(EvidenceKind.PATH, "b.py", 4, 4, source="acme/gadgets", ref="main"))
    assert {e.source for e in formbinding._settled(two, None, frozenset({None})).all_evidence()} >= {None}


def test_a_library_linked_at_its_own_commit_leaves_the_run_pinned_repository_the_documents():
    # Read in real findings: the target linked at `main` (or at the contest's commit) and
    # OpenZeppelin at its own commit. Two repositories linked, so the finding's code blocks
    # and names were the default source's and failed: "not inside a git repository".
    from pytest_memreport.dialects import formbinding
    from pytest_memreport.model import Evidence, EvidenceKind, EvidenceRole, Report

    sha = "abcdef1234567890abcdef1234567890abcdef12"
    target = Evidence(EvidenceKind.PATH, "pool.py", 3, 3, source="acme/widgets", ref="main")
    library = Evidence(EvidenceKind.LINES, "Address.sol", 4, 4, source="lib/contracts", pin=sha)
    named = Evidence(EvidenceKind.PATH, "guard.py", 5, 5, role=EvidenceRole.BASENAME)
    report = Report(path="finding.md", dialect="records", title="Scope", sources=(), records=(),
                    evidence=(target, library, named))

    settled = formbinding._settled(report, None, frozenset({"acme/widgets"}))
    assert next(e.source for e in settled.all_evidence() if e.path == "guard.py") == "acme/widgets"


def replace_evidence(report, extra):
    from dataclasses import replace

    return replace(report, evidence=(*report.evidence, extra))


def test_one_rule_says_which_run_pin_a_source_takes_for_the_parse_and_the_binding():
    # The parse (is a document pinned by the run?) and the binding (at which revision?) each
    # wrote the rule: its own key, else the unkeyed one, ``SRC-1`` for a report naming none.
    from pytest_memreport.dialects import parse_report
    from pytest_memreport.model import run_pin_key

    assert run_pin_key({"acme/pool": "r1", None: "r0"}, "acme/pool") == "acme/pool"
    assert run_pin_key({"acme/pool": "r1", None: "r0"}, "acme/other") is None  # every source's
    assert run_pin_key({"acme/pool": "r1"}, "acme/other") is False
    assert run_pin_key({"SRC-1": "r1"}, None) == "SRC-1"  # a report that names no source
    assert run_pin_key(frozenset({None}), "SRC-3") is None
    assert run_pin_key(frozenset(), "SRC-1") is False

    keyed = parse_report("finding.md", finding(), run_pins=frozenset({"SRC-1"}))
    other = parse_report("finding.md", finding(), run_pins=frozenset({"acme/other"}))
    assert [e.path for e in keyed.all_evidence() if e.path] != []  # pinned by its default source's key
    assert [e.path for e in other.all_evidence() if e.path] == []  # a key of no source of it: words
