"""YAML nodes with their positions: composing, typed reading, every problem collected.

Claims are read through PyYAML's node API rather than ``safe_load`` so every
value keeps the line it was written on. A :class:`Reader` maps node marks to
file lines and collects problems: a reader function raises :class:`Bad` for
one value, :meth:`Reader.each` records it and lets validation go on with the
next entry, so a claims file with five mistakes reports five.

Hostile input is refused here, each with its line: explicit YAML tags
(``!!int abc``, ``!!python/name:...``, ``!foo``), numbers longer than
:data:`MAX_NUMBER_CHARS`, non-finite floats, NUL characters, and documents
that aliases expand beyond :data:`MAX_EXPANDED_CHARS` of text.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NoReturn

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ...errors import MemreportError
from .model import ClaimsError, Problem

#: longest number written in a claims file (digits and signs): far beyond any
#: real count or constant, far below what makes ``int()`` slow or refuse
MAX_NUMBER_CHARS = 64
#: how much text (counting each alias use again) a claims document may expand to
MAX_EXPANDED_CHARS = 16 * 1024 * 1024

_NULL = "tag:yaml.org,2002:null"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
_RESOLVER = yaml.SafeLoader("")


class Bad(MemreportError):
    """One value is wrong; ``message`` is the full ``file:line: ...`` line, or
    ``None`` when the problem was already reported (e.g. a refused tag)."""

    code = "MR105"

    def __init__(self, message: str | None) -> None:
        super().__init__(message or "")
        self.message = message


class _TooLarge(MemreportError):
    """The document expands beyond the budget: validation stops."""

    code = "MR106"


@dataclass
class Reader:
    """Reads nodes of one YAML document written at ``file`` from ``first_line`` on."""

    file: str
    first_line: int = 1
    problems: list[str] = field(default_factory=list)
    #: nodes carrying an explicit tag (already reported): readers refuse them silently
    tagged: set[int] = field(default_factory=set)
    expanded: int = 0

    # -- positions ------------------------------------------------------------------
    def line(self, node: Node) -> int:
        return node.start_mark.line + self.first_line

    def problem(self, node: Node | int, message: str) -> Problem:
        return Problem(self.file, node if isinstance(node, int) else self.line(node), message)

    def bad(self, node: Node | int, message: str) -> NoReturn:
        raise Bad(self.problem(node, message))

    @contextlib.contextmanager
    def each(self) -> Iterator[None]:
        """One independent piece of validation: its problem is recorded, the rest goes on."""
        try:
            yield
        except Bad as problem:
            if problem.message and problem.message not in self.problems:
                self.problems.append(problem.message)

    def spend(self, node: Node, size: int) -> None:
        """Count ``size`` characters read (again, through an alias) against the budget."""
        self.expanded += size + 1
        if self.expanded > MAX_EXPANDED_CHARS:
            self.problems.append(self.problem(
                node, "the claims document expands (through YAML aliases) to more than "
                f"{MAX_EXPANDED_CHARS // (1024 * 1024)} MiB of text; write it out without aliases"
            ))
            raise _TooLarge

    # -- composing ------------------------------------------------------------------
    def compose(self, text: str) -> Node | None:
        """The document's root node; a YAML syntax error raises :class:`ClaimsError` (one line)."""
        if "\0" in text:
            line = text.count("\n", 0, text.index("\0")) + self.first_line
            raise ClaimsError(Problem(self.file, line, "the claims text contains a NUL character; remove it"))
        try:
            root = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = (mark.line if mark is not None else 0) + self.first_line
            problem = " ".join(str(exc.problem or exc.context or "invalid YAML").split())
            raise ClaimsError(Problem(self.file, line, f"malformed YAML ({problem}); fix the YAML syntax at this line")) \
                from None
        except yaml.YAMLError as exc:
            problem = " ".join(str(exc).split())
            raise ClaimsError(Problem(self.file, self.first_line, f"malformed YAML ({problem}); fix the YAML syntax")) \
                from None
        except RecursionError:
            # PyYAML recurses once per nesting level: thousands of "[" exhaust the stack.
            raise ClaimsError(Problem(self.file, self.first_line, "the YAML nests too deeply to read; simplify it")) \
                from None
        if root is not None:
            self._refuse_tags(root)
        return root

    def _refuse_tags(self, root: Node) -> None:
        """Report every node with an explicit tag. Each node is visited once, so a
        document of aliases to aliases costs its size, not its expansion."""
        seen: set[int] = set()
        stack = [root]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if _explicit_tag(node):
                self.tagged.add(id(node))
                self.problems.append(self.problem(
                    node, f"YAML tag {node.tag!r} is not allowed in claims; remove it (quote a value to make it a string)"
                ))
            if isinstance(node, MappingNode):
                for key, value in node.value:
                    stack.extend((value, key))
            elif isinstance(node, SequenceNode):
                stack.extend(reversed(node.value))

    def guarded(self, validate) -> Any:
        """Run ``validate()``; a document over the expansion budget stops it (already reported)."""
        try:
            return validate()
        except _TooLarge:
            return None

    # -- typed reading --------------------------------------------------------------
    def check(self, node: Node) -> None:
        """Refuse a node whose tag was reported, and count it against the budget."""
        if id(node) in self.tagged:
            raise Bad(None)
        self.spend(node, len(node.value) if isinstance(node, ScalarNode) else 8)

    def mapping(self, node: Node, what: str, allowed: tuple[str, ...] | None) -> dict[str, tuple[Node, Node]]:
        """A mapping node's entries by key. Unknown and duplicate keys are problems of
        their own (recorded; the other entries are still returned)."""
        self.check(node)
        if not isinstance(node, MappingNode):
            self.bad(node, f"{what} must be a mapping (key: value); got {shape(node)}")
        entries: dict[str, tuple[Node, Node]] = {}
        for key_node, value_node in node.value:
            with self.each():
                self.check(key_node)
                if not isinstance(key_node, ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                    self.bad(key_node, f"keys of {what} must be plain names; write 'name: value'")
                key = key_node.value
                if key in entries:
                    self.bad(key_node, f"duplicate key {key!r} in {what} (first at line "
                                       f"{self.line(entries[key][0])}); keep one")
                if allowed is not None and key not in allowed:
                    self.bad(key_node, f"unknown key {key!r} in {what}; allowed keys: {', '.join(allowed)}")
                entries[key] = (key_node, value_node)
        return entries

    def sequence(self, node: Node, what: str) -> list[Node]:
        if is_null(node):
            return []
        self.check(node)
        if not isinstance(node, SequenceNode):
            self.bad(node, f"{what} must be a list; start each item with '- '")
        return list(node.value)

    def string(self, node: Node, what: str) -> str:
        """A scalar as written (``pin: 1234567`` stays the string ``"1234567"``); no NUL."""
        self.check(node)
        if not isinstance(node, ScalarNode) or is_null(node):
            self.bad(node, f"{what} must be a string; got {shape(node)}")
        if "\0" in node.value:
            self.bad(node, f"{what} contains a NUL character; remove it")
        return node.value

    def strings(self, node: Node, what: str) -> list[str]:
        """One string or a non-empty list of strings."""
        if isinstance(node, SequenceNode):
            self.check(node)
            if not node.value:
                self.bad(node, f"{what} is an empty list; give at least one")
            return [self.string(item, what) for item in node.value]
        return [self.string(node, what)]

    def value(self, node: Node, what: str) -> Any:
        """A scalar as YAML types it (``8_000`` is the int 8000), numbers bounded and finite."""
        self.check(node)
        if not isinstance(node, ScalarNode):
            self.bad(node, f"{what} must be a single value; got {shape(node)}")
        if node.tag in _NUMBER_TAGS and len(node.value) > MAX_NUMBER_CHARS:
            self.bad(node, f"{what} is a number of {len(node.value)} characters (at most {MAX_NUMBER_CHARS}); "
                           "give a realistic value")
        try:
            value = _RESOLVER.construct_object(node, deep=True)
        except (ValueError, OverflowError, yaml.YAMLError) as exc:
            reason = " ".join(str(exc).split())[:120]
            self.bad(node, f"{what} {node.value[:40]!r} cannot be read ({reason}); write it plainly")
        if isinstance(value, float) and not math.isfinite(value):
            self.bad(node, f"{what} must be a finite number; got {node.value!r}")
        return value


_ANCHOR = re.compile(r"&[^\s,\[\]{}]+\s+")


def _explicit_tag(node: Node) -> bool:
    """Whether ``node`` carries a tag the author wrote (``!!int``, ``!foo``) rather than
    the one YAML resolves by itself. A node's start mark sits on its properties
    (anchor, tag), so the text there tells even ``!!timestamp 2001-01-01``, whose
    tag YAML would also have guessed."""
    mark = node.start_mark
    if mark.buffer is not None:
        ahead = mark.buffer[mark.pointer: mark.pointer + 512]
        ahead = _ANCHOR.sub("", ahead, count=1) if ahead.startswith("&") else ahead
        if ahead.startswith("!"):
            return True
    if isinstance(node, MappingNode):
        return node.tag != _MAP
    if isinstance(node, SequenceNode):
        return node.tag != _SEQ
    assert isinstance(node, ScalarNode)
    implicit = (node.style is None, node.style is not None)
    return node.tag != _RESOLVER.resolve(ScalarNode, node.value, implicit)


def is_null(node: Node) -> bool:
    return isinstance(node, ScalarNode) and node.tag == _NULL


def shape(node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    if is_null(node):
        return "nothing"
    value = node.value if len(node.value) <= 60 else node.value[:57] + "..."
    return f"{value!r}"
