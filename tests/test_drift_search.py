"""The whole-tree search's prefilters never rule out a real match (properties),
and the search still finds a reformatted quote that moved to another file."""

from __future__ import annotations

import contextlib
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_memreport.checks import drift
from pytest_memreport.checks.drift import search, wordindex
from pytest_memreport.text import match, symbols
from pytest_memreport.gitstore import GitStore
from pytest_memreport.model import Evidence, EvidenceKind


def _store_report(path, pin: str, citations: list[tuple[str, str]]) -> None:
    """Write a record report pinning SRC-1 at ``pin``, one quotation line per ``(quote, path)``."""
    lines = "\n\n".join(f"{quote} --- {cited}" for quote, cited in citations)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"Store memory report\n\nThe target is the store package at SRC-1 commit {pin}.\n\n"
                    f"Operative objects\n\nMEM-OBJ-store\n\nLabel: Store\n\n{lines}\n", encoding="utf-8")


@contextlib.contextmanager
def _engine_over(repo_path, report_path):
    """An engine with only ``report_path`` loaded, drift against HEAD: ``(engine, report, its quotes)``."""
    from pytest_memreport.engine import Engine, RunOptions

    engine = Engine(RunOptions(repos={None: str(repo_path)}, against="HEAD", rootdir=report_path.parent,
                               want_symbols=False), [report_path])
    try:
        parsed = engine.report(report_path)
        yield engine, parsed, [e for e in parsed.all_evidence() if e.kind.value == "quote"]
    finally:
        engine.close()


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


#: files of one real repository whose words the index must find: words next to
#: punctuation, non-ASCII letters, backticks (one splitting a word), binary bytes
_INDEXED_FILES = {
    "pkg/store.py": "def load_entry(key):\n    return cache_table.get(key)  # fetch_entry\n",
    "pkg/naive.py": "cafécache_table = 1\nrésumé = cache_table\n",
    "docs/guide.md": "Call `load`_entry or `cache_table`.\nThe fetch`_entry` helper.\n",
    "web/app.ts": "const greeting = `hello ${load_entry}`;\nexport function fetch_entry() {}\n",
    "bin/blob.dat": b"\x00\x01load_entry\x00cache_table\xff",
    "misc/other.txt": "load_entry_more cache_tables fetch_entry2\n",
    "legacy/latin.txt": b"caf\xe9 notes: keep the newest entries first\n",  # not UTF-8: read as Latin-1
    "docs/more.md": "Keep the newest entries `first`, said the caf\u00e9 notes.\n",
}


@pytest.fixture(scope="module")
def indexed_tree(tmp_path_factory):
    from repo_builder import RepoBuilder

    repo = RepoBuilder(tmp_path_factory.mktemp("indexed") / "target")
    sha = repo.commit(_INDEXED_FILES, "files")
    store = GitStore.open(repo.path)
    yield store, store.snapshot(sha)
    store.close()


def _drawn_quote(path: str, data) -> str:
    """A stretch of the file at ``path`` as a report quotes it: rendered (backticks gone),
    whitespace collapsed."""
    text = _INDEXED_FILES[path]
    text = text.decode("latin-1") if isinstance(text, bytes) else text
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    return " ".join(text[start:end].replace("`", "").split())


@settings(max_examples=150, deadline=None)
@given(path=st.sampled_from(sorted(_INDEXED_FILES)), data=st.data())
def test_word_index_names_every_file_a_quote_is_found_in(indexed_tree, path, data):
    store, snapshot = indexed_tree
    quote = _drawn_quote(path, data)
    pattern = match.compile_quote(quote)
    index = wordindex.WordIndex(snapshot)
    candidates = index.holding(wordindex.probes(pattern.whole_words))
    holding = {p for p in snapshot.files()
               if snapshot.read(p).is_text and match.find(pattern, snapshot.read(p).text)}
    if candidates is not None:
        assert holding <= candidates


