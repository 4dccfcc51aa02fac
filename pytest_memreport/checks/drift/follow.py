"""Where a file or directory of the pin went when its path is gone at the against-revision.

Files are followed through history (git's rename detection, commit by
commit); a file history does not know moved (uncommitted, or not detected)
is found by its blob; a directory by where most of its renamed files went.
"""

from __future__ import annotations

import posixpath
from collections import Counter

from ...gitstore import WORKTREE

#: how many files of a vanished directory are followed through history one by one
_DIRECTORY_FOLLOWS = 3


def _history_end(store, against) -> str:
    """The commit history is followed up to: the against commit, or HEAD for the working tree."""
    return store.resolve("HEAD") if against.rev == WORKTREE else against.rev


def followed(store, pin_sha: str, against, path: str) -> str | None:
    """Where the pin's file ``path`` lives in ``against`` when its path is gone, or ``None``.

    History is followed commit by commit up to the against commit; for the
    working tree, up to HEAD, then the working tree must still have the file.
    """
    target = _history_end(store, against)
    if target == pin_sha:
        return None
    new_path = store.follow(path, pin_sha, target)
    if new_path is None or new_path == path:
        return None
    found = against.entry(new_path)
    return new_path if found is not None and found.kind == "file" else None


def same_blob_elsewhere(against, origin: str, oid: str | None) -> str | None:
    """A file holding exactly the pin's blob ``oid``, in the same folder as
    ``origin`` or under the same name (a move history does not know:
    uncommitted, or not detected).

    Only those files are hashed: in the working tree every candidate is read.
    """
    if not oid:
        return None
    folder, name = posixpath.split(origin)
    for path in against.files():
        head, tail = posixpath.split(path)
        if (head == folder or tail == name) and against.oid(path) == oid:
            return path
    return None


def moved_directory(store, pin_sha: str, against, path: str) -> str | None:
    """The directory most of the old one's renamed files now share, if it exists."""
    target = _history_end(store, against)
    if target == pin_sha:
        return None
    prefix = path.rstrip("/") + "/"
    moves = {old: new for old, new in store.renames(pin_sha, target).items() if old.startswith(prefix)}
    if not moves:
        # Heavily edited files escape the whole-diff rename map: follow a few.
        inside = [p for p in store.snapshot(pin_sha).files() if p.startswith(prefix)]
        for old in inside[:_DIRECTORY_FOLLOWS]:
            new = store.follow(old, pin_sha, target)
            if new is not None and new != old:
                moves[old] = new
    votes: Counter[str] = Counter()
    for old, new in moves.items():
        tail = old[len(prefix):]
        if new.endswith("/" + tail):
            votes[new[: -len(tail) - 1]] += 1
    if not votes and moves:
        common = posixpath.commonpath([posixpath.dirname(new) for new in moves.values()])
        if common:
            votes[common] += 1
    for new_dir, _count in votes.most_common():
        if new_dir != path.rstrip("/") and against.is_dir(new_dir):
            return new_dir
    return None
