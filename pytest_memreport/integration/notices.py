"""Warnings about a run's set-up (its reports, its options), shown in pytest's warnings summary."""

from __future__ import annotations

import warnings

import pytest

from ..errors import MemreportWarning


class MemreportConfigWarning(MemreportWarning):
    """Something about the run's reports or options worth saying, not worth refusing the run."""

    code = "MR901"


def config_warning(config: pytest.Config, message: str, filename: str, lineno: int = 1) -> None:
    """A warning about the run's set-up in pytest's warnings summary, as one line at
    ``filename:lineno`` (pytest would otherwise echo the line of code that warned)."""
    record = warnings.WarningMessage(MemreportConfigWarning(message), MemreportConfigWarning, filename, lineno,
                                     line="")
    config.hook.pytest_warning_recorded.call_historic(
        kwargs=dict(warning_message=record, when="config", nodeid="", location=None))