@settings(max_examples=150, deadline=None)
@given(path=st.sampled_from(sorted(_INDEXED_FILES)), data=st.data())
def test_a_scan_narrowed_by_git_grep_finds_what_reading_every_file_finds(indexed_tree, path, data):
    """A quote of plain words is looked for in every file; ``git grep`` naming the files
    that hold its longest whole words (ASCII, as bytes) leaves out no file the quote
    occurs in: not one read as Latin-1, nor one where a backtick splits a word, nor a
    binary one. (It may leave out files the prefilter alone would pass.)"""
    store, snapshot = indexed_tree
    quote = _drawn_quote(path, data)
    pattern = match.compile_quote(quote)
    found = {p for p in snapshot.files() if snapshot.read(p).is_text and match.find(pattern, snapshot.read(p).text)}
    for key, test, needs, words in (search._character_scan(pattern), search._token_scan(quote, path)):
        every = wordindex.WordIndex(snapshot).scan(key, test)
        narrowed = wordindex.WordIndex(snapshot).scan(key, test, needs)
        assert narrowed <= every
        # by the tree's words: while they are gathered, then from what was gathered
        indexed = wordindex.WordIndex(snapshot)
        by_words = indexed.scan(key, test, (), words), indexed.scan((*key, "again"), test, (), words)
        if key[0] == "characters":
            assert found <= narrowed
            assert found <= by_words[0] and found <= by_words[1]
        else:
            by_tokens = {p for p in every
                         if symbols.token_find(quote, snapshot.read(p).text, p) is not None}
            assert by_tokens <= narrowed
            assert by_tokens <= by_words[0] and by_tokens <= by_words[1]


def _values_and_notes(make_repo, count: int, notes: str) -> tuple:
    """A target of ``count`` files ``pkg/mNN.py`` each holding its own ``value_N`` name,
    and ``pkg/notes.py`` holding ``notes``: its path and commit."""
    repo = make_repo("target")
    files = {f"pkg/m{i:02d}.py": f"value_{i} = {i}\n" for i in range(count)}
    files["pkg/notes.py"] = notes
    return repo.path, repo.commit(files, "files")


def test_a_scan_reads_only_the_files_holding_its_words(make_repo):
    """Two scans needing the same words ask git once, and read only the files it names."""
    path, sha = _values_and_notes(make_repo, 30, "# keep the newest entries first\n")
    with GitStore.open(path) as store:
        snapshot = store.snapshot(sha)
        pattern = match.compile_quote("keep the newest entries first")
        index = wordindex.WordIndex(snapshot)
        index.expect_scan(*search._token_scan(pattern.text, "pkg/m01.py"))
        commands, blobs = store.git_processes, store.blobs_read
        assert index.scan(*search._character_scan(pattern)) == {"pkg/notes.py"}
        assert index._scanned[("tokens", "python", pattern.text)] == {"pkg/notes.py"}  # answered by the same read
        assert store.blobs_read - blobs == 1
        # the listing, the backticks, both scans' words, and the persistent cat-file reading the one file
        assert store.git_processes - commands == 4
        assert wordindex.scan_needs(pattern.whole_words) == ("entries", "newest", "first")


def test_word_index_asks_git_once_for_every_expected_word(indexed_tree):
    store, snapshot = indexed_tree
    index = wordindex.WordIndex(snapshot)
    index.expect(["fetch_entry", "cache_table"])
    before = store.git_seconds
    assert index.holding(("load_entry",)) == {"pkg/store.py", "web/app.ts", "bin/blob.dat", "docs/guide.md"}
    asked = store.git_seconds
    assert asked > before
    # the expected words were answered by the same pass: no git runs for them
    assert index.holding(("cache_table",)) == {"pkg/store.py", "pkg/naive.py", "bin/blob.dat", "docs/guide.md"}
    assert index.holding(("fetch_entry", "cache_table")) == {"pkg/store.py", "docs/guide.md"}
    assert store.git_seconds == asked
    assert index.holding(()) is None  # no word to ask for: every file is read


def test_whole_words_leave_out_only_words_an_elision_may_cut():
    # the quote's own edges are token edges (``= 200`` is not found in ``= 2000``); an elision may cut
    pattern = match.compile_quote("start = load_config(path) ... return config_value")
    assert pattern.whole_words == ("start", "load_config", "path", "config_value")
    assert match.compile_quote("... tail_word) + head_word ...").whole_words == ()
    assert match.compile_quote("(first_word)").whole_words == ("first_word",)


