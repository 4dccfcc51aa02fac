"""The HTML site (``--memreport-html``), generated for a knowledge base of twelve reports in
three dialects and opened in a real headless browser (Chromium from the distribution).

The browser's DOM dump is what a person's browser shows after the page's own script ran;
its screenshot is checked for a visible table. ``.ci/run`` installs Chromium.
"""

from __future__ import annotations

import html.parser
import shutil
import subprocess
from pathlib import Path

import pytest

import dialect_texts
from dialect_texts import HOSTILE, QUEUE_PY, STORE_PY, review_report, run_report
from pytest_memreport.outputs import html as site

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
needs_browser = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine (.ci/run installs it)")



def record_report(pin: str, quote: str, name: str) -> str:
    return dialect_texts.record_report(pin, name, quote, "pkg/store.py:4-5", record_id=f"MEM-OBJ-{name}")


@pytest.fixture
def knowledge_base(pytester, make_repo):
    """Twelve reports, four per dialect; the store's `keep` is rewritten after the pin
    (breaking what cites it) and the queue moves to another folder."""
    repo = make_repo("store")
    pin = repo.commit({"pkg/store.py": STORE_PY, "pkg/queue.py": QUEUE_PY}, "the store and its queue")
    repo.move("pkg/queue.py", "lib/queue.py")
    repo.commit(message="Move the queue to lib")
    repo.commit({"pkg/store.py": STORE_PY.replace("return entries[-LIMIT:]", "return sorted(entries)[:LIMIT]")},
                "Keep the smallest entries instead")
    kb = pytester.path / "kb"
    reports = {
        "records/fresh-one.md": record_report(pin, "LIMIT = 200", "FreshOne").replace("pkg/store.py:4-5",
                                                                                    "pkg/store.py:1"),
        "records/fresh-two.md": record_report(pin, "def keep(entries):", "FreshTwo"),
        "records/stale-one.md": record_report(pin, "return entries[-LIMIT:]", "StaleOne"),
        "records/hostile.md": record_report(pin, HOSTILE, "Hostile"),
        "reviews/fresh-a.md": review_report(pin, "pkg/store.py", "8-9", "def drop(entries):", "Drop review"),
        "reviews/fresh-b.md": review_report(pin, "pkg/store.py", "1-1", "LIMIT = 200", "Limit review"),
        "reviews/stale-a.md": review_report(pin, "pkg/store.py", "4-5", "return entries[-LIMIT:]", "Keep review"),
        "reviews/moved-a.md": review_report(pin, "pkg/queue.py", "2-3", "self.items.append(item)", "Queue review"),
        "runs/one/result.md": run_report(pin, "pkg/store.py:1", "Limit"),
        "runs/two/result.md": run_report(pin, "pkg/store.py:4-5", "Keep"),
        "runs/three/result.md": run_report(pin, "pkg/queue.py:2-3", "Queue"),
        "runs/four/result.md": run_report(pin, "pkg/store.py:8-9", "Drop"),
    }
    for name, text in reports.items():
        (kb / name).parent.mkdir(parents=True, exist_ok=True)
        (kb / name).write_text(text, encoding="utf-8")
    return repo, pin, kb, sorted(reports)


def build_site(pytester, repo, kb, *args):
    out = pytester.path / "site"
    result = pytester.runpytest_subprocess(
        "--memreport", str(kb), "--memreport-repo", f"acme/store={repo.path}", "--memreport-repo", str(repo.path),
        "--memreport-html", str(out), "-p", "no:cacheprovider", *args)
    assert f"wrote the HTML report to {out / 'index.html'}" in result.stdout.str(), result.stdout.str()[-3000:]
    return out, result


def dom(page: Path, fragment: str = "") -> str:
    """The page's DOM after its script ran, as the browser holds it."""
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                           page.as_uri() + fragment], capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


