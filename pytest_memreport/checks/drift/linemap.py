"""Line ranges of the pin mapped to the against-revision through git's hunks.

A range no hunk touches holds the same lines at its new place, shifted by
what was inserted and deleted above it: no text is compared, and the answer
is git's (one ``diff-tree -p -U0 -M`` per pin/against pair, see
:meth:`~pytest_memreport.gitstore.GitStore.file_change`). A range a hunk
touches is not mapped: the quote is then located in the new text.
"""

from __future__ import annotations

from ...gitstore.hunks import FileChange
from ...model import LineRange


def map_range(change: FileChange, lines: LineRange) -> LineRange | None:
    """Where old ``lines`` are in the new file, or ``None`` when a hunk touches them."""
    if change.binary:
        return None
    offset = 0
    for hunk in change.hunks:
        if hunk.old_count == 0:
            # Inserted after old line old_start: inside the range splits it.
            if hunk.old_start < lines.start:
                offset += hunk.new_count
            elif hunk.old_start < lines.end:
                return None
            continue
        last = hunk.old_start + hunk.old_count - 1
        if last < lines.start:
            offset += hunk.new_count - hunk.old_count
        elif hunk.old_start <= lines.end:
            return None
    return LineRange(lines.start + offset, lines.end + offset)


def mapped(store, pin_sha: str, against_rev: str, path: str, home: str, lines: LineRange | None) -> LineRange | None:
    """The pin's ``lines`` of ``path`` in ``home`` at the against commit, when git's diff
    says they are untouched; ``None`` when it cannot say (touched, not in the diff,
    another path than the diff's, or the working tree)."""
    if lines is None or not store or against_rev == "worktree" or against_rev == pin_sha:
        return None
    change = store.file_change(pin_sha, against_rev, path)
    if change is None or change.new_path != home:
        return None
    return map_range(change, lines)


def line_offset(text: str, line: int) -> int:
    """The character offset where 1-based ``line`` of ``text`` begins."""
    offset = 0
    for _ in range(line - 1):
        found = text.find("\n", offset)
        if found < 0:
            return len(text)
        offset = found + 1
    return offset
