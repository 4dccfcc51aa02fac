"""A note's evidence basis: the opening line naming the commit it was written at (docs/FORMATS.md §4).

    **Evidence basis:** first-hand reading of the `acme/widgets` checkout at commit
    [4f1c9e02](https://github.com/acme/widgets/commit/4f1c9e02...) (2026-05-14), covering ...
    Originally written against `77ab01c3` and refreshed since.

:func:`read_basis` reads one such paragraph: the pin is its first commit link (the
link's full sha, whatever its text), else the first sha written after "commit" or
"at", in backticks or not; a date beside it says when the note was true to it; a
commit the note says it was *originally written against* (or first written at) is
history, never the pin. Every pattern is linear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .grammar import BASIS_REPOSITORY, BASIS_SHA
from .links import parse_repository_link

#: a line opening the evidence basis (markup, list and quote markers allowed before it)
BASIS_LINE = re.compile(r"(?im)^[ \t>*_#-]*evidence[ \t]+basis[*_]*[ \t]*(?:[:.—–-]|$)")
#: the clause that names history: from these words to the end of their sentence
_HISTORY = re.compile(
    r"(?i)\b(?:originally|initially|first)[ \t\n]+(?:written|drafted|reviewed|checked|read|based)[ \t\n]+"
    r"(?:against|at|on|from)\b[^.!?]*|\bwritten[ \t\n]+against\b[^.!?]*|\brefreshed[ \t\n]+from\b[^.!?]*"
)
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


@dataclass(frozen=True)
class Basis:
    """What an evidence-basis paragraph states.

    ``sha`` is the pin as written (a link's full sha when a link holds it), ``repo``
    the ``owner/name`` it names (a commit link's, else a backticked name before
    "checkout"), ``url`` that repository's URL when a link gives it, ``date`` the
    ``YYYY-MM-DD`` written beside the pin, ``history`` the commits the note was
    originally written against.
    """

    line: int
    sha: str | None
    repo: str | None = None
    url: str | None = None
    date: str | None = None
    history: tuple[str, ...] = ()


def read_basis(text: str, links: list[tuple[int, str]], line: int) -> Basis:
    """The basis stated by one paragraph: its shown ``text`` and its ``links`` as
    ``(offset in text, href)``, at report ``line``."""
    history_spans = [(m.start(), m.end()) for m in _HISTORY.finditer(text)]

    def in_history(at: int) -> bool:
        return any(start <= at < end for start, end in history_spans)

    sha = repo = url = None
    at = -1
    history: list[str] = []
    for offset, href in links:
        link = parse_repository_link(href)
        if link is None or link.kind != "commit":
            continue
        if in_history(offset):
            history.append(link.ref.lower())
        elif sha is None:
            sha, repo, url, at = link.ref.lower(), link.repo_id, link.url, offset
    for match in BASIS_SHA.finditer(text):
        written = match.group(1).lower()
        if not any(ch.isdigit() for ch in written):
            continue  # ``at deadbeef``-like words are words
        if in_history(match.start()):
            if not any(h.startswith(written) or written.startswith(h) for h in history):
                history.append(written)
        elif sha is None:
            sha, at = written, match.start()
    if repo is None:
        named = BASIS_REPOSITORY.search(text)
        if named is not None:
            owner, name = (named.group(1), named.group(2)) if named.group(1) else (named.group(3), named.group(4))
            repo = f"{owner}/{name}"
    date = None
    if sha is not None:
        dates = [m for m in _DATE.finditer(text) if not in_history(m.start())]
        after = [m for m in dates if m.start() > at]
        chosen = after[0] if after else (dates[0] if dates else None)
        date = chosen.group(1) if chosen is not None else None
    return Basis(line, sha, repo, url, date, tuple(history))
