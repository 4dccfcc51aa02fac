"""GitHub Actions workflow commands: one ``::error`` or ``::warning`` per check that spoke.

GitHub reads ``::error file=F,line=N,title=T::MESSAGE`` from any line of a step's output
and shows it on that line of the file in the pull request's diff. ``F`` must be relative
to the checkout (``GITHUB_WORKSPACE``), and values are encoded as the runner decodes them:
in the message ``%``, CR and LF; in a property also ``:`` and ``,``.

A file name or a target's source line printed by pytest could itself look like a workflow
command (a report named ``x\\n::warning::y.md``), so :class:`CommandGuard` stops the runner's
command processing for the run's whole output (``::stop-commands::TOKEN``, with a token no
file can guess) and resumes it only to print the annotations.

Commands stay stopped for the rest of the step unless the token is printed again, so
every way a run ends resumes them: pytest's unconfigure and cleanups on a normal end, an
error or Ctrl-C, and, for SIGTERM and SIGHUP (a cancelled job, a closed terminal), which
end the process without them, a handler the guard holds only while the run lasts: it
prints the token, then, when the signal's action was the default one, puts back the
handlers it replaced exactly as they were and raises the signal again, so the process
ends as the signal would have ended it; a handler set before the run is called instead,
and when it lets the run go on, commands are stopped again.
"""

import os
import secrets
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any, Callable, TextIO

from ..text.render import printable
from .kinds import Verdict
from .verdicts import CheckVerdict

#: GitHub's command per verdict
_COMMAND = {"fail": "error", "warn": "warning"}
#: GitHub shows at most this many annotations of each kind per step, and drops the rest
STEP_LIMIT = 10

def escape_data(text: str) -> str:
    """A command's message, as the runner decodes it (``%``, CR, LF)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A command's property value (``file=``, ``title=``): the message's escapes, ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workspace_path(file: str, rootdir: Path, workspace: str | None) -> str:
    """``file`` (as given to pytest, relative to ``rootdir``) relative to the checkout.

    A file outside the checkout keeps its absolute path (GitHub then shows the
    annotation on the run, not on a file)."""
    absolute = Path(os.path.abspath(Path(rootdir) / file))
    if workspace:
        base = Path(os.path.abspath(workspace))
        if absolute == base or base in absolute.parents:
            return absolute.relative_to(base).as_posix()
        return str(absolute)
    return Path(file).as_posix() if not Path(file).is_absolute() else str(absolute)


def title(verdict: CheckVerdict) -> str:
    """``MEM-OBJ-cache-index: changed`` (record and status), or the report's name."""
    who = verdict.record or Path(verdict.report).name or "memreport"
    return f"{who}: {verdict.status}"


def annotation(verdict: CheckVerdict, rootdir: Path, workspace: str | None) -> str:
    """One workflow command for ``verdict``."""
    file = workspace_path(verdict.place.file, rootdir, workspace)
    props = ",".join([
        f"file={escape_property(file)}",
        f"line={verdict.place.line}",
        f"title={escape_property(printable(title(verdict)))}",
    ])
    return f"::{_COMMAND[verdict.verdict]} {props}::{escape_data(printable(verdict.message))}"


def annotations(verdicts: list[CheckVerdict], rootdir: Path, workspace: str | None) -> list[str]:
    """Errors first, then warnings, each in file and line order; when GitHub will not
    show them all, a notice that says how many there are and where to find them."""
    ordered = sorted(verdicts, key=lambda v: (v.verdict != Verdict.FAIL, v.sort_key()))
    lines = [annotation(v, rootdir, workspace) for v in ordered]
    errors = sum(1 for v in ordered if v.verdict == Verdict.FAIL)
    warnings = len(ordered) - errors
    if errors > STEP_LIMIT or warnings > STEP_LIMIT:
        lines.append(f"::notice title=memreport::{errors} failures and {warnings} warnings in all; GitHub shows "
                     f"{STEP_LIMIT} of each per step: the step summary, the SARIF and the JSON results list them all")
    return lines


