"""Hostile reports: wrong encodings, BOM and CRLF, empty, 10 MB, 100,000 lines
of noise, regex-like text, 5,000-deep Markdown nesting, and adversarial inputs
aimed at every line pattern. Parsing stays linear (timed against plain text of
the same size) and nothing ends in a traceback."""

from __future__ import annotations

import gc
import json

import pytest

from hostile_support import (
    HOSTILE_RUNS,
    HOSTILE_SLACK,
    assert_clean,
    baseline_run_cpu,
    cpu_of,
    cpu_seconds,
    line_of,
    records_report,
    run_report,
)
from pytest_memreport.dialects import parse_report

STORE_PY = "LIMIT = 200\n\n\ndef keep(entries):\n    return entries[-LIMIT:]\n"
PATTERN_TXT = "literal (a+)+$ and [x]{2,}.* \\d+ ^start | end\n"


@pytest.fixture
def target(make_repo):
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY, "pattern.txt": PATTERN_TXT}, "store")
    return repo, pin


def plain_report(pin: str) -> str:
    return records_report(pin, "return entries[-LIMIT:] --- store.py:4-5", "SRC-1: store.py, pattern.txt.")


# -- encodings and line endings -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "byte", "line"),
    [
        (b"Report\n\nMEM-OBJ-x\n\nLabel: caf\xe9\n", "0xe9", 5),  # Latin-1
        ("Report\nMEM-OBJ-x\n".encode("utf-16"), "0xff", 1),  # UTF-16 with its BOM
    ],
    ids=["latin1", "utf16"],
)
def test_report_not_in_utf8_is_one_failing_item_naming_byte_and_line(pytester, target, data, byte, line):
    repo, _ = target
    result = run_report(pytester, data, repo.path)
    out = assert_clean(result)
    result.assert_outcomes(failed=1)
    assert f"report.md is not UTF-8 text (byte {byte} at line {line}); re-save it as UTF-8" in out
    assert result.ret == 1


def records_of(json_path) -> list:
    (report,) = json.loads(json_path.read_text(encoding="utf-8"))["reports"]
    return [report["records"], report["sources"], report["findings"]]


def test_bom_and_line_endings_give_the_same_results_as_plain_lf(pytester, target):
    repo, pin = target
    text = plain_report(pin)
    plain_json = pytester.path / "plain.json"
    run_report(pytester, text, repo.path, "--memreport-json", str(plain_json))
    lf = text.encode("utf-8")
    variants = {
        "bom": b"\xef\xbb\xbf" + lf,
        "crlf": lf.replace(b"\n", b"\r\n"),
        "bom+crlf": b"\xef\xbb\xbf" + lf.replace(b"\n", b"\r\n"),
        "cr": lf.replace(b"\n", b"\r"),
    }
    for variant, data in variants.items():
        odd_json = pytester.path / f"{variant}.json"
        result = run_report(pytester, data, repo.path, "--memreport-json", str(odd_json))
        assert_clean(result)
        result.assert_outcomes(passed=8)
        assert records_of(odd_json) == records_of(plain_json), variant


@pytest.mark.parametrize("content", ["", "\n\n   \n\t\n"], ids=["empty", "blank"])
def test_empty_report_fails_its_structure_item(pytester, target, content):
    repo, _ = target
    result = run_report(pytester, content, repo.path)
    out = assert_clean(result)
    result.assert_outcomes(failed=1, skipped=1)  # and one item says no evidence was checked
    assert "report.md:1: the report is empty; there is nothing to check" in out
    assert "not checked: no evidence to check" in out


def test_control_character_is_a_structural_finding_at_its_line(pytester, target):
    repo, pin = target
    text = plain_report(pin).replace("Label: Subject under test", "Label: Subject\x07 under test")
    result = run_report(pytester, text, repo.path, "--memreport-against", "none")
    out = assert_clean(result)
    result.assert_outcomes(passed=4, failed=1)
    assert "report.md:11: line contains control character U+0007; remove it" in out


