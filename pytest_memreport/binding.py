"""A report's source bound to what it is checked in: a repository and a resolved pin."""

from __future__ import annotations

from dataclasses import dataclass

from .gitstore import GitStore
from .model import Report, Source


@dataclass(frozen=True)
class Binding:
    """Where one source of one report is checked: a repository and a resolved pin.

    When the source cannot be checked, ``store`` or ``pin`` is ``None`` and
    ``problem`` says why in one line (``pin_status`` is then
    ``missing-commit`` or ``unpinned``; ``no-repo`` when the repository
    itself is unavailable).
    """

    source_id: str
    store: GitStore | None
    pin: str | None
    pin_status: str
    problem: str | None = None
    repo_label: str = ""
    stated_pin: str | None = None
    line: int | None = None


def where_stated(report: Report, source: Source) -> str:
    """``file:line`` where a source (its register row or pin) is stated."""
    where = source.file or report.path
    return f"{where}:{source.line}" if source.line else where
