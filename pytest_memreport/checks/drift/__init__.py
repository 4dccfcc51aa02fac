"""Drift: what became of evidence, true at its pin, at another revision.

``results``         the classes of drift, :class:`Place`, :class:`DriftResult`
``classification``  :func:`classify` one piece of evidence; :func:`ahead` of its pin
``blame``           :func:`.blame.broken_by`: the first-parent commit after which evidence stopped holding
``follow``          where a file or directory whose path is gone went (history, blob)
``search``          the whole-tree search for a quote that left its file; :func:`expect_searches`
``wordindex``       which files that search reads (``git grep`` probes, one index per snapshot)
"""

from .classification import ahead, classify, searched_form
from .results import (
    AHEAD,
    CHANGED,
    DELETED,
    MODIFIED,
    MOVED,
    NOT_CHECKED,
    PASSING,
    RELOCATED,
    RENAMED,
    SHIFTED,
    UNCHANGED,
    UNREADABLE,
    DriftResult,
    Place,
)
from .search import expect_searches

__all__ = [
    "AHEAD", "CHANGED", "DELETED", "MODIFIED", "MOVED", "NOT_CHECKED", "PASSING", "RELOCATED", "RENAMED", "SHIFTED",
    "UNCHANGED", "UNREADABLE",
    "DriftResult", "Place", "ahead", "classify", "expect_searches", "searched_form",
]
