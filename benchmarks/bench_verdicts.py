#!/usr/bin/env python
"""Every drift verdict on a real history compared with what git itself shows (a script, not a test).

    python benchmarks/bench_verdicts.py CLONE [CLONE ...] [--back 720] [--workdir DIR]

or with ``MEMREPORT_VERDICT_REPOS`` set (clones separated by ``os.pathsep``). Each clone
(bare or not) is brought onto the machine beforehand, by hand: nothing here fetches.

For each clone it builds bench_realrepos' drift input (7 run reports of 30 records: 8 line
ranges cited inside real definitions, one quoted line and one defined name per record, 5%
of the quotations altered), pinned ``--back`` first-parent commits before HEAD, from the
Python, TypeScript, JavaScript, Rust, Go, Java, C#, C, C++, Ruby and PHP files of the pin; runs the product against HEAD with
``--memreport-json``; and holds each verdict to git's own answer (``git show`` of the
files, ``git grep``):

* cited lines ``unchanged``, ``shifted`` or ``moved``: the lines named at HEAD are the
  pin's lines, character for character (line endings aside: the product reads CRLF as LF);
* cited lines ``changed``: the pin's lines stand nowhere in their file at HEAD as a block;
* a quotation ``unchanged``, ``shifted`` or ``moved``: the lines named hold it (backticks,
  whitespace between its words and punctuation, and line-start comment markers aside: the
  product's whitespace rule), unless the product says it found it by tokens;
* a quotation ``changed`` or ``deleted``: its file at HEAD does not hold it (by the same
  rule, markers kept), and one of 40
  letters and digits or more stands nowhere at HEAD (``git grep -F``);
* a quotation found at the pin: the lines named there hold it (unless found by tokens, or
  as Markdown shows it).

Each disagreement is printed on a line of its own, and the relocated quotations and
symbols are listed to be read (where a thing went is a judgement git does not make). The
exit status is 1 when any verdict disagrees. benchmarks/README.md says which histories
were read and what they showed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from bench_realrepos import build_code, git, git_dir, pin_back  # beside this script
from bench_realshape import cached_input, environment, run

HERE = Path(__file__).resolve().parent
GENERATOR_VERSION = 6
#: the files whose definitions are sampled, and a definition's first line in any of them:
#: Python's ``def``/``class``, TypeScript's and JavaScript's ``function``/``class``/
#: ``interface``, Rust's ``fn``/``struct``/``enum``/``trait``/``impl``, Go's ``func`` (a
#: method's receiver aside) and ``type`` (its indentation, then its name); Ruby's ``def`` and
#: ``class``; PHP's ``function``; Java's and C#'s classes (their modifiers aside); and a
#: Java, C#, C or C++ function or method named after its return type
SUFFIXES = (".py", ".pyi", ".ts", ".tsx", ".js", ".mjs", ".rs", ".go", ".java", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs",
            ".rb", ".php")
KEYWORD_DEFINITION = re.compile(
    r"^(\s*)(?:export\s+)?(?:pub(?:\([a-z]+\))?\s+)?(?:async\s+)?"
    r"(?:(?:public|private|protected|internal|static|final|abstract|sealed|partial)\s+)*"
    r"(?:def|class|function|interface|fn|struct|enum|trait|impl|type|record|func(?:\s*\([^)]*\))?)"
    r"\s+(?:<[^>]*>\s*)?(?:self\.)?([A-Za-z_]\w*)")
#: ``public <T> T fromJson(String json) {``, ``static jv parse_token(struct state *p) {``: a
#: return type (and modifiers) before the name, no statement word first, no ``;`` after it
TYPED_DEFINITION = re.compile(
    r"^(\s*)(?!(?:if|else|for|while|switch|return|case|do|new|throw|sizeof|catch|typedef|goto|await)\b)"
    r"(?:[A-Za-z_<][\w<>\[\],.?]*[\s*]+)+\**([A-Za-z_]\w*)\s*\([^;]*$")


class _FirstOf:
    """The first of several patterns that matches a line (``definitions`` asks ``match``)."""

    def __init__(self, *patterns: re.Pattern[str]) -> None:
        self.patterns = patterns

    def match(self, line: str) -> re.Match[str] | None:
        return next((found for pattern in self.patterns if (found := pattern.match(line))), None)


DEFINITION = _FirstOf(KEYWORD_DEFINITION, TYPED_DEFINITION)
#: git blame -C's bound, which the product follows too: a plainer failed quotation may stand elsewhere
FOLLOW_ALNUM = 40


class History:
    """One clone's files as git shows them (each read once)."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self._lines: dict[tuple[str, str], list[str] | None] = {}

    def lines(self, rev: str, path: str) -> list[str] | None:
        """The file's lines at ``rev`` (a final newline ends the last), ``None`` where it is not."""
        if (rev, path) not in self._lines:
            self._lines[rev, path] = self._read(rev, path)
        return self._lines[rev, path]

    def _read(self, rev: str, path: str) -> list[str] | None:
        done = subprocess.run(["git", "--git-dir", str(self.repo), "show", f"{rev}:{path}"], capture_output=True)
        if done.returncode != 0:
            return None
        # Line endings as the product reads them (a file's CRLF turned LF changes no line)
        text = done.stdout.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        return lines

    def anywhere(self, rev: str, text: str) -> list[str]:  # (a one-line text: line endings aside)
        """The files of ``rev`` holding ``text`` as it is written."""
        done = subprocess.run(["git", "--git-dir", str(self.repo), "grep", "-F", "-l", "-e", text, rev],
                              capture_output=True, text=True)
        return [line.split(":", 1)[1] for line in done.stdout.splitlines()]


