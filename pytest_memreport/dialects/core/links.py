"""Links into hosted repositories (``https://host/owner/name/blob/<ref>/<path>#L1-L2``,
GitLab's ``/-/`` form, ``raw.githubusercontent.com``, Gitea's and Forgejo's ``/src/commit/``,
Bitbucket's ``/src/<ref>/``, Sourcegraph's ``@<rev>/-/blob/``), bare URLs in prose, and
the repository a URL belongs to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from ...runcaches import run_cached

from ...model import LineRange
from .grammar import BARE_URL, BITBUCKET_ANCHOR, LINK_ANCHOR, SHA_ONLY, SOURCEGRAPH_ANCHOR


@dataclass(frozen=True)
class RepositoryLink:
    """A link into a hosted repository: ``https://host/owner/name/blob/<ref>/<path>#L1-L2``.

    ``kind`` is ``blob`` (a file; also ``raw``), ``tree`` (a directory) or
    ``commit``. ``ref`` is the revision as written (a sha or a branch name;
    a branch name containing ``/`` cannot be told from the path and is read
    as its first segment). ``lines`` is the ``#L10-L20`` anchor;
    ``bad_anchor`` an anchor written backwards or from line 0.
    """

    host: str
    owner: str
    name: str
    kind: str
    ref: str
    path: str = ""
    lines: LineRange | None = None
    bad_anchor: str | None = None

    @property
    def repo_id(self) -> str:
        """``owner/name``: how evidence names the repository."""
        return f"{self.owner}/{self.name}"

    @property
    def url(self) -> str:
        """The repository's URL."""
        return f"https://{self.host}/{self.owner}/{self.name}"

    @property
    def ref_is_sha(self) -> bool:
        return is_sha(self.ref)


#: a link's kind by its path word: a blame view shows a file at its commit, as a blob does
_LINK_KINDS = {"blob": "blob", "raw": "blob", "blame": "blob", "tree": "tree", "commit": "commit"}


def is_sha(text: str) -> bool:
    """Whether ``text`` is written as a commit sha (7 to 64 hex digits: SHA-1 or SHA-256)."""
    return SHA_ONLY.fullmatch(text) is not None


@run_cached(maxsize=4096)
def parse_repository_link(href: str) -> RepositoryLink | None:
    """A link into a hosted repository (GitHub, GitLab's ``/-/`` form,
    ``raw.githubusercontent.com``), or ``None`` for any other link."""
    from urllib.parse import unquote, urlsplit

    if len(href) > 4096 or not href.lower().startswith(("http://", "https://")):
        return None
    try:
        parts = urlsplit(href.strip())
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    segments = [unquote(s) for s in parts.path.split("/") if s]
    anchor_text = parts.fragment or ""
    if host == "raw.githubusercontent.com" and len(segments) >= 4:
        owner, name, ref, rest = segments[0], segments[1], segments[2], segments[3:]
        kind = "blob"
    elif host.endswith("sourcegraph.com") and len(segments) >= 6 and "@" in segments[2] \
            and segments[3] == "-" and segments[4] in ("blob", "tree"):
        # ``sourcegraph.com/github.com/owner/name@<rev>/-/blob/<path>?L10-20``: the repository's own host
        host, owner, (name, ref) = segments[0].lower(), segments[1], segments[2].split("@", 1)
        kind, rest = _LINK_KINDS[segments[4]], segments[5:]
        anchor_text = _as_github_anchor(SOURCEGRAPH_ANCHOR, parts.query or anchor_text)
    elif len(segments) >= 5 and segments[2] in ("src", "raw") and segments[3] in ("commit", "branch", "tag"):
        # Gitea and Forgejo (Codeberg): ``/owner/name/src/commit/<sha>/<path>#L10-L20``
        owner, name, ref, rest, kind = segments[0], segments[1], segments[4], segments[5:], "blob"
    elif host == "bitbucket.org" and len(segments) >= 4 and segments[2] == "src":
        # ``/owner/name/src/<sha>/<path>#lines-10:20``
        owner, name, ref, rest, kind = segments[0], segments[1], segments[3], segments[4:], "blob"
        anchor_text = _as_github_anchor(BITBUCKET_ANCHOR, anchor_text)
    else:
        if len(segments) < 4:
            return None
        owner, name = segments[0], segments[1]
        index = 3 if segments[2] == "-" else 2
        if index >= len(segments) or segments[index] not in _LINK_KINDS or index + 1 >= len(segments):
            return None
        kind, ref, rest = _LINK_KINDS[segments[index]], segments[index + 1], segments[index + 2:]
    if name.endswith(".git"):
        name = name[: -len(".git")]
    if not owner or not name or not ref:
        return None
    path = "/".join(rest)
    if kind == "commit":
        return RepositoryLink(host, owner, name, kind, ref) if is_sha(ref) else None
    lines: LineRange | None = None
    bad: str | None = None
    anchor = LINK_ANCHOR.fullmatch(anchor_text)
    if anchor and kind == "blob":
        start = int(anchor.group(1))
        end = int(anchor.group(2)) if anchor.group(2) else start
        if start < 1 or end < start:
            bad = parts.fragment
        else:
            lines = LineRange(start, end)
    return RepositoryLink(host, owner, name, kind, ref, path, lines, bad)


def _as_github_anchor(written: re.Pattern[str], text: str) -> str:
    """A line anchor another host writes (Sourcegraph's ``L10-20``, ``L10:3-20:5`` with
    columns; Bitbucket's ``lines-10:20``), as GitHub writes it (``L10-L20``); ``text`` as it
    is when ``written`` does not read it."""
    found = written.fullmatch(text)
    if found is None:
        return text
    return f"L{found.group(1)}" + (f"-L{found.group(2)}" if found.group(2) else "")


def find_bare_urls(line: str) -> list[tuple[str, int]]:
    """Every bare URL in ``line`` with its column (trailing sentence punctuation dropped)."""
    return [(m.group().rstrip(".,;:!?"), m.start()) for m in BARE_URL.finditer(line)]


def repository_of(url: str) -> tuple[str, str] | None:
    """``(owner/name, https://host/owner/name)`` of a repository URL (any page
    inside the repository will do; a ``.git`` suffix is dropped), or ``None``."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        return None
    segments = [s for s in parts.path.split("/") if s]
    if len(segments) < 2 or not host:
        return None
    owner, name = segments[0], segments[1]
    if name.endswith(".git"):
        name = name[: -len(".git")]
    if not name:
        return None
    return f"{owner}/{name}", f"https://{host.lower()}/{owner}/{name}"
