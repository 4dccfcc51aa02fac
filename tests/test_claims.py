"""Claims files: loading, line numbers, every validation error as one file:line message."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_memreport.dialects.claims import (
    PREDICATE_KINDS,
    ClaimsError,
    claims_path_for,
    describe_unknown_record,
    find_claims,
    load_claims,
    merge_predicates,
    parse_claims,
    parse_inline,
    unknown_records,
)

FULL = """\
schema: memreport-claims/1
sources:
  SRC-1: {repo: ../target, pin: 1a2b3c4}
  acme/widgets: {pin: 0000123}
records:
  MEM-RTE-entry-refresh:
    predicates:
      - contains: {path: src/store.py, text: "LIMIT = 200"}
      - absent: {glob: ["src/store/**", "src/api/*.py"], regex: "swap_in_place|\\\\bcas\\\\(", in: code}
      - count: {glob: "src/**/*.py", regex: "def drop", equals: 1}
      - symbol: {path: src/store.py, name: Store.drop, kind: method, source: SRC-1}
      - value:
          path: src/store.py
          symbol: LIMIT
          equals: 8_000
    observe:
      - run: "python -m pytest -q tests/test_store.py"
        cwd: .
        timeout: 600
        env: {MODE: fast}
        axis: operation
        covers: false
      - run: [python, -m, pytest, tests/test_api.py]
  MEM-ABS-no-eviction:
    predicates:
      - absent: {glob: "src/**", text: "evict("}
