"""What changed between two versions of a definition, token by token
(comments and layout do not count): :func:`body_token_diff`."""

from __future__ import annotations

import difflib

from .definitions import Definition
from .lexing import Token, tokens

_DIFF_CONTEXT = 3
_DIFF_HUNKS = 4
_DIFF_WIDTH = 160


def body_token_diff(
    old_text: str, new_text: str, path: str, old_def: Definition, new_def: Definition
) -> str | None:
    """``None`` when the two definitions have the same tokens (comments and
    layout do not count); otherwise a few lines showing the changed tokens,
    ``L<old>→L<new>: context [-removed-] {+added+} context``.

    Without a grammar, words of the two spans are compared instead.
    """
    old_tokens = tokens(old_text, path, span=(old_def.start, old_def.end))
    new_tokens = tokens(new_text, path, span=(new_def.start, new_def.end))
    if old_tokens is None or new_tokens is None:
        old_tokens = _words(old_text, old_def)
        new_tokens = _words(new_text, new_def)
    old_texts = [t.text for t in old_tokens]
    new_texts = [t.text for t in new_tokens]
    if old_texts == new_texts:
        return None
    matcher = difflib.SequenceMatcher(None, old_texts, new_texts, autojunk=False)
    changes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    lines = []
    for _tag, i1, i2, j1, j2 in changes[:_DIFF_HUNKS]:
        old_line = _line_at(old_tokens, i1, old_def)
        new_line = _line_at(new_tokens, j1, new_def)
        parts = [" ".join(old_texts[max(0, i1 - _DIFF_CONTEXT) : i1])]
        if i2 > i1:
            parts.append(f"[-{' '.join(old_texts[i1:i2])}-]")
        if j2 > j1:
            parts.append(f"{{+{' '.join(new_texts[j1:j2])}+}}")
        parts.append(" ".join(old_texts[i2 : i2 + _DIFF_CONTEXT]))
        line = f"L{old_line}→L{new_line}: " + " ".join(p for p in parts if p)
        lines.append(line if len(line) <= _DIFF_WIDTH else line[: _DIFF_WIDTH - 1] + "…")
    if len(changes) > _DIFF_HUNKS:
        lines.append(f"… and {len(changes) - _DIFF_HUNKS} more token changes")
    return "\n".join(lines)


def _words(text: str, definition: Definition) -> list[Token]:
    line = definition.lines.start
    words: list[Token] = []
    for number, row in enumerate(text[definition.start : definition.end].split("\n")):
        words.extend(Token(w, 0, 0, line + number, "code") for w in row.split())
    return words


def _line_at(found: list[Token], index: int, definition: Definition) -> int:
    if index < len(found):
        return found[index].line
    return found[-1].line if found else definition.lines.start
