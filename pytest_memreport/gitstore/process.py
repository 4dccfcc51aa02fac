"""Running git safely: the environment and configuration every git command gets, and its failures.

Because the target repository belongs to the user, no command may write to it
or run anything from its configuration: every command runs with
``--no-optional-locks``, automatic maintenance, fsmonitor and lazy fetching of
missing objects switched off, and with no variable of the calling environment
pointing git at another repository. git's ``safe.directory`` refusal becomes a
:class:`RepoError` that says how to trust the folder.

Every command also sees the objects as they are stored: replace refs
(``refs/replace/*``, which ``git clone --mirror`` copies) and a grafts file
would let the target swap any file, tree or parent for another, so that a
false quotation passes at a pin or "broken by" names the wrong commit. And
git's output is read in one fixed encoding, whatever ``i18n.logOutputEncoding``
the target sets.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .errors import RepoError

#: Variables that point git at another repository, index, object store or
#: history than the one opened: git sets several of them for its hooks, so
#: pytest run from a hook would otherwise read (and an observation's own
#: ``git add`` write) the outer repository. Observations drop them too.
LOCATION_VARIABLES = frozenset(
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
        "GIT_SHALLOW_FILE",
        "GIT_GRAFT_FILE",
        "GIT_REPLACE_REF_BASE",
        "GIT_SUPER_PREFIX",
        "GIT_INTERNAL_SUPER_PREFIX",
    }
)
#: Configuration the calling environment passes to every git below it: a hook or a CI
#: wrapper run as ``git -c core.hooksPath=...`` hands its settings on this way, and they
#: would outrank the target's files (a ``core.hooksPath`` naming the target's committed
#: hooks ran them in an observation's checkout). The plugin's own settings travel as
#: ``-c`` and through :meth:`GitRunner.with_config`, counted from zero. The user's own
#: configuration files (``GIT_CONFIG_GLOBAL``, ``GIT_CONFIG_SYSTEM``, ``GIT_CONFIG_NOSYSTEM``,
#: like ``HOME``) stay: git never sets them for a hook, and ``git config --global`` writes
#: the ``safe.directory`` a refusal asks for into the file they name.
CONFIG_VARIABLES = frozenset({"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG"})
_CONFIG_PREFIXES = ("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")
# ...and a diff program of the calling environment must not run on our reads.
_DROPPED_VARIABLES = LOCATION_VARIABLES | CONFIG_VARIABLES | {"GIT_EXTERNAL_DIFF"}

# Keep git from writing anything as a side effect of reading.
QUIET_ENVIRONMENT = {
    "GIT_OPTIONAL_LOCKS": "0",  # no opportunistic index refresh
    "GIT_TERMINAL_PROMPT": "0",  # never wait for credentials
    "GIT_NO_LAZY_FETCH": "1",  # partial clones: never fetch a missing object
    "LC_ALL": "C",  # stable, parseable error messages
    "LANGUAGE": "C",
    # Objects as stored: no replace refs, and a grafts file that cannot exist
    # (git reads ``info/grafts`` unless told another file; one below the null
    # device is never there, and git says nothing about a missing one).
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_GRAFT_FILE": os.path.join(os.devnull, "no-grafts"),
}
_QUIET_CONFIG = ("-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "core.fsmonitor=false",
                 # no hook of any repository runs: none is found below the null device
                 "-c", f"core.hooksPath={os.devnull}",
                 # log messages and names re-encoded to what the parsers read
                 "-c", "i18n.logOutputEncoding=UTF-8")

_SAFE_DIRECTORY_HINT = re.compile(r"safe\.directory (\S[^\n]*)")


def dropped(name: str) -> bool:
    """Whether the calling environment's variable ``name`` is kept from git."""
    return name in _DROPPED_VARIABLES or name.startswith(_CONFIG_PREFIXES)