def test_probes_are_the_longest_ascii_compound_names():
    words = ["return", "segment", "scanQuota", "x", "rate_limit2", "déjà_vu", "value", "a_b", "max_entries_v2"]
    assert wordindex.probes(words) == ("max_entries_v2", "rate_limit2", "scanQuota")
    assert wordindex.probes(["segment", "value", "histogram"]) == ()  # plain words: read every file


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
        places, by_tokens = search.search_tree(
            __import__("pytest_memreport.text.match", fromlist=["compile_quote"]).compile_quote(pattern_quote),
            pattern_quote, against, exclude={"pkg/loader.py"}, origin="pkg/loader.py",
        )
        assert by_tokens
        assert [(p.path, p.lines.start, p.lines.end) for p in places] == [("pkg/config_io.py", 2, 6)]
        assert pin != later
    finally:
        store.close()


def test_quote_whose_comment_was_edited_still_holds_by_tokens(make_repo):
    from pytest_memreport.checks import verify
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


#: two small modules whose bodies the engine's tests quote, and move out
_HELPERS = {
    "pkg/a.py": "def first_helper():\n    return load_entry(cache_key)\n",
    "pkg/b.py": "def second_helper():\n    return store_value(row_id)\n",
}


def test_one_git_grep_answers_every_quote_that_left_its_file(make_repo, tmp_path):
    """The engine announces the run's quotes to the tree search: the first
    relocation asks git for the words of the second too."""
    repo = make_repo("target")
    pin = repo.commit({**_HELPERS, "pkg/c.py": "UNCHANGED_NAME = 1\n"}, "first")
    repo.commit({
        "pkg/a.py": "pass\n", "pkg/b.py": "pass\n",
        "lib/moved_a.py": _HELPERS["pkg/a.py"], "lib/moved_b.py": _HELPERS["pkg/b.py"],
    }, "move the bodies out")
    report = tmp_path / "report.txt"
    _store_report(report, pin, [("return load_entry(cache_key)", "pkg/a.py"),
                                ("return store_value(row_id)", "pkg/b.py"), ("UNCHANGED_NAME = 1", "pkg/c.py")])
    with _engine_over(repo.path, report) as (engine, parsed, quotes):
        assert len(quotes) == 3, parsed
        first = engine.drift_result(parsed, quotes[0])
        assert (first.status, first.path) == ("relocated", "lib/moved_a.py")
        store = engine.binding(parsed, quotes[0].source).store
        with engine.caches.active():  # the engine's run keeps the index
            index = wordindex.word_index(store.snapshot(engine.against_rev(store)))
        # asked in the same pass: the second quote's names, not the unchanged file's
        assert {"load_entry", "cache_key", "store_value", "row_id"} <= index._paths.keys()
        assert "UNCHANGED_NAME" not in index._paths
        known = dict(index._paths)
        second = engine.drift_result(parsed, quotes[1])
        assert (second.status, second.path) == ("relocated", "lib/moved_b.py")
        assert index._paths == known and not index._expected  # answered by the first grep


def test_a_quotation_held_to_its_literal_dots_is_announced_as_classification_reads_it(make_repo, tmp_path):
    """A quotation whose ``...`` are its file's own characters at the pin is held to them:
    read as an elision it would still be in its edited file, so it used to go unannounced,
    and its search asked ``git grep`` on its own, waited for (one process per quotation,
    seen on typeshed's stubs). Announced in the reading classification uses, the one search
    started before classification answers it: its words are asked in that first pass."""
    repo = make_repo("target")
    signature = "def fetch_rows(limit: int = ..., offset_rows: int = 0) -> list[str]: ..."
    pin = repo.commit({"pkg/a.py": f"{signature}\n", "pkg/c.py": "def other():\n    return find_records()\n"},
                      "first")
    repo.commit({"pkg/a.py": signature.replace("limit: int = ...", "limit: int = 100") + "\n",
                 "pkg/c.py": "def other():\n    return None\n"}, "a default for the limit")
    report = tmp_path / "report.txt"
    _store_report(report, pin, [(signature, "pkg/a.py"), ("return find_records()", "pkg/c.py")])
    with _engine_over(repo.path, report) as (engine, parsed, quotes):
        first = engine.pin_result(parsed, quotes[0])
        assert first.ok and first.literal  # the pin holds its dots as written
        engine.drift_result(parsed, quotes[1])  # the pair's first classification: its search is taken in
        store = engine.binding(parsed, quotes[0].source).store
        with engine.caches.active():
            index = wordindex.word_index(store.snapshot(engine.against_rev(store)))
        assert "offset_rows" in index._paths  # asked with the other quotation's words
        processes = store.git_processes
        result = engine.drift_result(parsed, quotes[0])
        assert result.status == "changed" and result.path == "pkg/a.py"
        assert store.git_processes == processes  # no search of its own