"""


def write(tmp_path: Path, text: str, name: str = "memory.claims.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_full_file_keeps_every_line(tmp_path):
    path = write(tmp_path, FULL)
    claims = load_claims(path)
    assert claims.path == str(path)
    assert [(s.id, s.repo, s.pin, s.line) for s in claims.sources] == [
        ("SRC-1", "../target", "1a2b3c4", 3),
        # an all-digit pin stays the string as written, leading zeros and all
        ("acme/widgets", None, "0000123", 4),
    ]
    assert claims.sources[0].repo_path == (tmp_path / "../target").resolve()
    record = claims.records["MEM-RTE-entry-refresh"]
    assert record.line == 6
    assert [(p.kind, p.line, p.index) for p in record.predicates] == [
        ("contains", 8, 0),
        ("absent", 9, 1),
        ("count", 10, 2),
        ("symbol", 11, 3),
        ("value", 12, 4),
    ]
    contains, absent, count, symbol, value = record.predicates
    assert contains.args == {"path": "src/store.py", "text": "LIMIT = 200", "in": "any"}
    assert absent.args == {"glob": ["src/store/**", "src/api/*.py"], "regex": r"swap_in_place|\bcas\(", "in": "code"}
    assert absent.where == "code"
    assert count.args["glob"] == ["src/**/*.py"] and count.args["equals"] == 1
    assert symbol.source == "SRC-1" and symbol.args == {"path": "src/store.py", "name": "Store.drop", "kind": "method"}
    assert value.args["equals"] == 8000
    assert all(p.file == str(path) and p.record_id == "MEM-RTE-entry-refresh" for p in record.predicates)
    assert contains.name == "contains@L8"
    # args are plain data: a JSON report can carry them as they are
    json.dumps([p.args for p in record.predicates])

    first, second = record.observations
    assert (first.run, first.cwd, first.timeout, first.env, first.axis, first.covers, first.line, first.index) == (
        "python -m pytest -q tests/test_store.py", ".", 600.0, {"MODE": "fast"}, "operation", False, 17, 0,
    )
    assert second.run == ("python", "-m", "pytest", "tests/test_api.py")
    assert (second.cwd, second.timeout, second.axis, second.covers, second.line) == (".", 600.0, "operation", False, 23)
    assert claims.records["MEM-ABS-no-eviction"].predicates[0].line == 26


def test_claims_found_beside_the_report(tmp_path):
    report = tmp_path / "memory.md"
    report.write_text("# r\n", encoding="utf-8")
    assert claims_path_for(report) == tmp_path / "memory.claims.yaml"
    assert find_claims(report) is None
    write(tmp_path, FULL)
    found = find_claims(report)
    assert found is not None and set(found.records) == {"MEM-RTE-entry-refresh", "MEM-ABS-no-eviction"}


def test_records_may_be_empty_and_paths_are_normalised(tmp_path):
    claims = parse_claims(
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n  MEM-CLM-b:\n    predicates:\n"
        "      - contains: {path: ./src//a.py, text: x}\n      - absent: {glob: src/gen/, text: y}\n",
        "c.yaml",
    )
    assert claims.records["MEM-CLM-a"].predicates == ()
    contains, absent = claims.records["MEM-CLM-b"].predicates
    assert contains.args["path"] == "src/a.py"
    assert absent.args["glob"] == ["src/gen/"]


BAD = [
    # (claims text, line, phrase in the message)
    ("schema: memreport-claims/1\nrecords:\n  MEM-CLM-a: {predicates: [\n", 4, "malformed YAML"),
    ("schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n\tpredicates: []\n", 4, "malformed YAML"),
    ("schema: memreport-claims/2\n", 1, "unsupported schema 'memreport-claims/2'"),
    ("records: {}\n", 1, "no 'schema' key"),
    ("", 1, "claims file is empty"),
    ("schema: memreport-claims/1\nrecords: {}\nextras: 1\n", 3, "unknown key 'extras'"),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n      - matches: {path: a.py}\n",
        5,
        "unknown predicate kind 'matches'; known kinds: contains, absent, count, symbol, value",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n      - contains: {path: a.py}\n",
        5,
        "needs exactly one of text or regex",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - contains: {path: a.py, glob: '*.py', text: x}\n",
        5,
        "needs exactly one of path or glob (both path and glob given)",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - contains: {path: a.py, text: x, colour: red}\n",
        5,
        "unknown key 'colour' in contains predicate; allowed keys:",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - absent:\n          glob: src/**\n          regex: 'open(['\n",
        7,
        "invalid regex 'open([': unterminated character set",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - absent: {glob: src/**, regex: 'x*'}\n",
        5,
        "can match empty text",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - contains: {path: /etc/passwd, text: root}\n",
        5,
        "is absolute",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - absent:\n          glob: [src/**, ../other/**]\n          text: x\n",
        6,
        "leaves the repository ('..')",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - contains: {path: 'src/*.py', text: x}\n",
        5,
        "has wildcards; use 'glob:'",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - count: {glob: src/**, regex: def, equals: many}\n",
        5,
        "equals must be a whole number; got 'many'",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - count:\n          glob: src/**\n          regex: def\n          min: 2.5\n",
        8,
        "min must be a whole number",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - count: {glob: src/**, regex: def}\n",
        5,
        "needs equals, min or max",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - count: {glob: src/**, regex: def, min: 3, max: 1}\n",
        5,
        "max 1 is below min 3",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - contains: {path: a.py, text: x, in: docs}\n",
        5,
        "in: 'docs' is not one of code, comments, strings, any",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n      - symbol: {path: a.py}\n",
        5,
        "symbol predicate has no 'name'",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - value: {path: a.py, symbol: LIMIT, equals: [1, 2]}\n",
        5,
        "value equals must be a number or a string",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - contains: {path: a.py, text: x}\n        absent: {path: a.py, text: y}\n",
        5,
        "a predicate is one '<kind>: {...}' entry",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n"
        "      - contains: {path: a.py, text: x, source: 'the repo'}\n",
        5,
        "is neither SRC-n nor owner/name",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates: []\n  MEM-CLM-a:\n    predicates: []\n",
        5,
        "duplicate key 'MEM-CLM-a' in records (first at line 3)",
    ),
    ("schema: memreport-claims/1\nrecords:\n  not an id: {}\n", 3, "is not a record ID"),
    ("schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates: {contains: {}}\n", 4, "must be a list"),
    ("schema: memreport-claims/1\nsources:\n  SRC-1: {repo: ../t, branch: main}\n", 3, "unknown key 'branch'"),
    ("schema: memreport-claims/1\nsources:\n  origin: {repo: ../t}\n", 3, "neither SRC-n nor owner/name"),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    observe:\n      - cwd: .\n",
        5,
        "observation has no 'run'",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    observe:\n      - run: pytest\n        timeout: soon\n",
        6,
        "timeout must be a positive number",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    observe:\n      - run: pytest\n        covers: maybe\n",
        6,
        "covers must be true or false",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    observe:\n      - run: pytest\n        cwd: ../up\n",
        6,
        "leaves the repository",
    ),
    (
        "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    observe:\n      - run: pytest\n        shell: bash\n",
        6,
        "unknown key 'shell'",
    ),
]


@pytest.mark.parametrize(("text", "line", "phrase"), BAD, ids=[b[2][:40] for b in BAD])
def test_bad_input_is_one_line_naming_file_and_line(tmp_path, text, line, phrase):
    path = tmp_path / "bad.claims.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ClaimsError) as caught:
        load_claims(path)
    message = caught.value.message
    assert "\n" not in message
    assert message.startswith(f"{path}:{line}: "), message
    assert phrase in message
    # every message also says what to do, after a semicolon
    assert ";" in message


def test_unreadable_claims_file_is_a_claims_error(tmp_path):
    with pytest.raises(ClaimsError, match=r"missing\.claims\.yaml:1: cannot read"):
        load_claims(tmp_path / "missing.claims.yaml")
    bad = tmp_path / "latin.claims.yaml"
    bad.write_bytes(b"schema: memreport-claims/1\n# caf\xe9\n")
    with pytest.raises(ClaimsError, match="not UTF-8"):
        load_claims(bad)


def test_inline_block_lines_map_to_report_lines():
    block = (
        "- contains: {path: src/a.py, text: 'LIMIT = 200'}\n"
        "# a comment line\n"
        "- absent:\n"
        "    glob: src/**\n"
        "    regex: 'evict\\('\n"
        "    in: code\n"
    )
    predicates = parse_inline(block, "reports/memory.md", 40, "MEM-CLM-limit")
    assert [(p.kind, p.line, p.index, p.file, p.record_id) for p in predicates] == [
        ("contains", 40, 0, "reports/memory.md", "MEM-CLM-limit"),
        ("absent", 42, 1, "reports/memory.md", "MEM-CLM-limit"),
    ]
    # the same block with its fences: the first fence line is the block's first line
    fenced = "```memreport\n" + block + "```"
    again = parse_inline(fenced, "reports/memory.md", 39, "MEM-CLM-limit")
    assert [p.line for p in again] == [40, 42]
    assert again == predicates


def test_inline_block_errors_point_at_report_lines():
    with pytest.raises(ClaimsError) as caught:
        parse_inline("- contains: {path: a.py, text: x}\n- nope: {}\n", "r.md", 10, "MEM-CLM-a")
    assert caught.value.message.startswith("r.md:11: unknown predicate kind 'nope'")
    with pytest.raises(ClaimsError, match=r"^r\.md:7: malformed YAML"):
        parse_inline("- contains: {path: a.py\n", "r.md", 6, "MEM-CLM-a")
    with pytest.raises(ClaimsError, match=r"^r\.md:3: a memreport block must be a YAML list"):
        parse_inline("contains: {path: a.py, text: x}\n", "r.md", 3, "MEM-CLM-a")
    with pytest.raises(ClaimsError, match=r"^r\.md:3: empty memreport block"):
        parse_inline("\n", "r.md", 3, "MEM-CLM-a")


def test_unknown_records_across_the_set(tmp_path):
    one = load_claims(write(tmp_path, FULL, "memory.claims.yaml"))
    two = parse_claims(
        "schema: memreport-claims/1\nrecords:\n  RT-RTE-loop: {}\n  RT-OBJ-queue: {}\n", str(tmp_path / "rt.claims.yaml")
    )
    declared = {"MEM-RTE-entry-refresh", "RT-OBJ-queue", "MEM-ABS-no-evictions"}
    assert unknown_records([one, two], declared) == [
        (one.path, 24, "MEM-ABS-no-eviction"),
        (two.path, 3, "RT-RTE-loop"),
    ]
    message = describe_unknown_record(one.path, 24, "MEM-ABS-no-eviction", declared)
    assert message.startswith(f"{one.path}:24: no loaded report declares MEM-ABS-no-eviction")
    assert "did you mean MEM-ABS-no-evictions?" in message
    assert "did you mean" not in describe_unknown_record("f", 1, "ZZ-CLM-q", declared)


def test_merge_predicates_keeps_order(tmp_path):
    claims = load_claims(write(tmp_path, FULL))
    inline = {"MEM-RTE-entry-refresh": parse_inline("- contains: {path: a.py, text: x}\n", "r.md", 5, "MEM-RTE-entry-refresh")}
    merged = merge_predicates({k: v.predicates for k, v in claims.records.items()}, inline)
    assert [p.kind for p in merged["MEM-RTE-entry-refresh"]] == ["contains", "absent", "count", "symbol", "value", "contains"]
    assert merged["MEM-RTE-entry-refresh"][-1].file == "r.md"


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_never_escapes_as_another_exception(text):
    try:
        parse_claims(text, "fuzz.claims.yaml")
    except ClaimsError as exc:
        # one line per problem, each naming the file and line
        assert exc.messages and all("\n" not in m and m.startswith("fuzz.claims.yaml:") for m in exc.messages)


@settings(max_examples=40, deadline=None)
@given(
    kind=st.sampled_from(PREDICATE_KINDS),
    value=st.one_of(st.text(max_size=20), st.integers(), st.lists(st.text(max_size=5), max_size=3)),
    key=st.sampled_from(["path", "glob", "text", "regex", "equals", "min", "name", "symbol", "in"]),
)
def test_arbitrary_predicate_bodies_fail_cleanly(kind, value, key):
    body = json.dumps({key: value})
    text = f"schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n    predicates:\n      - {kind}: {body}\n"
    try:
        parse_claims(text, "f.yaml")
    except ClaimsError as exc:
        # every problem is reported, each on one line naming the file and line
        assert exc.messages and all("\n" not in m and m.startswith("f.yaml:") for m in exc.messages)


def test_every_example_in_the_schema_documentation_is_valid():
    docs = Path(__file__).resolve().parents[1] / "docs" / "CLAIMS.md"
    text = docs.read_text(encoding="utf-8")
    blocks = re.findall(r"^```(yaml|memreport)\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
    assert len(blocks) >= 8
    full_files = 0
    for _, body in blocks:
        if body.startswith("schema:"):
            claims = parse_claims(body, str(docs))
            assert claims.records and all(r.predicates for r in claims.records.values())
            full_files += 1
            assert claims.report is not None and claims.report.predicates
        elif body.startswith("- "):
            assert parse_inline(body, str(docs), 1, "MEM-CLM-doc")
        elif body.startswith(("observe:", "predicates:")):
            from pytest_memreport.dialects.claims import parse_block

            predicates, observations = parse_block(body, str(docs), 1, "MEM-CLM-doc")
            assert predicates or observations
    assert full_files == 1


def test_inline_predicates_of_a_report_by_record():
    from pytest_memreport.model import Record, Report, TextBlock

    report = Report(
        path="r.md",
        dialect="records",
        records=(
            Record("MEM-ABS-no-evict", "MEM", "ABS", 3, 12, label="x",
                   inline_predicates=(TextBlock("- absent: {glob: 'src/**', text: 'evict('}\n", 7, 7),)),
            Record("MEM-CLM-plain", "MEM", "CLM", 14, 16, label="y"),
            Record("RT-RTE-loop", "RT", "RTE", 20, 30, is_annotation=True,
                   inline_predicates=(TextBlock("- contains: {path: a.py, text: x}\n- symbol: {path: a.py, name: f}", 24, 25),)),
        ),
    )
    from pytest_memreport.dialects.claims import inline_predicates

    found = inline_predicates(report)
    assert {rid: [(p.kind, p.line, p.file) for p in preds] for rid, preds in found.items()} == {
        "MEM-ABS-no-evict": [("absent", 7, "r.md")],
        "RT-RTE-loop": [("contains", 24, "r.md"), ("symbol", 25, "r.md")],
    }
    bad = Report(path="r.md", dialect="records", records=(
        Record("MEM-CLM-a", "MEM", "CLM", 1, 9, label="a", inline_predicates=(TextBlock("- contains: {path: a.py}", 5, 5),)),
    ))
    with pytest.raises(ClaimsError, match=r"^r\.md:5: contains predicate needs exactly one of text or regex"):
        inline_predicates(bad)


# --------------------------------------------------------------------------- hostile input (issue 20)

_RECORD_HEAD = "schema: memreport-claims/1\nrecords:\n  MEM-CLM-a:\n"


@pytest.mark.parametrize(
    "body, line, phrase",
    [
        ("    predicates:\n      - count: {glob: '*.py', text: x, equals: !!int abc}\n", 5, "YAML tag"),
        ("    predicates:\n      - value: {path: a.py, symbol: X, equals: !!timestamp 2001-99-99}\n", 5, "YAML tag"),
        ("    predicates:\n      - contains: {path: !!python/name:os.system a.py, text: x}\n", 5, "YAML tag"),
        ("    predicates:\n      - contains: !foo {path: a.py, text: x}\n", 5, "YAML tag '!foo'"),
        ("    predicates:\n      - value: {path: a.py, symbol: X, equals: " + "7" * 5001 + "}\n", 5,
         "value equals is a number of 5001 characters"),
        ("    predicates:\n      - count: {glob: '*.py', text: x, equals: 99999999999999999999}\n", 5,
         "out of range"),
        ("    observe:\n      - run: 'true'\n        timeout: " + "9" * 401 + "\n", 6, "timeout is a number of 401"),
        ("    observe:\n      - run: 'true'\n        timeout: .nan\n", 6, "timeout must be a finite number"),
        ("    observe:\n      - run: 'true'\n        timeout: .inf\n", 6, "timeout must be a finite number"),
        ("    observe:\n      - run: 'true'\n        timeout: 1e9\n", 6, "at most 604800"),
        ("    observe:\n      - run: \"pytest\\0 -q\"\n", 5, "run contains a NUL character"),
        ("    observe:\n      - run: [pytest, \"-k\\0x\"]\n", 5, "run contains a NUL character"),
        ("    observe:\n      - run: 'true'\n        cwd: \"sub\\0dir\"\n", 6, "cwd contains a NUL character"),
        ("    observe:\n      - run: 'true'\n        env: {\"A=B\": x}\n", 6, "env name 'A=B' is not a variable name"),
        ("    observe:\n      - run: 'true'\n        env: {A: \"x\\0y\"}\n", 6, "env A contains a NUL character"),
        ("    observe:\n      - run: 'true'\n        axis: implementation\n", 6, "cannot promote the implementation"),
        ("    observe:\n      - run: 'true'\n        covers_file: cov/lcov.info\n        covers: false\n", 7,
         "covers: false with covers_file"),
    ],
)
def test_hostile_claims_input_is_refused_at_load_with_its_line(body, line, phrase):
    with pytest.raises(ClaimsError) as caught:
        parse_claims(_RECORD_HEAD + body, "h.yaml")
    assert all("\n" not in m for m in caught.value.messages)
    assert any(m.startswith(f"h.yaml:{line}: ") and phrase in m for m in caught.value.messages), caught.value.messages


def test_alias_amplified_input_is_bounded():
    """A 64 KiB string used 20 times in one run list would make a 1.3 MB argv; used
    thousands of times in a glob list, gigabytes of text to check. Both are refused
    at load, quickly, with the line."""

    big = "x" * 65536
    run = "[" + ", ".join(["*b"] * 20) + "]"
    text = _RECORD_HEAD + f"    observe:\n      - run: &b '{big}'\n      - run: {run}\n"
    with pytest.raises(ClaimsError, match=r"h\.yaml:6: run is 1310740 bytes long \(at most 131072\)"):
        parse_claims(text, "h.yaml")
    globs = "[" + ", ".join(["*g"] * 5000) + "]"
    bomb = (_RECORD_HEAD + f"    predicates:\n      - contains: {{path: &g 'src/{big}', text: x}}\n"
            f"      - absent: {{glob: {globs}, text: x}}\n")
    with pytest.raises(ClaimsError, match=r"expands \(through YAML aliases\) to more than 16 MiB"):
        parse_claims(bomb, "h.yaml")


def test_five_problems_are_five_messages():
    text = textwrap.dedent(
        """\
        schema: memreport-claims/1
        records:
          MEM-CLM-a:
            predicates:
              - contians: {path: a.py, text: x}
              - symbol: {path: a.py, name: f, kind: func}
              - absent: {glob: /etc/*, text: x}
              - count: {glob: "*.py", regex: "(", equals: 1}
            observe:
              - run: "true"
                covers: maybe
        """
    )
    with pytest.raises(ClaimsError) as caught:
        parse_claims(text, "f.yaml")
    assert [m.split(": ", 1)[0] for m in caught.value.messages] == [
        "f.yaml:5", "f.yaml:6", "f.yaml:7", "f.yaml:8", "f.yaml:11"]


def test_report_section_applies_beside_its_report_and_is_ambiguous_when_named_for_several(tmp_path):
    from pytest_memreport.dialects.claims.assembly import assemble
    from pytest_memreport.model import Report

    path = write(tmp_path, "schema: memreport-claims/1\nreport:\n  predicates:\n    - contains: {path: a.py, text: x}\n",
                 name="shared.claims.yaml")
    claims = load_claims(path)
    review = Report(path=str(tmp_path / "review.md"), dialect="review")
    own = assemble(review, [claims], tmp_path / "shared.claims.yaml", [], 3)
    assert [(p.kind, p.line, p.owner) for p in own.predicates[""]] == [("contains", 4, "report")]
    alone = assemble(review, [claims], tmp_path / "review.claims.yaml", [], 1)
    assert alone.predicates[""] and not alone.errors
    several = assemble(review, [claims], tmp_path / "review.claims.yaml", [], 3)
    assert "" not in several.predicates
    assert several.errors == (f"{path}:2: 'report:' of a claims file named with --memreport-claims applies to one "
                              "report, but 3 are loaded; put it beside the report as review.claims.yaml",)
    # beside another loaded report, it is that report's alone
    other = assemble(review, [claims], tmp_path / "review.claims.yaml", [], 3, frozenset({path.resolve()}))
    assert "" not in other.predicates and not other.errors
