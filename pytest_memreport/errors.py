"""The one error family and the one warning base of the package.

Every exception the package raises is a :class:`MemreportError`, so a caller can
catch "a memreport error" in one clause, and each kind carries a stable ``code``
(``MR`` and three digits, listed in docs/ERRORS.md) that stays the same when its
message is reworded. The hundreds say where the error comes from: 1 the user's
input (options, reports, claims), 2 the target repository, 3 a check, 4 the result
cache, 5 an output; kinds that never leave the package (control flow inside one
module) are documented all the same, so a code seen in a traceback is findable.

Errors of the user's making (``OptionError`` here, ``ReportError``, ``ClaimsError``,
``RepoError``...) are turned by the pytest layer into one-line usage errors (exit 4).
"""

from __future__ import annotations

from typing import ClassVar


class MemreportError(Exception):
    """The base of every error pytest-memreport raises; ``code`` names its kind."""

    code: ClassVar[str] = "MR000"


class MemreportWarning(UserWarning):
    """The base of every warning pytest-memreport gives; given as itself for a check that
    holds with a caveat (e.g. the enclosing function changed)."""

    code: ClassVar[str] = "MR900"


class OptionError(MemreportError, ValueError):
    """A malformed option value; the message says which option and what to give."""

    code = "MR101"
