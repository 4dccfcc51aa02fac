"""A predicate's boundary at the against-revision, following renames as evidence does.

When the file a ``path:`` names was renamed since the pin, the predicate is
checked in the file it became (git's rename detection, commit by commit, as
drift follows a quotation's file). A glob follows its *literal prefix*, the
folder part before the first wildcard: ``src/store/**`` becomes
``lib/store/**`` when every file of ``src/store/`` that still exists lives
under ``lib/store/`` now, and nothing is left under ``src/store/``.

What cannot be followed is left as written, so an ``absent`` whose boundary
was renamed away with no single destination still fails as an empty
boundary: following never turns "nothing to search" into a pass.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from ..dialects.claims import Predicate
from .predicates import glob_match, literal_prefix


@dataclass(frozen=True)
class Followed:
    """The predicate to evaluate at the against-revision and the moves it followed
    (``(as written, as followed)`` pairs: a path, or a glob's folder)."""

    predicate: Predicate
    moves: tuple[tuple[str, str], ...] = ()

    @property
    def note(self) -> str:
        if not self.moves:
            return ""
        shown = ", ".join(f"{old} -> {new}" for old, new in self.moves)
        return f"followed the rename {shown} since the pin"


def follow(predicate: Predicate, store, pin: str, against: str, snapshot) -> Followed:
    """``predicate`` with its boundary as it stands at ``against`` (``snapshot``)."""
    if against == pin:
        return Followed(predicate)
    # uncommitted renames in a working tree are not git's to detect: follow to HEAD
    rev = "HEAD" if against == "worktree" else against
    args = predicate.args
    if "path" in args:
        moved = _follow_file(args["path"], store, pin, rev, snapshot)
        if moved is None:
            return Followed(predicate)
        return Followed(replace(predicate, args={**args, "path": moved}), ((args["path"], moved),))
    globs, moves = [], []
    for pattern in args.get("glob", ()):
        followed = _follow_glob(pattern, store, pin, rev, snapshot)
        globs.append(followed[0] if followed else pattern)
        if followed:
            moves.append(followed[1])
    if not moves:
        return Followed(predicate)
    return Followed(replace(predicate, args={**args, "glob": globs}), tuple(moves))


def _follow_file(path: str, store, pin: str, rev: str, snapshot) -> str | None:
    """Where a file missing at ``rev`` went (``None``: it is there, or it cannot be followed)."""
    found = snapshot.entry(path)
    if found is not None:
        return None
    moved = store.follow(path, pin, rev)
    if moved is None or moved == path:
        return None
    entry = snapshot.entry(moved)
    return moved if entry is not None and entry.kind == "file" else None


def _follow_glob(pattern: str, store, pin: str, rev: str, snapshot) -> tuple[str, tuple[str, str]] | None:
    """``(pattern at rev, (old folder, new folder))`` when the pattern's folder moved as a whole."""
    if not any(ch in pattern for ch in "*?["):  # a glob naming one file follows like a path
        moved = _follow_file(pattern.rstrip("/"), store, pin, rev, snapshot)
        return (moved, (pattern, moved)) if moved else None
    prefix = literal_prefix(pattern)
    if not prefix or not pattern.startswith(prefix):
        return None
    now = snapshot.files()
    if any(path.startswith(prefix) for path in now):
        return None  # the folder is still there: its boundary is what it holds now
    before = [p for p in store.snapshot(pin).files() if p.startswith(prefix) and glob_match(pattern, p)]
    if not before:
        return None
    renames = store.renames(pin, rev)
    targets: Counter[str] = Counter()
    for old in before:
        new = renames.get(old)
        if new is None:
            continue  # deleted: says nothing about where the folder went
        rest = old[len(prefix):]
        if not new.endswith("/" + rest):
            return None  # renamed on its own, out of the folder's shape: not a folder move
        targets[new[: len(new) - len(rest)]] += 1
    if len(targets) != 1:
        return None  # nowhere, or several places: the boundary cannot be followed
    (folder,) = targets
    return folder + pattern[len(prefix):], (prefix, folder)
