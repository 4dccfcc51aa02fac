"""Temporary detached checkouts of a commit, for running a report's observations, removed whatever happens.

This is the only place gitstore writes to the target repository: the
``worktrees/<name>`` admin entry of a checkout exists while it is open and is
removed afterwards, together with the checkout, and nothing else is touched.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .process import GitRunner


#: Settings of the checkout itself: no submodule checkout it could recurse into.
_CHECKOUT_CONFIG = {"submodule.recurse": "false", "core.fsmonitor": "false"}


@contextlib.contextmanager
def temporary_worktree(runner: GitRunner, common_dir: Path, sha: str) -> Iterator[Path]:
    """A temporary detached checkout of commit ``sha``, removed on exit whatever happens.

    Uses ``git worktree add --detach`` (works for bare repositories too);
    the main working tree, index and branches are never touched. Checking out
    runs nothing from the target: hooks are switched off, and every filter
    driver any configuration defines (``smudge``, ``process``, Git LFS) is
    emptied and made optional for the checkout, so files come out as stored
    (LFS files as their pointers). Both git commands run in their own process
    group, killed as a whole if interrupted. On exit the worktree and only its
    own ``worktrees/<name>`` admin entry are removed.
    """
    base = Path(tempfile.mkdtemp(prefix="memreport-worktree-")).resolve()
    tree = base / "tree"
    try:
        # (hooks are off for every git command: process._QUIET_CONFIG)
        runner.run(["worktree", "add", "--detach", "--no-checkout", "--quiet", str(tree), sha], own_group=True)
        # Listed from inside the new worktree, so that configuration included
        # only there (``includeIf "gitdir:..."``) is seen as the checkout sees it.
        inside = runner.with_config(tree, {})
        settings = {**_CHECKOUT_CONFIG, **_filters_off(inside)}
        runner.with_config(tree, settings).run(["reset", "--hard", "--quiet", "--no-recurse-submodules"],
                                               own_group=True)
        yield tree
    finally:
        _remove_worktree(runner, common_dir, tree, base)


def _filters_off(runner: GitRunner) -> dict[str, str]:
    """Settings that empty every configured filter driver and make it optional.

    git runs a driver's ``smudge`` or ``process`` command for a path whose
    attributes name it; an empty command is skipped, and ``required=false``
    lets the file be written unfiltered instead of failing the checkout.
    """
    out = runner.run(["config", "-z", "--get-regexp", r"^filter\."], check=False)
    names = set()
    for item in out.split(b"\0"):
        key = os.fsdecode(item.split(b"\n", 1)[0])
        section, _, rest = key.partition(".")
        name, _, _variable = rest.rpartition(".")
        if section.lower() == "filter" and name:
            names.add(name)
    off: dict[str, str] = {}
    for name in sorted(names):
        for variable in ("smudge", "clean", "process"):
            off[f"filter.{name}.{variable}"] = ""
        off[f"filter.{name}.required"] = "false"
    return off


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
