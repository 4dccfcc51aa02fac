"""Source files a sentence names in plain words ("minted through the Vault.sol contract"):
each a mention of the pinned tree's file, as a name in backticks is (docs/FORMATS.md, the
evidence forms).

Read in real audit analyses, which name the contracts they describe without backticks or
links: with the contest's commit given, 32 of ai-arena's 266 said "no evidence to check".
"""

from __future__ import annotations

import textwrap

from finding_support import run_one

from pytest_memreport.dialects import parse_report
from pytest_memreport.model import FILE_IN_PROSE, LOOKUP_TREE, EvidenceKind, EvidenceRole

SHA = "1234567890abcdef1234567890abcdef12345678"


def analysis(pin_line: str = "") -> str:
    return textwrap.dedent("""\
        ---
        title: notes on Keeper.sol
        ---
        # How the vault works
        PIN
        Shares are minted through the Vault.sol contract, and src/Oracle.sol prices them.
        The Keeper.sol contract rebalances (see `Vault.sol` and [the keeper](https://example.com/Keeper.sol)).
        The admin reads "the Admin.sol contract pauses it" in the docs; the README.md says so too.

        > The Pauser.sol contract is quoted here.

        ```solidity
        // Fees.sol
        contract Fees {}
        ```

        At 10 a.m. the Ph.D. student's vault (see https://example.com/Timer.sol) rebalances; v0.8.sol is no file.
        """).replace("PIN", pin_line)


def plain_names(report) -> list[tuple[str, int, EvidenceRole | None, str | None]]:
    return [(e.path, e.line, e.role, e.lookup) for e in report.all_evidence() if e.label == FILE_IN_PROSE]


def test_a_source_file_named_in_plain_words_is_a_mention_of_the_pinned_tree():
    report = parse_report("analyses/vault.md", analysis(f"Read at commit `{SHA}`.\n"))

    assert plain_names(report) == [
        # a bare name: the tree's file of that name; a path: as written, else a unique suffix
        ("Vault.sol", 7, EvidenceRole.BASENAME, LOOKUP_TREE),
        ("src/Oracle.sol", 7, EvidenceRole.MENTION, LOOKUP_TREE),
        ("Keeper.sol", 8, EvidenceRole.BASENAME, LOOKUP_TREE),
    ]
    # not in front matter, a code span (read as backticked), a link, a URL, a phrase in
    # quotation marks, a blockquote or a code block; a document's name (README.md) is no
    # source file; "a.m", "Ph.D" and "v0.8.sol" are no file names
    named = {(e.path, e.line) for e in report.all_evidence() if e.kind is EvidenceKind.PATH}
    assert not named & {("Keeper.sol", 2), ("Vault.sol", 8), ("Admin.sol", 9), ("README.md", 9),
                        ("Pauser.sol", 11), ("Fees.sol", 14), ("a.m", 18), ("Ph.D", 18), ("Timer.sol", 18),
                        ("v0.8.sol", 18), ("0.8.sol", 18), ("8.sol", 18)}


def test_plain_names_are_words_where_no_pinned_tree_is_the_documents():
    assert plain_names(parse_report("analyses/vault.md", analysis())) == []


def test_a_plain_name_already_cited_on_its_line_is_said_once():
    link = f"https://github.com/acme/vault/blob/{SHA}/contracts/Vault.sol#L3"
    text = f"Read at commit `{SHA}`.\n\nThe Vault.sol contract mints ([contracts/Vault.sol]({link})).\n"

    assert plain_names(parse_report("analyses/vault.md", text)) == []


VAULT = "pragma solidity ^0.8.0;\n\ncontract Vault {\n    uint256 public shares;\n}\n"


def run(pytester, text: str, *args: str):
    return run_one(pytester, text, "--memreport-against=none", *args, name="analysis.md")


def test_an_analysis_naming_its_contracts_in_plain_words_is_checked_at_the_pin_the_run_gives(pytester, make_repo):
    repo = make_repo("vault")
    pin = repo.commit({"contracts/Vault.sol": VAULT, "contracts/keeper/Keeper.sol": "contract Keeper {}\n",
                       "contracts/token/Token.sol": "contract Token {}\n", "test/Token.sol": "contract T {}\n"})
    text = textwrap.dedent("""\
        # How the vault works

        Shares are minted through the Vault.sol contract; the Keeper.sol contract rebalances.
        The Token.sol contract holds them, as the Vualt.sol contract (sic) does not.
        """)

    result, report = run(pytester, text, f"--memreport-repo={repo.path}", f"--memreport-pin={pin}", "-rs")
    statuses = {e["path"]: e["at_pin"]["status"] for e in report["evidence"]}
    assert statuses == {
        "contracts/Vault.sol": "found", "contracts/keeper/Keeper.sol": "found",
        # a name two files share cites neither (in backticks it would be ambiguous, a warning);
        # a name the tree has nowhere (a misspelling) is the document's word: neither fails
        "Token.sol": "not-evidence", "Vualt.sol": "not-evidence",
    }
    assert report["state"] == "fresh" and result.ret == 0
    result.stdout.fnmatch_lines(["*`Token.sol` names 2 files at the pin, and plain words cite none of them*"])
    assert "Warning" not in result.stdout.str()

    # the same analysis with no pin anywhere names no file of any tree: nothing to check
    result, report = run(pytester, text)
    assert report["state"] == "unchecked" and "no evidence to check" in result.stdout.str()

    # the file deleted after the pin: the analysis describes a file the target no longer has
    repo.delete("contracts/Vault.sol")
    repo.commit({}, message="retire the vault")
    result, report = run(pytester, text, f"--memreport-repo={repo.path}", f"--memreport-pin={pin}",
                         "--memreport-against=HEAD")
    assert report["state"] == "stale" and result.ret == 1


def test_a_plain_name_capitalised_at_the_start_of_a_sentence_is_the_one_file_of_that_name(pytester, make_repo):
    # "Runtime.rs holds the loop." named src/runtime.rs, whose name has no capital: it was no
    # evidence. A name two files share in another case still cites neither.
    repo = make_repo("runtime")
    pin = repo.commit({"src/runtime.rs": "pub fn run() {}\n", "src/queue.rs": "pub fn push() {}\n",
                       "benches/Queue.rs": "fn bench() {}\n", "src/store.rs": "pub fn keep() {}\n",
                       "lib/Store.rs": "pub fn keep() {}\n"})
    text = textwrap.dedent("""\
        # The runtime

        Runtime.rs holds the loop. Queue.rs is where parcels wait. STORE.rs keeps them.
        """)

    _, report = run(pytester, text, f"--memreport-repo={repo.path}", f"--memreport-pin={pin}")
    statuses = {(e["path"], e["at_pin"]["status"]) for e in report["evidence"]}

    # (a name as written, Queue.rs, is the tree's one file of that exact name)
    assert statuses == {("src/runtime.rs", "found"), ("benches/Queue.rs", "found"), ("STORE.rs", "not-evidence")}
