"""Record reports (docs/FORMATS.md): the main dialect, from a Markdown original
or from a plain-text rendering of one.

The parse runs in three passes over the report, each linear in its length:

1. **Structure** over the blocks (:mod:`..core.blocks`): record declarations (an
   ID alone on a line, then ``Label:``), annotations (``On <ID>``), section
   titles that end a record, ``Part of:``, ``Selection predicate:`` bullets
   and ```` ```memreport ```` blocks.
2. **Lines** over the raw report lines outside code: statuses, pins,
   repository URLs, ``SRC-n`` mentions, path citations and references to
   record IDs. Working on raw lines keeps the exact column a status value
   sits at, so a write-back can replace it in place.
3. **Quotations** over the lines as the reader sees them (inline markup
   stripped), so a quote inside backticks is the quoted code, not the markup.

Whatever a pass cannot understand it skips; the parser never raises.

Passes 1 and 2 are :mod:`.parser`, pass 3 :mod:`.quotations`; the records
being built are :mod:`.drafts` and the dialect's words :mod:`.vocabulary`.
"""

from .parser import DIALECT, parse
from .vocabulary import ROUTE_FIELDS, SECTION_TITLES, is_section_title

__all__ = ["DIALECT", "ROUTE_FIELDS", "SECTION_TITLES", "is_section_title", "parse"]
