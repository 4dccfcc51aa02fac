"""Outputs: one small module per thing the run produces, over one results model.

``results`` (the ``memreport/1`` JSON and summary aggregation), ``rewrite``
(what ``--memreport-write`` changes) and ``writeback`` (minimal, atomic byte edits).
"""
