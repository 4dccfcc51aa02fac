#!/usr/bin/env python
"""The product on real repositories' histories, against floors run in the same process (a script, not a test).

    python benchmarks/bench_realrepos.py --code-repo CLONE --prose-repo CLONE [--rounds 3]
        [--shape users|records] [--workdir /tmp/memreport-realrepos] [--only c,w,q,r,m,d]

or with ``MEMREPORT_BENCH_CODE_REPO`` and ``MEMREPORT_BENCH_PROSE_REPO`` set. Each clone
(bare or not) is brought onto the machine beforehand, by hand: nothing here fetches, and
a measure whose clone is not given is skipped with one line saying so. benchmarks/README.md
names the repositories and commits measured.

From a **code** target (a Python or TypeScript project: thousands of files, hundreds of
first-parent commits between the pin and HEAD), pinned ``--code-back`` first-parent
commits before HEAD, it samples the real files at the pin (seeded, so the same clone gives
the same evidence): 7 x 30 records, each citing 8 line ranges inside real definitions,
quoting one real line of a definition and naming one defined class or function in
backticks beside its line; 5% of the quotations altered (one identifier changed: missing
at the pin). They are checked at the pin and against HEAD.

From a **prose** target (a Markdown-heavy repository: thousands of prose files), pinned
``--prose-back`` first-parent commits before HEAD: 10,000 quotations of real prose lines
in 20 documents, 5% altered (one word changed), checked at the pin only.

``--shape`` says which documents carry that evidence. ``users`` (the default) writes the
shapes users keep (docs/FORMATS.md): the code evidence as **one analysis run** (a folder:
an evidence packet naming the repository, its checkout, the revision and a source register
of 40 of the cited files; a lens file per 30 records, each a table row whose finding names
the symbol beside its line and quotes a line beside its citation, and whose anchor cell
cites the ranges, by register ID where registered), and the prose as **notes** (front
matter, an evidence-basis line pinning by a commit link, sections of paragraphs whose every
sentence ties one quotation to its file: beside a blob link, as a blockquote its sentence
links, or attributed to the file named in backticks); their clones are mapped by the names
the documents write (``--memreport-repo python/typeshed=CLONE``), as in a user's
collection. ``records`` writes the same evidence as record reports (one record per 10
quotations), the clone given as the default.

Round after round it times (``time.perf_counter`` around each process):

(f)  git's own answer for the code pair: ``git diff -M pin HEAD`` + ``git log --first-parent -M --raw pin..HEAD``;
(n)  pytest running as many no-op items as the drift run has;
(c)  the drift run cold (``--cache-clear``), (w) warm (the result cache answers);
(q)  the prose quotations, an item per evidence, pin only; (nq) as many no-op items;
(r)  the same, ``--memreport-items=record``; (fr) the issue's floor: one ``git cat-file
     --batch`` pass over the cited blobs and an in-memory search (each quotation looked for
     in its file's text) + as many no-op items as the run has (a record's, or a note's:
     a note has no records); (md) beside it, markdown-it's own parse of the documents (the
     library every Markdown reader pays), added to (fr) in a ratio printed beside the issue's;
(n=), (nq=), (fr=) the floors again with as many of their no-op items failing as the
     measured run's items failed (pytest's own cost of a failure: its report, its line in
     the short summary), each ratio printed beside the issue's, not instead of it;
(m)  the doubling of missing quotations: the prose run's own search time (its JSON's
     ``timing.missing_search``) with 5% and with 10% of the quotations altered;
(d)  the doubling of changed ranges: the drift run's own drift time (``timing.drift``)
     with half the records and with all of them;

and prints the medians of the rounds' own ratios: cold ``(c)/((f)+(n))`` (target 2.5x),
warm ``(w)/(n)`` (1.5x), ``(q)/(nq)`` (1.5x), ``(r)/(fr)`` (3x), and the two doublings (2x).
``--code DIR`` runs another checkout of the package (to measure before and after a change).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_realshape import cached_input, collected, environment, noop_file, quote_report, run  # beside this script

HERE = Path(__file__).resolve().parent
GENERATOR_VERSION = 3
SEED = 20261204
REPORTS, RECORDS, RANGES = 7, 30, 8
QUOTES, QUOTE_REPORTS = 10_000, 20
ALTERED = 0.05
CODE_SUFFIXES = (".py", ".pyi", ".ts", ".tsx")
PROSE_SUFFIXES = (".md", ".markdown")
#: a definition's first line: its indentation, kind and name (Python and TypeScript)
DEFINITION = re.compile(r"^(\s*)(?:export\s+)?(?:async\s+)?(?:def|class|function|interface)\s+([A-Za-z_]\w*)")
IDENTIFIER = re.compile(r"[A-Za-z_]\w{3,}")
PROSE_WORD = re.compile(r"\b[a-z]{4,}\b")


def git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    return subprocess.run(["git", "--git-dir", str(repo), *args], input=stdin, capture_output=True,
                          check=True).stdout


def git_dir(clone: Path) -> Path:
    return Path(git(clone, "rev-parse", "--absolute-git-dir").decode().strip()) if (clone / ".git").exists() \
        else clone


def pin_back(repo: Path, back: int) -> str:
    """The commit ``back`` first-parent commits before HEAD (HEAD itself when the history is shorter)."""
    shas = git(repo, "rev-list", "--first-parent", f"--max-count={back + 1}", "HEAD").decode().split()
    return shas[-1]


#: pytest as the measured runs start it
PYTEST = [sys.executable, "-m", "pytest", "-q", "--tb=no"]


def pinned_input(workdir: Path, repo: Path, kind: str, back: int, build) -> tuple[Path, dict, str, str]:
    """``repo``'s input of ``kind`` pinned ``back`` first-parent commits before HEAD, built
    once by ``build(repo, pin)`` into ``workdir`` (the same clone, pin and seed: the same
    folder, whichever script asks): its folder, its manifest, the pin and HEAD."""
    pin = pin_back(repo, back)
    head = git(repo, "rev-parse", "HEAD").decode().strip()
    root, manifest = cached_input(workdir, kind, [GENERATOR_VERSION, SEED, str(repo), head, pin], build(repo, pin))
    return root, manifest, pin, head


def repo_option(repo: Path, shape: str, name: str) -> str:
    """The clone as the run is given it: the default clone for the record reports (which
    name no repository), mapped by the name the documents write for the users' shapes."""
    return f"--memreport-repo={repo}" if shape == "records" else f"--memreport-repo={name}={repo}"


