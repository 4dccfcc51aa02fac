"""The file kept results live in: one SQLite database (the standard library's ``sqlite3``).

Rows are grouped by *pair*, the (pin, against) commits a result is checked at (plus
the code's identity), and clustered by it (``WITHOUT ROWID``, keyed ``(grp, key)``):
a run reads the rows of the pairs it checks, each with one range scan, never the
whole history of results. Each pair's last use is recorded (a counter of saves);
when more than :data:`MAX_KEPT` rows are kept, the pairs used longest ago are
dropped whole.

The file is ours (inside pytest's cache folder), but anything may be found in its
place: another program's file, a damaged or truncated database, a folder, a
symlink, a FIFO, JSON nested a million deep, gigabytes of junk. Whatever is not a
database of this :data:`FORMAT` is removed (as ``--cache-clear`` would) and built
afresh, with one warning; so is a file whose damage a later query finds. A file
another process holds too long (or damaged again) leaves the rest of the run
uncached. Nothing of this ever fails an item.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
from pathlib import Path
from typing import Callable

from ..errors import MemreportError

#: bump when the tables change
FORMAT = 2
#: the database's file name in the cache folder
FILE_NAME = "results.sqlite3"
#: at most this many results are kept (the pairs used longest ago are dropped whole)
MAX_KEPT = 250_000
#: a row longer than this is neither written nor read (no real result is near it; a report's
#: parse, the longest kept, is about three times its Markdown)
MAX_VALUE_CHARS = 4 * 1024 * 1024
#: how long a write waits for another process's (pytest-xdist workers save at once)
_BUSY_SECONDS = 10.0
_HEADER = b"SQLite format 3\x00"

_SCHEMA = (
    "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE results (grp TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
    " PRIMARY KEY (grp, key)) WITHOUT ROWID",
    "CREATE TABLE pairs (grp TEXT PRIMARY KEY, used INTEGER NOT NULL, rows INTEGER NOT NULL) WITHOUT ROWID",
)

Warn = Callable[[str, str], None]


class StoreBroken(MemreportError):
    """The database failed under us: the rest of the run keeps nothing."""

    code = "MR403"


class ResultStore:
    """The database at ``folder / FILE_NAME``, opened on first use.

    ``warn(message, path)`` is told once when what was there could not be used.
    """

    def __init__(self, folder: Path, warn: Warn) -> None:
        self.path = Path(folder) / FILE_NAME
        self._warn = warn
        self._connection: sqlite3.Connection | None = None
        self._broken = False
        self._warned = False
        self._rebuilt = False

    # -- opening, and repairing what is found in the file's place ------------------
    def _connect(self) -> sqlite3.Connection:
        if self._broken:
            raise StoreBroken()
        if self._connection is not None:
            return self._connection
        try:
            try:
                self._connection = self._open()
            except sqlite3.Error as exc:
                if _is_busy(exc):
                    raise
                self._rebuild(exc)  # damaged past its header: once more, afresh
                self._connection = self._open()
        except (OSError, sqlite3.Error) as exc:
            self._give_up(f"cannot use it ({_reason(exc)}); results are not kept in this run")
            raise StoreBroken() from None
        return self._connection

    def _open(self) -> sqlite3.Connection:
        problem = self._unusable()
        if problem is not None:
            self._remove()  # first: if it cannot be removed, the warning says so instead
            self._warn_once(f"{problem}; it was removed and the result cache is rebuilt")
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        connection = self._connection_to_file()
        if fresh:
            return self._create(connection)
        try:
            found = connection.execute("SELECT value FROM meta WHERE name = 'format'").fetchone()
        except sqlite3.Error as exc:  # not our tables, or damaged: "file is not a database"
            connection.close()
            self._remove()
            self._warn_once(f"not a result cache of this version ({_reason(exc)}); it was removed and rebuilt")
            return self._create(self._connection_to_file())
        if found is None or found[0] != str(FORMAT):
            connection.close()  # an older format of ours: rebuilt without a word
            self._remove()
            return self._create(self._connection_to_file())
        return connection

    def _unusable(self) -> str | None:
        """Why what is at the file's path cannot be a database (checked before SQLite opens it)."""
        try:
            found = os.lstat(self.path)
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(found.st_mode):
            return "a symbolic link, not a result cache"
        if stat.S_ISDIR(found.st_mode):
            return "a folder, not a result cache"
        if not stat.S_ISREG(found.st_mode):
            return "not a regular file"
        if found.st_size == 0:
            return None  # created and not yet written: SQLite makes it a database
        # Checked by its first bytes: JSON, junk or a huge file is not read any further.
        with open(self.path, "rb") as handle:
            if handle.read(len(_HEADER)) != _HEADER:
                return "not a result cache (not an SQLite database)"
        return None

    def _connection_to_file(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=_BUSY_SECONDS, isolation_level=None,
                                     check_same_thread=False)
        # SQLite's own check of the file header and schema runs at the first statement.
        connection.execute("PRAGMA trusted_schema = OFF")
        # A cache needs no durability: a commit does not wait for the disk (30 ms a run on a
        # busy one). A crash of the machine may lose the last run's results or damage the
        # file; damage is found at the next run (an error, or values the serializer refuses)
        # and the file rebuilt.
        connection.execute("PRAGMA synchronous = OFF")
        return connection

    def _create(self, connection: sqlite3.Connection) -> sqlite3.Connection:
        try:
            connection.execute("BEGIN IMMEDIATE")
            exists = connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone()
            if exists is None:  # another process may have created it meanwhile
                for statement in _SCHEMA:
                    connection.execute(statement)
                connection.execute("INSERT INTO meta VALUES ('format', ?)", (str(FORMAT),))
            connection.execute("COMMIT")
            self._remove_legacy()
        except sqlite3.Error:
            connection.close()
            raise
        return connection

    def _remove(self) -> None:
        """Remove what is at the file's path (and SQLite's side files), as ``--cache-clear`` would."""
        for path in (self.path, self.path.with_name(self.path.name + "-journal"),
                     self.path.with_name(self.path.name + "-wal"), self.path.with_name(self.path.name + "-shm")):
            try:
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path)
                else:
                    path.unlink()
            except FileNotFoundError:
                continue

    def _remove_legacy(self) -> None:
        """The files of the first format (one JSON file per process, read whole by every run)."""
        for path in self.path.parent.glob("results-*.json"):
            try:
                path.unlink()
            except OSError:
                pass

    def _warn_once(self, message: str) -> None:
        if not self._warned:
            self._warned = True
            self._warn(message, str(self.path))

    def _give_up(self, message: str) -> None:
        if not self._broken:
            self._broken = True
            self._warn_once(message)
        self.close()

    def _rebuild(self, exc: Exception) -> None:
        """Damage found inside the file (``database disk image is malformed``): removed, and
        made afresh at the next use (once per run: damage again gives up)."""
        self.close()
        if self._rebuilt:
            raise exc
        self._rebuilt = True
        self._remove()
        self._warn_once(f"damaged ({_reason(exc)}); it was removed and the result cache is rebuilt")

    def _failed(self, exc: Exception) -> StoreBroken:
        """A query failed: rebuilt when the file is damaged, the rest of the run uncached when
        another process holds it too long or the damage comes back."""
        if not _is_busy(exc):
            try:
                self._rebuild(exc)
                return StoreBroken()  # this read or write is lost; the next one starts afresh
            except (OSError, sqlite3.Error):
                pass
        self._give_up(f"cannot use it ({_reason(exc)}); results are not kept in this run")
        return StoreBroken()

    # -- reading and writing -----------------------------------------------------
    def read_pair(self, group: str) -> dict[str, str]:
        """Every kept row of one pair: ``{key: JSON text}`` (rows too long to be ours skipped)."""
        connection = self._connect()
        try:
            rows = connection.execute(
                "SELECT key, value FROM results WHERE grp = ? AND length(value) <= ?", (group, MAX_VALUE_CHARS)
            ).fetchall()
        except sqlite3.Error as exc:
            raise self._failed(exc) from None
        return {key: value for key, value in rows if isinstance(key, str) and isinstance(value, str)}

    def write(self, rows: dict[str, dict[str, str]], used: set[str]) -> None:
        """Keep ``rows`` (``{pair: {key: JSON text}}``; one longer than :data:`MAX_VALUE_CHARS`
        is not, since it would not be read back), mark the ``used`` pairs used now, and drop
        the pairs used longest ago while more than :data:`MAX_KEPT` are kept."""
        connection = self._connect()
        try:
            connection.execute("BEGIN IMMEDIATE")
            try:
                # A logical clock, not the wall's: each save is one tick after the last.
                now = connection.execute("SELECT COALESCE(MAX(used), 0) + 1 FROM pairs").fetchone()[0]
                for group, values in rows.items():
                    connection.executemany("INSERT OR REPLACE INTO results VALUES (?, ?, ?)",
                                           ((group, key, value) for key, value in values.items()
                                            if len(value) <= MAX_VALUE_CHARS))
                    count = connection.execute("SELECT COUNT(*) FROM results WHERE grp = ?", (group,)).fetchone()[0]
                    connection.execute("INSERT OR REPLACE INTO pairs VALUES (?, ?, ?)", (group, now, count))
                connection.executemany("UPDATE pairs SET used = ? WHERE grp = ?",
                                       ((now, group) for group in used if group not in rows))
                self._prune(connection)
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise self._failed(exc) from None

    @staticmethod
    def _prune(connection: sqlite3.Connection) -> None:
        total = connection.execute("SELECT COALESCE(SUM(rows), 0) FROM pairs").fetchone()[0]
        if total <= MAX_KEPT:
            return
        dropped = []
        for group, rows in connection.execute("SELECT grp, rows FROM pairs ORDER BY used, grp"):
            if total <= MAX_KEPT:
                break
            dropped.append(group)
            total -= rows
        for group in dropped:
            connection.execute("DELETE FROM results WHERE grp = ?", (group,))
            connection.execute("DELETE FROM pairs WHERE grp = ?", (group,))

    def kept(self) -> int:
        """How many results are kept (for tests and benchmarks)."""
        try:
            return self._connect().execute("SELECT COUNT(*) FROM results").fetchone()[0]
        except sqlite3.Error as exc:
            raise self._failed(exc) from None

    def close(self) -> None:
        if self._connection is not None:
            try:
                self._connection.close()
            except sqlite3.Error:
                pass
            self._connection = None


def _is_busy(exc: BaseException) -> bool:
    """Another process holds the file (pytest-xdist workers saving at once): not damage."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def _reason(exc: BaseException) -> str:
    return str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