def test_a_terminals_colours_in_pasted_output_are_no_structural_finding(pytester, target):
    # An audit finding pasted a test run's output, colours and all (ESC[32m[PASS]ESC[0m), in a
    # fenced block: it failed the report's structure though it quotes no file.
    repo, pin = target
    output = "\n```txt\nRunning 1 test\n\x1b[32m[PASS]\x1b[0m test_limit() (gas: 1640)\n```\n"
    text = plain_report(pin) + output
    result = run_report(pytester, text, repo.path, "--memreport-against", "none")
    assert_clean(result)
    result.assert_outcomes(passed=5)
    # outside a fenced block, or any other control character inside one, is still a finding
    for stray in ("\nRunning \x1b[32mgreen\x1b[0m here\n", output.replace("[PASS]", "[PASS]\x07")):
        result = run_report(pytester, plain_report(pin) + stray, repo.path, "--memreport-against", "none")
        out = assert_clean(result)
        result.assert_outcomes(passed=4, failed=1)
        assert "line contains control character" in out


# -- size -----------------------------------------------------------------------------------------


def noise_lines(count: int) -> str:
    return "".join(
        f"Line {i} of noise: the cache {i % 7} keeps entries, see item {i * 13} and path p{i % 97}/x.py here.\n"
        for i in range(count)
    )


def test_ten_megabyte_report_is_checked_whole(pytester, target):
    repo, pin = target
    text = plain_report(pin) + "\n" + noise_lines(120_000)
    assert len(text.encode("utf-8")) > 10 * 1024 * 1024
    text += "\nMEM-OBJ-last\n\nLabel: After the noise\n\nLIMIT = 200 --- store.py\n"
    result = run_report(pytester, text, repo.path, "--memreport-against", "none")
    assert_clean(result)
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["PASSED report.md::MEM-OBJ-last::quote@L*"])


# -- parse time ------------------------------------------------------------------------------------


def _best_parse_seconds(text: str, dialect: str | None, repeat: int = 2) -> float:
    """Processor seconds of the fastest of ``repeat`` parses (:func:`cpu_seconds`)."""
    gc.collect()
    return cpu_seconds(parse_report, "report.md", text, dialect, runs=repeat)