def quote_command(repo: Path, names: list[str], shape: str = "records") -> list[str]:
    """pytest over the prose reports ``names`` (an item per evidence), at the pin only,
    without pytest's cache."""
    return [*PYTEST, "-p", "no:cacheprovider", *(arg for name in names for arg in ("--memreport", name)),
            repo_option(repo, shape, PROSE_NAME), "--memreport-against=none"]


def blobs_at(repo: Path, pin: str, *paths: str, keep=lambda path: True) -> dict[str, bytes]:
    """The blobs of the pin (under ``paths``, if given) whose path ``keep`` accepts, by path:
    one ``ls-tree`` and one ``cat-file --batch``."""
    rows = [row.split(b"\t", 1) for row in git(repo, "ls-tree", "-r", "-z", pin, "--", *paths).split(b"\0") if row]
    wanted = [(meta.split()[2], path.decode()) for meta, path in rows
              if meta.split()[1] == b"blob" and keep(path.decode())]
    out = git(repo, "cat-file", "--batch", stdin=b"".join(oid + b"\n" for oid, _ in wanted))
    blobs, at = {}, 0
    for _, path in wanted:
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        blobs[path] = out[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1
    return blobs


def read_tree(repo: Path, pin: str, suffixes: tuple[str, ...]) -> dict[str, list[str]]:
    """The text files of the pin with one of ``suffixes``, as lines (one ``cat-file --batch``)."""
    files = {}
    for path, body in blobs_at(repo, pin, keep=lambda path: path.endswith(suffixes)).items():
        try:
            files[path] = body.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            continue
    return files


def definitions(lines: list[str], pattern: re.Pattern[str] = DEFINITION) -> list[tuple[int, int, str]]:
    """``(first, last, name)`` 0-based of each definition spanning two lines or more (its
    first line matching ``pattern``): from its first line to the last line indented deeper
    than it."""
    out = []
    for i, line in enumerate(lines):
        found = pattern.match(line)
        if not found:
            continue
        indent, last = len(found.group(1)), i
        for j in range(i + 1, len(lines)):
            if not lines[j].strip():
                continue
            if len(lines[j]) - len(lines[j].lstrip()) <= indent and not lines[j].lstrip().startswith(("}", ")")):
                break
            last = j
        if last > i:
            out.append((i, last, found.group(2)))
    return out


def alter_identifier(text: str, rng: random.Random) -> str:
    names = IDENTIFIER.findall(text)
    name = rng.choice(names) if names else None
    return text.replace(name, name + "Gone", 1) if name else text + " altered"


#: the repositories' names as the generated documents write them (the clones are mapped by
#: name, ``--memreport-repo OWNER/NAME=PATH``, as a user's collection is: FORMAT.md §6)
CODE_NAME, PROSE_NAME = "python/typeshed", "tldr-pages/tldr"


def sample_code(files: dict[str, list[str]], defs: dict[str, list[tuple[int, int, str]]]) -> tuple[list, dict]:
    """The drift input's evidence, seeded: ``REPORTS`` lists of ``RECORDS`` records, each
    ``(ranges, quotation or None, symbol)``: ``RANGES`` cited ranges ``(path, first, last)``
    (1-based) inside real definitions; one real line of a definition ``(text, path,
    line)``, 5% altered; one defined name ``(name, path, line)``. Both shapes write these."""
    rng = random.Random(SEED)
    paths = sorted(defs)
    counts = {"ranges": 0, "quotes": 0, "altered": 0, "symbols": 0}
    reports = []
    for _ in range(REPORTS):
        records = []
        for _ in range(RECORDS):
            cited = []
            for _ in range(RANGES):
                path = rng.choice(paths)
                first, last, _ = rng.choice(defs[path])
                start = rng.randint(first, last)
                cited.append((path, start + 1, min(last, start + rng.randint(0, 8)) + 1))
            counts["ranges"] += len(cited)
            path = rng.choice(paths)
            first, last, name = rng.choice(defs[path])
            body = [i for i in range(first, last + 1) if len(files[path][i].strip()) >= 20
                    and "`" not in files[path][i] and " --- " not in files[path][i]]
            quotation = None
            if body:
                at = rng.choice(body)
                text = files[path][at].strip()
                if rng.random() < ALTERED:
                    text = alter_identifier(text, rng)
                    counts["altered"] += 1
                quotation = (text, path, at + 1)
                counts["quotes"] += 1
            counts["symbols"] += 1
            records.append((cited, quotation, (name, path, first + 1)))
        reports.append(records)
    return reports, counts


def build_code(repo: Path, pin: str, suffixes: tuple[str, ...] = CODE_SUFFIXES,
               definition: re.Pattern[str] = DEFINITION):
    """The drift input's builder: files with ``suffixes``, definitions opening with
    ``definition``. It writes the evidence twice: as record reports (``drift/``, FORMAT.md
    §1, the clone given as the default) and as one analysis run (``run/``, §3: an evidence
    packet with the repository's name, the revision and a source register, and a lens file
    per report whose table rows are the records), each with its half (the first half of
    the records: the doubling of changed ranges)."""
    def build(root: Path) -> dict:
        files = read_tree(repo, pin, suffixes)
        defs = {p: d for p, d in ((p, definitions(lines, definition)) for p, lines in sorted(files.items())) if d}
        reports, counts = sample_code(files, defs)
        names = write_record_reports(root, pin, reports)
        run_names = write_analysis_run(root, pin, reports, sorted(defs))
        return {"pin": pin, "files": len(files), "defined_files": len(defs), "reports": names, "run": run_names,
                **counts}
    return build


def write_record_reports(root: Path, pin: str, reports: list) -> list[str]:
    """``drift/run-N.md`` (and ``half/``): record reports pinning ``pin`` through ``SRC-1``."""
    for folder in ("drift", "half"):
        (root / folder).mkdir()
    names = []
    for r, records in enumerate(reports):
        lines = [f"Run report {r}", "", f"The target is at SRC-1 commit {pin}.", ""]
        half = lines
        for rec, (cited, quotation, (name, path, line)) in enumerate(records):
            if rec == RECORDS // 2:
                half = list(lines)
            lines += [f"MEM-OBJ-r{r}-{rec}", "", f"Label: record {r}.{rec}", ""]
            ranges = ", ".join(f"{p}:{a}-{b}" for p, a, b in cited)
            lines += [f"The record cites its code. SRC-1: {ranges}.", ""]
            if quotation:
                lines += [f"{quotation[0]} --- {quotation[1]}:{quotation[2]}", ""]
            lines += [f"`{name}` is defined there (`{path}:{line}`).", "",
                      "• implementation conclusion status: afforded",
                      "• operation conclusion status: uninspected", ""]
        names.append(f"drift/run-{r}.md")
        (root / names[-1]).write_text("\n".join(lines), encoding="utf-8")
        (root / "half" / f"run-{r}.md").write_text("\n".join(half), encoding="utf-8")
    return names


#: how many of the cited files the run's source register names (cited as ``SRC-n:lines``)
REGISTER = 40


def write_analysis_run(root: Path, pin: str, reports: list, paths: list[str]) -> list[str]:
    """``run/`` (and ``run-half/``): one analysis run (FORMAT.md §3) of the same evidence.
    The packet names the repository, its checkout and the revision, and registers
    ``REGISTER`` files; each lens file is a table whose rows are records (``OBJ-r-nn``):
    the finding cell names a symbol beside its line and quotes a line beside its citation
    (in curly quotes when it holds a straight one; a line holding a pipe, which a table
    cell cannot, is quoted in a sentence under the table), the anchor cell cites the
    ranges, by the register's ID where the file is registered."""
    rng = random.Random(SEED + 2)
    cited_paths = sorted({p for records in reports for cited, _, _ in records for p, _, _ in cited})
    register = {path: f"SRC-{n}" for n, path in enumerate(sorted(rng.sample(cited_paths, REGISTER)), 1)}
    owner, name = CODE_NAME.split("/")
    packet = [f"# Evidence packet — RUN `{name.upper()}-1`", "",
              f"Source: https://github.com/{CODE_NAME}", f"Checkout: /home/ana/src/{name}", "",
              f"**Revision:** `{pin}`", "", "## Source register", "", "| ID | Identity |", "|---|---|",
              *(f"| {sid} | `{path}` |" for path, sid in register.items()), ""]
    names = ["run/evidence-packet.md"]
    for folder in ("run", "run-half"):
        (root / folder).mkdir()
        (root / folder / "evidence-packet.md").write_text("\n".join(packet), encoding="utf-8")
    for r, records in enumerate(reports):
        head = [f"# Lens {r} — RUN `{name.upper()}-1`", "",
                f"IDs are those of `evidence-packet.md`; this lens reads {owner}'s stubs.", "",
                "| ID | Finding | Anchor |", "|---|---|---|"]
        rows, below = [], []
        for rec, (cited, quotation, (symbol, path, line)) in enumerate(records):
            finding = f"`{symbol}` is defined there (`{path}:{line}`)"
            if quotation:
                text, quoted, at = quotation
                phrase = f"“{text}”" if '"' in text else f'"{text}"'
                if "|" in text:
                    below.append((rec, f"`OBJ-{r}-{rec:02d}` reads {phrase} (`{quoted}:{at}`).\n"))
                else:
                    finding += f"; it reads {phrase} (`{quoted}:{at}`)"
            anchor = ", ".join(f"{register[p]}:{a}-{b}" if p in register else f"`{p}:{a}-{b}`" for p, a, b in cited)
            rows.append(f"| OBJ-{r}-{rec:02d} | {finding} | {anchor} |")
        for folder, count in (("run", RECORDS), ("run-half", RECORDS // 2)):
            text = [*head, *rows[:count], "", *(block for rec, block in below if rec < count)]
            (root / folder / f"lens-{r}.md").write_text("\n".join(text) + "\n", encoding="utf-8")
        names.append(f"run/lens-{r}.md")
    return names


def build_prose(repo: Path, pin: str):
    """The quotations' builder: ``QUOTES`` real prose lines of the pin, 5% altered (and 10%
    in the doubled set), written twice: as record reports (``quotes/``, ``quotes2x/``;
    FORMAT.md §1) and as notes (``notes/``, ``notes2x/``; §4)."""
    def build(root: Path) -> dict:
        rng = random.Random(SEED + 1)
        files = read_tree(repo, pin, PROSE_SUFFIXES)
        candidates = [(p, i) for p in sorted(files) for i, line in enumerate(files[p])
                      if _prose_line(line)]
        chosen = rng.sample(candidates, QUOTES)
        altered = rng.sample(range(QUOTES), int(QUOTES * ALTERED * 2))
        manifest: dict = {"pin": pin, "files": len(files), "candidate_lines": len(candidates)}
        for share, folder, notes in ((1, "quotes", "notes"), (2, "quotes2x", "notes2x")):
            changed = set(altered[: int(QUOTES * ALTERED * share)])
            (root / folder).mkdir()
            (root / notes).mkdir()
            names, note_names, cited = [], [], set()
            per_report = QUOTES // QUOTE_REPORTS
            for r in range(QUOTE_REPORTS):
                quotations = []
                for n in range(r * per_report, (r + 1) * per_report):
                    path, at = chosen[n]
                    text = _prose_text(files[path][at])
                    if n in changed:
                        words = PROSE_WORD.findall(text)
                        text = text.replace(rng.choice(words), "quux", 1) if words else text + " quux"
                    quotations.append((text, path, at))
                    cited.add(path)
                name = f"{folder}/quotes-{r}.md"
                (root / name).write_text("\n".join(quote_report(r, pin, quotations)), encoding="utf-8")
                names.append(name)
                note_names.append(f"{notes}/note-{r}.md")
                (root / note_names[-1]).write_text(note(r, pin, quotations), encoding="utf-8")
            manifest[folder] = names
            manifest[notes] = note_names
            manifest[f"{folder}_altered"] = len(changed)
            manifest["cited_paths"] = sorted(cited)
        return manifest
    return build


#: quotations per paragraph of a note, paragraphs per section
SENTENCES, PARAGRAPHS = 5, 10


def note(r: int, pin: str, quotations: list[tuple[str, str, int]]) -> str:
    """Note ``r`` (FORMAT.md §4) of ``quotations``: front matter, the evidence basis naming
    the pin by a commit link, then sections of paragraphs whose every sentence ties one
    quotation to its file in one of the three ties in turn: beside a blob link at the pin,
    as a blockquote introduced by a sentence with the link (also every line with a double
    quote, which a quoted phrase cannot hold), or attributed to the file named in backticks."""
    base = f"https://github.com/{PROSE_NAME}"
    lines = ["---", f"title: Reading the pages, part {r}", "date: 2026-05-14", "---", "",
             f"# Reading the pages, part {r}", "",
             f"**Evidence basis:** first-hand reading of the `{PROSE_NAME}` checkout at commit "
             f"[{pin[:8]}]({base}/commit/{pin}) (2026-05-14), covering `pages/` and its translations.", ""]
    paragraph: list[str] = []
    for k, (text, path, _) in enumerate(quotations):
        if k % (SENTENCES * PARAGRAPHS) == 0:
            lines += [f"## Pages read, set {k // (SENTENCES * PARAGRAPHS)}", ""]
        link = f"[{path}]({base}/blob/{pin}/{path})"
        if '"' in text or k % 3 == 1:
            lines += [" ".join(paragraph), ""] if paragraph else []
            paragraph = []
            lines += [f"The page {link} puts it this way:", "", f"> {text}", ""]
        elif k % 3 == 0:
            paragraph.append(f'The page says "{text}" ({link}).')
        else:
            paragraph.append(f'`{path}` says "{text}".')
        if len(paragraph) == SENTENCES or k % (SENTENCES * PARAGRAPHS) == SENTENCES * PARAGRAPHS - 1:
            lines += [" ".join(paragraph), ""] if paragraph else []
            paragraph = []
    lines += [" ".join(paragraph), ""] if paragraph else []
    return "\n".join(lines)


def _prose_line(line: str) -> bool:
    """A line of prose worth quoting: some words, no Markdown a quotation would not survive."""
    text = _prose_text(line)
    return len(text) >= 30 and len(PROSE_WORD.findall(text)) >= 4 and not any(c in text for c in "`|<>[]{}*_#")


def _prose_text(line: str) -> str:
    return line.strip().lstrip("-+>").strip()


#: a quotation line of the generated reports: ``<text> --- <path>:<line>``
QUOTATION_LINE = re.compile(r"^(.+) --- (\S+):\d+$")


def written_quotations(root: Path, names: list[str]) -> list[tuple[str, str]]:
    """``(text, path)`` of every quotation the reports ``names`` write (read before timing)."""
    return [(found.group(1), found.group(2)) for name in names
            for found in map(QUOTATION_LINE.match, (root / name).read_text(encoding="utf-8").splitlines()) if found]


def batch_floor(repo: Path, pin: str, paths: list[str], quoted: list[tuple[str, str]]) -> float:
    """The issue's floor for an item per record, but its no-op items: one ``git cat-file
    --batch`` pass over the cited blobs and an in-memory search (each quotation looked for
    in its file's text), in seconds."""
    began = time.perf_counter()
    texts = {path: body.decode("utf-8", "replace") for path, body in blobs_at(repo, pin, *paths).items()}
    held = sum(text in texts.get(path, "") for text, path in quoted)
    assert held >= len(quoted) // 2, "the floor's search found too few quotations: misread input"
    return time.perf_counter() - began


def markdown_floor(texts: list[str]) -> float:
    """markdown-it's own parse of ``texts`` (CommonMark with tables, as a report reader
    configures it), in seconds: what reading the documents costs any Markdown reader."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    began = time.perf_counter()
    for text in texts:
        parser.parse(text)
    return time.perf_counter() - began


def failed_in(summary: str) -> int:
    """How many items a pytest summary line says failed."""
    found = re.search(r"(\d+) failed", summary)
    return int(found.group(1)) if found else 0


def failing_floor(root: Path, env: dict, name: str, count: int, summary: str) -> float:
    """The no-op items' floor again, as many of them failing as ``summary`` (the measured
    run's) says failed, in seconds."""
    seconds, _ = run(root, env, noop_file(root, name, count, failed_in(summary)))
    return seconds


def timing_of(path: Path) -> dict:
    return json.loads(path.read_text())["timing"]


#: drift statuses whose classification blames or searches (an unchanged or shifted range is
#: answered by the diff's hunks alone)
REWORKED = frozenset({"changed", "deleted", "moved", "relocated"})


def reworked_in(path: Path) -> int:
    """How many pieces of evidence a drift run's JSON says changed, went or moved (those
    whose classification blames or searches)."""
    reports = json.loads(path.read_text())["reports"]
    return sum((item.get("at_against") or {}).get("status") in REWORKED
               for report in reports for record in [*report.get("records", []), report]
               for item in record.get("evidence", []))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--code-repo", default=os.environ.get("MEMREPORT_BENCH_CODE_REPO"))
    parser.add_argument("--prose-repo", default=os.environ.get("MEMREPORT_BENCH_PROSE_REPO"))
    parser.add_argument("--code-back", type=int, default=720, help="first-parent commits from the code pin to HEAD")
    parser.add_argument("--prose-back", type=int, default=15_000, help="the same, for the prose pin")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every measure; medians are printed")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "memreport-realrepos"))
    parser.add_argument("--code", default=str(HERE.parent), help="the checkout whose package is measured")
    parser.add_argument("--only", default="c,w,q,r,m,d", help="which measures: c, w, q, r, m, d")
    parser.add_argument("--shape", choices=("users", "records"), default="users",
                        help="the documents measured: the users' shapes (an analysis run, FORMAT.md §3, and "
                             "notes, §4, their clones mapped by name, §6) or record reports (§1)")
    args = parser.parse_args()
    users = args.shape == "users"
    only = set(args.only.split(","))
    code = Path(args.code).resolve()
    workdir = Path(args.workdir)
    clones = {}
    for kind, given, measures in (("code", args.code_repo, {"c", "w", "d"}), ("prose", args.prose_repo, {"q", "r", "m"})):
        if not given or not Path(given).is_dir():
            if only & measures:
                print(f"skipped {','.join(sorted(only & measures))}: no {kind} clone (--{kind}-repo or "
                      f"MEMREPORT_BENCH_{kind.upper()}_REPO)")
            only -= measures
        else:
            clones[kind] = git_dir(Path(given).resolve())
    if not only:
        return
    plans: dict[str, tuple] = {}
    if "code" in clones:
        repo = clones["code"]
        root, m, pin, head = pinned_input(workdir, repo, "code", args.code_back, build_code)
        env = environment(root, code)
        given = ["run"] if users else m["reports"]
        clone = repo_option(repo, args.shape, CODE_NAME)
        drift_run = [*PYTEST, "-o", f"cache_dir={root / 'cache'}", *(a for n in given for a in ("--memreport", n)),
                     clone, "--memreport-against", "HEAD", "--memreport-json", str(root / "drift.json")]
        half_run = [*PYTEST, "-p", "no:cacheprovider", "--memreport", "run-half" if users else "half", clone,
                    "--memreport-against", "HEAD", "--memreport-json", str(root / "half.json")]
        count = collected(root, env, drift_run[:5] + drift_run[7:])
        plans["code"] = (repo, root, m, env, drift_run, half_run, noop_file(root, "test_noop_drift.py", count), count)
        print(f"code, {'an analysis run (FORMAT.md §3)' if users else 'record reports (§1)'}: "
              f"{repo} pin {pin[:12]} HEAD {head[:12]}, {m['files']} files ({m['defined_files']} with "
              f"definitions), {m['ranges']} ranges, {m['quotes']} quotations ({m['altered']} altered), "
              f"{m['symbols']} symbols: {count} items")
    if "prose" in clones:
        repo = clones["prose"]
        root, m, pin, head = pinned_input(workdir, repo, "prose", args.prose_back, build_prose)
        env = environment(root, code)

        def quote_run(folder: str, json_name: str) -> list[str]:
            return [*quote_command(repo, m[folder], args.shape), "--memreport-json", str(root / json_name)]
        runs = {"q": quote_run("notes" if users else "quotes", "q.json"),
                "m": quote_run("notes2x" if users else "quotes2x", "m.json")}
        counts = {"q": collected(root, env, runs["q"][:-2]),
                  "r": collected(root, env, [*runs["q"][:-2], "--memreport-items=record"])}
        quoted = written_quotations(root, m["quotes"])
        documents = [(root / name).read_text(encoding="utf-8") for name in m["notes" if users else "quotes"]]
        plans["prose"] = (repo, root, m, env, runs, {k: noop_file(root, f"test_noop_{k}.py", v) for k, v in counts.items()},
                          counts, documents)
        print(f"prose, {'notes (FORMAT.md §4)' if users else 'record reports (§1)'}: "
              f"{repo} pin {pin[:12]} HEAD {head[:12]}, {m['files']} prose files, {m['candidate_lines']} "
              f"prose lines to sample; {QUOTES} quotations ({m['quotes_altered']} altered; "
              f"{m['quotes2x_altered']} in the doubled set): {counts['q']} items, {counts['r']} record items")
    print(f"load before: {os.getloadavg()}", flush=True)
    rows: dict[str, list[float]] = {}

    def keep(key: str, value: float) -> float:
        rows.setdefault(key, []).append(value)
        return value

    notes: dict[str, str] = {}
    cold_drift = float("nan")
    for round_ in range(1, args.rounds + 1):
        line = []
        if "code" in plans:
            repo, root, m, env, drift_run, half_run, noop, count = plans["code"]
            if "c" in only or "w" in only:
                began = time.perf_counter()
                git(repo, "diff", "-M", m["pin"], "HEAD")
                git(repo, "log", "--first-parent", "-M", "--raw", "--format=%H%x00%an%x00%s", f"{m['pin']}..HEAD")
                floor = keep("f", time.perf_counter() - began)
                cold, notes["c"] = run(root, env, drift_run + ["--cache-clear"])
                timing = timing_of(root / "drift.json")
                notes["c_timing"] = json.dumps(timing)
                cold_drift = timing.get("drift", float("nan"))
                warm, notes["w"] = run(root, env, drift_run) if "w" in only else (float("nan"), "not run")
                notes["w_timing"] = json.dumps(timing_of(root / "drift.json"))
                items, _ = run(root, env, noop)
                matched = failing_floor(root, env, "test_noop_drift_failing.py", count, notes["c"])
                keep("c", cold), keep("w", warm), keep("n", items), keep("n=", matched)
                keep("cold", cold / (floor + items)), keep("cold=", cold / (floor + matched))
                keep("warm", warm / items)
                line.append(f"(f) {floor:.2f} s (c) {cold:.2f} s (w) {warm:.2f} s (n) {items:.2f} s: "
                            f"cold {rows['cold'][-1]:.2f}x, warm {rows['warm'][-1]:.2f}x; (n=) {matched:.2f} s: "
                            f"cold {rows['cold='][-1]:.2f}x")
            if "d" in only:
                run(root, env, half_run)
                half = timing_of(root / "half.json").get("drift", float("nan"))
                full = cold_drift if "c" in only else float("nan")
                keep("d", full / half)
                notes["d"] = f"{reworked_in(root / 'half.json')} and {reworked_in(root / 'drift.json')}"
                line.append(f"drift half {half:.2f} s, all {full:.2f} s: {rows['d'][-1]:.2f}x")
        if "prose" in plans:
            repo, root, m, env, runs, noop, counts, documents = plans["prose"]
            if "q" in only or "m" in only:
                quotes, notes["q"] = run(root, env, runs["q"])
                single = timing_of(root / "q.json")
                notes["q_timing"] = json.dumps(single)
                items, _ = run(root, env, noop["q"])
                matched = failing_floor(root, env, "test_noop_q_failing.py", counts["q"], notes["q"])
                keep("q", quotes), keep("nq", items), keep("quotes", quotes / items)
                keep("nq=", matched), keep("quotes=", quotes / matched)
                line.append(f"(q) {quotes:.2f} s (nq) {items:.2f} s: {rows['quotes'][-1]:.2f}x; "
                            f"(nq=) {matched:.2f} s: {rows['quotes='][-1]:.2f}x")
            if "r" in only:
                records, notes["r"] = run(root, env, [*runs["q"][:-2], "--memreport-items=record"])
                batch = batch_floor(repo, m["pin"], m["cited_paths"], quoted)
                items, _ = run(root, env, noop["r"])
                matched = failing_floor(root, env, "test_noop_r_failing.py", counts["r"], notes["r"])
                keep("r", records), keep("fr", batch + items), keep("records", records / (batch + items))
                keep("fr=", batch + matched), keep("records=", records / (batch + matched))
                markdown = keep("md", markdown_floor(documents))
                keep("records+md", records / (batch + items + markdown))
                line.append(f"(r) {records:.2f} s (fr) {batch + items:.2f} s: {rows['records'][-1]:.2f}x; "
                            f"(fr=) {batch + matched:.2f} s: {rows['records='][-1]:.2f}x; (md) {markdown:.2f} s: "
                            f"{rows['records+md'][-1]:.2f}x")
            if "m" in only:
                run(root, env, runs["m"])
                doubled = timing_of(root / "m.json")
                one, two = single.get("missing_search", float("nan")), doubled.get("missing_search", float("nan"))
                keep("m", two / one)
                line.append(f"missing search {one:.2f} s, doubled {two:.2f} s: {rows['m'][-1]:.2f}x")
        print(f"round {round_}: " + "; ".join(line), flush=True)

    median = statistics.median
    print(f"medians of {args.rounds} round(s):")
    if "c" in rows:
        print(f"(f) git floor {median(rows['f']):7.2f} s; (n) pytest {median(rows['n']):.2f} s "
              f"({plans['code'][-1]} no-op items)")
        print(f"(c) cold      {median(rows['c']):7.2f} s ({notes['c']}; timing {notes['c_timing']})")
        print(f"(w) warm      {median(rows['w']):7.2f} s ({notes['w']}; timing {notes['w_timing']})")
        print(f"    cold (c)/((f)+(n)) = {median(rows['cold']):.2f}x (target 2.5x); "
              f"warm (w)/(n) = {median(rows['warm']):.2f}x (target 1.5x)")
        print(f"    beside it, (n=) {median(rows['n=']):.2f} s, as many of the no-op items failing as the cold "
              f"run's ({failed_in(notes['c'])}): cold {median(rows['cold=']):.2f}x")
    if "d" in rows:
        print(f"(d) twice the changed ranges: {median(rows['d']):.2f}x the drift time (target 2x); evidence "
              f"changed, deleted or moved (what blames or searches): {notes['d']} (the half is real records, "
              f"not exactly half the changes)")
    if "q" in rows:
        print(f"(q) quotations {median(rows['q']):6.2f} s ({notes['q']}; timing {notes['q_timing']}); (nq) "
              f"{median(rows['nq']):.2f} s: {median(rows['quotes']):.2f}x (target 1.5x)")
        print(f"    beside it, (nq=) {median(rows['nq=']):.2f} s, as many of the no-op items failing as the run's "
              f"({failed_in(notes['q'])}): {median(rows['quotes=']):.2f}x")
    if "r" in rows:
        print(f"(r) records   {median(rows['r']):7.2f} s ({notes['r']}); (fr) {median(rows['fr']):.2f} s "
              f"(cat-file --batch of the cited blobs, an in-memory search, no-op items): {median(rows['records']):.2f}x (target 3x)")
        print(f"    beside it, (fr=) {median(rows['fr=']):.2f} s, as many of the no-op items failing as the run's "
              f"({failed_in(notes['r'])}): {median(rows['records=']):.2f}x")
        print(f"    beside it, (fr)+(md), markdown-it's own parse of the {len(plans['prose'][-1])} documents "
              f"({median(rows['md']):.2f} s) added to the floor: {median(rows['records+md']):.2f}x")
    if "m" in rows:
        print(f"(m) twice the missing quotations: {median(rows['m']):.2f}x their search time (target 2x)")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
