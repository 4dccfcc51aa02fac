"""Check results kept across runs, so a rerun whose targets did not change reads no blob.

The folder comes from pytest's own cache (``config.cache.mkdir``), so
``--cache-clear`` empties it and ``-p no:cacheprovider`` turns it off; this
package itself knows nothing of pytest (the engine and the benchmarks use it).

**Keys.** ``key(kind, pin, *parts)`` names everything a result is a function of:

* the evidence's own text (kind, path, quotation, cited lines, symbol and its
  context files; not its report line, which no check reads), as ``parts``;
* the pin commit, and for the kinds checked at an against-revision
  (:data:`AT_AGAINST`: drift, predicates) the against commit, the first of
  ``parts``. A commit id names its tree and, transitively, every blob and the
  first-parent history a check can read. Anything else there (the working
  tree, which has no id that says it did not change) is no key: never kept;
* the options that change results (:func:`options_context`, given at
  construction), and the code: this package's sources, the matching libraries'
  versions and the git executable (:mod:`.identity`).

Replace refs and grafts need no naming: git runs with replace objects ignored.

**What is never kept**: a result saying git could not read something (a missing
object, a search that could not run): fetching the object changes it under the same
key. The engine does not keep a result derived from such a one (a drift result of
an unreadable pin).

**Storage** (:mod:`.store`): one SQLite database, rows grouped by (pin, against)
pair; a run reads only the pairs it checks, with one query each, and writes what it
computed at the end, in one transaction (pytest-xdist workers too). **Values**
(:mod:`.serialize`) are JSON written and read by each result type's declared
fields: nothing is unpickled and no class is named by the data, so a cache file
cannot run code, and what is read back is an equal object of the same type.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import re
import threading
from pathlib import Path
from typing import Any, Callable, Hashable, NamedTuple, cast

from . import serialize
from .identity import code_identity, git_identity
from .serialize import NotKeepable, Unreadable
from .store import FILE_NAME, MAX_KEPT, ResultStore, StoreBroken

__all__ = ["AT_AGAINST", "FILE_NAME", "MAX_KEPT", "Key", "ResultCache", "code_identity", "encode",
           "evidence_key", "options_context"]

#: bump when what a key is made of changes
KEY_FORMAT = 2
#: the kinds of result checked at an against-revision: their first part after the pin is its commit
AT_AGAINST = frozenset({"drift", "predicate"})
#: a commit id (SHA-1 or SHA-256), as ``GitStore.resolve`` gives them
_COMMIT = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def encode(value):
    """``value`` as JSON-able data for a key part (by its declared fields)."""
    return serialize.key_data(value)


def evidence_key(evidence) -> str:
    """A digest of what of a piece of evidence a check reads: everything but where it
    sits in the report (a digest keeps the keys built from it short to write and hash)."""
    # (typeshed does not call a ``type[Any]`` hashable)
    values = (getattr(evidence, name) for name in _keyed_fields(cast(Hashable, type(evidence))))
    # The codec's primitives and ``None`` are their own key data: most fields, without its dispatch.
    fields = [value if value is None or type(value) in serialize.PRIMITIVES else encode(value) for value in values]
    text = json.dumps(fields, separators=(",", ":"), ensure_ascii=True, sort_keys=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


@functools.cache
def _keyed_fields(cls: Any) -> tuple[str, ...]:
    """An evidence class's fields a check reads: all but where it sits in the report."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.name not in ("line", "end_line", "span"))


def options_context(options) -> tuple:
    """The run options that change what a check finds (a ``RunOptions``, or ``None``)."""
    if options is None:
        return ()
    return (("want_symbols", bool(options.want_symbols)), ("max_file_bytes", int(options.max_file_bytes)))


class Key(NamedTuple):
    """Where a result is kept: its pair's group and its own digest."""

    group: str
    digest: str


