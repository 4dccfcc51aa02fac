"""A definition named by its file as a test runner names a test (``tests/test_queue.py::test_drain``,
``src/queue.py::Queue::drain``), in backticks or plain words: the file, and the name the document
says it defines (docs/FORMATS.md, the evidence forms). Both were read as nothing at all."""

from __future__ import annotations

import textwrap

from finding_support import run_one

from pytest_memreport.dialects import parse_report
from pytest_memreport.model import EvidenceKind, EvidenceRole

SHA = "1234567890abcdef1234567890abcdef12345678"

QUEUE_PY = textwrap.dedent("""\
    class Queue:
        def drain(self):
            return []


    def test_drain():
        assert Queue().drain() == []
    """)

POOL_SOL = textwrap.dedent("""\
    pragma solidity ^0.8.0;

    contract Pool {
        uint256 public balance;

        constructor(uint256 start) {
            balance = start;
        }
    }
    """)

NOTE = textwrap.dedent("""\
    # What the tests cover

    Read at commit `{pin}`.

    - `src/queue.py::test_drain` passes, as does ./src/queue.py::Queue::drain[empty] in plain words.
    - `src/queue.py::test_refill` was never written.
    - By its name alone, `queue.py::Queue::drain`; in a file the target lacks, `src/gone.py::test_gone`.
    - A contract's `src/Pool.sol::constructor` is found by its keyword, as `src/Pool.sol::receive` is.
    - Rust's `std::io::Read` and https://example.org/a.py::b name no file of the target.

    ```
    FAILED src/other.py::test_output - in a runner's output
    ```
    """)


def test_a_node_id_names_its_file_and_the_definition_it_says_is_there():
    report = parse_report("notes/tests.md", NOTE.format(pin=SHA))

    found = [(e.line, e.kind, e.path, e.text, e.context, e.role) for e in report.all_evidence()
             if e.kind in (EvidenceKind.PATH, EvidenceKind.SYMBOL)]
    assert found == [
        (5, EvidenceKind.PATH, "src/queue.py", None, (), EvidenceRole.MENTION),
        (5, EvidenceKind.SYMBOL, "", "test_drain", ("src/queue.py",), EvidenceRole.DECLARED),
        (5, EvidenceKind.SYMBOL, "", "Queue.drain", ("src/queue.py",), EvidenceRole.DECLARED),
        (6, EvidenceKind.PATH, "src/queue.py", None, (), EvidenceRole.MENTION),
        (6, EvidenceKind.SYMBOL, "", "test_refill", ("src/queue.py",), EvidenceRole.DECLARED),
        (7, EvidenceKind.PATH, "queue.py", None, (), EvidenceRole.BASENAME),
        (7, EvidenceKind.PATH, "src/gone.py", None, (), EvidenceRole.MENTION),
        (7, EvidenceKind.SYMBOL, "", "Queue.drain", ("queue.py",), EvidenceRole.DECLARED),
        (7, EvidenceKind.SYMBOL, "", "test_gone", ("src/gone.py",), EvidenceRole.DECLARED),
        (8, EvidenceKind.PATH, "src/Pool.sol", None, (), EvidenceRole.MENTION),
        (8, EvidenceKind.SYMBOL, "", "constructor", ("src/Pool.sol",), EvidenceRole.DECLARED),
        (8, EvidenceKind.SYMBOL, "", "receive", ("src/Pool.sol",), EvidenceRole.DECLARED),
    ]


def test_a_node_id_holds_where_its_file_defines_the_name_and_fails_where_it_does_not(pytester, make_repo):
    repo = make_repo("queue")
    pin = repo.commit({"src/queue.py": QUEUE_PY, "src/Pool.sol": POOL_SOL})

    result, report = run_one(pytester, NOTE.format(pin=pin), f"--memreport-repo={repo.path}",
                             "--memreport-against=none", name="tests.md")
    symbols = [(e["text"], e["at_pin"]["status"]) for e in report["evidence"] if e["kind"] == "symbol"]

    # (the name alone is the tree's one file of that name; a file the tree lacks is no evidence,
    # nor the name said to be in it)
    # (a contract's constructor is named by its keyword; this one has no `receive`)
    assert symbols == [("test_drain", "found"), ("Queue.drain", "found"), ("test_refill", "missing"),
                       ("Queue.drain", "found"), ("constructor", "found"), ("receive", "missing")]
    assert report["state"] == "stale" and result.ret == 1
    result.stdout.fnmatch_lines(["*symbol test_refill in src/queue.py missing at*"])