def test_evidence_announced_in_its_read_form_is_scheduled_as_planned(make_repo, tmp_path):
    r"""A quotation the pin found only as Markdown shows it (``load\_entry`` read as
    ``load_entry``) is announced to the search in that form, another object than the
    evidence planned; the evidence that may search is still the planned one, which the
    engine classifies last (its search runs meanwhile)."""
    from pytest_memreport.engine import Engine, RunOptions

    repo = make_repo("target")
    pin = repo.commit({"pkg/a.py": "def load():\n    value = load_entry(cache_key)\n"}, "first")
    repo.commit({"pkg/a.py": "def load():\n    return None\n",
                 "lib/b.py": "def load():\n    value = load_entry(cache_key)\n"}, "move the line")
    report = tmp_path / "report.md"
    _store_report(report, pin, [(r"value = load\_entry(cache\_key)", "pkg/a.py")])
    engine = Engine(RunOptions(repos={None: str(repo.path)}, against="HEAD", rootdir=tmp_path, want_symbols=False),
                    [report])
    try:
        with engine.caches.active():
            parsed = engine.report(report)
            (quote,) = [e for e in parsed.all_evidence() if e.kind.value == "quote"]
            engine.plan.schedule([(parsed, quote)])
            (binding,) = engine.plan.pin_bindings()
            engine.pins.check_pin(binding)
            assert engine.pin_result(parsed, quote).found_as is not None  # read as shown
            searching = engine.drift.start_pairs()
            assert quote in searching and all(e is quote for e in searching)
            assert engine.drift_result(parsed, quote).status == "relocated"
            engine.drift.stop_asking()
    finally:
        engine.close()


def test_working_tree_search_sees_untracked_files_and_skips_ignored_ones(make_repo):
    repo = make_repo("target")
    repo.commit({".gitignore": "build/\n", "pkg/a.py": "load_entry = 1\n"}, "first")
    (repo.path / "notes").mkdir()
    (repo.path / "notes" / "draft.py").write_text("x = load_entry\n", encoding="utf-8")
    (repo.path / "build").mkdir()
    (repo.path / "build" / "out.py").write_text("load_entry()\n", encoding="utf-8")
    (repo.path / "docs.md").write_text("see `load`_entry\n", encoding="utf-8")
    store = GitStore.open(repo.path)
    try:
        worktree = store.snapshot("worktree")
        assert worktree.files_with_words(["load_entry", "absent_name"]) == {
            "load_entry": {"pkg/a.py", "notes/draft.py"}, "absent_name": set()}
        assert worktree.files_with_spliced_words() == {"docs.md"}
        assert store.snapshot("HEAD").files_with_spliced_words() == set()
    finally:
        store.close()


_CODE_LINES = [
    "def load(path, retries=3):", "    value = read_config(path, retries)", "    # a comment about value",
    "    return value", "items = [1, 2, 3,]", "name = 'hello world'", "total = add(a, b)",
    "class Store:", "    def get(self, key):", "        return self.cache.get(key, None)",
]


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.sampled_from(_CODE_LINES), min_size=1, max_size=40), data=st.data())
def test_lexing_token_windows_finds_what_lexing_the_whole_file_finds(lines, data):
    from pytest_memreport.text import symbols

    text = "\n".join(lines) + "\n"
    first = data.draw(st.integers(0, len(lines) - 1))
    last = data.draw(st.integers(first, min(len(lines) - 1, first + 3)))
    quote = " ".join(" ".join(lines[first : last + 1]).split())
    # reformatted in the file: arguments wrapped, commas trailing, a filler comment between
    text = text.replace("(path, retries)", "(\n        path,\n        retries,\n    )").replace("# a comment", "# another comment")
    windows = match.token_windows(quote, text, "pkg/a.py")
    # a key of its own: a fresh parse, lexed only in the windows
    fresh = f"windows-{next(_FRESH_KEYS)}"
    windowed = symbols.token_find(quote, text, "pkg/a.py", key=fresh, windows=windows) if windows else None
    assert windowed == symbols.token_find(quote, text, "pkg/a.py")


