"""A table naming what each row's file defines (``| File | Function |``) or its lines by
their first and last (``| Path | Start | End |``), docs/FORMATS.md, "Any document": the
names were read as nothing, so a misnamed function passed, and the two columns of lines
cited the file alone."""

from __future__ import annotations

import textwrap

from finding_support import QUEUE, run_one

from pytest_memreport.dialects import parse_report
from pytest_memreport.model import EvidenceKind
from pytest_memreport.runcaches import RunCaches



def test_a_tables_symbol_column_is_checked_in_its_rows_file(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"src/queue.py": QUEUE})
    text = textwrap.dedent(f"""\
        # Queue pilot

        Pinned to acme/widgets at `{pin}`.

        | File | Function | Start | End |
        | --- | --- | --- | --- |
        | `src/queue.py` | `push()` | 5 | 6 |
        | `src/queue.py` | `pop` | 8 | 9 |
        """)
    result, report = run_one(pytester, text, f"--memreport-repo=acme/widgets={repo.path}", "--memreport-against=none")
    checked = sorted((e["kind"], e.get("text") or tuple(e.get("cited_lines") or ()), e["at_pin"]["status"])
                     for e in report["evidence"] if e["kind"] in ("symbol", "lines"))
    # ``pop`` is no name of the file, and lines 8-9 lie past its end
    assert [c for c in checked if c[0] == "symbol"] == [("symbol", "pop", "missing"), ("symbol", "push", "found")], \
        result.stdout.str()[-2000:]
    assert [c[1] for c in checked if c[0] == "lines"] == [(5, 6), (8, 9)]
    assert result.ret == 1


def test_a_name_column_beside_a_column_of_contract_names_is_no_symbol_of_a_file():
    text = textwrap.dedent(f"""\
        # Overview

        Pinned to acme/widgets at `{"a" * 40}`.

        | Contract Name | Function Name | Returns |
        | --- | --- | --- |
        | Runtime | intrinsic_call | Result |
        """)
    with RunCaches().active():
        evidence = parse_report("kb/overview.md", text).all_evidence()
    assert not [e for e in evidence if e.kind is EvidenceKind.SYMBOL], evidence
