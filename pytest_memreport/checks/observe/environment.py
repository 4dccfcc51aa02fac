"""What an observation's command runs with: its environment and working directory.

The target's tests run with this process's environment minus what belongs
to the outer pytest run, plus the observation's ``env`` and
:data:`OBSERVATION_ENV`; their working directory is the worktree, or a
``cwd`` that stays inside it.
"""

from __future__ import annotations

import os
from pathlib import Path

from ...gitstore.process import dropped
from .results import ERROR, CannotRun

#: Inherited variables that belong to the outer pytest run, not to the target's:
#: PYTEST_ADDOPTS could carry ``--memreport`` into the target's run (recursion).
_OUTER_RUN_VARIABLES = ("PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST", "PYTEST_XDIST_WORKER",
                        "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID")
#: Set in every observation's environment (to the record ID): lets the plugin
#: notice it is running inside an observation.
OBSERVATION_ENV = "MEMREPORT_OBSERVATION"


def working_directory(tree: Path, cwd: str | None) -> Path:
    """``cwd`` inside the worktree; refuse one that leaves it (``..``, absolute, a symlink out)."""
    if not cwd or cwd == ".":
        return tree
    if os.path.isabs(cwd):
        raise CannotRun(ERROR, f"cwd {cwd!r} is absolute; give a folder relative to the repository root")
    target = (tree / cwd).resolve()
    if target != tree and tree not in target.parents:
        raise CannotRun(ERROR, f"cwd {cwd!r} leaves the repository; give a folder inside it")
    if not target.is_dir():
        raise CannotRun(ERROR, f"cwd {cwd!r} is not a folder of the repository at the pin")
    return target


def environment(observation) -> dict[str, str]:
    """This process's environment minus the outer run's, git's location variables and the
    configuration an outer git hands on (``GIT_CONFIG_PARAMETERS``...), plus ``env``.

    Without ``GIT_DIR``, ``GIT_INDEX_FILE`` and the like (set when pytest runs
    from a git hook), git inside the command finds the temporary worktree's
    own repository files, so a target test's ``git add`` stages there and not
    into the user's index. An ``env`` the observation declares is the claims
    author's choice and is kept.
    """
    env = {k: v for k, v in os.environ.items() if k not in _OUTER_RUN_VARIABLES and not dropped(k)}
    env.update(observation.env or {})
    env[OBSERVATION_ENV] = observation.record_id or "1"
    return env

