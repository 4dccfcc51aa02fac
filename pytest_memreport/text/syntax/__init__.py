"""Syntax: what tree-sitter says about a source file.

Every function here is a pure function of ``(text, path)``: the path only
chooses the grammar (by extension), nothing is read from disk and nothing runs
git. A function returns ``None`` when no grammar covers the path, so callers
fall back to plain text.

The modules, lowest first (each imports only those before it):

* :mod:`.strings`: quote styles that mean the same string.
* :mod:`.shapes`: per-language adjustments of definition query matches.
* :mod:`.languages`: the table of languages (extensions, grammar, lexicon,
  definition query); adding a language is one entry there.
* :mod:`.parsing`: the bounded parse cache, reparsing an edit, byte offsets, stats.
* :mod:`.definitions`: definitions, the enclosing one, by name, a constant's value.
* :mod:`.lexing`: tokens, and comment and string regions.
* :mod:`.tokensearch`: finding a quotation by tokens.
* :mod:`.tokendiff`: how a definition's tokens changed.
* :mod:`.literals`: what a literal as written means.

Nothing here imports :mod:`..quotes` (matching calls syntax, never the other
way). A leading underscore marks a name private to this package (its modules
share them); :mod:`pytest_memreport.text.symbols` re-exports the public names.
"""