_FRESH_KEYS = __import__("itertools").count()


def test_a_report_inside_the_target_is_not_where_its_quote_went(make_repo):
    """A repository analysing itself: the report's own copy of a quote that
    left the code is not a relocation (it is where the quote came from)."""
    repo = make_repo("target")
    quote = "return read_entry(store_key)"
    pin = repo.commit({"pkg/a.py": f"def load():\n    {quote}\n"}, "first")
    report = repo.path / "docs" / "report.txt"
    _store_report(report, pin, [(quote, "pkg/a.py")])
    repo.commit({"pkg/a.py": "def load():\n    return None\n", "docs/report.txt": report.read_text()},
                "edit the code, commit the report")
    with _engine_over(repo.path, report) as (engine, parsed, [evidence]):
        assert engine.pin_result(parsed, evidence).ok
        assert engine.drift_result(parsed, evidence).status == "changed"


def test_one_pass_over_the_tree_answers_every_quote_without_names(make_repo, tmp_path):
    """Quotes of plain words (no compound name to ask git for) read every
    file, once for all of them."""
    repo = make_repo("target")
    first, second = "# keep the newest entries first", "# drop whatever is older than a day"
    pin = repo.commit({"pkg/a.py": f"x = 1\n{first}\n", "pkg/b.py": f"y = 2\n{second}\n",
                       "pkg/c.py": "z = 3\n"}, "first")
    repo.commit({"pkg/a.py": "x = 1\n", "pkg/b.py": "y = 2\n", "pkg/c.py": f"z = 3\n{first}\n{second}\n"},
                "move the comments")
    report = tmp_path / "report.txt"
    _store_report(report, pin, [(first, "pkg/a.py"), (second, "pkg/b.py")])
    with _engine_over(repo.path, report) as (engine, parsed, quotes):
        results = [engine.drift_result(parsed, quotes[0])]
        store = engine.binding(parsed, quotes[0].source).store
        with engine.caches.active():  # the engine's run keeps the index
            index = wordindex.word_index(store.snapshot(engine.against_rev(store)))
        assert len(index._scanned) == 2 and not index._expected_scans  # both answered by the first pass
        results.append(engine.drift_result(parsed, quotes[1]))
        assert [(r.status, r.path, r.lines.start) for r in results] == [
            ("relocated", "pkg/c.py", 2), ("relocated", "pkg/c.py", 3)]


def test_definitions_that_left_their_files_are_searched_for_at_once(make_repo):
    """Symbol references announced with the pair's other evidence: the second
    definition's search asks git nothing the first did not already answer."""
    from pytest_memreport.checks import symbolrefs
    from pytest_memreport.model import Evidence, EvidenceKind

    repo = make_repo("target")
    pin = repo.commit({"pkg/a.py": "def alpha_handler(event):\n    return event.kind\n",
                       "pkg/b.py": "def beta_handler(event):\n    return event.name\n"}, "pin")
    repo.delete("pkg/a.py")
    repo.delete("pkg/b.py")
    repo.commit({"lib/handlers.py": "import os\n\n\ndef alpha_handler(event):\n    return event.kind\n\n\n"
                                    "def beta_handler(event):\n    return event.name\n"}, "gather the handlers")
    symbols_ = [Evidence(EvidenceKind.SYMBOL, path, 1, 1, text=name)
                for path, name in (("pkg/a.py", "alpha_handler"), ("pkg/b.py", "beta_handler"))]
    with GitStore.open(repo.path) as store:
        against = store.snapshot("HEAD")
        pins = [symbolrefs.at_pin(e, store.snapshot(pin)) for e in symbols_]
        drift.expect_searches(against, store, pin, [(e, e.text) for e in symbols_])
        first = symbolrefs.classify(symbols_[0], pins[0], store, pin, against)
        before = store.git_processes
        second = symbolrefs.classify(symbols_[1], pins[1], store, pin, against)
        assert store.git_processes == before
    assert (first.status, first.path) == (drift.RELOCATED, "lib/handlers.py")
    assert (second.status, second.path) == (drift.RELOCATED, "lib/handlers.py")


