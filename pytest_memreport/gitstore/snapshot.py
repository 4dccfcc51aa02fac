"""What every snapshot answers: one revision's files, looked up by repository-relative path.

:class:`Snapshot` is the interface the checks use; a commit's tree
(:mod:`.commit`) and the working tree on disk (:mod:`.workdir`) implement it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator

from ..text.textfile import TextFile
from .grep import StartedGrep, start_lines, start_spliced, start_words
from .objects import TreeEntry
from .process import GitRunner

#: the revision name of the working tree on disk
WORKTREE = "worktree"


class Snapshot:
    """One revision's files, read lazily: a commit's tree, or the working tree.

    Paths are repository-relative with ``/`` separators. Lookups that fail the
    path hygiene return ``None``; :meth:`refuse_reason` says why.
    """

    rev: str
    _runner: GitRunner

    def entry(self, path: str) -> TreeEntry | None:
        """What ``path`` is in this snapshot, or ``None`` (missing or refused)."""
        raise NotImplementedError

    def read(self, path: str) -> TextFile | None:
        """The file's content; ``None`` when ``path`` is not a regular file here.

        Symlinks and submodules are never followed: ``read`` returns ``None``
        and :meth:`entry` tells their kind.
        """
        raise NotImplementedError

    def files(self) -> list[str]:
        """Every regular file path, sorted, spelled as git lists it."""
        raise NotImplementedError

    def content_sha256(self, path: str) -> str | None:
        """The SHA-256 of the file's bytes as stored (a manifest may name each file by its
        content's digest, not its blob id); ``None`` when ``path`` is not a regular file here
        or is over the size limit."""
        raise NotImplementedError

    def read_listed(self, path: str) -> TextFile | None:
        """:meth:`read` for a path of :meth:`files`, taken literally (no backslash translation)."""
        return self.read(path)

    def read_many(self, paths: Iterable[str]) -> Iterator[tuple[str, TextFile | None]]:
        """``(path, read(path))`` for each path, in order: for reading many files at once."""
        for path in paths:
            yield path, self.read(path)

    def prefetch(self, paths: Iterable[str]) -> None:
        """Read ahead the files at ``paths`` that will be read soon, as far as
        half the blob cache holds them (a hint: nothing is said about paths
        that are not files)."""

    def refuse_reason(self, path: str) -> str | None:
        """A one-line reason this path is refused, or ``None`` when it may be looked up."""
        raise NotImplementedError

    def is_dir(self, path: str) -> bool:
        """Whether ``path`` is a directory here (``""`` is the root)."""
        found = self.entry(path)
        return found is not None and found.kind == "dir"

    exists_dir = is_dir

    def files_with_words(self, words: Collection[str]) -> dict[str, set[str]] | None:
        """For each of ``words`` (ASCII identifiers), the files holding it as a
        whole word, found by ``git grep`` in one pass over the snapshot; ``None``
        when git cannot answer (the caller then reads the files itself).

        A superset is fine for the caller, a miss is not: binary files are
        searched as text, and git's word characters (ASCII letters, digits,
        ``_``) are fewer than Python's, so its word boundaries are looser.
        """
        return self.start_files_with_words(words).result()

    def start_files_with_words(self, words: Collection[str]) -> StartedGrep[dict[str, set[str]] | None]:
        """:meth:`files_with_words`, started: git searches while the caller goes on."""
        # Paths are named once above their words, unless one holds a newline.
        headed = not any("\n" in path for path in self.files())
        return start_words(self._runner, words, self._grep_scope(), headed=headed)

    def files_with_lines(self, lines: Collection[str]) -> dict[str, set[str]] | None:
        """For each of ``lines`` (ASCII), the files some line of which holds it (a
        superset of those holding it as a whole line), by one ``git grep``;
        ``None`` when git cannot answer."""
        return self.start_files_with_lines(lines).result()

    def start_files_with_lines(self, lines: Collection[str]) -> StartedGrep[dict[str, set[str]] | None]:
        """:meth:`files_with_lines`, started: git searches while the caller goes on."""
        return start_lines(self._runner, lines, self._grep_scope())

    def files_with_spliced_words(self) -> set[str] | None:
        """Files where a backtick sits between word characters (`` foo`s ``):
        after rendering drops backticks, words occur there that no word search
        of the raw text finds. ``None`` when git cannot answer."""
        return self.start_files_with_spliced_words().result()

    def start_files_with_spliced_words(self) -> StartedGrep[set[str] | None]:
        """:meth:`files_with_spliced_words`, started."""
        return start_spliced(self._runner, self._grep_scope())

    def _grep_scope(self) -> list[str]:
        raise NotImplementedError

    def oid(self, path: str) -> str | None:
        """The object id of ``path`` (blob, tree or submodule commit), or ``None``."""
        found = self.entry(path)
        return found.oid if found is not None and found.oid else None