def plain(text: str) -> str:
    return " ".join(text.replace("`", "").split())


_TOKEN = re.compile(r"\w+|[^\w\s]")
#: a line's comment or quote marker (``*``, ``//``, ``#``, ``>``): a quotation spans them
_MARKER = re.compile(r"^\s*(?:\*|//+|#+|>+)(?=\s|$)", re.M)


def holds(text: str, quote: str, markers: bool = False) -> bool:
    """Whether ``text`` holds ``quote`` as the product's whitespace rule reads it: written
    alike (whitespace collapsed), or the same words and punctuation in the same order,
    whitespace between them aside (``((Long)obj)`` as ``((Long) obj)``, a call wrapped
    over lines), a line's comment markers aside too when ``markers``."""
    if plain(quote) in plain(text):
        return True
    text = _MARKER.sub(" ", text) if markers else text
    wanted = "\0".join(_TOKEN.findall(quote.replace("`", "")))
    return bool(wanted) and f"\0{wanted}\0" in "\0" + "\0".join(_TOKEN.findall(text.replace("`", ""))) + "\0"


def judge_pin(evidence: dict, pin: str, history: History) -> str | None:
    """Why git disagrees with where the pin placed a quotation, or ``None``: the lines named
    hold it (by :func:`holds`), unless it was found by tokens."""
    found = evidence.get("at_pin") or {}
    if evidence["kind"] != "quote" or found.get("status") != "found" or not found.get("lines"):
        return None
    a, b = found["lines"]
    if holds("\n".join((history.lines(pin, evidence["path"]) or [])[a - 1:b]), evidence["text"], markers=True):
        return None
    if found.get("found_by") == "tokens" or found.get("found_as"):
        return None
    return f"found at the pin at {a}-{b}, which do not hold it"


