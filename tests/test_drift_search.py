"""The whole-tree search's prefilters never rule out a real match (properties),
and the search still finds a reformatted quote that moved to another file."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_memreport import drift, match
from pytest_memreport.gitstore import GitStore


def _brute_force(sequence: list[str], text: str, reach: int, whole: bool = False) -> bool:
    """Some choice of copies, in order, spanning at most ``reach`` characters."""
    import re

    def copies(word: str) -> list[int]:
        if whole:
            return [m.start() for m in re.finditer(rf"(?<!\w)(?={re.escape(word)}(?!\w))", text)]
        return [m.start() for m in re.finditer(f"(?={re.escape(word)})", text)]

    def from_(index: int, at: int, first: int) -> bool:
        if index == len(sequence):
            return True
        word = sequence[index]
        for pos in copies(word):
            if pos < at:
                continue
            begin = pos if index == 0 else first
            if pos + len(word) - begin <= reach and from_(index + 1, pos + len(word), begin):
                return True
        return False

    return from_(0, 0, 0)


_WORDS = st.lists(st.sampled_from(["a", "ab", "b", "ba", "abc", "c"]), min_size=1, max_size=4)
_TEXT = st.text(alphabet="abc ;\n", max_size=40)


@settings(max_examples=300, deadline=None)
@given(sequence=_WORDS, text=_TEXT, reach=st.integers(1, 30), whole=st.booleans())
def test_words_in_order_agrees_with_brute_force(sequence, text, reach, whole):
    assert match.words_in_order(sequence, text, reach, whole=whole) == _brute_force(sequence, text, reach, whole)


def test_token_prefilter_keeps_reformatted_code_and_rules_out_the_rest():
    quote = "return read_config(path, retries=3, timeout=30)"
    wrapped = "x = 1\n\ndef load(path):\n    return read_config(\n        path,  # the file\n        retries=3,\n        timeout=30,\n    )\n"
    assert match.may_match_by_tokens(quote, wrapped, "pkg/a.py")
    assert not match.may_match_by_tokens(quote, wrapped.replace("timeout=30", "timeout=31"), "pkg/a.py")
    reordered = "return read_config(path, timeout=30, retries=3)"
    assert not match.may_match_by_tokens(quote, reordered, "pkg/a.py")
    # comments and string literals are not compared by tokens: edits there never rule a file out
    commented = "total = add(a, b)  # old note about the sum"
    assert match.may_match_by_tokens(commented, "total = add(\n    a, b\n)  # a new note\n", "pkg/a.py")
    prefixed = 'greeting = u"hello" + name'
    assert match.may_match_by_tokens(prefixed, "greeting = 'hello' + name\n", "pkg/a.py")
    far = "return read_config(path,\n" + "# filler line of comment text\n" * 200 + "retries=3, timeout=30)"
    assert not match.may_match_by_tokens(quote, far, "pkg/a.py")  # beyond the reach: not worth lexing
    # what opens a comment depends on the grammar; a quote that is all comment has no token
    assert not match.may_match_by_tokens("# keep the newest entries", "# keep the newest entries\n", "pkg/a.py")
    attribute = "#[derive(Debug, Clone)] pub struct Entry"
    assert match.may_match_by_tokens(attribute, "#[derive(\n    Debug,\n    Clone,\n)]\npub struct Entry {}\n", "src/a.rs")
    assert match.may_match_by_tokens("let n = a // 2", "let n = a // 2\n", "src/a.py")
    assert not match.may_match_by_tokens(quote, wrapped, "docs/notes.txt")  # no grammar: no token matching


@settings(max_examples=100, deadline=None)
@given(words=st.lists(st.sampled_from(["alpha", "beta", "gamma", "x"]), max_size=3),
       files=st.lists(st.text(alphabet="alphbetgmx `\n", max_size=30), min_size=1, max_size=5))
def test_tree_text_finds_exactly_the_files_holding_every_word(words, files):
    class Files:  # the part of a Snapshot the joined text reads
        def files(self):
            return [f"f{i}.txt" for i in range(len(files))]

        def read(self, path):
            from pytest_memreport.textfile import decode

            return decode(path, "", files[int(path[1:-4])].encode(), 1 << 20)

    found = drift._TreeText(Files()).containing(tuple(words))
    expected = [f"f{i}.txt" for i, text in enumerate(files) if all(w in text.replace("`", "") for w in words)]
    assert found == expected


@settings(max_examples=100, deadline=None)
@given(words=st.lists(st.sampled_from(["alpha", "beta", "gammas", "x", "alphabet"]), min_size=1, max_size=3),
       files=st.lists(st.text(alphabet="alphbetgmsx `\n", max_size=40), min_size=1, max_size=6))
def test_word_masks_never_drop_a_file_holding_the_whole_words(words, files):
    import re

    class Files:
        def files(self):
            return [f"f{i}.txt" for i in range(len(files))]

        def read(self, path):
            from pytest_memreport.textfile import decode

            return decode(path, "", files[int(path[1:-4])].encode(), 1 << 20)

    tree = drift._TreeText(Files())
    tree.SCANS_BEFORE_MASKS = 0  # masks from the first search on
    whole = tuple(words)
    found = set(tree.containing(tuple(words), whole))
    plain = {f"f{i}.txt": text.replace("`", "") for i, text in enumerate(files)}
    holding = {p for p, t in plain.items() if all(w in t for w in words)}
    as_whole = {p for p in holding if all(re.search(rf"(?<!\w){w}(?!\w)", plain[p]) for w in whole)}
    assert as_whole <= found <= holding


def test_whole_words_leave_out_words_an_elision_or_an_edge_may_cut():
    pattern = match.compile_quote("start = load_config(path) ... return config_value")
    assert drift._whole_words(pattern) == ("load_config", "path")


def test_reformatted_quote_moved_to_another_file_is_relocated_by_tokens(make_repo):
    repo = make_repo("target")
    old = textwrap.dedent(
        """\
        def load(path):
            return read_config(path, retries=3, timeout=30)
        """
    )
    pin = repo.commit({"pkg/loader.py": old, "pkg/other.py": "x = 1\n"}, "first")
    new = textwrap.dedent(
        """\
        def load(path):
            return read_config(
                path,  # where the file is
                retries=3,
                timeout=30,
            )
        """
    )
    later = repo.commit({"pkg/loader.py": "pass\n", "pkg/config_io.py": new}, "move and reformat")
    store = GitStore.open(repo.path)
    try:
        against = store.snapshot(later)
        pattern_quote = "return read_config(path, retries=3, timeout=30)"
        places, by_tokens = drift._search_tree(
            __import__("pytest_memreport.match", fromlist=["compile_quote"]).compile_quote(pattern_quote),
            pattern_quote, against, exclude="pkg/loader.py", origin="pkg/loader.py",
        )
        assert by_tokens
        assert [(p.path, p.lines.start, p.lines.end) for p in places] == [("pkg/config_io.py", 2, 6)]
        assert pin != later
    finally:
        store.close()


def test_quote_whose_comment_was_edited_still_holds_by_tokens(make_repo):
    from pytest_memreport import verify
    from pytest_memreport.model import Evidence, EvidenceKind

    repo = make_repo("target")
    pin = repo.commit({"pkg/calc.py": "def total(a, b):\n    return add(a, b)  # sum of both\n"}, "first")
    later = repo.commit(
        {"pkg/calc.py": "def total(a, b):\n    return add(\n        a,\n        b,\n    )  # both, summed\n"},
        "reformat, reword the comment",
    )
    quote = "return add(a, b) # sum of both"
    evidence = Evidence(EvidenceKind.QUOTE, "pkg/calc.py", 1, 1, text=quote)
    store = GitStore.open(repo.path)
    try:
        at_pin = verify.check_at_pin(evidence, store.snapshot(pin))
        assert at_pin.ok and at_pin.lines.start == 2
        result = drift.classify(evidence, at_pin, store, pin, store.snapshot(later))
        assert (result.status, result.by_tokens, result.lines.start, result.lines.end) == ("shifted", True, 2, 5)
    finally:
        store.close()


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab1 _#-*/>`•.\n", max_size=60), data=st.data())
def test_a_text_whose_reduced_form_rules_a_quote_out_holds_no_occurrence(text, data):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    # a slice of the text as a report renders it (whitespace collapsed), or anything at all
    quote = data.draw(st.one_of(st.just(" ".join(text[start:end].split())), st.text(alphabet="ab1 #-•.", max_size=12)))
    if match.find(quote, text):
        assert match.may_occur(quote, match.reduced(text))
