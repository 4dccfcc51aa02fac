"""What the tests of audit findings and hand-written documents share: a contract a finding
is about, a small Python module a pilot cites, and one document run as users run it
(pytest with ``--memreport``, its JSON read back)."""

from __future__ import annotations

import json
import textwrap

POOL = textwrap.dedent("""\
    pragma solidity ^0.8.0;

    contract Pool {
        uint256 public balance;

        function drain(address to) public {
            require(balance > 0, "empty pool");
            payable(to).transfer(balance);
            balance = 0;
        }
    }
    """)

#: a module the pilots cite: the class (1), its constructor (2-3), ``push`` (5-6), ``drain`` (8-10)
QUEUE = textwrap.dedent("""\
    class Queue:
        def __init__(self):
            self.items = []

        def push(self, item):
            self.items.append(item)

        def drain(self):
            out, self.items = self.items, []
            return out
    """)


def run_one(pytester, text: str, *args: str, name: str = "finding.md"):
    """pytest over one report ``text`` (written as ``name``) with ``args``: its result and the
    report's JSON row."""
    (pytester.path / name).write_text(text, encoding="utf-8")
    out = pytester.path / "out.json"
    result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", name, "--memreport-json", str(out), *args)
    (report,) = json.loads(out.read_text(encoding="utf-8"))["reports"]
    return result, report
