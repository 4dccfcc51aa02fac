"""Text: decoding target files, locating quotations, syntax trees, report layout, failure text.

Everything here is a pure function of strings (and the model's ``LineRange``):
no git, no pytest, no report parsing.
"""


def release_caches() -> None:
    """Drop the per-text caches (syntax trees, quotation indexes, reduced forms): at the
    end of a run, so pytest's final garbage collections and the interpreter's exit do
    not walk them (about 0.3 s on a 3,000-item run)."""
    from .quotes import index, prefilter
    from .syntax import parsing

    for module in (parsing, index, prefilter):
        module.clear_cache()
