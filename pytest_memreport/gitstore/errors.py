"""The two ways the target repository can fail a run, each with a message that says what to do.

Everything in :mod:`pytest_memreport.gitstore` raises only these for problems
of the user's repository or revisions; the rest of the package catches them
to report a usage error instead of a traceback.
"""

from __future__ import annotations

from ..errors import MemreportError


class RepoError(MemreportError):
    """The target repository cannot be used; the message says which path and what to do.
    ``key``: the repository key the user is asked to map (``--memreport-repo KEY=PATH``),
    when the message asks for one."""

    code = "MR201"

    def __init__(self, *args: object, key: str | None = None) -> None:
        super().__init__(*args)
        self.key = key


class RevisionError(MemreportError):
    """A revision does not name a commit in the target repository (says whether the clone is shallow)."""

    code = "MR202"
