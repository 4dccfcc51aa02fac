"""A property of the review re-pin: over generated reviews with many links per line,
reference-style links, links of another repository and of another commit, LF or
CRLF, a BOM or not, a final newline or not, only the intended bytes change.

The rewrite is computed as the plugin does (the report parsed by the review
dialect, its links' moves given as drift would give them) and checked against the
text itself: each re-pinned link points at the new commit, the renamed path and
the shifted anchor; every other link is byte-identical; with links masked, every
line is identical, line breaks included.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_memreport.dialects import decode_report, parse_report
from pytest_memreport.dialects.core.links import parse_repository_link
from pytest_memreport.model import EvidenceKind, LineRange
from pytest_memreport.outputs.lineindex import LineIndex, resolve_overlaps
from pytest_memreport.outputs.repin import Move, PinnedSource, RepinTarget, path_moves, report_edits
from pytest_memreport.outputs.writeback import edited

OLD = "3f9c2a71d04b8e65a1c9f0e27b4d8a6c51e3f902"
NEW = "b7e41d09c2f8a35e6d10c4b9f7a2e8d3c615a0f4"
OTHER_COMMIT = "9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c"
RENAMES = {"src/core/engine.rs": "crates/core/src/engine.rs", "src/queue.rs": "crates/core/src/queue.rs"}
PATHS = ["src/core/engine.rs", "src/queue.rs", "docs/tuning.md"]
SHIFT = {"src/core/engine.rs": 3, "src/queue.rs": 0, "docs/tuning.md": -1}
REPO = "https://github.com/acme/widget"

_prose = st.text(alphabet="ghijklmnopqrstuvwxyz ,.;éü—", min_size=1, max_size=12)


@st.composite
def link(draw, refs: list):
    path = draw(st.sampled_from(PATHS))
    start = draw(st.integers(2, 30))
    lines = draw(st.sampled_from([None, (start, start), (start, start + draw(st.integers(1, 5)))]))
    where = draw(st.sampled_from(["pinned", "pinned", "pinned", "other-commit", "other-repo"]))
    repo = "https://github.com/other/widget" if where == "other-repo" else REPO
    commit = OTHER_COMMIT if where == "other-commit" else draw(st.sampled_from([OLD, OLD, OLD[:12]]))
    anchor = "" if lines is None else (f"#L{lines[0]}" if lines[0] == lines[1] else f"#L{lines[0]}-L{lines[1]}")
    url = f"{repo}/blob/{commit}/{path}{anchor}"
    text = draw(st.sampled_from([path, path.rsplit("/", 1)[-1], "this", f"`{path}`"]))
    if draw(st.integers(0, 4)) == 0:
        refs.append(url)
        return f"[{text}][r{len(refs)}]"
    return f"[{text}]({url})"


@st.composite
def reviews(draw):
    refs: list[str] = []
    lines = ["# Widget review", "", f"**Repository:** {REPO}",
             f"**Reviewed commit:** [{OLD[:12]}]({REPO}/commit/{OLD})", ""]
    for _ in range(draw(st.integers(1, 8))):
        parts = []
        for _ in range(draw(st.integers(1, 4))):
            parts.append(draw(_prose))
            parts.append(draw(link(refs)))
        parts.append(draw(_prose))
        lines.append(" ".join(parts))
        lines.append("")
    lines.extend(f"[r{n}]: {url}" for n, url in enumerate(refs, start=1))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    bom = draw(st.sampled_from(["", "\ufeff"]))
    final = eol if draw(st.booleans()) else ""
    return (bom + eol.join(lines) + final).encode("utf-8")


def shifted(lines: LineRange | None, path: str) -> LineRange | None:
    return None if lines is None else LineRange(lines.start + SHIFT[path], lines.end + SHIFT[path])


def moves_as_drift_gives_them(report):
    """For every cited file and line anchor at the old pin: where drift finds it at the new one."""
    moves = {}
    for evidence in report.all_evidence():
        if evidence.kind not in (EvidenceKind.PATH, EvidenceKind.LINES) or evidence.source != "acme/widget":
            continue
        if evidence.pin and not OLD.startswith(evidence.pin):
            continue
        move = Move(evidence.path, RENAMES.get(evidence.path, evidence.path), evidence.cited_lines,
                    shifted(evidence.cited_lines, evidence.path))
        if move.changes:
            moves[evidence] = move
    return moves


_URL = re.compile(r"https?://[^\s<>()\[\]`\"']+")
_LINK_TEXT = re.compile(r"\[[^\[\]]*\](?=[(\[])")


def masked(line: bytes) -> bytes:
    text = line.decode("utf-8")
    return _LINK_TEXT.sub("[]", _URL.sub("<url>", text)).replace(OLD[:12], "<sha>").replace(NEW[:12], "<sha>").encode()


@settings(max_examples=150, deadline=None)
@given(original=reviews())
def test_a_review_repin_changes_only_its_links(original):
    report = parse_report("widget.md", decode_report("widget.md", original)[0], "review")
    target = RepinTarget(NEW, (PinnedSource("acme/widget", OLD, frozenset({"acme/widget"})),), RENAMES)
    moves = moves_as_drift_gives_them(report)
    index = LineIndex(original)
    found = report_edits(report, index, moves, target, path_moves(moves, RENAMES))
    kept, dropped = resolve_overlaps(found.changes)
    assert dropped == []
    new = edited(original, [index.edit(change) for change in kept])

    assert new.startswith(b"\xef\xbb\xbf") == original.startswith(b"\xef\xbb\xbf")
    assert new.endswith(b"\n") == original.endswith(b"\n")
    old_lines, new_lines = original.split(b"\n"), new.split(b"\n")
    assert len(old_lines) == len(new_lines)
    for before, after in zip(old_lines, new_lines):
        assert before.endswith(b"\r") == after.endswith(b"\r")
        assert masked(before) == masked(after)  # prose, markup and line breaks untouched
        old_urls, new_urls = _URL.findall(before.decode("utf-8")), _URL.findall(after.decode("utf-8"))
        assert len(old_urls) == len(new_urls)
        for was, now in zip(old_urls, new_urls):
            link = parse_repository_link(was)
            if link is None or link.repo_id != "acme/widget" or not OLD.startswith(link.ref):
                assert now == was  # another repository, or another commit on purpose
                continue
            moved = parse_repository_link(now)
            assert moved.ref == NEW[: len(link.ref)]
            if link.kind == "commit":
                continue
            assert moved.path == RENAMES.get(link.path, link.path)
            assert moved.lines == shifted(link.lines, link.path)
    # link texts that showed a renamed path show the new one
    for text, url in re.findall(r"\[([^\[\]]*)\]\((%s[^)]*)\)" % re.escape(REPO), new.decode("utf-8")):
        if f"/{NEW}/" in url or f"/{NEW[:12]}/" in url:
            assert not any(re.search(rf"(?<![\w/]){re.escape(old)}", text) for old in RENAMES), (text, url)
    # a second rewrite from the re-pinned text changes nothing
    report2 = parse_report("widget.md", new.decode("utf-8-sig"), "review")
    index2 = LineIndex(new)
    again = report_edits(report2, index2, {}, RepinTarget(NEW, (PinnedSource("acme/widget", NEW),)), {})
    assert again.changes == []
