"""Hostile quotations: a thousand ``...`` elisions against a large file match
in bounded memory (parts are found as a chain reaches them, a repeated part
once), with the same matches as a short quote gives."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from pytest_memreport.text.match import find

ELIDED = textwrap.dedent(
    """\
    import resource, sys
    # Far more than the text and its index need; a thousand occurrence lists of
    # the whole file at once do not fit.
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    from pytest_memreport.text.match import find
    text = "".join(f"value_{i % 7} = compute(x)\\n" for i in range(40000))
    quote = " ... ".join(["compute(x)"] * 1000)
    spans = find(quote, text)
    print(len(spans), spans[0].lines.start, spans[0].lines.end, spans[1].lines.start)
    """
)


def test_a_thousand_elisions_against_a_large_file_match_in_bounded_memory():
    done = subprocess.run([sys.executable, "-c", ELIDED], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    # 40,000 lines, 1,000 parts each: 40 matches, lines 1-1000, 1001-2000, ...
    # (within the address space the script allows itself: no MemoryError)
    assert done.stdout.split() == ["40", "1", "1000", "1001"]


def test_many_parts_find_what_chaining_part_by_part_finds():
    text = "".join(f"step_{i % 3}(x)\nnoise {i}\n" for i in range(300))
    quote = " ... ".join(["step_0(x)", "step_1(x)", "step_2(x)"] * 10)
    spans = find(quote, text)
    # every match covers thirty steps (sixty lines but the last noise line), never overlapping
    assert [(s.lines.start, s.lines.end) for s in spans] == [(1 + 60 * k, 59 + 60 * k) for k in range(10)]
    # a part that never occurs ends every chain
    assert find(quote + " ... step_3(x)", text) == []
