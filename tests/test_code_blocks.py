"""Code a report shows in a block: the file's when a sentence names it, the target's where
the pinned tree holds it when none does (docs/FORMATS.md, the evidence forms).

Read in real audit findings: "In the Pool.sol contract, ...:" followed by an indented block,
"Verify.check is as follows:" followed by a fenced one. Each went unread, and a finding made
of them said "no evidence to check" with the contest's commit given.
"""

from __future__ import annotations

import textwrap

from finding_support import POOL, run_one as run

from pytest_memreport.dialects import parse_report
from pytest_memreport.model import CODE_BLOCK, LOOKUP_TREE, EvidenceKind, EvidenceRole

SHA = "1234567890abcdef1234567890abcdef12345678"
LIBRARY_SHA = "abcdef1234567890abcdef1234567890abcdef12"


VERIFY = textwrap.dedent("""\
    pragma solidity ^0.8.0;

    library Verify {
        function check(bytes32 digest, bytes memory signature) internal pure returns (bool) {
            require(signature.length == 65, "invalid signature length");
            return digest != bytes32(0);
        }
    }
    """)


def finding(pin_line: str = "") -> str:
    return textwrap.dedent("""\
        # The pool can be drained twice
        PIN
        In the Pool.sol contract, drain() sends the whole balance before anything else:

            function drain(address to) public {
                require(balance > 0, "empty pool");
                payable(to).transfer(balance);

        Verify.check is as follows:

        ```solidity
        function check(bytes32 digest, bytes memory signature) internal pure returns (bool) {
            require(signature.length == 65, "invalid signature length");
        ```

        Recommendation:

        ```solidity
        function drain(address to) public nonReentrant {
            uint256 amount = balance;
            balance = 0;
        ```

        The advisory's own data:

        ```toml
        [advisory]
        id = "POOL-2026-0001"
        package = "pool"
        ```
        """).replace("PIN", pin_line)


def quotes(report) -> list[tuple[str, str, EvidenceRole | None, str | None]]:
    return sorted((e.path, (e.text or "").split("\n")[0], e.role, e.lookup)
                  for e in report.all_evidence() if e.kind is EvidenceKind.QUOTE)


def test_a_block_a_sentence_gives_a_file_named_in_plain_words_and_one_given_none():
    report = parse_report("findings/pool.md", finding(f"\nRead at commit `{SHA}`.\n"))

    assert quotes(report) == sorted([
        # indented four columns under "In the Pool.sol contract, ...:", read without the indent;
        # the file by its name alone: the pinned tree's file of that name
        ("Pool.sol", "function drain(address to) public {", EvidenceRole.LOOSE, LOOKUP_TREE),
        # given no file: the target's where the tree holds it (the fix proposed too: found
        # nowhere, it is the finding's own); the advisory's TOML is data, not the target's code
        ("", "function check(bytes32 digest, bytes memory signature) internal pure returns (bool) {",
         EvidenceRole.TERM, None),
        ("", "function drain(address to) public nonReentrant {", EvidenceRole.TERM, None),
    ])
    indented = next(e for e in report.all_evidence() if e.path == "Pool.sol" and e.kind is EvidenceKind.QUOTE)
    assert (indented.line, indented.end_line) == (7, 9)
    assert indented.text.split("\n")[1] == '    require(balance > 0, "empty pool");'
    assert {e.label for e in report.all_evidence() if e.kind is EvidenceKind.QUOTE} == {CODE_BLOCK}


def test_a_list_items_indented_text_and_a_block_of_a_few_characters_are_no_code_of_the_target():
    text = textwrap.dedent(f"""\
        Read at commit `{SHA}`.

        - In the Pool.sol contract, the item goes on:

            its indented text is the item's

        [the draft]: https://example.com/draft

             As a subnote of the item, after the link's definition, still the item's text
             and no code (read in a real RFC)

        The end of it:

        ```solidity
        }}
        ```
        """)

    assert quotes(parse_report("findings/list.md", text)) == []


def test_code_given_no_file_is_words_where_no_pinned_tree_is_the_documents():
    # No pin of its own (a library's file linked at the library's commit is the library's):
    # the blocks would have asked for a clone of the findings' own folder.
    link = f"[Address.sol](https://github.com/acme/library/blob/{LIBRARY_SHA}/contracts/Address.sol#L10)"
    text = finding() + f"\nThe library is used as in {link}.\n"

    assert [e.source for e in parse_report("findings/pool.md", text).all_evidence()
            if e.label == CODE_BLOCK and e.role is EvidenceRole.TERM] == []


def statuses(report: dict) -> dict[str, tuple[str, str]]:
    return {e["text"].split("\n")[0].strip(): (e["path"], e["at_pin"]["status"])
            for e in report["evidence"] if e["kind"] == "quote"}


