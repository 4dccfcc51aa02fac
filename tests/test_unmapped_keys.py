"""The first run over a knowledge base with no mapping says which repositories to map, by
the names its documents give them (FORMAT.md §7: "the pin's repository not mapped (name
the key to give)").

Outside any clone, a document naming its repository only in its pin's sentence ("Pinned to
acme/widgets at ...") was told "the folder is not inside a git repository: give the path of
a clone"; and once more than a handful of documents were unchecked, their one summary line
said only "no repository", naming no key.
"""

from __future__ import annotations

SHA = "1234567890abcdef1234567890abcdef12345678"
OTHER = "abcdef1234567890abcdef1234567890abcdef12"


def _write(pytester, name: str, repository: str, pin: str) -> None:
    (pytester.path / "kb").mkdir(exist_ok=True)
    (pytester.path / "kb" / name).write_text(f"# {name}\n\nPinned to {repository} at `{pin}`.\n\n"
                                             "The queue is built in `src/queue.ts:2-3`.\n", encoding="utf-8")


def test_a_document_naming_its_repository_in_its_pins_words_is_told_that_key(pytester):
    _write(pytester, "one.md", "acme/widgets", SHA)
    result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", "kb/one.md", "--memreport-against=none", "-rs")

    out = result.stdout.str()
    assert "give --memreport-repo acme/widgets=PATH" in out and "not inside a git repository" not in out
    assert result.ret == 1  # (nothing checked: never green)


def test_many_unchecked_documents_are_told_in_one_line_each_key_to_give(pytester):
    for n in range(4):
        _write(pytester, f"w{n}.md", "acme/widgets", SHA)
    for n in range(2):
        _write(pytester, f"g{n}.md", "acme/gadgets", OTHER)
    result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", "kb", "--memreport-against=none")

    result.stdout.fnmatch_lines(["unchecked  6 reports: no repository; they name acme/widgets (4), acme/gadgets (2): "
                                 "give --memreport-repo KEY=PATH for each*"])
