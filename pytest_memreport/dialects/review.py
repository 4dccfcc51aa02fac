"""Reviews (docs/FORMATS.md §2): Markdown notes whose evidence is commit-pinned links.

A review has no records: everything it cites is evidence of the report
itself (``owner=None``). What counts as evidence:

* **Links into a repository**, ``[text](https://host/o/r/blob/<ref>/path)``:
  a cited file (``PATH``), with ``#L10-L20`` a line anchor (``LINES``), and
  ``/tree/<ref>/dir`` a directory (``DIRECTORY``). Each link carries its own
  repository (``source="o/r"``) and, when ``<ref>`` is a sha, its own commit
  (``pin``): one note may cite two repositories or two commits. A link to a
  branch (``/blob/main/x``) cannot be checked at the commit the author saw,
  so it gets ``pin=None`` (the review's own pin applies) and its label notes
  the branch.
* **Blockquote quotations**: consecutive ``>`` lines whose last line names
  the source, ``> --- [path](blob url)`` or ``> --- `path` @ `sha```. The
  quote is the raw text of the ``>`` lines (markers removed, fence lines
  dropped), so code keeps the characters Markdown would have eaten.
* **Backticked repo-relative paths** (`` `src/core/engine.rs` ``): evidence
  with label :data:`BACKTICKED_PATH` in the review's repository. They may
  name a file the review only talks about, so a checker may treat a missing
  one more gently than a link.
* **Parenthesised path lists** after a sentence, ``(src/a.rs, docs/b.md)``:
  how plain-text renderings keep cited paths (label :data:`CITED_PATH`).

The review's repository comes from ``**Repository:** https://github.com/o/r``
(else the first repository linked), its pin from ``**Reviewed commit:**
[<sha>](.../commit/<sha>)``, ``Reviewed revision: main at <sha>`` and the
like. YAML front matter goes to ``Report.meta``. Markdown structure comes from
markdown-it tokens (:func:`.lexing.markdown_layout`); whatever cannot be
understood is skipped, and the parser never raises. The reading is
:class:`.core.linked.LinkReader`'s, with no extension (notes compose the same reader).
"""

from __future__ import annotations

from ..model import Report
from .core.linked import (
    BACKTICKED_PATH,
    CITED_PATH,
    FRONT_MATTER_KEYS,
    TOP_LEVEL_FILES,
    LinkReader,
    json_safe,
    repo_path_spec,
)

__all__ = ["BACKTICKED_PATH", "CITED_PATH", "DIALECT", "FRONT_MATTER_KEYS", "TOP_LEVEL_FILES", "json_safe", "parse",
           "repo_path_spec"]

DIALECT = "review"


def parse(path: str, text: str) -> Report:
    """Parse a review (Markdown when ``path`` ends in ``.md``, else a
    plain-text rendering) into the report model. Never raises."""
    return LinkReader(path, text, DIALECT).parse()
