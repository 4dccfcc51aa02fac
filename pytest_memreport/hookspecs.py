"""The hooks a third party implements to teach pytest-memreport a form of evidence it does not
read (docs/FORMATS.md, "Adding a form"). Registered with pytest's plugin manager
(``pytest_addhooks``), so a ``conftest.py`` or an installed plugin implements them as it
implements any pytest hook; nothing here imports pytest.

A form reader is a pure function of a report's path and text: it returns the evidence it finds
(:class:`~pytest_memreport.model.Evidence`, with its report line), and the plugin checks it as
any other piece of evidence, in every dialect, beside what the built-in forms read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:  # the plugin registers these hooks in every pytest run: it loads nothing more
    from .model import Evidence

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_memreport_read_forms(path: str, text: str) -> "Iterable[Evidence] | None":
    """Evidence written in a form of your own in the report at ``path`` (its whole text,
    line endings ``\\n``), or ``None``. Every implementation is called for every report; what
    each returns is added to what the built-in forms read (the same file and lines on the
    same report line are read once). Called once per report per process, before any check."""
