"""Quotes: locating a report's quotation in a file's text, despite rendering damage.

The modules, lowest first (each imports only those before it):

* :mod:`.words`: what a word character is; which words are likely rare.
* :mod:`.normalize`: the rendering damage that is undone (the rules), and the
  forms of a text that undo it: whitespace rule, line markers, scan marks.
* :mod:`.pattern`: a compiled quotation, its elision-separated parts and the
  fallback regex (:func:`~.pattern.compile_quote`).
* :mod:`.index`: what matching derives from one text, cached (:class:`~.index.Span`,
  :func:`~.index.line_of`).
* :mod:`.chain`: chaining elided parts into whole matches, each part found
  when a chain reaches it, in bounded memory.
* :mod:`.locate`: :func:`~.locate.find`, every occurrence of a quotation.
* :mod:`.prefilter`: reduced forms that rule a text out without searching it.
* :mod:`.windows`: where a token match (:mod:`..syntax.tokensearch`) can lie.
* :mod:`.nearest`: the closest region when a quotation is not found.
* :mod:`.diff`: a word-level diff of a quotation against that region.

A leading underscore marks a name private to this package (its modules share
them); :mod:`pytest_memreport.text.match` re-exports the public names.
"""
