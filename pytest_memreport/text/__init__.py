"""Text: decoding target files, locating quotations, syntax trees, report layout, failure text.

Everything here is a pure function of strings (and the model's ``LineRange``):
no git, no pytest, no report parsing.
"""
