"""Build real git repositories for tests: real commits, renames and edits (never mocks)."""

from __future__ import annotations

import os
from pathlib import Path

import git


class RepoBuilder:
    """A target repository in a temporary folder, built commit by commit.

    >>> repo = RepoBuilder(tmp_path / "target")
    >>> pin = repo.commit({"pkg/a.py": "x = 1\\n"}, "first")
    >>> repo.move("pkg/a.py", "src/pkg/a.py"); later = repo.commit(message="move")
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self.repo = git.Repo.init(self.path, initial_branch="main")
        with self.repo.config_writer() as cfg:
            cfg.set_value("user", "name", "Fixture Author")
            cfg.set_value("user", "email", "fixture@example.invalid")
            cfg.set_value("commit", "gpgsign", "false")

    def write(self, files: dict[str, str | bytes]) -> None:
        """Write (and stage) files; ``str`` content is written as UTF-8."""
        for rel, content in files.items():
            target = self.path / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            data = content.encode("utf-8") if isinstance(content, str) else content
            target.write_bytes(data)
            self.repo.git.add("--", rel)

    def move(self, old: str, new: str) -> None:
        (self.path / new).parent.mkdir(parents=True, exist_ok=True)
        self.repo.git.mv(old, new)

    def delete(self, rel: str) -> None:
        self.repo.git.rm("-q", "--", rel)

    def commit(self, files: dict[str, str | bytes] | None = None, message: str = "change") -> str:
        """Write ``files`` (if any), commit everything staged, return the full sha."""
        if files:
            self.write(files)
        self.repo.git.commit("-q", "--allow-empty", "-m", message)
        return self.repo.head.commit.hexsha

    def read(self, rel: str) -> str:
        return (self.path / rel).read_text(encoding="utf-8")

    def state(self) -> dict[str, object]:
        """Everything a run must leave untouched: refs, index, working tree, worktrees."""
        files = {}
        for root, _dirs, names in os.walk(self.path):
            for name in names:
                full = Path(root) / name
                files[str(full.relative_to(self.path))] = full.read_bytes()
        return {
            "refs": self.repo.git.for_each_ref(),
            "status": self.repo.git.execute(["git", "--no-optional-locks", "status", "--porcelain", "--ignored"]),
            "worktrees": self.repo.git.worktree("list", "--porcelain"),
            "files": files,
        }
