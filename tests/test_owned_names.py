"""A member named in backticks with its owner and no citation beside it
(`` `Pool::drain` ``, `` `Pool.drain()` ``): a definition of the files named after the owner,
where one of them defines it at the pin (docs/FORMATS.md, the evidence forms).

Read in real audit findings, which name the functions they are about this way a thousand
times in one contest (ai-arena: 385 of them now checked as definitions), and which were
words until Solidity was read by its grammar.
"""

from __future__ import annotations

import textwrap

from finding_support import POOL, run_one

from pytest_memreport.dialects import parse_report
from pytest_memreport.model import LOOKUP_TREE, EvidenceKind

SHA = "1234567890abcdef1234567890abcdef12345678"


FINDING = textwrap.dedent("""\
    # The pool can be drained twice

    `Pool::drain` pays before it books, and `Pool.refill()` does not exist.
    `msg.sender` and `os.path` are no owners' members; `Pool` alone is a word.

    ```solidity
    Pool.drain(to);
    ```
    """)


def test_a_member_named_with_its_owner_is_proposed_in_the_files_named_after_the_owner():
    report = parse_report("findings/pool.md", FINDING, run_pins=frozenset({None}))

    assert [(e.text, e.context, e.line, e.lookup) for e in report.all_evidence()
            if e.kind is EvidenceKind.SYMBOL] == [
        ("Pool.drain", ("Pool",), 3, LOOKUP_TREE),
        ("Pool.refill", ("Pool",), 3, LOOKUP_TREE),
    ]
    # in a document no pin covers, they are words, a commit of its history no pin either (an
    # advisory's "corrected in commit ..." asked for a clone of its crate)
    for text in (FINDING, FINDING + "\nThe flaw was corrected in commit 4790c47.\n"):
        assert [e for e in parse_report("findings/pool.md", text).all_evidence()
                if e.kind is EvidenceKind.SYMBOL] == []


def run(pytester, *args: str):
    return run_one(pytester, FINDING, *args)


def test_a_member_named_with_its_owner_is_checked_where_the_owners_file_defines_it(pytester, make_repo):
    repo = make_repo("pool")
    pin = repo.commit({"contracts/Pool.sol": POOL})

    result, report = run(pytester, f"--memreport-repo={repo.path}", f"--memreport-pin={pin}",
                         "--memreport-against=none")
    symbols = [(e["path"], e["text"], e["at_pin"]["status"]) for e in report["evidence"] if e["kind"] == "symbol"]
    # a member the owner's file does not define (`Pool.refill`) is the finding's word, not a failure
    assert symbols == [("contracts/Pool.sol", "Pool.drain", "found")]
    assert report["state"] == "fresh" and result.ret == 0

    # the function gone from its contract: the finding is about code the target no longer has
    repo.commit({"contracts/Pool.sol": POOL.replace(
        "    function drain(address to) public {\n        require(balance > 0, \"empty pool\");\n"
        "        payable(to).transfer(balance);\n        balance = 0;\n    }\n",
        "")})
    result, report = run(pytester, f"--memreport-repo={repo.path}", f"--memreport-pin={pin}",
                         "--memreport-against=HEAD")
    assert report["state"] == "stale" and result.ret == 1
