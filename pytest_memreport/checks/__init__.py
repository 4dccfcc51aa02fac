"""Checks: plain model objects and a ``Snapshot`` in, frozen result objects out.

``verify`` (evidence at its pin), ``drift`` (at the against-revision),
``symbolrefs`` (backticked definition names), ``predicates`` (claims-file
predicates), ``observe`` (running the target's tests; promotion rules),
``structure`` (reference integrity and coverage over a report set).
Checks call down into ``text`` and ``gitstore``, never up into outputs or pytest.
"""
