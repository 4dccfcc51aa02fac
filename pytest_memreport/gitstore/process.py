"""Running git safely: the environment and configuration every git command gets, and its failures.

Because the target repository belongs to the user, no command may write to it
or run anything from its configuration: every command runs with
``--no-optional-locks``, automatic maintenance, fsmonitor and lazy fetching of
missing objects switched off, and with no variable of the calling environment
pointing git at another repository. git's ``safe.directory`` refusal becomes a
:class:`RepoError` that says how to trust the folder.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

from .errors import RepoError

# Variables that would point git at another repository, index or object store
# than the one opened (e.g. when pytest itself runs inside a git hook).
_LOCATION_VARIABLES = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
        "GIT_PREFIX",
        "GIT_QUARANTINE_PATH",
        "GIT_EXTERNAL_DIFF",
    }
)

# Keep git from writing anything as a side effect of reading.
QUIET_ENVIRONMENT = {
    "GIT_OPTIONAL_LOCKS": "0",  # no opportunistic index refresh
    "GIT_TERMINAL_PROMPT": "0",  # never wait for credentials
    "GIT_NO_LAZY_FETCH": "1",  # partial clones: never fetch a missing object
    "LC_ALL": "C",  # stable, parseable error messages
    "LANGUAGE": "C",
}
_QUIET_CONFIG = ("-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "core.fsmonitor=false")

_SAFE_DIRECTORY_HINT = re.compile(r"safe\.directory (\S[^\n]*)")


def environment() -> dict[str, str]:
    """The calling environment without git location variables, plus the quiet settings."""
    env = {k: v for k, v in os.environ.items() if k not in _LOCATION_VARIABLES}
    env.update(QUIET_ENVIRONMENT)
    return env


def raise_if_refused(stderr: bytes, path: Path) -> None:
    """Turn git's ``safe.directory`` ownership refusal into a :class:`RepoError` with the fix."""
    text = stderr.decode("utf-8", "replace")
    if "dubious ownership" in text or "safe.directory" in text:
        hint = _SAFE_DIRECTORY_HINT.search(text)
        directory = hint.group(1).strip() if hint else str(path)
        raise RepoError(
            f"git refuses {directory}: it is owned by another user; if you trust it, run "
            f"`git config --global --add safe.directory {directory}`"
        )


def execute(
    args: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """One quiet git command; its exit status is the caller's to judge."""
    try:
        return subprocess.run(
            ["git", "--no-optional-locks", *_QUIET_CONFIG, *args], cwd=cwd, env=env, capture_output=True,
            input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise RepoError("git is not installed or not on PATH: install git to check reports") from None


def git_or_repo_error(args: list[str], where: Path, env: dict[str, str]) -> bytes:
    """stdout of a command that opens the repository at ``where``; a :class:`RepoError` saying why it cannot."""
    result = execute(args, where, env)
    if result.returncode != 0:
        raise_if_refused(result.stderr, where)
        if b"not a git repository" in result.stderr:
            raise RepoError(f"{where} is not inside a git repository: give the path of a clone of the target repository")
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RepoError(f"{where}: git cannot open it: {message[0] if message else 'unknown error'}")
    return result.stdout


class GitRunner:
    """Runs git commands in one opened repository and adds up the time spent waiting on git."""

    def __init__(self, path: Path, env: dict[str, str]) -> None:
        self.path = path
        self.env = env
        #: seconds spent waiting on git (commands and blob reads), for the JSON timing
        self.seconds = 0.0
        #: git processes started (the persistent ``cat-file`` not counted): what a cost bound is measured in
        self.commands = 0

    def run(self, args: list[str], check: bool = True) -> bytes:
        """Run one git command in the repository; stdout bytes, or :class:`RepoError` on failure."""
        began = time.perf_counter()
        self.commands += 1
        result = execute(args, self.path, self.env)
        self.seconds += time.perf_counter() - began
        if check and result.returncode != 0:
            raise self.failure(args, result)
        return result.stdout

    def failure(self, args: list[str], result: subprocess.CompletedProcess[bytes]) -> RepoError:
        """The one-line :class:`RepoError` for a failed command (git's refusal of the folder raised as such)."""
        raise_if_refused(result.stderr, self.path)
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        return RepoError(
            f"{self.path}: `git {args[0] if args[0] != '-c' else args[2]}` failed: "
            f"{message[0] if message else 'exit status ' + str(result.returncode)}"
        )

    def timed(self, args: list[str], stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        """Run one git command, timed, leaving its exit status to the caller (grep, pipelined reads)."""
        began = time.perf_counter()
        self.commands += 1
        result = execute(args, self.path, self.env, stdin=stdin)
        self.seconds += time.perf_counter() - began
        return result