class Rows(html.parser.HTMLParser):
    """The index's rows as the DOM has them: (report, state, hidden)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and "data-state" in attrs:
            self.rows.append({"state": attrs["data-state"], "hidden": "hidden" in attrs, "cells": []})
        elif tag == "td" and self.rows:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.rows[-1]["cells"].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def index_rows(text: str) -> list[dict]:
    parser = Rows()
    parser.feed(text)
    return parser.rows


@needs_browser
def test_the_index_lists_every_report_with_its_state_and_filters(pytester, knowledge_base):
    repo, pin, kb, names = knowledge_base
    out, result = build_site(pytester, repo, kb)
    rows = index_rows(dom(out / "index.html"))
    by_report = {row["cells"][0]: row for row in rows}
    assert sorted(by_report) == sorted(f"kb/{name}" for name in names)
    stale = {name for name, row in by_report.items() if row["state"] == "stale"}
    assert {"kb/records/stale-one.md", "kb/reviews/stale-a.md", "kb/runs/two/result.md"} <= stale
    assert by_report["kb/records/fresh-one.md"]["state"] == "fresh"
    assert by_report["kb/reviews/fresh-b.md"]["state"] == "fresh"
    # sorted by staleness: every stale report comes before every fresh one
    states = [row["state"] for row in rows]
    assert states.index("fresh") > max(i for i, s in enumerate(states) if s == "stale")
    # the filter, set from the address as a person would pick it, hides the others
    filtered = index_rows(dom(out / "index.html", "#state=stale"))
    assert {row["cells"][0] for row in filtered if not row["hidden"]} == stale
    assert all(row["hidden"] for row in filtered if row["state"] != "stale")


@needs_browser
def test_a_stale_reports_page_shows_both_sides_and_the_breaking_commit(pytester, knowledge_base):
    repo, pin, kb, _ = knowledge_base
    out, _ = build_site(pytester, repo, kb)
    page = dom(out / site.page_name("kb/reviews/stale-a.md"))
    assert "return entries[-LIMIT:]" in page  # the cited lines at the pin
    assert "sorted(entries)[:LIMIT]" in page  # and at the against-revision
    assert "<del>" in page and "<ins>" in page  # the difference marked
    assert "Keep the smallest entries instead" in page  # the commit that broke it
    breaking = repo.repo.head.commit.hexsha[:12]
    assert breaking in page
    moved = dom(out / site.page_name("kb/reviews/moved-a.md"))
    assert "went to <code>lib/queue.py</code>" in moved


@needs_browser
def test_hostile_text_renders_as_text(pytester, knowledge_base):
    repo, pin, kb, _ = knowledge_base
    out, _ = build_site(pytester, repo, kb)
    page = dom(out / site.page_name("kb/records/hostile.md"))
    assert "<title>memreport: kb/records/hostile.md</title>" in page  # the quotation's script never ran
    assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;" in page
    assert "<script>document.title" not in page


@needs_browser
def test_a_screenshot_of_the_index_shows_the_table(pytester, knowledge_base):
    png = pytest.importorskip("PIL.Image", reason="Pillow is in the test extra")
    repo, pin, kb, _ = knowledge_base
    out, _ = build_site(pytester, repo, kb)
    shot = pytester.path / "index.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,900",
                    f"--screenshot={shot}", (out / "index.html").as_uri()], capture_output=True, timeout=120,
                   check=True)
    image = png.open(shot).convert("RGB")
    assert image.size == (1200, 900)
    colours = image.getcolors(maxcolors=1_000_000)
    assert colours is not None and len(colours) > 20  # not blank
    # the table's rows are drawn: the stale state's red text appears in the upper half
    upper = image.crop((0, 0, 1200, 450))
    reds = sum(count for count, (r, g, b) in upper.getcolors(maxcolors=1_000_000) if r > 150 and g < 80 and b < 80)
    assert reds > 50


def test_the_site_replaces_only_what_it_wrote(tmp_path):
    """The site's manifest lists its own files: the next site replaces or removes those and
    keeps everything else; a file of a site's name it did not write is refused before the run."""
    from pytest_memreport.outputs.files import OutputError

    project = tmp_path / "project"
    project.mkdir()
    (project / "keep.txt").write_text("mine")
    target = site.prepare_site("--memreport-html", project)  # a folder of other files: they stay
    site.write_site(target, {"index.html": "one", "report-old-1.html": "gone"})
    site.prepare_site("--memreport-html", target)  # its own: accepted
    site.write_site(target, {"index.html": "two", "report-new-2.html": "new"})
    assert sorted(p.name for p in target.iterdir()) == sorted(["index.html", "report-new-2.html", site.MARKER,
                                                               "keep.txt"])
    assert (target / "index.html").read_text() == "two" and (target / "keep.txt").read_text() == "mine"
    other = tmp_path / "other"
    other.mkdir()
    (other / "index.html").write_text("the user's own page")
    with pytest.raises(OutputError, match="index.html in it was not written by this plugin"):
        site.prepare_site("--memreport-html", other)
    # a site of an earlier version: its one-line marker owned the folder's files of the site's names
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    for name, text in {site.MARKER: "written by pytest-memreport\n", "index.html": "old", "report-a-1.html": "old",
                       "keep.txt": "mine"}.items():
        (earlier / name).write_text(text)
    site.write_site(site.prepare_site("--memreport-html", earlier), {"index.html": "new"})
    assert sorted(p.name for p in earlier.iterdir()) == sorted(["index.html", site.MARKER, "keep.txt"])


def test_side_by_side_marks_lines_and_characters():
    old, new = site.side_by_side(["a = 1", "keep <b>", "same"], ["a = 2", "same", "added"])
    assert old.split("\n")[0] == "a = <del>1</del>"
    assert new.split("\n")[0] == "a = <ins>2</ins>"
    assert "<del>keep &lt;b&gt;</del>" in old
    assert "<ins>added</ins>" in new


@needs_browser
@pytest.mark.parametrize("how", [["-n", "2"], ["--memreport-items=record"]], ids=["xdist", "record-items"])
def test_the_site_is_the_same_under_xdist_and_with_record_items(pytester, knowledge_base, how):
    """The site reads the results the controller gathers: the same states and pages whether
    items ran in workers or one per record."""
    repo, pin, kb, names = knowledge_base
    out, _ = build_site(pytester, repo, kb)
    serial = {row["cells"][0]: row["state"] for row in index_rows((out / "index.html").read_text())}
    other, _ = build_site(pytester, repo, kb, *how)
    assert {row["cells"][0]: row["state"] for row in index_rows((other / "index.html").read_text())} == serial
    page = (other / site.page_name("kb/reviews/stale-a.md")).read_text()
    assert "sorted(" in page and "Keep the smallest entries instead" in page