def judge(evidence: dict, pin: str, history: History) -> str | None:
    """Why git disagrees with the evidence's drift verdict, or ``None`` when it does not."""
    at = evidence.get("at_against") or {}
    status, kind = at.get("status"), evidence["kind"]
    if kind == "lines" and status in ("unchanged", "shifted", "moved") and at.get("lines"):
        (a, b), (x, y) = evidence["cited_lines"], at["lines"]
        old, new = history.lines(pin, evidence["path"]) or [], history.lines(at["rev"], at["path"]) or []
        return None if old[a - 1:b] == new[x - 1:y] else f"{status}, yet {at['path']}:{x}-{y} differ from them"
    if kind == "lines" and status == "changed":
        (a, b) = evidence["cited_lines"]
        block = (history.lines(pin, evidence["path"]) or [])[a - 1:b]
        new = history.lines(at["rev"], evidence["path"]) or []
        held = [i + 1 for i in range(len(new) - len(block) + 1) if new[i:i + len(block)] == block]
        return f"changed, yet its file holds the lines at {held[0]}" if held else None
    if kind == "quote" and status in ("unchanged", "shifted", "moved") and at.get("lines"):
        x, y = at["lines"]
        if holds("\n".join((history.lines(at["rev"], at["path"]) or [])[x - 1:y]), evidence["text"], markers=True):
            return None
        return None if at.get("found_by") == "tokens" else f"{status}, yet {at['path']}:{x}-{y} do not hold it"
    if kind == "quote" and status in ("changed", "deleted"):
        text = evidence["text"]
        if holds("\n".join(history.lines(at["rev"], evidence["path"]) or []), text):
            return f"{status}, yet {evidence['path']} holds it"
        if sum(ch.isalnum() for ch in text) >= FOLLOW_ALNUM and "\n" not in text:
            elsewhere = history.anywhere(at["rev"], text)
            if elsewhere:
                return f"{status}, yet {', '.join(elsewhere[:3])} hold it as written"
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("clones", nargs="*", default=[p for p in os.environ.get("MEMREPORT_VERDICT_REPOS", "")
                                                     .split(os.pathsep) if p])
    parser.add_argument("--back", type=int, default=720, help="first-parent commits from the pin to HEAD")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "memreport-verdicts"))
    parser.add_argument("--code", default=str(HERE.parent), help="the checkout whose package is run")
    args = parser.parse_args()
    if not args.clones:
        print("skipped: no clone given (CLONE ... or MEMREPORT_VERDICT_REPOS)")
        return
    disagreeing = 0
    for given in args.clones:
        repo = git_dir(Path(given).resolve())
        pin = pin_back(repo, args.back)
        head = git(repo, "rev-parse", "HEAD").decode().strip()
        root, manifest = cached_input(Path(args.workdir), "verdicts", [GENERATOR_VERSION, str(repo), head, pin],
                                      build_code(repo, pin, SUFFIXES, DEFINITION))
        out = root / "drift.json"
        command = [sys.executable, "-m", "pytest", "-q", "--tb=no", "-p", "no:cacheprovider",
                   *(a for name in manifest["reports"] for a in ("--memreport", name)),
                   f"--memreport-repo={repo}", "--memreport-against", "HEAD", "--memreport-json", str(out)]
        seconds, summary = run(root, environment(root, Path(args.code).resolve()), command)
        history, counts, relocated = History(repo), Counter(), []
        for report in json.loads(out.read_text())["reports"]:
            for record in report["records"]:
                for evidence in record["evidence"]:
                    at = evidence.get("at_against") or {}
                    counts[(evidence["kind"], at.get("status"))] += 1
                    why = judge_pin(evidence, pin, history) or judge(evidence, pin, history)
                    if why is not None:
                        disagreeing += 1
                        print(f"  DISAGREES {report['path']}:{evidence['line']} {evidence['kind']} "
                              f"{evidence['path']}: {why}")
                    if at.get("status") == "relocated" and evidence["kind"] != "lines":
                        relocated.append(f"{evidence['kind']} {evidence['path']} "
                                         f"{(evidence.get('text') or '')[:50]!r} -> "
                                         f"{', '.join(c['path'] for c in at.get('candidates', [])[:3])}")
        print(f"{repo}: pin {pin[:12]} HEAD {head[:12]}, {manifest['files']} files, {sum(counts.values())} "
              f"verdicts in {seconds:.1f} s ({summary})")
        print("  " + ", ".join(f"{kind} {status}: {n}" for (kind, status), n in sorted(counts.items(), key=str)))
        for line in relocated:
            print(f"  relocated {line}")
    print(f"{disagreeing} verdict(s) disagree with git")
    raise SystemExit(1 if disagreeing else 0)


if __name__ == "__main__":
    main()
