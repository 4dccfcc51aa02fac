"""A quotation's ``...``: the quoted code's own characters where the file holds them.

Stubs (``x: int = ...``), spreads (``f(...args)``) and variadics hold ``...`` as code; a
writer may also elide with it. The pin tries the quote with its dots as written first,
then as an elision, and drift holds a quote to the reading its pin found: read as an
elision, ``timer: Timer = ...`` still "held" once the code said ``= default_timer``
(typeshed's ``timeit.pyi``, a false pass).
"""

from __future__ import annotations

import json

from pytest_memreport.checks import drift, verify
from pytest_memreport.gitstore import GitStore
from pytest_memreport.model import Evidence, EvidenceKind, LineRange
from pytest_memreport.text import match

STUB = """def repeat(
    stmt: str = "pass",
    number: int = 1000,
) -> list[float]: ...
def timeit(stmt: str = "pass", timer: Timer = ..., number: int = 1000) -> float: ...
"""

QUOTE = "timer: Timer = ..., number: int = 1000"


def quote(text: str, cited: LineRange | None = None) -> Evidence:
    return Evidence(EvidenceKind.QUOTE, "timeit.pyi", line=3, end_line=3, text=text, cited_lines=cited)


def at_pin(repo, evidence: Evidence, pin_sha: str):
    with GitStore.open(repo.path) as store:
        return verify.check_at_pin(evidence, store.snapshot(pin_sha))


def classify(repo, evidence: Evidence, pin_sha: str):
    with GitStore.open(repo.path) as store:
        pin = verify.check_at_pin(evidence, store.snapshot(pin_sha))
        assert pin.ok, pin.message
        result = drift.classify(evidence, pin, store, pin_sha, store.snapshot("HEAD"))
    json.dumps(result.as_json())
    return pin, result


def test_dots_the_file_holds_are_read_as_its_own_characters_at_the_pin(make_repo):
    """Read as an elision, the quote chained from ``repeat``'s ``number`` line to
    ``timeit``'s: lines 3-5, outside the cited line. As written it is line 5."""
    repo = make_repo()
    pin_sha = repo.commit({"timeit.pyi": STUB}, "pin")

    pin = at_pin(repo, quote(QUOTE, LineRange(5, 5)), pin_sha)

    assert pin.ok and pin.literal
    assert pin.lines == LineRange(5, 5) and pin.in_cited_range
    assert pin.as_json()["literal_dots"] is True


def test_a_quote_found_with_its_dots_drifts_when_the_code_replaces_them(make_repo):
    repo = make_repo()
    pin_sha = repo.commit({"timeit.pyi": STUB}, "pin")
    repo.commit({"README.md": "timing\n"}, "readme")
    culprit = repo.commit({"timeit.pyi": STUB.replace("timer: Timer = ...", "timer: Timer = default_timer")},
                          "the default timer is named")

    pin, result = classify(repo, quote(QUOTE, LineRange(5, 5)), pin_sha)

    assert pin.literal
    assert result.status == drift.CHANGED
    assert result.broken_by is not None and result.broken_by.sha == culprit
    assert "no longer in timeit.pyi" in result.message


def test_a_quote_found_with_its_dots_follows_the_same_code_when_lines_move(make_repo):
    repo = make_repo()
    pin_sha = repo.commit({"timeit.pyi": STUB}, "pin")
    repo.commit({"timeit.pyi": "from typing import Callable\n\nTimer = Callable[[], float]\n" + STUB}, "alias")

    pin, result = classify(repo, quote(QUOTE, LineRange(5, 5)), pin_sha)

    assert pin.literal and result.status == drift.SHIFTED and result.lines == LineRange(8, 8)


def test_dots_a_writer_elides_with_still_elide(make_repo):
    """Prose elides: "reads the file ... caches it" holds where the file says more
    between; the pin reads it as an elision, and so does drift."""
    repo = make_repo()
    doc = "The loader reads the file, parses every entry and caches it for the session.\n"
    pin_sha = repo.commit({"timeit.pyi": doc}, "pin")
    repo.commit({"timeit.pyi": "# Loader\n\n" + doc}, "title")
    elided = quote("reads the file, ... caches it")

    pin, result = classify(repo, elided, pin_sha)

    assert pin.ok and not pin.literal and "literal_dots" not in pin.as_json()
    assert result.status == drift.SHIFTED and result.lines == LineRange(3, 3)


def test_the_literal_reading_keeps_the_other_elision_marks():
    """Only bare ``...`` become the quote's own characters: ``…`` and ``[...]`` still elide,
    and a quote without a bare ``...`` has no second reading."""
    pattern = match.compile_quote("a = f(...args) … b = [...] c")

    assert pattern.parts == ("a = f(", "args)", "b =", "c")
    assert pattern.literal is not None and pattern.literal.parts == ("a = f(...args)", "b =", "c")
    assert match.compile_quote("first … then [...] last").literal is None
    assert pattern.literal.literal is None  # already literal