def environment() -> dict[str, str]:
    """The calling environment without git location variables, plus the quiet settings."""
    env = {k: v for k, v in os.environ.items() if not dropped(k)}
    env.update(QUIET_ENVIRONMENT)
    return env


def overriding_environment(git_dir: Path, common_dir: Path, work_tree: Path) -> dict[str, str]:
    """For a program that only adds to the calling environment (gitpython's persistent
    ``cat-file``, which copies ``os.environ`` and updates it): what undoes each variable
    :func:`environment` drops, as far as the program can tell. Variables that name a
    place name this repository's own; the rest are emptied (git then reads its default),
    ``GIT_CONFIG_COUNT`` is zero and replace refs are the default ones (switched off
    anyway). Plus the quiet settings."""
    own = {
        "GIT_DIR": str(git_dir),
        "GIT_COMMON_DIR": str(common_dir),
        "GIT_OBJECT_DIRECTORY": str(common_dir / "objects"),
        "GIT_INDEX_FILE": str(git_dir / "index"),
        "GIT_WORK_TREE": str(work_tree),
        "GIT_CONFIG_COUNT": "0",
        "GIT_REPLACE_REF_BASE": "refs/replace/",
    }
    env = {name: own.get(name, "") for name in os.environ if dropped(name)}
    env["GIT_DIR"] = own["GIT_DIR"]
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


#: what a missing git executable means to the user
_NO_GIT = "git is not installed or not on PATH: install git to check reports"

#: How long the command that opens a repository may take. It reads the
#: configuration and a few files, in milliseconds; a configuration that includes a
#: FIFO or a device (``include.path``) would keep every git command waiting forever.
OPEN_SECONDS = 10.0
#: How long any other git command may take: far beyond the slowest history or
#: checkout a large target needs, so that only a command that waits on something
#: that never comes ends with :func:`timed_out` instead of hanging the run.
COMMAND_SECONDS = 900.0


def timed_out(args: list[str], where: Path, seconds: float) -> RepoError:
    """The one line for a git command stopped at its time limit, naming the repository."""
    name = next((a for a in args if not a.startswith("-") and "=" not in a), "git")
    return RepoError(
        f"{where}: `git {name}` did not finish within {seconds:g} s and was stopped: the repository's "
        "configuration may read a FIFO or a device (an `include.path` or `includeIf` entry), or its file "
        "system does not answer; fix the configuration or give another clone"
    )


def _argv(args: list[str]) -> list[str | bytes]:
    """A git command line that takes no lock and shows nothing interactive.

    Repository paths (and revisions, pathspecs, options) go to git as UTF-8, whatever
    the locale: they come from git's output (:func:`.paths.git_path`) or a report's
    UTF-8 text, and Python would encode them in the file system encoding (failing
    for ``é`` under ``LC_ALL=C``, and writing another byte under Latin-1). An absolute
    path is one of this machine's (a worktree folder, a scratch file) and keeps the
    file system encoding it came in.
    """
    return ["git", "--no-optional-locks", *_QUIET_CONFIG,
            *(os.fsencode(arg) if arg.startswith("/") else arg.encode("utf-8", "surrogateescape") for arg in args)]


def execute(
    args: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None = None,
    seconds: float = COMMAND_SECONDS,
) -> subprocess.CompletedProcess[bytes]:
    """One quiet git command; its exit status is the caller's to judge. Stopped after
    ``seconds`` (a :class:`RepoError` saying so)."""
    try:
        return subprocess.run(
            _argv(args), cwd=cwd, env=env, capture_output=True,
            input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL, timeout=seconds,
        )
    except FileNotFoundError:
        raise RepoError(_NO_GIT) from None
    except subprocess.TimeoutExpired:  # run() has killed and reaped it
        raise timed_out(args, cwd, seconds) from None