def test_a_snapshots_word_index_goes_with_the_snapshot(make_repo):
    """Word indexes are kept per snapshot, weakly: once the repository is let go of, its
    snapshot (with its tree listing) and the index are gone, not kept for the process's
    life (a long pytest process runs many reports)."""
    import gc
    import weakref

    repo = make_repo("target")
    sha = repo.commit({"pkg/a.py": "value_one = 1\n", "pkg/b.py": "value_two = 2\n"}, "two files")
    store = GitStore.open(repo.path)
    snapshot = store.snapshot(sha)
    index = wordindex.word_index(snapshot)
    assert index.holding(("value_one",)) == {"pkg/a.py"}
    assert wordindex.word_index(snapshot) is index  # one index per snapshot, kept
    kept, index_kept = weakref.ref(snapshot), weakref.ref(index)
    store.close()
    del store, snapshot, index
    gc.collect()
    assert kept() is None
    assert index_kept() is None


def test_a_search_asked_ahead_is_answered_once_and_stopped_when_unwanted(make_repo):
    """The words of the quotations a pin check will search for are asked of git before the
    quotations are located (two processes at once: the words, and backticks inside words);
    the searches then take that answer in without asking again. A search nothing took in
    is stopped, and its words stay announced: the next search asks for them."""
    path, sha = _values_and_notes(make_repo, 5, "keep_newest_first = True\n")
    with GitStore.open(path) as store:
        snapshot = store.snapshot(sha)
        snapshot.files()  # the listing, asked first
        index = wordindex.WordIndex(snapshot)
        index.expect(("keep_newest_first", "value_3"))
        before = store.git_processes
        index.ask_ahead()
        assert store.git_processes - before == 2
        assert index.holding(("keep_newest_first",)) == {"pkg/notes.py"}
        assert index.holding(("value_3",)) == {"pkg/m03.py"}
        assert store.git_processes - before == 2

        other = wordindex.WordIndex(snapshot)
        other.expect(("value_1",))
        other.ask_ahead()
        other.stop_asking()
        stopped = store.git_processes
        assert other.holding(("value_1",)) == {"pkg/m01.py"}
        assert store.git_processes - stopped == 2



def test_a_line_search_asked_ahead_is_answered_once_and_stopped_when_unwanted(make_repo):
    """Cited lines that left their file are asked of git with the words (:meth:`.WordIndex.ask_ahead`):
    one ``git grep`` for every line announced, answering each line's search without asking
    again. A line search nothing took in is stopped, and its lines stay announced."""
    path, sha = _values_and_notes(make_repo, 5, "keep_newest_first = True\nvalue_3 = 3\n")
    with GitStore.open(path) as store:
        snapshot = store.snapshot(sha)
        snapshot.files()  # the listing, asked first
        index = wordindex.WordIndex(snapshot)
        index.expect_line("keep_newest_first = True")
        index.expect_line("value_3 = 3")
        before = store.git_processes
        index.ask_ahead()
        assert index.asking and store.git_processes - before == 1
        assert index.holding_line("keep_newest_first = True") == {"pkg/notes.py"}
        assert index.holding_line("value_3 = 3") == {"pkg/m03.py", "pkg/notes.py"}
        assert not index.asking and store.git_processes - before == 1

        other = wordindex.WordIndex(snapshot)
        other.expect_line("value_1 = 1")
        other.ask_ahead()
        other.stop_asking()
        stopped = store.git_processes
        assert not other.asking
        assert other.holding_line("value_1 = 1") == {"pkg/m01.py"}
        assert store.git_processes - stopped == 1

def _prose_tree(make_repo, count: int) -> tuple:
    """A prose target of ``count`` notes sharing their common words, each holding one plain
    word of its own (:func:`_own`): its path and commit."""
    repo = make_repo("prose")
    files = {f"notes/n{i:02d}.md": f"The notes of the team keep the words they share.\n"
                                   f"Only this note says {_own(i)} and nothing more.\n" for i in range(count)}
    return repo.path, repo.commit(files, "notes")


