"""Cited line ranges at another revision: followed only to exactly the same lines.

A line anchor (``index.ts:96-101``) records the cited lines' content at the pin.
A quotation is matched through rendering damage; a range is not quoted, it is
*those lines*: it is ``unchanged`` where they still stand, ``shifted`` or
``moved`` only to a block of lines that is identical, indentation and blank
edge lines included (trimming a blank or fence-only edge line is never a
shift), and otherwise ``relocated`` to another file holding the identical
block (anywhere in the tree for a block of at least 40 letters and digits, as git
blame -C follows lines between files; in its own folder for a plainer one), or
``changed`` (at once when its file still holds the same code reformatted). The
whole-tree search proposes places; each is kept only when its lines are the block.
"""

from __future__ import annotations

from ...text import match
from .. import verify
from . import search
from .blocks import cited_block, exact_blocks
from .results import DELETED, MOVED, SHIFTED, UNCHANGED, Place


def classify_range(drift, recorded: str):
    """The drift of a cited range whose file changed since the pin (``drift`` is the
    classification in progress: its evidence, pin result and against snapshot)."""
    block = cited_block(recorded)
    entry = drift.against.entry(drift.path)
    home = drift.path if entry is not None and entry.kind == "file" else drift.followed()
    note = None
    if home is not None:
        textfile = drift.against.read(home)
        if textfile is not None and textfile.is_text:
            found = exact_blocks(block, textfile.text)
            if found:
                lines = min(found, key=lambda r: abs(r.start - drift.pin.lines.start))
                if home != drift.path:
                    status, message = MOVED, f"{drift.path} moved to {home}; the cited lines are at {lines}"
                elif lines == drift.pin.lines:
                    status, message = UNCHANGED, f"the cited lines still stand at {lines} of {home}"
                else:
                    status, message = SHIFTED, f"the cited lines shifted from {drift.pin.lines} to {lines} of {home}"
                return drift._with_symbol(status, home, lines, textfile, message=message, note=textfile.note)
            if verify.occurrences(recorded, textfile.text, home, key=textfile.oid or None)[0]:
                # The same code, reformatted or reindented, is still in its file: those are
                # not the cited lines any more, and no other file needs searching.
                return drift._changed(match.compile_quote(recorded), recorded, home, None)
        elif textfile is not None:
            note = textfile.describe()
    pattern = match.compile_quote(recorded)
    exclude = {home, *drift.reports}
    count = search.letters_and_digits(block)
    if count < search.FOLLOW_ALNUM:
        # Too plain to be followed across the tree (git blame -C would not either): ``self,``
        # stands in thousands of files. Its own folder is read: a module split into a sibling.
        # Lines without a letter or digit (``): ...``) name nothing: not followed at all.
        folders = drift.plain_folders(home)
        nearby = search.search_folder(block, drift.against, exclude, folders, drift.path) \
            if count else []
        moved, near = drift.plain_moves(nearby, recorded, True, home,
                                        lambda text, path, oid: len(exact_blocks(block, text))) if nearby else ([], [])
        if len({place.path for place in moved}) == 1:
            return drift._relocated(moved, False, note)
        shown = " or ".join(sorted(f + "/" if f else "the top level" for f in folders))
        held = (f"no other file of {shown} holds them" if not near else
                f"several files of {shown} gained a copy of them, and they are too plain to tell which one "
                "they went to" if moved else
                f"the other files of {shown} holding them held them at the pin already (not where they went)")
        plain = (f"{held}, and their {count} letters and digits are too few "
                 f"to follow them further (git blame -C asks for {search.FOLLOW_ALNUM})") if count else \
            "they hold no letter or digit, nothing to follow them by"
        if home is None:
            return drift.result(DELETED, None, None, note=note,
                                message=f"{drift.path} is gone {drift.where}; {plain}")
        return drift._changed(pattern, recorded, home, note, elsewhere=plain)
    exact = search.search_lines(block, drift.against, exclude, origin=drift.path)
    if exact is None:  # no telling line: the quote's search proposes places, exact lines decide
        places, _ = search.search_tree(pattern, recorded, drift.against, exclude=exclude,
                                       origin=drift.path, by_tokens=False)
        exact = []
        for path in dict.fromkeys(place.path for place in places):  # a file once, however many places
            other = drift.against.read(path)
            if other is not None and other.is_text:
                exact.extend(Place(path, lines) for lines in exact_blocks(block, other.text))
    if exact:
        return drift._relocated(exact, False, note)
    if home is None:
        return drift.result(DELETED, None, None, note=note,
                            message=f"{drift.path} is gone {drift.where} and the cited lines stand nowhere")
    return drift._changed(pattern, recorded, home, note)
