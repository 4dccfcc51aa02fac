"""The pre-commit hook (``.pre-commit-hooks.yaml``): check the reports being committed.

pre-commit calls ``entry`` with the hook's ``args`` and then the staged files that match
its ``files`` pattern; pytest takes each report as ``--memreport PATH``. So every
argument that starts with ``-`` goes to pytest as given (an option's value joined with
``=``: ``--memreport-repo-template=~/src/{owner}/{name}``), and every other is a report.

By default each report is checked at its pins only (``--memreport-against=none``): fast,
and a commit is never refused because a target moved on since; the ``memreport-drift``
hook (or ``args: [--memreport-against=HEAD]``) checks drift too. The project's
``conftest.py`` files are not loaded (the hook checks reports, not the project's tests),
and pytest's cache is left alone.
"""

from __future__ import annotations

import subprocess
import sys


def pytest_args(argv: list[str]) -> list[str]:
    """pytest's arguments for the hook's ``args`` and file names in ``argv``."""
    options = [a for a in argv if a.startswith("-")]
    reports = [a for a in argv if not a.startswith("-")]
    args = ["-p", "no:cacheprovider", "--noconftest", "-q"]
    for report in reports:
        args += ["--memreport", report]
    if not any(a.startswith("--memreport-against") for a in options):
        args.append("--memreport-against=none")
    return args + options


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    if not any(not a.startswith("-") for a in given):
        return 0  # no report among the files committed
    return subprocess.run([sys.executable, "-m", "pytest", *pytest_args(given)]).returncode


if __name__ == "__main__":
    sys.exit(main())
