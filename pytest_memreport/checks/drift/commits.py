"""A commit a report links, at the against-revision: is it in that revision's history?

A note links commits on purpose (the change that introduced a behaviour, the fix it
discusses). Its claim holds as long as the commit is part of the code the reader checks
out: an ancestor of the against-revision (or that revision itself). A commit on a branch
that was never merged, or rewritten away by a force-push, no longer is.
"""

from __future__ import annotations

from ...gitstore import WORKTREE, RepoError, RevisionError
from ...model import Evidence
from ...text import render
from .results import UNCHANGED, UNREADABLE, DriftResult

#: the linked commit is not in the against-revision's history
DIVERGED = "diverged"


def ancestry(evidence: Evidence, store, against) -> DriftResult:
    """Whether the linked commit ``evidence.pin`` is an ancestor of ``against`` (a snapshot;
    the working tree is its ``HEAD``). Every commit the report links in this repository
    (``evidence.context``) is asked about with it: one ``git rev-list`` for all of them."""
    commit = store.resolve(evidence.pin or "")
    of = "HEAD" if against.rev == WORKTREE else against.rev
    where = "HEAD" if against.rev == WORKTREE else render.short(against.rev)
    asked = {commit}
    for other in evidence.context:
        try:
            asked.add(store.resolve(other))  # resolved already by the other link's own pin check
        except (RepoError, RevisionError):
            continue  # a commit the clone lacks: its own item says so
    try:
        ancestors = store.ancestors_among(of, asked)
    except RepoError as exc:
        return DriftResult(UNREADABLE, against.rev, None, None, None, message=str(exc))
    if commit in ancestors:
        return DriftResult(UNCHANGED, against.rev, None, None, None,
                           message=f"commit {commit[:12]} is in the history of {where}")
    return DriftResult(DIVERGED, against.rev, None, None, None,
                       message=(f"commit {commit[:12]} is not an ancestor of {where}: a branch never merged, or "
                                "history rewritten since; link the commit that landed, or say which branch"))
