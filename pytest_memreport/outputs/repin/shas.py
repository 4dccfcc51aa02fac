"""The pinned commit wherever a report states it: ``SRC-1 commit <sha>``,
``**Reviewed commit:** [<sha>](...)``, ``| Revision | `9a0bae8` |``, prose.

Any 7-to-40-digit hex word naming a re-pinned commit is the pin (a short sha is
a prefix of it), and is respelled as long as it was written; other commits
(a note citing the commit that introduced a bug) are different words and stay.
URLs are left to :mod:`.links`, which knows whose repository they point into.
"""

from __future__ import annotations


from ..lineindex import CharEdit
from .target import RepinTarget, respell, same_commit

from ...dialects.core.grammar import HEX_WORD


def sha_changes(line: int, text: str, target: RepinTarget, outside=()) -> list[CharEdit]:
    """Edits of every re-pinned commit written in ``text`` outside the spans ``outside``."""
    changes = []
    for m in HEX_WORD.finditer(text):
        if any(s <= m.start() < e for s, e in outside):
            continue
        word = m.group()
        for source in target.sources:
            new = target.new_of(source)
            if same_commit(word, source.old) and not same_commit(word, new):
                changes.append(CharEdit(line, m.start(), m.end(), respell(word, new), f"re-pin {source.id}"))
                break
    return changes