def test_a_findings_code_blocks_are_checked_at_the_pin_the_run_gives_and_drift_after_it(pytester, make_repo):
    repo = make_repo("pool")
    pin = repo.commit({"contracts/Pool.sol": POOL, "contracts/lib/Verify.sol": VERIFY})
    text = finding()

    result, report = run(pytester, text, f"--memreport-repo={repo.path}", f"--memreport-pin={pin}",
                         "--memreport-against=none")
    assert statuses(report) == {
        "function drain(address to) public {": ("contracts/Pool.sol", "found"),
        "function check(bytes32 digest, bytes memory signature) internal pure returns (bool) {": ("", "found"),
        # the proposed fix: the finding's own, never a failure
        "function drain(address to) public nonReentrant {": ("", "not-evidence"),
    }
    notes = [e["at_pin"].get("note", "") for e in report["evidence"]]
    assert "a code block given no file; found in contracts/lib/Verify.sol" in notes
    assert report["state"] == "fresh"
    assert result.ret == 0

    repo.commit({"contracts/lib/Verify.sol": VERIFY.replace("invalid signature length", "bad signature")})
    result, report = run(pytester, text, f"--memreport-repo={repo.path}", f"--memreport-pin={pin}",
                         "--memreport-against=HEAD")
    assert report["state"] == "stale"
    assert result.ret == 1
    result.stdout.fnmatch_lines(["finding.md:12: code block given no file changed at *"])


def test_a_lost_blob_leaves_the_tree_search_going_and_the_tree_is_read_once(make_repo):
    # Read in a real contest's mirror lacking one blob: the pass that gathers every file's
    # words stopped at the lost object, so each of a finding's code blocks read the whole
    # tree again up to it (a thousand blocks, a thousand passes, each one failing), and what
    # a block found depended on which search ran first.
    import os
    import subprocess

    from pytest_memreport import runcaches
    from pytest_memreport.checks import attributed
    from pytest_memreport.checks.drift import wordindex
    from pytest_memreport.gitstore import GitStore
    from pytest_memreport.model import Evidence

    repo = make_repo("pool")
    files = {f"contracts/{name}.sol": f"contract {name} {{\n    uint256 public {name.lower()}Count;\n}}\n"
             for name in ("Alpha", "Beta", "Gamma", "Delta")}
    pin = repo.commit({**files, "contracts/Pool.sol": POOL, "contracts/lib/Verify.sol": VERIFY})
    lost = subprocess.run(["git", "rev-parse", f"{pin}:contracts/Beta.sol"], cwd=repo.path, check=True,
                          capture_output=True, text=True).stdout.strip()
    os.remove(repo.path / ".git" / "objects" / lost[:2] / lost[2:])

    def block(text: str, line: int) -> Evidence:
        return Evidence(EvidenceKind.QUOTE, "", line, line + text.count("\n"), text=text, label=CODE_BLOCK,
                        role=EvidenceRole.TERM)

    blocks = [block('require(signature.length == 65, "invalid signature length");\nreturn digest != bytes32(0);', 3),
              block("payable(to).transfer(balance);\nbalance = 0;", 9),
              block("uint256 amount = balance;\nbalance = 0;\npayable(to).transfer(amount);", 15)]
    with GitStore.open(repo.path) as store, runcaches.RunCaches().active():
        snapshot = store.snapshot(pin)
        results = [attributed.check(evidence, snapshot) for evidence in blocks]
        index = wordindex.word_index(snapshot)

    assert [r.ok for r in results] == [True, True, False]
    assert "found in contracts/lib/Verify.sol" in (results[0].note or "")
    assert "found in contracts/Pool.sol" in (results[1].note or "")
    assert index.unreadable == ["contracts/Beta.sol"]
    # one pass over the tree for all three searches (then their candidates): a pass per
    # search would read every readable file three times
    readable = len(files) + 2 - 1
    assert readable <= index.files_read < 2 * readable


def test_a_report_whose_code_is_its_own_and_whose_other_repository_has_no_clone_says_so():
    # Read in a real finding: its code blocks were the writer's own, and the fork it links has
    # no clone. It said "no evidence to check: the 3 path(s) it names are not in the pinned
    # tree", as if everything it cites had been read: the fork was never looked at.
    from pytest_memreport.model import Report
    from pytest_memreport.outputs import staleness
    from pytest_memreport.outputs.results import CheckResult

    own = CheckResult.of({"type": "pin", "report": "f.md", "line": 9, "path": "", "at_pin": {"status": "not-evidence"}},
                         "skipped")
    fork = CheckResult.of({"type": "source", "report": "f.md", "line": 1, "source": {
        "id": "someone/pool-fork", "pin": "abc", "pin_status": "no-repo"},
        "reason": "no local clone for someone/pool-fork; give --memreport-repo someone/pool-fork=PATH"}, "skipped")

    row = staleness.build_row(Report("f.md", "records"), [own, fork])
    assert (row.state, row.reason_code) == ("unchecked", "no-repository")
    assert row.reason == "no local clone for someone/pool-fork; give --memreport-repo someone/pool-fork=PATH"
    # its own words alone: no evidence, said as such
    row = staleness.build_row(Report("f.md", "records"), [own])
    assert (row.state, row.reason_code) == ("unchecked", "no-evidence")
    assert row.reason == "no evidence to check: the 1 path(s) or code block(s) it names are not in the pinned tree"


