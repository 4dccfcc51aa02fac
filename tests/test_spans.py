"""Positions: every piece of evidence, status and pin statement a parser reads records its
character span in the report, and write-back (promotion, re-pin) edits there: only those
bytes change, and a report that changed since it was read is refused with one line."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_memreport.dialects import decode_report, forms, parse_report
from pytest_memreport.model import EvidenceKind, LineRange, Span
from pytest_memreport.outputs.lineindex import LineIndex, resolve_overlaps
from pytest_memreport.outputs.repin import Move, PinnedSource, RepinTarget, report_edits
from pytest_memreport.outputs.writeback import WritebackError, edited, status_edit

PIN = "9a0bae8c1f2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f"


def record_text(before: str = "", path: str = "pkg/store.py", lines: str = "10-20") -> str:
    return before + textwrap.dedent(f"""\
        Store memory report

        The target is the store at SRC-1 commit {PIN}.

        MEM-OBJ-store

        Label: Store

        The store keeps the newest entries. SRC-1: {path}:{lines}, pkg/cache.py.

        Operation conclusion status: uninspected.
        """)


def encoded(text: str, crlf: bool = False, bom: bool = False) -> bytes:
    data = (text.replace("\n", "\r\n") if crlf else text).encode("utf-8")
    return (b"\xef\xbb\xbf" if bom else b"") + data


def parsed(data: bytes, name: str = "report.md"):
    text, _ = decode_report(name, data)
    return text, parse_report(name, text)


def the_status(report):
    return next(status for record in report.records for status in record.statuses)


def the_citation(report, path: str = "pkg/store.py"):
    return next(e for record in report.records for e in record.evidence
                if e.path == path and e.kind is EvidenceKind.LINES)


def test_a_citation_and_a_status_record_where_they_are_written() -> None:
    text, report = parsed(encoded(record_text()))
    citation, status = the_citation(report), the_status(report)
    assert citation.span == Span(text.index("pkg/store.py:10-20"), text.index("pkg/store.py:10-20") + 19, 9,
                                 "pkg/store.py:10-20,")
    assert text[status.span.start:status.span.end] == "uninspected"
    assert status.span.line == status.line == 11


def test_a_pin_statement_records_the_sha_as_written() -> None:
    upper = PIN.upper()
    text = f"# Notes\n\n**Repository snapshot:** `{upper}`\n"
    pins = forms.read("notes.md", text, "notes").pins
    assert [(p.sha, p.span.text, p.span.line) for p in pins] == [(PIN, upper, 3)]
    assert text[pins[0].span.start:pins[0].span.end] == upper


# Non-ASCII text, CRLF line ends and a BOM before the spans: character offsets of the text
# as parsed, byte offsets of the file as written.
_PROSE = st.lists(st.text(alphabet=st.sampled_from("abc xyz—éß✓"), max_size=30), max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prose=_PROSE, crlf=st.booleans(), bom=st.booleans(), new=st.sampled_from(["observed", "afforded"]))
def test_a_status_edit_by_span_changes_only_its_bytes(prose, crlf, bom, new) -> None:
    before = "".join(f"{line.strip()}\n\n" for line in prose if line.strip())
    data = encoded(record_text(before), crlf, bom)
    _, report = parsed(data)
    status = the_status(report)
    edit = status_edit(data, status, new)
    after = edited(data, [edit])
    head, tail = data[:edit.start], data[edit.end:]
    assert data[edit.start:edit.end] == b"uninspected"
    assert after == head + new.encode() + tail
    # Read again, the report holds the new value where the old one was, and nothing else moved.
    _, again = parsed(after)
    assert the_status(again).value == new
    assert the_status(again).line == status.line


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prose=_PROSE, crlf=st.booleans(), bom=st.booleans(),
       first=st.integers(1, 500), length=st.integers(0, 40), shift=st.integers(-5, 50))
def test_a_repin_by_span_changes_only_the_citation(prose, crlf, bom, first, length, shift) -> None:
    before = "".join(f"{line.strip()}\n\n" for line in prose if line.strip())
    old = LineRange(first, first + length)
    new = LineRange(max(1, first + shift), max(1, first + shift) + length)
    data = encoded(record_text(before, lines=str(old)), crlf, bom)
    _, report = parsed(data)
    citation = the_citation(report)
    assert citation.span is not None
    index = LineIndex(data)
    move = Move("pkg/store.py", "src/store.py", old, new)
    found = report_edits(report, index, {citation: move}, None, {"pkg/store.py": "src/store.py"})
    after = edited(data, [index.edit(change) for change in found.changes])
    expected = data.replace(f"pkg/store.py:{old}".encode(), f"src/store.py:{new}".encode(), 1)
    assert after == expected
    # every change lies inside the span the parser recorded
    assert all(change.line == citation.span.line for change in found.changes)


@pytest.mark.parametrize("change", [
    lambda text: "A new first line.\n\n" + text,                      # lines moved below it
    lambda text: text.replace("uninspected", "claimed"),              # the value rewritten
    lambda text: text.replace("Operation conclusion", "Operation  conclusion"),  # moved along its line
])
def test_a_status_edit_is_refused_when_the_report_changed_since_it_was_read(change) -> None:
    data = encoded(record_text())
    _, report = parsed(data)
    changed = change(data.decode()).encode()
    with pytest.raises(WritebackError) as refused:
        status_edit(changed, the_status(report), "observed")
    message = str(refused.value)
    assert "\n" not in message and "changed since it was read" in message and "line 11" in message


def test_a_repin_is_refused_when_the_citation_changed_since_it_was_read() -> None:
    data = encoded(record_text())
    _, report = parsed(data)
    citation = the_citation(report)
    changed = data.replace(b"pkg/store.py:10-20", b"pkg/store.py:11-21")
    index = LineIndex(changed)
    move = Move("pkg/store.py", "pkg/store.py", LineRange(10, 20), LineRange(30, 40))
    with pytest.raises(WritebackError, match="report line 9: expected 'pkg/store.py:10-20,' .* changed since"):
        report_edits(report, index, {citation: move}, None, {})


def test_a_span_is_not_part_of_what_the_evidence_is() -> None:
    # The same citation read at two places is one piece of evidence (its checks and cached
    # results are keyed by what it says, not where).
    _, one = parsed(encoded(record_text()))
    _, two = parsed(encoded(record_text("Moved down.\n\n")))
    first, second = the_citation(one), the_citation(two)
    assert first.span != second.span
    assert first.key != second.key  # the key names its line, as before
    from dataclasses import replace
    assert replace(first, line=second.line, end_line=second.end_line) == second


@pytest.mark.parametrize("name", ["report.md", "report.txt"])
def test_a_quotation_records_its_citation_and_is_refused_once_it_changed(name) -> None:
    text = record_text().replace("Operation conclusion", "`def push(self, item):` --- pkg/queue.py:3-4\n\nOperation conclusion")
    data = encoded(text)
    _, report = parsed(data, name)
    quote = next(e for e in report.all_evidence() if e.kind is EvidenceKind.QUOTE)
    assert quote.span is not None and quote.span.text == "pkg/queue.py:3-4"
    assert text[quote.span.start:quote.span.end] == "pkg/queue.py:3-4"
    move = Move("pkg/queue.py", "pkg/queue.py", LineRange(3, 4), LineRange(7, 8))
    index = LineIndex(data)
    found = report_edits(report, index, {quote: move}, None, {})
    assert edited(data, [index.edit(c) for c in found.changes]) == data.replace(b"queue.py:3-4", b"queue.py:7-8")
    changed = data.replace(b"--- pkg/queue.py:3-4", b"--- pkg/queue.py:3-5")
    with pytest.raises(WritebackError, match="changed since it was read"):
        report_edits(report, LineIndex(changed), {quote: move}, None, {})


# --------------------------------------------------------------------------- re-pin of pins

NEW = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c"


def pinned_text(before: str = "") -> str:
    """A record report whose pin is also written, not as a pin, in prose and in a code block."""
    return before + textwrap.dedent(f"""\
        Store memory report

        The target is the store at SRC-1 commit {PIN}.

        The earlier review, pinned to {PIN}, said the same.

        ```
        $ git rev-parse HEAD
        {PIN}
        ```

        MEM-OBJ-store

        Label: Store

        The store keeps the newest entries. SRC-1: pkg/store.py:10-20.
        """)


def repinned(data: bytes, report) -> bytes:
    index = LineIndex(data)
    target = RepinTarget(NEW, (PinnedSource("SRC-1", PIN),))
    found = report_edits(report, index, {}, target, {})
    kept, dropped = resolve_overlaps(found.changes)
    assert dropped == []
    return edited(data, [index.edit(change) for change in kept])


def test_a_record_pin_records_where_its_statement_writes_it() -> None:
    text, report = parsed(encoded(pinned_text()))
    (source,) = report.sources
    assert [(span.line, span.text) for span in source.pin_spans] == [(3, PIN)]
    assert text[source.pin_spans[0].start:source.pin_spans[0].end] == PIN


def test_a_repin_rewrites_the_pin_statement_and_not_the_same_commit_written_elsewhere() -> None:
    data = encoded(pinned_text())
    _, report = parsed(data)
    after = repinned(data, report)
    # the statement moves; the earlier review's pin and the command's output stay as written
    assert after == data.replace(f"SRC-1 commit {PIN}".encode(), f"SRC-1 commit {NEW}".encode())
    assert after.count(PIN.encode()) == 2


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prose=_PROSE, crlf=st.booleans(), bom=st.booleans())
def test_a_repin_changes_only_the_pins_bytes(prose, crlf, bom) -> None:
    before = "".join(f"{line.strip()}\n\n" for line in prose if line.strip())
    data = encoded(pinned_text(before), crlf, bom)
    _, report = parsed(data)
    after = repinned(data, report)
    at = data.index(f"commit {PIN}".encode()) + len(b"commit ")
    assert after == data[:at] + NEW.encode() + data[at + len(PIN):]


def test_a_repin_is_refused_when_the_pin_changed_since_it_was_read() -> None:
    data = encoded(pinned_text())
    _, report = parsed(data)
    changed = data.replace(f"SRC-1 commit {PIN}".encode(), f"SRC-1 commit  {PIN}".encode())
    with pytest.raises(WritebackError, match="report line 3: expected .* changed since it was read"):
        report_edits(report, LineIndex(changed), {}, RepinTarget(NEW, (PinnedSource("SRC-1", PIN),)), {})


def test_a_front_matter_pin_is_rewritten_where_its_key_writes_it() -> None:
    short = PIN[:10]
    text = textwrap.dedent(f"""\
        ---
        title: Gadgets ingest
        commit: {PIN}
        ---

        # Gadgets

        Read at revision `{short}` of the gadgets.
        An earlier ingest, pinned to {PIN}, read less.

        The gadget starts at `src/gadget.rs:1-3`.
        """)
    data = encoded(text)
    _, report = parsed(data, "ingest.md")
    source = next(s for s in report.sources if s.pin)
    assert sorted((span.line, span.text) for span in source.pin_spans) == [(3, PIN), (8, short)]
    after = repinned(data, report).decode()
    assert after == text.replace(f"commit: {PIN}", f"commit: {NEW}").replace(f"`{short}`", f"`{NEW[:10]}`")


def test_a_link_records_where_its_url_is_written() -> None:
    sha = "ab" * 20
    url = f"https://github.com/acme/widgets/blob/{sha}/src/queue.ts#L3-L5"
    other = f"https://github.com/acme/widgets/tree/{sha}/src"
    text = (f"# Review\n\n**Reviewed commit:** `{sha}`\n\n"
            f"The queue ([a]({url})), in [src]({other}).\n\nBare, later: {url}\n")
    report = parse_report("review.md", text)

    linked = sorted((e for e in report.all_evidence() if e.span is not None and "://" in e.span.text),
                    key=lambda e: e.span.start)
    assert [(e.kind, e.span.text, e.span.line) for e in linked] == [
        (EvidenceKind.LINES, url, 5), (EvidenceKind.DIRECTORY, other, 5), (EvidenceKind.LINES, url, 7)]
    # each where the report writes it (the bare URL's, not the first link's with the same URL)
    assert all(text[e.span.start:e.span.end] == e.span.text for e in linked)
    assert linked[2].span.start == text.rindex(url)
