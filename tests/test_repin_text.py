"""The text pieces of a re-pin: a link's URL respelled, paths found as whole paths,
ranges in the forms reports write them."""

from __future__ import annotations

from pytest_memreport.dialects.core.links import parse_repository_link
from pytest_memreport.model import LineRange
from pytest_memreport.outputs.repin.citations import occurrences, written_after
from pytest_memreport.outputs.repin.links import link_text_span, rewritten_url
from pytest_memreport.outputs.repin.target import Move, respell, same_commit

OLD = "3f9c2a71d04b8e65a1c9f0e27b4d8a6c51e3f902"
NEW = "b7e41d09c2f8a35e6d10c4b9f7a2e8d3c615a0f4"


def repinned(url: str, move: Move | None, new_path: str | None) -> str:
    return rewritten_url(url, parse_repository_link(url), NEW, move, new_path)


def test_urls_keep_their_spelling():
    move = Move("src/a b.py", "lib/a b.py", LineRange(3, 4), LineRange(13, 14))
    assert repinned(f"https://github.com/o/r/blob/{OLD}/src/a%20b.py#L3-L4", move, "lib/a b.py") == \
        f"https://github.com/o/r/blob/{NEW}/lib/a%20b.py#L13-L14"
    assert repinned(f"https://gitlab.com/o/r/-/blob/{OLD[:8]}/src/x.rs#L3", Move("src/x.rs", "src/x.rs",
                    LineRange(3, 3), LineRange(5, 5)), "src/x.rs") == \
        f"https://gitlab.com/o/r/-/blob/{NEW[:8]}/src/x.rs#L5"
    assert repinned(f"https://raw.githubusercontent.com/o/r/{OLD}/docs/a.md", None, "docs/b.md") == \
        f"https://raw.githubusercontent.com/o/r/{NEW}/docs/b.md"
    assert repinned(f"https://github.com/o/r/tree/{OLD}/src/core/", None, "crates/core") == \
        f"https://github.com/o/r/tree/{NEW}/crates/core/"
    assert repinned(f"https://github.com/o/r/commit/{OLD}", None, None) == f"https://github.com/o/r/commit/{NEW}"
    # an unchanged path keeps its escapes; a query stays
    assert repinned(f"https://github.com/o/r/blob/{OLD}/src/%C3%A9.py?plain=1#L2", None, "src/é.py") == \
        f"https://github.com/o/r/blob/{NEW}/src/%C3%A9.py?plain=1#L2"


def test_links_of_other_forges_are_respelled_in_their_own_layouts():
    # Gitea and Forgejo (Codeberg), Bitbucket and Sourcegraph links were read as nothing; once
    # read, a re-pin wrote the new commit where GitHub keeps its ref, into the path.
    move = Move("src/a.py", "lib/a.py", LineRange(3, 4), LineRange(13, 14))
    assert repinned(f"https://codeberg.org/o/r/src/commit/{OLD}/src/a.py#L3-L4", move, "lib/a.py") == \
        f"https://codeberg.org/o/r/src/commit/{NEW}/lib/a.py#L13-L14"
    assert repinned(f"https://bitbucket.org/o/r/src/{OLD[:12]}/src/a.py#lines-3:4", move, "lib/a.py") == \
        f"https://bitbucket.org/o/r/src/{NEW[:12]}/lib/a.py#lines-13:14"
    assert repinned(f"https://sourcegraph.com/github.com/o/r@{OLD}/-/blob/src/a.py?L3-4", move, "lib/a.py") == \
        f"https://sourcegraph.com/github.com/o/r@{NEW}/-/blob/lib/a.py?L13-14"
    # each read as the same file and lines of o/r at the old commit
    for url in (f"https://codeberg.org/o/r/src/commit/{OLD}/src/a.py#L3-L4",
                f"https://bitbucket.org/o/r/src/{OLD}/src/a.py#lines-3:4",
                f"https://sourcegraph.com/github.com/o/r@{OLD}/-/blob/src/a.py?L3:1-4:9"):
        link = parse_repository_link(url)
        assert (link.repo_id, link.ref, link.path, link.lines) == ("o/r", OLD, "src/a.py", LineRange(3, 4)), url


def test_shas_compare_by_prefix_and_keep_their_length():
    assert same_commit(OLD[:7], OLD) and same_commit(OLD, OLD[:12]) and not same_commit(OLD[:6], OLD)
    assert not same_commit(NEW[:9], OLD)
    assert respell(OLD[:7], NEW) == NEW[:7] and respell(OLD, NEW) == NEW
    assert respell(OLD[:10].upper(), NEW) == NEW[:10].upper()


def test_paths_are_found_whole_with_their_ranges():
    text = "see src/a.py:10-20,30–34 and lib/src/a.py:5, src/a.py.bak, `src/a.py` and src/a.py#L3-L4."
    found = occurrences(text, "src/a.py")
    assert [text[o.start:o.end] for o in found] == ["src/a.py"] * 3
    assert [[(t.lines.start, t.lines.end, t.dash) for t in o.ranges] for o in found] == [
        [(10, 20, "-"), (30, 34, "–")], [], [(3, 4, "-L")]]
    assert occurrences("src/core/ and src/core/x.py", "src/core")[0].start == 0
    assert len(occurrences("src/core/ and src/core/x.py", "src/core")) == 1


def test_written_forms_follow_the_new_path():
    assert written_after("a/b.py", "a/b.py", "c/b.py") == "c/b.py"
    assert written_after("/home/ana/src/w/a/b.py", "a/b.py", "c/d.py") == "/home/ana/src/w/c/d.py"
    assert written_after("b.py", "src/a/b.py", "pkg/a/c.py") == "c.py"
    assert written_after("a/b.py", "src/a/b.py", "pkg/x/b.py") == "x/b.py"


def test_the_text_of_a_link_is_found_before_its_target():
    text = "see [the `x` [nested] file](https://github.com/o/r/blob/abc1234/x.py) now"
    url_start = text.index("https://")
    start, end = link_text_span(text, url_start)
    assert text[start:end] == "the `x` [nested] file"
    assert link_text_span("plain https://github.com/o/r/blob/abc1234/x.py", 6) is None
