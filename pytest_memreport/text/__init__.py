"""Text: decoding target files, locating quotations, syntax trees, report layout, failure text.

Everything here is a pure function of strings (and the model's ``LineRange``):
no git, no pytest, no report parsing.
"""


def release_caches() -> None:
    """Drop what the checks kept to share work (syntax trees, quotation indexes, reduced
    forms, compiled quotations and their words): once the checks are done, so that
    the garbage collections of the item loop, pytest's final ones and the interpreter's
    exit do not walk them (with 10,000 quotations, their objects cost the item loop
    about 3 s of collections)."""
    from .quotes import index, pattern, prefilter, typography, windows
    from .syntax import definitions, parsing, tokensearch

    for module in (parsing, definitions, tokensearch, index, prefilter, pattern, typography, windows):
        module.clear_cache()
