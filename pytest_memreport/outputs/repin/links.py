"""Repository links rewritten for a re-pin: the commit, the path, the ``#L`` anchor,
and the link text where it shows the path.

A link is rewritten only when it points into a re-pinned repository at the
commit being re-pinned (``/blob/<old>/...``, ``/tree/<old>/...``,
``/commit/<old>``); links of other repositories and links at another commit on
purpose are left as written. Reference-style definitions (``[1]: https://...``)
are links like any other; their usages ``[text][1]`` get their text rewritten.
The URL keeps its spelling: host, ``/-/`` of GitLab, percent-escapes of an
unchanged path, the length of a short sha.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from ...dialects.core.links import RepositoryLink, find_bare_urls, parse_repository_link
from ...model import LineRange
from ..lineindex import CharEdit
from .citations import citation_changes
from .target import Move, respell

from ...dialects.core.grammar import BITBUCKET_ANCHOR, LINK_ANCHOR_WRITTEN, LINK_DEFINITION, RANGE_WORDS, REFERENCE_USE, URL_PARTS


@dataclass(frozen=True)
class UrlSpan:
    start: int
    end: int
    url: str
    link: RepositoryLink | None


def url_spans(text: str) -> list[UrlSpan]:
    """Every URL in a line (Markdown link targets, definitions, bare URLs, ``<autolinks>``)."""
    return [UrlSpan(col, col + len(url), url, parse_repository_link(url)) for url, col in find_bare_urls(text)]


def rewritten_url(url: str, link: RepositoryLink, new_ref: str | None, move: Move | None,
                  new_path: str | None) -> str:
    """``url`` with its commit, path and anchor rewritten (each only when given)."""
    parts = URL_PARTS.fullmatch(url)
    if parts is None:
        return url
    head, path, query, fragment = parts.group(1), parts.group(2), parts.group(3) or "", parts.group(4)
    segments = path.split("/")
    at = _ref_index(link, segments)
    if at is None:
        return url
    ref_at, path_at = at
    if new_ref:
        written, _, ref = segments[ref_at].rpartition("@")  # (Sourcegraph writes ``name@<ref>``)
        segments[ref_at] = (written + "@" if written else "") + respell(ref, new_ref)
    rest = "/".join(segments[path_at + 1:])
    if new_path and link.path.rstrip("/") != new_path:
        trailing = "/" if rest.endswith("/") else ""
        rest = quote(new_path, safe="/~@!$&'()*+,;=:") + trailing
    out = head + "/".join(segments[: path_at + 1]) + ("/" + rest if rest or path_at + 1 < len(segments) else "")
    new_lines = move.new_lines if move is not None and link.lines is not None else None
    # (the anchor is the fragment's, or Sourcegraph's query's)
    out += "?" + _anchor(query[1:], new_lines) if query and new_lines is not None else query
    if fragment is not None:
        out += "#" + (_anchor(fragment, new_lines) if new_lines is not None else fragment)
    return out


def _ref_index(link: RepositoryLink, segments: list[str]) -> tuple[int, int] | None:
    """Which path segment of the URL holds the ref, and which one the file's path follows
    (as :func:`parse_repository_link` reads each host's layout)."""
    if link.host == "raw.githubusercontent.com":
        ref_at = path_at = 2
    elif len(segments) > 5 and "@" in segments[2] and segments[3] == "-":
        ref_at, path_at = 2, 4  # Sourcegraph: ``host/owner/name@<ref>/-/blob/<path>``
    elif len(segments) > 4 and segments[2] in ("src", "raw") and segments[3] in ("commit", "branch", "tag"):
        ref_at = path_at = 4  # Gitea, Forgejo: ``owner/name/src/commit/<ref>/<path>``
    else:
        ref_at = path_at = 4 if len(segments) > 2 and segments[2] == "-" else 3
    return (ref_at, path_at) if path_at < len(segments) else None


def _anchor(fragment: str, new: LineRange) -> str:
    """A line anchor (GitHub's ``L10-L20``, Sourcegraph's ``L10-20``, Bitbucket's
    ``lines-10:20``) naming ``new``, written as it was."""
    bitbucket = BITBUCKET_ANCHOR.fullmatch(fragment)
    if bitbucket is not None:
        return f"lines-{new.start}" + (f":{new.end}" if new.end != new.start or bitbucket.group(2) else "")
    written = LINK_ANCHOR_WRITTEN.fullmatch(fragment)
    if written is None:
        return fragment
    if new.start == new.end and not written.group(3):
        return f"L{new.start}"
    dash = written.group(2) or "-L"
    return f"L{new.start}{dash}{new.end}"


def link_text_span(text: str, url_start: int) -> tuple[int, int] | None:
    """The ``[text]`` of an inline link whose target starts at ``url_start``."""
    before = text[:url_start]
    if before.endswith("](<"):
        close = url_start - 3
    elif before.endswith("]("):
        close = url_start - 2
    else:
        return None
    depth = 0
    for pos in range(close - 1, -1, -1):
        char = text[pos]
        if char == "]" and (pos == 0 or text[pos - 1] != "\\"):
            depth += 1
        elif char == "[" and (pos == 0 or text[pos - 1] != "\\"):
            if depth == 0:
                return pos + 1, close
            depth -= 1
    return None


def definition_label(text: str, url_start: int) -> str | None:
    """The label when the URL at ``url_start`` is the target of a reference definition."""
    m = LINK_DEFINITION.match(text)
    return _label(m.group(1)) if m and m.end() == url_start else None


def reference_uses(text: str) -> list[tuple[int, int, str]]:
    """``(text start, text end, label)`` of every full ``[text][label]`` reference."""
    return [(m.start(1), m.end(1), _label(m.group(2))) for m in REFERENCE_USE.finditer(text)]


def _label(raw: str) -> str:
    return " ".join(raw.split()).casefold()


def text_changes(line: int, text: str, span: tuple[int, int], move: Move | None, old_path: str,
                 new_path: str, reason: str) -> list[CharEdit]:
    """Edits of a link's text that shows the path (whole, or its file name) and its range."""
    start, end = span
    ranges = {move.old_lines: move.new_lines} if move and move.old_lines and move.new_lines else {}
    changes = citation_changes(line, text, old_path, old_path, new_path, ranges, reason, start, end)
    old_name, new_name = old_path.rsplit("/", 1)[-1], new_path.rsplit("/", 1)[-1]
    if not changes and old_name != new_name and "/" in old_path:
        changes = citation_changes(line, text, old_name, old_name, new_name, ranges, reason, start, end)
    if ranges:
        # ``[lines 8-10](...#L8-L10)``: the text says which lines the anchor shows; both move.
        taken = [(c.start, c.end) for c in changes]
        for m in RANGE_WORDS.finditer(text, start, end):
            first, last = int(m.group(1)), int(m.group(3) or m.group(1))
            new = ranges.get(LineRange(first, last)) if 1 <= first <= last else None
            if new is None or any(s < m.end() and m.start() < e for s, e in taken):
                continue
            if new.start == new.end or m.group(3) is None:
                spelled = str(new.start) if new.start == new.end else f"{new.start}-{new.end}"
            else:
                spelled = f"{new.start}{m.group(2)}{new.end}"
            changes.append(CharEdit(line, m.start(1), m.end(), spelled, reason))
    return changes
