"""GitHub Actions workflow commands: one ``::error`` or ``::warning`` per check that spoke.

GitHub reads ``::error file=F,line=N,title=T::MESSAGE`` from any line of a step's output
and shows it on that line of the file in the pull request's diff. ``F`` must be relative
to the checkout (``GITHUB_WORKSPACE``), and values are encoded as the runner decodes them:
in the message ``%``, CR and LF; in a property also ``:`` and ``,``.

A file name or a target's source line printed by pytest could itself look like a workflow
command (a report named ``x\\n::warning::y.md``), so :class:`CommandGuard` stops the runner's
command processing for the run's whole output (``::stop-commands::TOKEN``, with a token no
file can guess) and resumes it only to print the annotations.
"""

import os
import secrets
from pathlib import Path

from ..text.render import printable
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
    ordered = sorted(verdicts, key=lambda v: (v.verdict != "fail", v.sort_key()))
    lines = [annotation(v, rootdir, workspace) for v in ordered]
    errors = sum(1 for v in ordered if v.verdict == "fail")
    warnings = len(ordered) - errors
    if errors > STEP_LIMIT or warnings > STEP_LIMIT:
        lines.append(f"::notice title=memreport::{errors} failures and {warnings} warnings in all; GitHub shows "
                     f"{STEP_LIMIT} of each per step: the step summary, the SARIF and the JSON results list them all")
    return lines


class CommandGuard:
    """Stops GitHub's workflow-command processing until :meth:`resume` (see the module)."""

    def __init__(self) -> None:
        self.token = secrets.token_hex(16)
        self.stopped = False

    def stop(self) -> str:
        self.stopped = True
        return f"::stop-commands::{self.token}"

    def resume(self) -> str:
        self.stopped = False
        return f"::{self.token}::"
