"""The one door to git: revisions, batched blob reads, trees, renames, worktrees.

Everything else in pytest-memreport asks a :class:`GitStore` (one per target
repository) for :class:`Snapshot` objects and never runs git itself.

Guarantees, because the target repository belongs to the user:

* Nothing here writes to the target repository: no fetch, no gc, no index
  refresh (every command runs with ``--no-optional-locks``, automatic
  maintenance and lazy fetching of missing objects switched off). The only
  exception is :meth:`GitStore.worktree`, whose ``.git/worktrees/<name>`` admin
  entry exists while the context is open and is removed afterwards.
* Objects are read as stored: replace refs and grafts are off for every
  command, and log output is UTF-8 whatever the target configures. A revision
  written in hex (seven digits or more) is an object name, never a ref name.
* git never reads the working tree's files (it would apply the target's
  attributes and run its filters): the working tree's tree for a diff is
  hashed and written here, into a scratch object folder
  (:meth:`GitStore.disk_tree`).
* Blobs are read through one persistent ``git cat-file --batch`` process
  (gitpython), never one process per file; decoded files are cached by object
  id in an LRU bounded by total bytes, shared by all snapshots of the store.
* Which files of a snapshot hold some words is one ``git grep`` for all the
  words (:meth:`Snapshot.files_with_words`), not a read of every file.
* Every snapshot lookup goes through the same path hygiene: absolute paths,
  ``..`` escaping the root, ``.git`` internals and paths that pass through a
  symlink or a submodule are refused with a one-line reason
  (:meth:`Snapshot.refuse_reason`); symlinks are never followed.

Modules, lowest first: ``errors`` (RepoError, RevisionError), ``objects``
(object ids, blob hashing, tree entries), ``paths`` (lexical refusals),
``process`` (running git quietly and safely), ``catfile`` (blob reads and their
cache), ``grep`` (word search), ``snapshot`` (the interface), ``commit`` and
``workdir`` (a commit's tree, the working tree on disk; ``indexfile``, the
index's stat cache it trusts as git does), ``history`` (renames,
changed paths, following a file), ``worktrees`` (temporary checkouts),
``store`` (GitStore, tying them together).
"""

from __future__ import annotations

from .catfile import DEFAULT_CACHE_BYTES, BlobCache
from .commit import CommitSnapshot
from .errors import RepoError, RevisionError
from .objects import TreeEntry
from .paths import normalize_path
from .snapshot import WORKTREE, Snapshot
from .store import GitStore
from .workdir import WorktreeSnapshot

__all__ = [
    "DEFAULT_CACHE_BYTES",
    "WORKTREE",
    "BlobCache",
    "CommitSnapshot",
    "GitStore",
    "RepoError",
    "RevisionError",
    "Snapshot",
    "TreeEntry",
    "WorktreeSnapshot",
    "normalize_path",
]
