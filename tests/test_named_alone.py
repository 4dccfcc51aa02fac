"""A member named in backticks with no owner and no citation, its sentence saying what it
is (`` the `deposit` function ``, `` the function `deposit` ``): a definition of the pinned
tree, where exactly one of the files holding the name defines it (docs/FORMATS.md, the
evidence forms).

Audit findings and notes name the code they are about this way far more often than with
its owner or a citation (ai-arena: 640 such names in one contest), and each was a word.
"""

from __future__ import annotations

import json
import textwrap

from finding_support import POOL, run_one

from pytest_memreport.dialects import parse_report
from pytest_memreport.model import LOOKUP_TREE, EvidenceKind

SHA = "1234567890abcdef1234567890abcdef12345678"

VAULT = textwrap.dedent("""\
    pragma solidity ^0.8.0;

    contract Vault {
        uint256 public held;

        function deposit(uint256 amount) public {
            held += amount;
        }

        function drain(address to) public {
            payable(to).transfer(held);
            held = 0;
        }
    }
    """)

FINDING = textwrap.dedent("""\
    # Deposits are not capped

    The `deposit` function adds any amount, and the function `drain()` pays it all out.
    The `withdrawAll` method was never written. The `held` balance is a word, as `id` is.
    """)


def _symbols(report) -> list[tuple[str, tuple[str, ...], int]]:
    return [(e.text, e.context, e.line) for e in report.all_evidence()
            if e.kind is EvidenceKind.SYMBOL and e.lookup == LOOKUP_TREE]


def test_a_member_a_sentence_calls_a_function_is_proposed_in_the_pinned_tree():
    report = parse_report("findings/cap.md", FINDING, run_pins=frozenset({None}))

    # (a name with no kind word beside it, a short one, a constant's, are the writer's words)
    assert _symbols(report) == [("deposit", (), 3), ("drain", (), 3), ("withdrawAll", (), 4)]
    # in a document no pin covers, they are words
    assert _symbols(parse_report("findings/cap.md", FINDING)) == []


def test_a_member_named_alone_is_checked_where_one_file_alone_defines_it(pytester, make_repo):
    repo = make_repo("vault")
    pin = repo.commit({"contracts/Pool.sol": POOL, "contracts/Vault.sol": VAULT,
                       "docs/notes.md": "The deposit and withdrawAll words, in prose.\n"})

    result, report = run_one(pytester, FINDING, f"--memreport-repo={repo.path}", f"--memreport-pin={pin}",
                             "--memreport-against=none")
    symbols = [(e["path"], e["text"], e["at_pin"]["status"]) for e in report["evidence"] if e["kind"] == "symbol"]
    # `drain`: Pool and Vault both define one, and the sentence does not say whose; `withdrawAll`:
    # none does (the finding's word). Neither is a failure.
    assert symbols == [("contracts/Vault.sol", "deposit", "found")]
    assert report["state"] == "fresh" and result.ret == 0

    # the function gone: the finding is about code the target no longer has
    repo.commit({"contracts/Vault.sol": VAULT.replace(
        "    function deposit(uint256 amount) public {\n        held += amount;\n    }\n\n", "")})
    result, report = run_one(pytester, FINDING, f"--memreport-repo={repo.path}", f"--memreport-pin={pin}",
                             "--memreport-against=HEAD")
    assert report["state"] == "stale" and result.ret == 1


def test_the_files_holding_the_names_are_found_by_one_git_process_for_all_of_them(pytester, make_repo):
    repo = make_repo("many")
    pin = repo.commit({"contracts/Vault.sol": VAULT, "contracts/Pool.sol": POOL})

    def processes(sentences: list[str]) -> tuple[int, int]:
        (pytester.path / "out.json").unlink(missing_ok=True)
        _, report = run_one(pytester, "# Names\n\n" + "\n".join(sentences) + "\n", f"--memreport-repo={repo.path}",
                            f"--memreport-pin={pin}", "--memreport-against=none")
        data = json.loads((pytester.path / "out.json").read_text(encoding="utf-8"))
        found = sum(e["kind"] == "symbol" and e["at_pin"]["status"] == "found" for e in report["evidence"])
        return data["timing"]["git_processes"], found

    one = processes(["The `deposit` function adds."])
    many = processes(["The `deposit` function adds."] + [f"The `missing{n}Name` function is not there." for n in range(12)])

    assert one[1] == many[1] == 1
    assert many[0] == one[0]  # twelve more names, no more git processes
