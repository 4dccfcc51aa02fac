"""The change that broke it: the first-parent commit after which evidence no longer holds.

Evidence true at its pin and false at the against-revision stopped holding
somewhere between them. :func:`broken_by` finds where, at a bounded cost: the
store's first-parent log of the (pin, against) pair (ONE ``git log -M --raw``
for every piece of evidence of that pair, see
:meth:`~pytest_memreport.gitstore.GitStore.first_parent_log`) says which
commits changed the file and which blob each left, following renames commit
by commit; a bisection over those versions reads a logarithmic number of
blobs through the persistent ``cat-file``. No process runs per commit.

The answer is a commit where the evidence held before and not after. When it
broke, came back and broke again, the bisection names one of those breaks (it
assumes, as a reader does, that a change stays made).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from ...gitstore import WORKTREE, RepoError
from ...gitstore.history import LogCommit
from ...text import symbols
from .results import UNCOMMITTED


def _end(store, against) -> str:
    """The last commit of the history to search: the against commit, HEAD for the working tree."""
    return store.resolve("HEAD") if against.rev == WORKTREE else against.rev


def broken_by(store, pin_sha: str, against, path: str, holds: Callable[[str, str | None], bool]):
    """The commit (a :class:`~pytest_memreport.gitstore.history.LogCommit`) after which
    ``holds(path, blob)`` turned false for the pin's file ``path`` (followed through
    renames); :data:`.results.UNCOMMITTED` when it still holds at HEAD and only the
    working tree breaks it; ``None`` when history does not tell (the file never
    changed, a blob is missing, or it still holds at the against commit).

    ``holds`` is asked about the file's name and blob at a commit (``None``: no
    such file there); it reads the blob with ``store.read_blob`` (cached by id).
    """
    return as_broken_by(breaking_commit(store, pin_sha, against, path, holds))


def as_broken_by(commit):
    """What a result names of :func:`breaking_commit`'s answer: a commit :func:`named`, or
    the answer itself (:data:`.results.UNCOMMITTED`, ``None``)."""
    return named(commit) if isinstance(commit, LogCommit) else commit


def breaking_commit(store, pin_sha: str, against, path: str, holds: Callable[[str, str | None], bool]):
    """:func:`broken_by`'s commit with the files it changed (what else moved with it)."""
    end = _end(store, against)
    changed = store.file_versions(pin_sha, end, path) if end != pin_sha else []
    try:
        if not changed or holds(changed[-1][1], changed[-1][2]):
            return UNCOMMITTED if against.rev == WORKTREE else None
        low, high = -1, len(changed) - 1  # holds at the pin (low), not after changed[high]
        while high - low > 1:
            middle = (low + high) // 2
            if holds(changed[middle][1], changed[middle][2]):
                low = middle
            else:
                high = middle
    except RepoError:
        return None  # a version the clone lacks: the history cannot say
    return changed[high][0]


def moved_with(store, pin_sha: str, against, commit, like: str) -> set[str]:
    """The files of ``like``'s kind (:func:`..text.symbols.file_kind`) that ``commit`` (a
    :func:`breaking_commit`) changed, named as at the against revision: where what left
    ``like`` in that commit may have gone (a move is one commit; a page of documentation
    the commit also edited is not where code went), later renames followed through the
    pair's first-parent log (no process)."""
    changed = getattr(commit, "changes", ())
    if not changed:
        return set()
    kind = symbols.file_kind(like)
    current = {change.new_path: change.new_path for change in changed
               if change.new_path and symbols.file_kind(change.new_path) == kind}
    after = False
    for step in store.first_parent_log(pin_sha, _end(store, against)):
        if not after:
            after = step.sha == commit.sha
            continue
        renames, deleted = step.renames, step.deleted
        for origin, name in list(current.items()):
            if name in renames:
                current[origin] = renames[name]
            elif name in deleted:
                del current[origin]
    return set(current.values())


@dataclass(frozen=True)
class Destinations:
    """What a move could have done with evidence that left a file, asked of some candidate
    files: which of them the commit that removed it changed (:func:`moved_with`), and what
    the pin called each (:func:`names_at_pin`; ``None``: new since the pin). Plain
    quotations, plain cited lines and definitions that left their file all go by it."""

    #: whether the history says which commit removed it (not where a clone lacks the
    #: objects, nor for a change only the working tree makes)
    known: bool
    touched: frozenset[str]
    at_pin: Mapping[str, str | None]

    def changed_by_it(self, path: str) -> bool:
        """Whether the removing commit changed ``path`` (any path, where it is not known)."""
        return path in self.touched or not self.known


def destinations(store, pin_sha: str, against, commit, like: str, paths) -> Destinations:
    """:class:`Destinations` of what left ``like`` in ``commit`` (a :func:`breaking_commit`),
    among the candidate files ``paths``."""
    return Destinations(bool(getattr(commit, "changes", None)),
                        frozenset(moved_with(store, pin_sha, against, commit, like)),
                        names_at_pin(store, pin_sha, against, paths))


def names_at_pin(store, pin_sha: str, against, paths) -> dict[str, str | None]:
    """What the pin called each file the against revision calls one of ``paths``: their
    renames along the pair's first-parent log followed back in one pass (no process);
    ``None`` for a file created since the pin (express's ``req.acceptsEncoding.js``,
    renamed ``req.acceptsEncodings.js``, is no new file)."""
    names = {path: path for path in paths}
    for step in reversed(store.first_parent_log(pin_sha, _end(store, against))):
        renames = step.renames
        if renames:
            earlier = {new: old for old, new in renames.items()}
            names = {path: earlier.get(name, name) for path, name in names.items()}
    pinned = store.snapshot(pin_sha)
    return {path: name if pinned.entry(name) is not None else None for path, name in names.items()}


def directory_broken_by(store, pin_sha: str, against, path: str):
    """The commit after which the folder ``path`` no longer exists (bisection over
    the commits that changed anything under it: one tree listing per step)."""
    end = _end(store, against)
    if end == pin_sha:
        return UNCOMMITTED if against.rev == WORKTREE else None
    prefix = path.rstrip("/") + "/"
    touching = [c for c in store.first_parent_log(pin_sha, end)
                if any((c_.old_path or "").startswith(prefix) or (c_.new_path or "").startswith(prefix)
                       for c_ in c.changes)]
    if not touching or store.snapshot(touching[-1].sha).is_dir(path):
        return UNCOMMITTED if against.rev == WORKTREE else None
    low, high = -1, len(touching) - 1
    while high - low > 1:
        middle = (low + high) // 2
        if store.snapshot(touching[middle].sha).is_dir(path):
            low = middle
        else:
            high = middle
    return named(touching[high])


def named(commit: LogCommit) -> LogCommit:
    """``commit`` as a result names it: who, when, what it says, without the files it
    changed. A large commit changes hundreds of files; every result it broke would carry
    them, into the result cache and back (a typeshed run kept 29,000 such rows for 379
    commits), and nothing a result says reads them."""
    return replace(commit, changes=()) if commit.changes else commit
