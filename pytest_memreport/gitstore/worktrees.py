"""Temporary detached checkouts of a commit, for running a report's observations, removed whatever happens.

This is the only place gitstore writes to the target repository: the
``worktrees/<name>`` admin entry of a checkout exists while it is open and is
removed afterwards, together with the checkout, and nothing else is touched.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .process import GitRunner


@contextlib.contextmanager
def temporary_worktree(runner: GitRunner, common_dir: Path, sha: str) -> Iterator[Path]:
    """A temporary detached checkout of commit ``sha``, removed on exit whatever happens.

    Uses ``git worktree add --detach`` (works for bare repositories too);
    the main working tree, index and branches are never touched. Hooks are
    switched off so checking out runs nothing from the target. On exit the
    worktree and only its own ``worktrees/<name>`` admin entry are removed.
    """
    base = Path(tempfile.mkdtemp(prefix="memreport-worktree-")).resolve()
    tree = base / "tree"
    no_hooks = base / "no-hooks"
    no_hooks.mkdir()
    try:
        runner.run(["-c", f"core.hooksPath={no_hooks}", "worktree", "add", "--detach", "--quiet", str(tree), sha])
        yield tree
    finally:
        _remove_worktree(runner, common_dir, tree, base)


def _remove_worktree(runner: GitRunner, common_dir: Path, tree: Path, base: Path) -> None:
    interrupted: BaseException | None = None
    try:
        if tree.exists():
            runner.run(["worktree", "remove", "--force", "--force", str(tree)], check=False)
    except BaseException as err:  # noqa: BLE001 - finish cleaning up, then re-raise
        interrupted = err
    # Whatever git managed, drop our admin entry (and only ours) and the folder.
    admin_root = common_dir / "worktrees"
    ours = str(tree / ".git")
    if admin_root.is_dir():
        for admin in admin_root.iterdir():
            try:
                points_to = (admin / "gitdir").read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                continue
            if points_to == ours:
                shutil.rmtree(admin, ignore_errors=True)
        with contextlib.suppress(OSError):
            admin_root.rmdir()  # only succeeds when empty, as git itself does
    shutil.rmtree(base, ignore_errors=True)
    if interrupted is not None:
        raise interrupted
