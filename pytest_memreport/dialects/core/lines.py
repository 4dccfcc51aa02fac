"""A report as numbered lines: each line with its 1-based number, whether the
report is a Markdown original, and its YAML front matter (the ``---`` block
that opens it).

Every finding a dialect makes keeps the report line it comes from; these are
the lines it counts.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from ...model import Finding


@dataclass(frozen=True, slots=True)
class Line:
    """One report line and its 1-based number."""

    number: int
    text: str


def numbered_lines(text: str) -> list[Line]:
    """The report's lines, numbered from 1.

    Splits on ``\\n`` only (the text is already normalised by
    :func:`~pytest_memreport.dialects.read_report`): ``str.splitlines`` would
    also split on form feeds and U+2028, and line numbers would then disagree
    with markdown-it's.
    """
    if not text:
        return []
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return [Line(number, part) for number, part in enumerate(parts, start=1)]


def is_markdown(path: str) -> bool:
    """Whether a report file is a Markdown original (else a plain-text rendering)."""
    return path.lower().endswith((".md", ".markdown", ".mdown", ".mkd"))


def front_matter_end(lines: list[Line]) -> int | None:
    """The line number closing a YAML front matter block (``---`` ... ``---``), or ``None``."""
    if not lines or lines[0].text.strip() != "---":
        return None
    for line in lines[1:]:
        if line.text.strip() in ("---", "..."):
            return line.number
    return None


def read_front_matter(lines, end: int | None) -> tuple[object, Finding | None]:
    """The YAML between a report's ``---`` lines (``end`` is the closing line):
    ``(data, None)``, or ``(None, finding)`` when it cannot be read."""
    if not end:
        return None, None
    body = "\n".join(line.text for line in lines[1 : end - 1])
    try:
        return (yaml.safe_load(body) if body.strip() else {}), None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = 2 + mark.line if mark is not None else 1
        return None, Finding(line, "front matter is not valid YAML; fix it or remove the --- lines", "parse")
    except RecursionError:  # absurdly nested YAML: say so instead of crashing
        return None, Finding(1, "front matter nests too deeply to read; simplify it", "parse")


def front_matter_mapping(lines, end: int | None, findings: list) -> dict | None:
    """The front matter when it is a mapping, else ``None``; when it cannot be
    read, the finding saying why is appended to ``findings``."""
    data, finding = read_front_matter(lines, end)
    if finding is not None:
        findings.append(finding)
    return data if isinstance(data, dict) else None
