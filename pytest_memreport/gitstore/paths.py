"""Path hygiene shared by every snapshot: which repository-relative paths are refused, lexically.

Absolute paths, ``..`` escaping the root and ``.git`` internals are refused
here; a path passing through a symlink or a submodule is refused by each
snapshot, which knows what lies above the path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..runcaches import run_cached

_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:")


@run_cached(maxsize=1 << 16)
def normalize_path(path: str, literal: bool = False) -> tuple[str | None, str | None]:
    """Lexically normalize a repository-relative path.

    Returns ``(normalized, None)`` or ``(None, reason)``; ``""`` is the root.
    A backslash counts as a separator, so paths cited from Windows resolve
    (git itself always stores ``/``), unless ``literal``: a path from git's
    own listing is used as git spells it (a tracked ``src\\evil.py`` is that
    file, not ``src/evil.py``).
    """
    if "\0" in path:
        return None, "contains a NUL character"
    if not literal:
        path = path.replace("\\", "/")
    if path.startswith("/"):
        return None, "absolute path"
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None, "escapes the repository"
            parts.pop()
            continue
        # git refuses to track any `.git` component (case-insensitively, for
        # case-insensitive file systems); such a path can only be git's own data.
        if part.casefold() == ".git":
            return None, "git-internal path"
        parts.append(part)
    # Checked after normalizing so `a/../C:/x` is refused like `C:/x`.
    if parts and _WINDOWS_DRIVE.fullmatch(parts[0]):
        return None, "absolute path"
    return "/".join(parts), None


def prefixes(path: str) -> Iterator[str]:
    """Every proper ancestor of ``path``: ``a/b/c`` → ``a``, ``a/b``."""
    parts = path.split("/")
    for i in range(1, len(parts)):
        yield "/".join(parts[:i])


def git_path(raw: bytes) -> str:
    """A path as git gives it (bytes) as the text reports write: UTF-8, whatever the
    locale's file system encoding (``os.fsdecode`` under ``LC_ALL=C`` or Latin-1 would
    turn ``é`` into ``\\udcc3\\udca9`` or ``Ã©``); bytes that are not UTF-8 stay
    recoverable as surrogate escapes."""
    return raw.decode("utf-8", "surrogateescape")


def disk_path(path: str) -> bytes:
    """A repository path (as :func:`git_path` gives it, or a report wrote it) as the
    bytes of its file name on disk, for the same reason."""
    return path.encode("utf-8", "surrogateescape")