class ResultCache:
    """Results by key, kept in one database in ``directory`` (see the package's doc).

    ``directory`` is a callable giving the folder (pytest's cache is asked only
    when a result is first looked up), or a path; ``None`` makes a cache that
    keeps nothing (``-p no:cacheprovider``). ``options`` (a ``RunOptions``) are
    named in every key (:func:`options_context`). ``warn(message, path)`` is told,
    once, when the file found could not be used (it is rebuilt). A key of ``None``
    is never found and never stored.
    """

    #: what :meth:`get` gives for a result it does not have
    MISS = object()
    _ABSENT = object()

    def __init__(self, directory=None, identity: str | None = None, *, options=None,
                 warn: Callable[[str, str], None] | None = None) -> None:
        self.enabled = directory is not None
        self._directory = directory
        self._identity = identity
        self._context = options_context(options)
        self._warn = warn or (lambda message, path: None)
        self._lock = threading.Lock()
        self._store: ResultStore | None = None
        #: pair group -> {digest: JSON text}, read once per pair
        self._pairs: dict[str, dict[str, str]] = {}
        #: pair group -> {digest: JSON text}, computed by this process
        self._new: dict[str, dict[str, str]] = {}
        self.hits = 0
        self.misses = 0

    @property
    def directory(self) -> Path:
        if callable(self._directory):
            self._directory = Path(self._directory())
        return Path(self._directory)

    def _run_identity(self) -> str:
        if self._identity is None:
            self._identity = f"{code_identity()}/{git_identity()}"
        return self._identity

    def key(self, kind: str, pin=None, *parts) -> Key | None:
        """Where the result of ``kind`` at ``pin`` (and, for :data:`AT_AGAINST` kinds, at the
        against commit ``parts[0]``) for the inputs ``parts`` is kept; ``None`` when disabled,
        when a revision is no commit id (the working tree) or a part cannot be keyed."""
        if not self.enabled or not _is_commit(pin):
            return None
        against = pin
        if kind in AT_AGAINST:
            if not parts or not _is_commit(parts[0]):
                return None  # the working tree changes under the same name
            against = parts[0]
        try:
            head = json.dumps([KEY_FORMAT, self._run_identity(), self._context, pin, against],
                              separators=(",", ":"), ensure_ascii=True)
            group = hashlib.sha256(head.encode("ascii")).hexdigest()[:32]
            text = json.dumps([group, kind, *parts], separators=(",", ":"), ensure_ascii=True, sort_keys=True)
        except (TypeError, ValueError):
            return None
        return Key(group, hashlib.sha256(text.encode("ascii")).hexdigest()[:40])

    def content_key(self, kind: str, place: str, *parts) -> Key | None:
        """Where a value that is a function of ``parts`` alone (bytes' digests, options) and
        of this package's code is kept: no commit names it. Grouped by ``place`` (a report
        folder), so a run reads the rows of the places it loads; ``None`` when disabled."""
        if not self.enabled:
            return None
        try:
            head = json.dumps([KEY_FORMAT, code_identity(), kind, place], separators=(",", ":"), ensure_ascii=True)
            group = hashlib.sha256(head.encode("ascii")).hexdigest()[:32]
            text = json.dumps([group, *parts], separators=(",", ":"), ensure_ascii=True, sort_keys=True)
        except (TypeError, ValueError):
            return None
        return Key(group, hashlib.sha256(text.encode("ascii")).hexdigest()[:40])

    def get(self, key: Key | None, default=_ABSENT):
        """The stored result under ``key``, or ``default`` (then counted as a miss)."""
        missing = None if default is self._ABSENT else default
        value = self.lookup(key, self.MISS)
        if value is self.MISS:
            self.misses += int(key is not None)
            return missing
        self.hits += 1
        return value

    def lookup(self, key: Key | None, default=None):
        """The stored value under ``key``, or ``default``; not counted in :attr:`hits` and
        :attr:`misses` (which count check results)."""
        if key is None:
            return default
        with self._lock:
            text = self._new.get(key.group, {}).get(key.digest)
            if text is None:
                text = self._pair(key.group).get(key.digest)
        if text is not None:
            try:
                return serialize.load_value(text)
            except Unreadable:
                pass  # not what this code writes: computed afresh (and written over)
        return default

    def has(self, key: Key | None) -> bool:
        """Whether a result is stored under ``key`` (not counted)."""
        if key is None:
            return False
        with self._lock:
            return key.digest in self._new.get(key.group, ()) or key.digest in self._pair(key.group)

    def put(self, key: Key | None, value) -> None:
        """Keep ``value`` under ``key`` (written by :meth:`save`), unless it says git could
        not read something (fetching the object changes it under the same key) or is
        not a value this cache can hold."""
        if key is None or not self.enabled or not keepable(value):
            return
        try:
            text = serialize.dump_value(value)
        except NotKeepable:
            return
        with self._lock:
            self._new.setdefault(key.group, {})[key.digest] = text

    def _pair(self, group: str) -> dict[str, str]:
        found = self._pairs.get(group)
        if found is None:
            try:
                found = self._open().read_pair(group)
            except StoreBroken:
                found = {}
            self._pairs[group] = found
        return found

    def _open(self) -> ResultStore:
        if self._store is None:
            try:
                folder = self.directory
            except OSError as exc:
                self._warn(f"the result cache's folder cannot be made ({exc}); results are not kept", "")
                self.enabled = False
                raise StoreBroken() from None
            self._store = ResultStore(folder, self._warn)
        return self._store

    def save(self, fold: bool = False) -> None:
        """Write what this process computed, mark the pairs it read as used now, and drop
        the pairs used longest ago while more than :data:`MAX_KEPT` results are kept.
        Every process does: pytest-xdist's workers at their end, their controller once it
        has parsed the reports (before the workers collect them, so that they read them
        here); ``fold`` is accepted for the callers of the first format and changes nothing."""
        if not self.enabled:
            return
        with self._lock:
            if not self._new and not self._pairs:
                return  # nothing looked up, nothing computed
            for _attempt in range(2):  # a file found damaged now is rebuilt, and written once more
                try:
                    self._open().write(self._new, set(self._pairs))
                    break
                except StoreBroken:
                    continue
            for group, rows in self._new.items():
                self._pairs.setdefault(group, {}).update(rows)
            self._new = {}

    def release(self) -> None:
        """Forget what was read (after :meth:`save`): a later lookup reads the pairs again."""
        with self._lock:
            self._pairs = {}
            if self._store is not None:
                self._store.close()
                self._store = None

    def kept(self) -> int:
        """How many results the database holds (for tests and benchmarks)."""
        try:
            return self._open().kept()
        except StoreBroken:
            return 0


def keepable(value) -> bool:
    """Whether a result may be kept: not one saying git could not read something."""
    if getattr(value, "status", None) == "unreadable":
        return False
    if getattr(value, "error", False) is True:  # a predicate's search that could not run
        return False
    return True


def _is_commit(rev) -> bool:
    return isinstance(rev, str) and _COMMIT.fullmatch(rev) is not None
