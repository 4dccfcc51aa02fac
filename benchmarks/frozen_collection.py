"""A pytest plugin for the benchmarks' no-op baselines (``-p frozen_collection``): what
collection built is frozen out of the garbage collector, and the heap again when the
interpreter exits, as pytest-memreport does for its own items (``integration/session.py``),
so a ratio can be taken like for like."""

import atexit
import gc


def pytest_collection_finish(session):
    gc.collect()
    gc.freeze()


def pytest_unconfigure(config):
    atexit.register(gc.freeze)
