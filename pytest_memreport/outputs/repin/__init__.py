"""Re-pinning a report (and correcting wrong ranges): what changes, as character edits.

* :mod:`.target`: what the re-pin is asked to do (:class:`RepinTarget`), and
  :class:`Move`, where one citation points afterwards;
* :mod:`.moves`: a run's results → moves; :mod:`.blockers`: what stops a re-pin;
* :mod:`.report`: a report's edits, line by line, from :mod:`.links` (repository
  links), :mod:`.shas` (the pin wherever it is written) and :mod:`.citations`
  (paths and ranges as reports spell them);
* :mod:`.claims`: the claims file's paths, globs and pin.
"""

from .blockers import blockers
from .claims import claims_changes
from .moves import evidence_moves, path_moves
from .report import report_edits, unwritten
from .target import Move, PinnedSource, RepinTarget, same_commit

__all__ = [
    "Move", "PinnedSource", "RepinTarget", "blockers", "claims_changes", "evidence_moves", "path_moves",
    "report_edits", "same_commit", "unwritten",
]
