"""A tiny pytest plugin the scale benchmark loads with ``-p outcome_log``.

It records every item's outcome (``nodeid -> passed|failed|skipped``) and
writes them as JSON to the file named by ``BENCH_OUTCOMES`` when the session
ends, so a serial run and a pytest-xdist run can be compared item by item.
Under xdist only the controller writes (it receives every worker's reports).
It is not part of the product and adds one dict insert per item.
"""

from __future__ import annotations

import json
import os

_outcomes: dict[str, str] = {}
_config = None


def pytest_configure(config) -> None:
    global _config
    _config = config


def pytest_runtest_logreport(report) -> None:
    # The call phase decides; a failed or skipped setup stands for the item.
    if report.when == "call" or (report.when == "setup" and not report.passed):
        _outcomes[report.nodeid] = report.outcome


def pytest_sessionfinish(session) -> None:
    target = os.environ.get("BENCH_OUTCOMES")
    if not target or (_config is not None and hasattr(_config, "workerinput")):
        return
    with open(target, "w", encoding="utf-8") as handle:
        json.dump(_outcomes, handle, sort_keys=True)