def execute_in_own_group(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """One quiet git command in its own process group; interrupted, the whole group is killed and reaped.

    For commands that may start others (a checkout runs ``git reset``, which
    could run filters): Ctrl-C or a signal turned into an exception stops
    every process of the group before the caller removes what they write to.
    """
    argv = _argv(args)
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    except FileNotFoundError:
        raise RepoError(_NO_GIT) from None
    try:
        out, err = proc.communicate(timeout=COMMAND_SECONDS)
    except BaseException as exc:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if isinstance(exc, subprocess.TimeoutExpired):
            raise timed_out(args, cwd, COMMAND_SECONDS) from None
        raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def git_or_repo_error(args: list[str], where: Path, env: dict[str, str]) -> bytes:
    """stdout of a command that opens the repository at ``where``; a :class:`RepoError` saying why it cannot."""
    result = execute(args, where, env, seconds=OPEN_SECONDS)
    if result.returncode != 0:
        raise_if_refused(result.stderr, where)
        if b"not a git repository" in result.stderr:
            raise RepoError(f"{where} is not inside a git repository: give the path of a clone of the target repository")
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RepoError(f"{where}: git cannot open it: {message[0] if message else 'unknown error'}")
    return result.stdout


def wait_for_exit(process: subprocess.Popen, seconds: float) -> int:
    """``process.wait(timeout=seconds)``, woken the moment the process ends.

    With a timeout, ``Popen.wait`` polls: it sleeps up to 50 ms between looks, so a command
    that ends just after a look is answered up to 50 ms late, each time a run waits on one.
    A pidfd (Linux 5.3 and later) is readable when the process ends: polling it waits
    exactly as long as the process runs. Elsewhere, ``Popen.wait``'s own way.
    """
    if process.poll() is not None:
        return process.returncode
    try:
        pidfd = os.pidfd_open(process.pid)  # Linux only (AttributeError elsewhere)
    except (AttributeError, OSError):
        return process.wait(timeout=seconds)
    try:
        # (poll, not select: a process holding many files may number a descriptor past select's 1024)
        waiting = select.poll()
        waiting.register(pidfd, select.POLLIN)
        ready = waiting.poll(max(0, int(seconds * 1000)))
    finally:
        os.close(pidfd)
    if not ready:
        raise subprocess.TimeoutExpired(process.args, seconds)
    return process.wait()  # ended: reaps it at once


@dataclass(frozen=True, eq=False)
class StartedGit:
    """A git command started now and answered later (:meth:`GitRunner.start`). Its output
    goes to temporary files, not pipes: git works on another core while this process
    goes on, and no pipe fills and stops git while the interpreter is busy elsewhere."""

    args: list[str | bytes]
    process: subprocess.Popen
    stdout: IO[bytes]
    stderr: IO[bytes]
    counts: GitCounts
    #: the repository it runs in (for the message of a command stopped at its time limit)
    where: Path
    began: float

    def result(self) -> subprocess.CompletedProcess[bytes]:
        """The command's answer once it has ended (the wait counts as time spent on git);
        stopped :data:`COMMAND_SECONDS` after it started."""
        began = time.perf_counter()
        try:
            wait_for_exit(self.process, max(0.0, self.began + COMMAND_SECONDS - time.monotonic()))
        except BaseException as exc:
            self.close()
            if isinstance(exc, subprocess.TimeoutExpired):
                raise timed_out([os.fsdecode(a) for a in self.args[len(_argv([])):]], self.where,
                                COMMAND_SECONDS) from None
            raise
        self.counts.waited(time.perf_counter() - began)
        try:
            self.stdout.seek(0)
            self.stderr.seek(0)
            return subprocess.CompletedProcess(self.args, self.process.returncode, self.stdout.read(),
                                               self.stderr.read())
        finally:
            self.close()

    def close(self) -> None:
        """Stop it if it still runs (its answer is no longer wanted), reap it, drop its output."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            self.process.wait()
        self.stdout.close()
        self.stderr.close()


class GitCounts:
    """What one repository's git work cost: shared by every runner derived from its
    store (:meth:`GitRunner.with_config`), so that nothing a run starts goes uncounted."""

    __slots__ = ("seconds", "processes", "_lock")

    def __init__(self) -> None:
        #: seconds spent waiting on git (commands and blob reads), for the JSON timing
        self.seconds = 0.0
        #: git processes started: every command, and each start of a persistent
        #: ``cat-file`` reader (the cost bound is stated in processes, not seconds)
        self.processes = 0
        # the engine asks a pair's first questions from a thread (GitStore.ask_pair)
        self._lock = threading.Lock()

    def started(self) -> None:
        """One more git process."""
        with self._lock:
            self.processes += 1

    def waited(self, seconds: float) -> None:
        """``seconds`` more spent on git."""
        with self._lock:
            self.seconds += seconds


class GitRunner:
    """Runs git commands in one opened repository and adds up the time spent waiting on git."""

    def __init__(self, path: Path, env: dict[str, str], counts: GitCounts | None = None) -> None:
        self.path = path
        self.env = env
        self.counts = counts if counts is not None else GitCounts()

    @property
    def seconds(self) -> float:
        """Seconds spent waiting on git (commands and blob reads), for the JSON timing."""
        return self.counts.seconds

    @property
    def commands(self) -> int:
        """git processes started for this repository (see :class:`GitCounts`)."""
        return self.counts.processes

    def run(self, args: list[str], check: bool = True, own_group: bool = False) -> bytes:
        """Run one git command in the repository; stdout bytes, or :class:`RepoError` on failure.

        ``own_group``: in its own process group, all of it killed if interrupted
        (:func:`execute_in_own_group`).
        """
        began = time.perf_counter()
        self.counts.started()
        result = (execute_in_own_group if own_group else execute)(args, self.path, self.env)
        self.counts.waited(time.perf_counter() - began)
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

    def with_config(self, path: Path, settings: dict[str, str]) -> GitRunner:
        """A runner for the repository at ``path`` whose commands see ``settings`` on top of every config file.

        The settings travel as ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_<n>``/
        ``GIT_CONFIG_VALUE_<n>`` (after any the environment already has), so a
        key may hold any character ``-c`` would misparse, such as ``=``.
        """
        env = dict(self.env)
        try:
            count = int(env.get("GIT_CONFIG_COUNT", "0") or "0")
        except ValueError:
            count = 0
        for key, value in settings.items():
            env[f"GIT_CONFIG_KEY_{count}"] = key
            env[f"GIT_CONFIG_VALUE_{count}"] = value
            count += 1
        env["GIT_CONFIG_COUNT"] = str(count)
        return GitRunner(path, env, self.counts)

    def with_environment(self, variables: dict[str, str]) -> GitRunner:
        """A runner for the same repository whose commands also see ``variables``; its
        time and processes count with this runner's."""
        return GitRunner(self.path, {**self.env, **variables}, self.counts)

    def start(self, args: list[str]) -> StartedGit:
        """Start one git command whose answer is read later (:class:`StartedGit`)."""
        argv = _argv(args)
        stdout, stderr = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        self.counts.started()
        try:
            process = subprocess.Popen(argv, cwd=self.path, env=self.env, stdin=subprocess.DEVNULL,
                                       stdout=stdout, stderr=stderr)
        except BaseException as exc:
            stdout.close()
            stderr.close()
            if isinstance(exc, FileNotFoundError):
                raise RepoError(_NO_GIT) from None
            raise
        return StartedGit(argv, process, stdout, stderr, self.counts, self.path, time.monotonic())

    def timed(self, args: list[str], stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        """Run one git command, timed, leaving its exit status to the caller (grep, pipelined reads)."""
        began = time.perf_counter()
        self.counts.started()
        result = execute(args, self.path, self.env, stdin=stdin)
        self.counts.waited(time.perf_counter() - began)
        return result
