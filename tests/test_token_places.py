"""Every place a quotation occurs by tokens, as by characters.

A handler's ``return redirect(url_for('index'))`` stands in two views of flask's tutorial;
once the project moved to double quotes, only a token match finds it, and that match gave
the first place alone: drift followed the quote of ``logout`` to ``login``'s copy and said
its enclosing definition had changed ("function logout is now function login").
"""

from __future__ import annotations

from test_drift import classify

from pytest_memreport.checks import drift, verify
from pytest_memreport.gitstore import GitStore
from pytest_memreport.model import Evidence, EvidenceKind, LineRange
from pytest_memreport.text import symbols

VIEWS = """def login():
    if authenticated():
        return redirect(url_for('index'))
    return render('login')


def logout():
    session.clear()
    return redirect(url_for('index'))
"""

QUOTE = "return redirect(url_for('index'))"


def quotation(cited: int) -> Evidence:
    return Evidence(EvidenceKind.QUOTE, "auth.py", line=12, end_line=12, text=QUOTE,
                    cited_lines=LineRange(cited, cited))


def test_a_token_match_gives_every_place_in_order():
    text = VIEWS.replace("'", '"')

    assert symbols.token_find_all(QUOTE, text, "auth.py") == (LineRange(3, 3), LineRange(9, 9))
    assert symbols.token_find(QUOTE, text, "auth.py") == LineRange(3, 3)


def test_a_quote_the_file_holds_twice_by_tokens_is_placed_at_its_cited_copy(make_repo):
    repo = make_repo()
    pin = repo.commit({"auth.py": VIEWS.replace("'", '"')}, "double quotes")

    with GitStore.open(repo.path) as store:
        result = verify.check_at_pin(quotation(9), store.snapshot(pin))

    assert result.ok and result.by_tokens
    assert result.lines == LineRange(9, 9) and result.in_cited_range
    assert result.symbol is not None and result.symbol.name == "logout"


def test_drift_follows_a_quote_reformatted_by_tokens_to_its_own_copy(make_repo):
    repo = make_repo()
    pin = repo.commit({"auth.py": VIEWS}, "views")
    repo.commit({"auth.py": '"""Views."""\n\n' + VIEWS.replace("'", '"')}, "double quotes, a docstring")

    result = classify(repo, quotation(9), pin)

    assert result.status == drift.SHIFTED and result.by_tokens
    assert result.lines == LineRange(11, 11)
    assert result.symbol is not None and result.symbol.name == "logout"
    assert not result.enclosing_changed