FIX = textwrap.dedent("""\
    # The pool pays before it books

    Move the booking above the payment:

    ```diff
    diff --git a/contracts/Pool.sol b/contracts/Pool.sol
    --- a/contracts/Pool.sol
    +++ b/contracts/Pool.sol
    @@ -6,4 +6,5 @@ contract Pool {
         function drain(address to) public {
             require(balance > 0, "empty pool");
    +        uint256 amount = balance;
    -        payable(to).transfer(balance);
             balance = 0;
    +        payable(to).transfer(amount);
    ```

    In `contracts/lib/Verify.sol`:

    ```diff
    -        require(signature.length == 65, "invalid signature length");
    +        require(signature.length == 65, "bad length");
    \\ No newline at end of file
    ```

    And a test of its own:

    ```diff
    --- /dev/null
    +++ b/test/Pool.t.sol
    @@ -0,0 +1,3 @@
    +contract PoolTest {
    +    function testDrain() public {}
    +}
    ```
    """)


def test_a_diffs_lines_before_the_change_quote_the_file_its_header_or_sentence_names():
    # Read in real audit findings: a proposed fix as a diff ("diff --git a/src/Pool.sol ...") was
    # a block of output, not read; the code it changes is the target's, and when the target
    # changes it the fix was written against code that is gone.
    report = parse_report("findings/fix.md", FIX, run_pins=frozenset({None}))

    assert [(e.path, e.line, e.end_line, e.text, e.role, e.lookup) for e in report.all_evidence()
            if e.kind is EvidenceKind.QUOTE] == [
        # the hunk's context and removed lines, past their prefix; the added ones are the writer's
        ("contracts/Pool.sol", 10, 14, '    function drain(address to) public {\n'
                                       '        require(balance > 0, "empty pool");\n'
                                       '        payable(to).transfer(balance);\n        balance = 0;',
         EvidenceRole.LOOSE, LOOKUP_TREE),
        # no header: the file its sentence names
        ("contracts/lib/Verify.sol", 21, 21, '        require(signature.length == 65, "invalid signature length");',
         EvidenceRole.LOOSE, LOOKUP_TREE),
        # a file the diff creates has no lines before it: nothing
    ]


def test_a_fix_written_as_a_diff_is_stale_once_the_code_it_changes_changed(pytester, make_repo):
    repo = make_repo("pool")
    pin = repo.commit({"contracts/Pool.sol": POOL, "contracts/lib/Verify.sol": VERIFY})

    result, report = run(pytester, FIX, f"--memreport-repo={repo.path}", f"--memreport-pin={pin}",
                         "--memreport-against=none")
    assert statuses(report) == {'function drain(address to) public {': ("contracts/Pool.sol", "found"),
                                'require(signature.length == 65, "invalid signature length");':
                                    ("contracts/lib/Verify.sol", "found")}
    assert report["state"] == "fresh" and result.ret == 0

    repo.commit({"contracts/Pool.sol": POOL.replace("payable(to).transfer(balance);\n        balance = 0;",
                                                    "uint256 amount = balance;\n        balance = 0;\n"
                                                    "        payable(to).transfer(amount);")})
    result, report = run(pytester, FIX, f"--memreport-repo={repo.path}", f"--memreport-pin={pin}",
                         "--memreport-against=HEAD")
    assert report["state"] == "stale" and result.ret == 1
    result.stdout.fnmatch_lines(["finding.md:10: *contracts/Pool.sol*changed at *"])


def test_a_numbered_block_with_an_elision_and_the_writers_comments_quotes_each_run():
    # Read in real audit reports: an audit tool's block (`File: src/Pool.sol`, then numbered
    # lines) with `...` between its runs and the writer's `// @audit` lines among them was no
    # numbered block at all (an unnumbered line), so the whole of it, numbers and marks
    # included, was "not in src/Pool.sol": the report's own.
    text = textwrap.dedent(f"""\
        Read at commit `{SHA}`.

        The pool pays first:

        ```solidity
        File: contracts/Pool.sol

         6:    function drain(address to) public {{
                   // @audit nothing stops a second call here
         7:        require(balance > 0, "empty pool");
        ...
         9:        balance = 0;
        ```
        """)
    report = parse_report("findings/pool.md", text)

    assert [(e.path, e.line, e.end_line, e.text) for e in report.all_evidence() if e.kind is EvidenceKind.QUOTE] == [
        # (the report lines of each run, the writer's line among them; the file's text past "N: ")
        ("contracts/Pool.sol", 8, 10, '   function drain(address to) public {\n       require(balance > 0, "empty pool");'),
        ("contracts/Pool.sol", 12, 12, "       balance = 0;"),
    ]
