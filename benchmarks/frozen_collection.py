"""A pytest plugin for the benchmarks' no-op baselines (``-p frozen_collection``): what
collection built is frozen out of the garbage collector, as pytest-memreport does for
its own items (``integration/session.py``), so a ratio can be taken like for like."""

import gc


def pytest_collection_finish(session):
    gc.collect()
    gc.freeze()
