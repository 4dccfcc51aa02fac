"""Observing a record's operation by running the target's own tests; promotion rules.

``results``      the statuses of a run and :class:`ObservationResult`
``run``          :func:`run_observation` in a temporary worktree at the pin
``process``      the command in its own process group: timeout, stopping, output tail
``environment``  what the command runs with: environment variables, working directory
``coverage``     ``covers: true``: whether the quoted lines executed (coverage.py)
``promotion``    :func:`decide`: :class:`Promotion` to ``observed`` or :class:`Regression`;
                 :func:`evidence_text`, the line write-back adds under the record
"""

from .environment import OBSERVATION_ENV
from .process import TAIL_LINES
from .promotion import (
    OBSERVED,
    PROMOTABLE,
    Promotion,
    PromotionError,
    Regression,
    axis_problem,
    decide,
    evidence_text,
)
from .results import ERROR, FAILED, NOT_FOUND, PASSED, TIMEOUT, ObservationResult, display_command
from .run import Terminated, run_observation

__all__ = [
    "ERROR", "FAILED", "NOT_FOUND", "OBSERVATION_ENV", "OBSERVED", "PASSED", "PROMOTABLE", "TAIL_LINES", "TIMEOUT",
    "ObservationResult", "Promotion", "PromotionError", "Regression", "Terminated",
    "axis_problem", "decide", "display_command", "evidence_text", "run_observation",
]