def _repeat_to(unit: str, size: int) -> str:
    return unit * (size // len(unit) + 1)


def _prose(size: int) -> str:
    words = "the cache keeps entries and drops stale ones when the limit is reached by a writer".split()
    lines = [" ".join(words[(i + k) % len(words)] for k in range(12)) for i in range(size // 40 + 1)]
    return "\n".join(lines)[:size]


#: adversarial report texts by name: each a function of the wanted size in characters
ADVERSARIAL = {
    "nested blockquotes": lambda n: "> " * (n // 2) + "x\n",
    "nested lists": lambda n: "- " * (n // 2) + "x\n",
    "mixed nesting": lambda n: "> 1. - " * (n // 7) + "x\n",
    "open brackets": lambda n: "[" * n,
    "unclosed links": lambda n: _repeat_to("[a](", n),
    "emphasis runs": lambda n: _repeat_to("*a _", n),
    "backtick runs": lambda n: _repeat_to("`a`` ", n),
    "quotation marks": lambda n: _repeat_to(" --- a.py", n),
    "quote paragraphs": lambda n: _repeat_to("x y z\n\n", n) + "q --- a.py\n",
    "ranges": lambda n: "x --- a.py:" + _repeat_to("1-2,", n) + "x",
    "record id slug": lambda n: "MEM-OBJ-" + _repeat_to("a-", n) + "\nLabel: x\n",
    "record id lines": lambda n: _repeat_to("MEM-OBJ-a\nLabel: x\n", n),
    "status keys": lambda n: _repeat_to("a conclusion status: b ", n),
    "pin whitespace": lambda n: "SRC-1" + " " * n + "commit",
    "pin prefixes": lambda n: _repeat_to("SRC-1 commit ", n),
    "citation list": lambda n: "SRC-1: " + _repeat_to("a/b.py, ", n),
    "path token": lambda n: "SRC-1: " + "a" * n,
    "table rows": lambda n: "| a | b |\n|---|---|\n" + _repeat_to("| MEM-OBJ-x | y |\n", n),
    "tab rows": lambda n: _repeat_to("MEM-OBJ-a\tb\tc\n", n),
    "front matter": lambda n: "---\n" + _repeat_to("a: b\n", n),
    "bare urls": lambda n: _repeat_to("https://", n),
    "review marks": lambda n: _repeat_to("**Reviewed commit:** ", n),
    "regex-like text": lambda n: _repeat_to("(a+)+$ [x]{2,}.* \\d+ ^s | (?:a|a)* ", n),
    "carriage returns": lambda n: _repeat_to("a\r", n),
    # a line of spaces where a list of fields, a fence's title or a caption below a block is
    # looked for (each pattern split the spaces between two runs of them every way)
    "labelled lines": lambda n: "- `a/b.py`\n- Lines:" + " " * n + "x\n",
    "fence title": lambda n: "Read at commit `1234567890ab`.\n\n```ts" + " " * n + "\nconst x = 1;\n```\n",
    "caption": lambda n: "Read at commit `1234567890ab`.\n\n```ts\nconst x = 1;\n```\n" + " " * n + "x\n",
    "listing line": lambda n: "```\n100644 blob " + "a" * 40 + " x" + " " * n + "y\n```\n",
    "comment naming a file": lambda n: "Read at commit `1234567890ab`.\n\n```ts\n// a.py" + " " * n + "x\nconst x = 1;\n```\n",
    # a section's lines, a label line of a repository and its sha, a setup's clone, data
    "section lines": lambda n: "## `a/b.py`\n\n" + _repeat_to("- L1-L2: x\n", n),
    "label pins": lambda n: _repeat_to("acme/widgets `abc1234` ", n) + "\n" + _repeat_to("a/b `1a2b3c4`\n", n),
    "setup clones": lambda n: "```bash\n" + _repeat_to("git clone https://x.org/a/b && git checkout 1a2b3c4\n", n) + "```\n",
    "data manifest": lambda n: "```yaml\nfiles:\n" + _repeat_to("  - path: a/b.py\n    blob: 1a2b3c4\n", n) + "```\n",
}

#: a linear parser takes about 4x as long for 4x the text; a quadratic one 16x
_GROWTH_LIMIT = 10.0
#: what markdown-it's inline rules may cost per character beyond plain prose
_BASELINE_RATIO_LIMIT = 150.0


@pytest.fixture(scope="module")
def prose_seconds():
    """Parse time of plain prose by size, measured once per module."""
    measured: dict[int, float] = {}

    def seconds(size: int) -> float:
        if size not in measured:
            measured[size] = max(_best_parse_seconds(_prose(size), None, repeat=3), 1e-3)
        return measured[size]

    return seconds


@pytest.mark.parametrize(
    ("name", "dialect"),
    # Each text as detected, and forced into one of the other two dialects
    # (alternately), so every dialect's line patterns meet half the texts.
    [(name, detected) for name in sorted(ADVERSARIAL) for detected in [None]]
    + [(name, ("review", "tables")[i % 2]) for i, name in enumerate(sorted(ADVERSARIAL))],
)
def test_adversarial_text_parses_in_linear_time(name, dialect, prose_seconds):
    make = ADVERSARIAL[name]
    small, large = 16_000, 64_000
    text = make(large)
    baseline = prose_seconds(large)
    t_small = max(_best_parse_seconds(make(small), dialect, repeat=2), 5e-3)
    t_large = _best_parse_seconds(text, dialect)
    growth = t_large / t_small
    if growth > _GROWTH_LIMIT:
        # One more measurement before calling it superlinear: the machine is shared.
        growth = _best_parse_seconds(text, dialect, repeat=3) / t_small
    assert growth <= _GROWTH_LIMIT, f"{name} [{dialect}]: 4x the text took {growth:.1f}x the time"
    ratio = t_large / baseline
    assert ratio <= _BASELINE_RATIO_LIMIT, f"{name} [{dialect}]: {ratio:.0f}x plain text of the same size"


def test_hundred_thousand_lines_of_noise_cost_what_prose_costs():
    noise = "".join(f"noise {i} of {i % 7}: see p{i % 97}/x.py\n" for i in range(100_000))
    prose = _prose(len(noise))
    ratio = _best_parse_seconds(noise, None, repeat=1) / _best_parse_seconds(prose, None, repeat=1)
    assert ratio < 10, f"noise took {ratio:.1f}x plain prose of the same size"


# -- deep nesting and regex-like quotations through the plugin ---------------------------------------


def test_five_thousand_levels_of_nesting_end_in_findings_not_crashes(pytester, target, make_repo):
    repo, pin = target
    text = plain_report(pin) + "\n".join(
        [
            "",
            "> " * 5000 + "deep quote",
            "",
            "- " * 5000 + "deep list",
            "",
            "> - 1. " * 2000 + "mixed",
            "",
            "```memreport",
            "[" * 5000,
            "]" * 5000,
            "```",
            "",
        ]
    )
    baseline = baseline_run_cpu(pytester, make_repo)
    result, spent = cpu_of(lambda: run_report(pytester, text, repo.path, "--memreport-against", "none"))
    out = assert_clean(result)
    assert "the YAML nests too deeply to read; simplify it" in out
    result.assert_outcomes(passed=5, failed=1)
    assert spent < HOSTILE_RUNS * baseline + HOSTILE_SLACK, (spent, baseline)


@pytest.mark.parametrize(
    "deep",
    [
        "- " * 25 + "one line nested 25 lists deep",
        "".join("  " * level + "- level\n" for level in range(40)),
        "> 1. " * 30 + "lists in quotes",
    ],
    ids=["one-line", "indented", "quotes-and-lists"],
)
def test_records_after_too_deep_nesting_are_not_lost(pytester, target, deep):
    """markdown-it drops the rest of a list nested past its limit: here, the rest of the report."""
    repo, pin = target
    text = "\n".join([plain_report(pin), deep, "", "MEM-OBJ-after", "", "Label: After the nesting", "",
                      "LIMIT = 200 --- store.py", ""])
    result = run_report(pytester, text, repo.path, "--memreport-against", "none")
    assert_clean(result)
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["PASSED report.md::MEM-OBJ-after::quote@L*"])


def test_regex_metacharacters_in_a_quotation_match_literally(pytester, target):
    repo, pin = target
    text = records_report(
        pin,
        "literal (a+)+$ and [x]{2,}.* \\d+ ^start | end --- pattern.txt",
        "literal (a+)* and [x]{2,}.* \\d+ ^start | end --- pattern.txt",
    )
    result = run_report(pytester, text, repo.path, "--memreport-against", "none")
    out = assert_clean(result)
    result.assert_outcomes(passed=3, failed=1)
    assert f"report.md:{line_of(1)}: MEM-OBJ-subject quotation of pattern.txt missing at" in out


def test_adversarial_quotation_against_a_repetitive_file_stays_fast(pytester, make_repo):
    """A quote of many repeated words and a file of the same word: every tier of
    matching has a reason to try every position, and must not try them all again
    for every word."""
    repo = make_repo("target")
    pin = repo.commit({"rep.txt": "a " * 200_000 + "\n", "ok.txt": "a b\n"}, "repetitive")
    quote = " ".join(["a"] * 3000) + " b"
    text = records_report(pin, f"{quote} --- rep.txt", "a b --- ok.txt")
    baseline = baseline_run_cpu(pytester, make_repo)
    result, spent = cpu_of(lambda: run_report(pytester, text, repo.path, "--memreport-against", "none"))
    out = assert_clean(result)
    result.assert_outcomes(passed=3, failed=1)
    assert f"report.md:{line_of(0)}: MEM-OBJ-subject quotation of rep.txt missing at" in out
    assert spent < HOSTILE_RUNS * baseline + HOSTILE_SLACK, (spent, baseline)


def test_manifests_written_as_hostile_yaml_end_in_nothing_read_not_crashes(pytester, target):
    """Data a manifest may be written in (``datatables``): 100,000 nested sequences crashed
    the process when LibYAML composed them; an alias bomb is walked once per node."""
    repo, pin = target
    blob = "a" * 40
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{name}: &{name} [{', '.join([f'*{previous}'] * 9)}]\n" for previous, name in zip("abcdefgh", "bcdefghi"))
    text = plain_report(pin) + "\n".join([
        "", "```yaml", "file: store.py", f"blob: {blob}", "deep:", "  " + "- " * 100_000 + "x", "```",
        "", "```json", '{"files": ' + "[" * 100_000 + "]" * 100_000 + "}", "```",
        "", "```yaml", bomb + f"files: [{{path: store.py, blob: {blob}}}]", "```", ""])
    result = run_report(pytester, text, repo.path)
    out = assert_clean(result)
    # the bomb's one file is read (and is not that blob); the nested blocks are no manifest
    assert "store.py as its manifest names it (aaaaaaaaaaaa) missing" in out, out[-3000:]
    # (one failure: its report line once, however wide the terminal's short summary)
    assert sum(1 for line in out.splitlines()
               if line.startswith("report.md:") and "as its manifest names it" in line) == 1, out[-3000:]