def _own(i: int) -> str:
    return "marker" + chr(97 + i % 26) + chr(97 + i // 26)


def _missing(text: str) -> Evidence:
    return Evidence(EvidenceKind.QUOTE, "notes/gone.md", 1, 1, text=text)


#: the notes of the prose tree the missing-quotation searches look in
_NOTES = 40


@contextlib.contextmanager
def _searched_once(make_repo, short_texts: list[str]):
    """A prose tree searched at its pin for ten missing quotations git's word search narrows
    (each found in its own note) and for ``short_texts``, which it cannot (short words
    only; found nowhere): the store, the pinned tree and its word index."""
    path, sha = _prose_tree(make_repo, _NOTES)
    with GitStore.open(path) as store:
        pinned = store.snapshot(sha)
        index = wordindex.word_index(pinned)
        own = [_missing(f"Only this note says {_own(i)} and nothing more.") for i in range(10)]
        short = [_missing(text) for text in short_texts]
        search.expect_missing(pinned, [*own, *short])
        found = [search.found_instead(evidence, pinned) for evidence in [*own, *short]]
        assert found[:10] == [f"found instead in notes/n{i:02d}.md:2 (fix the cited path)" for i in range(10)]
        assert found[10:] == [""] * len(short)
        yield store, pinned, index


def test_the_search_for_missing_quotations_tests_their_candidate_files_not_the_tree(make_repo):
    """Quotations missing at their pin are looked for in the pinned tree. One pass over it
    gathers which files hold each word (quotations of short words give git nothing to
    narrow by, so every file is read once); each quotation's test then runs only in the
    files holding its words, and a later batch reads only those: never quotations x files."""
    # more of them than are tested on every file
    shorts = [f"it is on a map {word}" for word in ("one", "two", "six", "ten", "red")]
    assert len(shorts) > wordindex._FEW_NEEDLESS
    with _searched_once(make_repo, shorts) as (store, pinned, index):
        # one pass over the tree gathers its words, then each quotation's own file is tested
        # (the short ones' words are nowhere together)
        assert index.files_read == _NOTES + 10
        assert index.files_tested == 10
        later = [_missing(f"Only this note says {_own(i)} and nothing more.") for i in range(20, 25)]
        read, blobs = index.files_read, store.blobs_read
        assert [search.found_instead(evidence, pinned) for evidence in later] == [
            f"found instead in notes/n{i}.md:2 (fix the cited path)" for i in range(20, 25)]
        assert index.files_read - read == 5 and index.files_tested == 15
        assert store.blobs_read == blobs  # read before, kept by the store's blob cache


def test_one_missing_quotation_git_cannot_narrow_does_not_gather_the_whole_tree(make_repo):
    """Among quotations git's word search narrows, one it cannot (short words only) is
    tested on every file in the same single pass, and the others only in the files git
    names: one such quotation among hundreds made the tree's postings (every word of every
    file) the price of all of them. A second one later gathers the postings (never a
    second plain pass over the tree)."""
    with _searched_once(make_repo, ["it is on a map"]) as (_, pinned, index):
        assert index._postings is None
        # every file once (the short quotation's test), and each other quotation's own file
        assert index.files_read == _NOTES
        assert index.files_tested == _NOTES + 10
        other = _missing("of the")  # no word git is asked for again (it asks for 4+ letters)
        assert search.found_instead(other, pinned) == (
            "found instead in notes/n00.md:1, notes/n01.md:1, notes/n02.md:1, notes/n03.md:1 and 36 more "
            "(fix the cited path)")
        assert index._postings is not None
        # the pass gathering the postings, then the files holding its words (every one here)
        assert index.files_read == 3 * _NOTES


def test_a_planned_run_searches_for_missing_quotations_while_drift_is_classified(
        make_repo, tmp_path, monkeypatch):
    """Planned checks start the pinned tree's word search for the quotations missing there
    before drift is classified, and search for them after it: their ``git grep`` runs
    meanwhile. Every missing quotation's result still says where the pinned tree holds it.
    (HEAD's search is asked when a quotation that left its file needs it: asked ahead, it
    was a wasted ``git grep`` in runs where none did.)"""
    repo = make_repo("target")
    pin = repo.commit({**_HELPERS, "pkg/c.py": "def third_helper():\n    return fetch_rows(table_name)\n"}, "first")
    repo.commit({"pkg/a.py": "pass\n", "lib/moved_a.py": _HELPERS["pkg/a.py"]}, "move a")
    report = tmp_path / "report.txt"
    # the second quotation cites the wrong file: the pinned tree holds it in pkg/c.py
    _store_report(report, pin, [("return load_entry(cache_key)", "pkg/a.py"),
                                ("return fetch_rows(table_name)", "pkg/b.py")])
    events: list[tuple[str, str]] = []
    asked, took = wordindex.WordIndex._ask, wordindex.WordIndex._take_in

    def ask(self, wanted):
        if wanted:
            events.append(("ask", self._against().rev))
        return asked(self, wanted)

    def take_in(self):
        if self._asked is not None:
            events.append(("take", self._against().rev))
        return took(self)

    monkeypatch.setattr(wordindex.WordIndex, "_ask", ask)
    monkeypatch.setattr(wordindex.WordIndex, "_take_in", take_in)
    with _engine_over(repo.path, report) as (engine, parsed, quotes):
        engine.check_planned([(parsed, quote) for quote in quotes])
        head = engine.against_rev(engine.binding(parsed, quotes[0].source).store)
        moved, misplaced = engine.drift_result(parsed, quotes[0]), engine.pin_result(parsed, quotes[1])
    assert (moved.status, moved.path) == ("relocated", "lib/moved_a.py")
    assert misplaced.status == "missing" and "found instead in pkg/c.py:2" in misplaced.message
    # the pinned tree's search for the missing quotation runs while drift asks HEAD's: it is
    # taken in only after HEAD's search was asked (the drift of the quotation that left its file)
    last_pin_take = max(index for index, event in enumerate(events) if event == ("take", pin))
    assert ("ask", head) in events[:last_pin_take], events


def test_the_against_trees_search_starts_before_drift_is_classified(make_repo, tmp_path):
    """A quotation that left its file at the against-revision is searched for in the whole
    tree (one ``git grep``). The engine starts that search with the pair's first questions,
    before any evidence is classified, and classifies the evidence that may take it in last:
    git searches on another core while the rest is classified (it waited for it before)."""
    from pytest_memreport.engine import Engine, RunOptions

    repo = make_repo("ledger")
    body = "def settle_{n}(ledger):\n    # the ledger of {n} closes early\n    return ledger.balance_{n}\n"
    pin = repo.commit({f"pkg/m{n}.py": body.format(n=n) for n in range(4)}, "pin")
    repo.delete("pkg/m0.py")
    # gathered into a file of other code: no rename follows it there, the search finds it
    other = "".join(f"def step_{k}(books):\n    return books.page({k})\n\n\n" for k in range(30))
    repo.commit({"lib/moved.py": other + body.format(n=0),
                 "pkg/m1.py": body.format(n=1) + "\n\ndef later():\n    return 1\n"}, "move one, edit one")
    lines = ["Run report", "", f"The target is at SRC-1 commit {pin}.", "", "MEM-OBJ-1", "", "Label: ledgers", ""]
    lines += [f"the ledger of {n} closes early --- pkg/m{n}.py:2" for n in range(4)]
    report = tmp_path / "report.txt"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")

    def classified(ahead: bool) -> tuple[dict, float]:
        """Each quotation's drift and the git processes the run started, with the pair's
        questions asked before any classification (``ahead``) or by the first one."""
        engine = Engine(RunOptions(repos={None: str(repo.path)}, against="HEAD", rootdir=tmp_path), [report])
        try:
            with engine.caches.active():  # as check_planned runs them: in the engine's caches
                parsed = engine.report(report)
                evidence = parsed.all_evidence()
                engine.plan.schedule([(parsed, e) for e in evidence])
                (binding,) = engine.plan.pin_bindings()
                engine.pins.check_pin(binding)
                index = wordindex.word_index(binding.pinned.store.snapshot("HEAD"))
                if ahead:
                    searching = engine.drift.start_pairs()
                    # Only the quotation whose file is gone may search; its search is under way.
                    assert {e.path for e in searching} == {"pkg/m0.py"}
                    assert index.asking
                results = {e.path: engine.drift_result(parsed, e) for e in evidence}
                assert not index.asking  # taken in by the search
                engine.drift.stop_asking()
                return results, engine.timing_json()["git_processes"]
        finally:
            engine.close()

    results, processes = classified(ahead=True)
    # The search asked ahead is the one the classification took in: not asked again.
    assert (results, processes) == classified(ahead=False)
    assert results["pkg/m0.py"].status == drift.RELOCATED and results["pkg/m0.py"].path == "lib/moved.py"
    assert {results[f"pkg/m{n}.py"].status for n in (2, 3)} == {drift.UNCHANGED}
