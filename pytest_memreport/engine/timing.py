"""Seconds and counts per phase of a run, for the JSON's ``timing``."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field


@dataclass
class Timing:
    """Seconds spent per phase in this process (reported in JSON)."""

    phases: dict = field(default_factory=lambda: defaultdict(float))

    def add(self, phase: str, seconds: float) -> None:
        self.phases[phase] += seconds

    def as_json(self) -> dict:
        return {k: round(v, 4) for k, v in sorted(self.phases.items())}

    def merge(self, other: dict) -> None:
        """Add another process's phases (pytest-xdist workers report theirs)."""
        for phase, seconds in other.items():
            self.phases[phase] += float(seconds)
