"""What every report dialect shares, one concept per module:

* :mod:`.grammar`, the citation forms written once (every regular expression of a
  source ID, path, line range or anchor, link, attribution marker, brace group or pin
  sha; the modules below and write-back import them), and :mod:`.spans`, where each line
  starts, so what a parser reads records its span in the report;
* line patterns, which work on one report line at a time so every finding
  keeps its line and, for statuses, the column a write-back can rewrite in
  place: :mod:`.record_ids`, :mod:`.sources` (``SRC-n``, pins, repository
  lines), :mod:`.statuses`, :mod:`.citations` (paths, line ranges, quotation
  tails, ``SRC-n`` path lists), :mod:`.links` (links into hosted
  repositories) and :mod:`.prose` (prose or code, symbol names);
* structure: :mod:`.lines` (numbered lines, front matter), :mod:`.markdown`
  (markdown-it and its token stream), :mod:`.blocks` (blocks as the reader
  sees them), :mod:`.layout` (links, code spans, blockquotes, tables) and
  :mod:`.document` (a report read once for a dialect).

Every regular expression here is linear on adversarial input: no quantified
group can match the same text in two ways, and the few backward scans are
bounded by the previous match.

This face re-exports the names the dialects use, so ``core.find_pins`` and
``from .core.sources import find_pins`` name the same function.
"""

from .blocks import Block, ShownLine, markdown_blocks, plain_blocks
from .citations import (
    QUOTE_MARK,
    UNUSUAL_PATH,
    PathCitation,
    PathSpec,
    QuotationTail,
    cited_path_spec,
    find_path_citations,
    looks_like_path,
    parse_path_spec,
    path_citations,
    split_quotation,
    unusual_path_spec,
)
from .document import Document, DocumentParser, document
from .layout import Inline, Layout, Piece, Table, TableRow, markdown_layout, plain_tables
from .lines import (
    Line,
    front_matter_end,
    front_matter_mapping,
    is_markdown,
    numbered_lines,
    read_front_matter,
)
from .links import (
    BARE_URL,
    RepositoryLink,
    find_bare_urls,
    is_sha,
    parse_repository_link,
    repository_of,
)
from .markdown import container_markers, markdown_parser
from .prose import member_of_its_own, reads_as_prose, symbol_name
from .record_ids import (
    ANNOTATION_LINE,
    HEADED_RECORD,
    RECORD_ID,
    RECORD_ID_LINE,
    RecordIdMatch,
    find_record_ids,
    split_record_id,
)
from .sources import SOURCE_ID, PinMatch, find_pins, find_repository_url, find_source_ids
from .statuses import MAX_QUALIFIER_WORDS, StatusMatch, find_statuses

__all__ = [
    "ANNOTATION_LINE",
    "BARE_URL",
    "HEADED_RECORD",
    "MAX_QUALIFIER_WORDS",
    "QUOTE_MARK",
    "RECORD_ID",
    "RECORD_ID_LINE",
    "SOURCE_ID",
    "UNUSUAL_PATH",
    "Block",
    "Document",
    "DocumentParser",
    "Inline",
    "Layout",
    "Line",
    "PathCitation",
    "PathSpec",
    "Piece",
    "PinMatch",
    "QuotationTail",
    "RecordIdMatch",
    "RepositoryLink",
    "ShownLine",
    "StatusMatch",
    "Table",
    "TableRow",
    "cited_path_spec",
    "container_markers",
    "document",
    "find_bare_urls",
    "find_path_citations",
    "find_pins",
    "find_record_ids",
    "find_repository_url",
    "find_source_ids",
    "find_statuses",
    "front_matter_end",
    "front_matter_mapping",
    "is_markdown",
    "is_sha",
    "looks_like_path",
    "markdown_blocks",
    "markdown_layout",
    "markdown_parser",
    "numbered_lines",
    "parse_path_spec",
    "parse_repository_link",
    "path_citations",
    "plain_blocks",
    "plain_tables",
    "read_front_matter",
    "reads_as_prose",
    "repository_of",
    "split_quotation",
    "split_record_id",
    "member_of_its_own",
    "symbol_name",
    "unusual_path_spec",
]
