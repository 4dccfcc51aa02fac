"""Keep pytest's failure summary linear in the number of failures.

For every failure it shows, pytest's terminal reporter looks up that item's
teardown reports by scanning the list of *all* passed setup and teardown
reports (``TerminalReporter._get_teardown_reports`` over ``stats[""]``): the
summary costs failures x items. A report set has thousands of items and may
have hundreds of failures (measured by ``benchmarks/bench_failures.py``).

The setup and teardown of a memreport item do nothing and print nothing, so
their passed reports carry no section the summary could show. This plugin
takes such reports back out of ``stats[""]`` right after the terminal reporter
filed them; the list then holds only reports that have something to show
(other tests', or ours with captured output), and what pytest prints is the same.
"""

from __future__ import annotations

import pytest


class QuietReports:
    """Removes memreport items' empty passed setup/teardown reports from the reporter's stats."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" or not report.passed or report.sections or "memreport" not in report.keywords:
            return
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        filed = getattr(reporter, "stats", {}).get("")
        # trylast: the terminal reporter has just appended it; anything else is left alone.
        if filed and filed[-1] is report:
            filed.pop()