#: signals that end a process without pytest's unconfigure (Ctrl-C is a KeyboardInterrupt:
#: pytest unconfigures, and the guard resumes there)
#: a Python-level signal handler as ``signal.getsignal`` gives it (``SIG_DFL`` and ``SIG_IGN`` are ints)
_Handler = Callable[[int, FrameType | None], Any] | int

ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class CommandGuard:
    """Stops GitHub's workflow-command processing until :meth:`resume` (see the module).

    :meth:`stop` also takes over :data:`ENDING_SIGNALS` until :meth:`release`, which
    the caller runs however the run ends (pytest's ``config.add_cleanup``)."""

    def __init__(self) -> None:
        self.token = secrets.token_hex(16)
        self.stopped = False
        #: the handlers replaced by :meth:`stop`, by signal, to put back as they were
        self._previous: dict[int, _Handler] = {}
        self._stream: TextIO | None = None
        #: a duplicate of the stream's file descriptor, taken while it is the terminal (pytest
        #: points descriptor 1 at a capture file while a test runs)
        self._fd: int | None = None

    def stop(self, stream: TextIO | None = None) -> str:
        """The line that stops command processing; ``stream`` (``sys.stdout``) is where a
        signal's handler prints the resume line."""
        self.stopped = True
        self._watch(sys.stdout if stream is None else stream)
        return f"::stop-commands::{self.token}"

    def resume(self) -> str:
        self.stopped = False
        return f"::{self.token}::"

    def release(self) -> None:
        """Put back every signal handler :meth:`stop` replaced, exactly as it was (unless
        another handler replaced ours since: that one stays); idempotent."""
        for signum, previous in self._previous.items():
            if signal.getsignal(signum) == self._on_signal:
                signal.signal(signum, previous)
        self._previous.clear()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._stream = None

    def _watch(self, stream: TextIO) -> None:
        if self._stream is not None:
            return  # watching already (stopped again after a signal's handler let the run go on)
        self._stream = stream
        try:
            self._fd = os.dup(stream.fileno())
        except (AttributeError, OSError, ValueError):  # a stream with no descriptor (pytester's capture)
            self._fd = None
        if threading.current_thread() is not threading.main_thread():
            return  # handlers can only be set in the main thread
        for signum in ENDING_SIGNALS:
            previous = signal.getsignal(signum)
            if previous is None or previous == signal.SIG_IGN:
                # Set outside Python (it could not be put back as it was), or ignored (the
                # signal does not end the run): left alone.
                continue
            self._previous[signum] = previous
            signal.signal(signum, self._on_signal)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        """Resume commands, then let the signal do what it would have done without us."""
        previous = self._previous.get(signum, signal.SIG_DFL)
        was_stopped = self.stopped  # not when the run has resumed commands for its annotations
        self._print(self.resume())
        if not callable(previous):  # the default action (an ignored signal is never taken over)
            self.release()
            # With the default handler back, the process ends by this signal, and its exit
            # status says so.
            signal.raise_signal(signum)
            return
        try:
            previous(signum, frame)  # the handler that was there first, as it would have run
        finally:
            if was_stopped:
                # It let the run go on (or unwind through pytest, which resumes at its end):
                # pytest prints on, so commands are stopped again.
                self._print(self.stop(self._stream))

    def _print(self, line: str) -> None:
        """``line`` on a line of its own, from inside a signal handler.

        Any error is swallowed: the signal may have interrupted a write to this very
        stream, which then refuses another (a reentrant call of a buffered writer)."""
        stream = self._stream
        if stream is None:
            return  # released: there is no stream (nor descriptor) to print to
        try:
            stream.flush()  # what pytest printed before the signal comes first
        except Exception:  # noqa: BLE001 - see above
            pass
        text = f"\n{line}\n"
        try:
            if self._fd is not None:
                os.write(self._fd, text.encode("ascii"))
            else:
                stream.write(text)
                stream.flush()
        except Exception:  # noqa: BLE001 - see above
            pass
