"""From a definition query match to the definitions it describes, per language.

A query says which node is a definition and captures its name; what it
cannot say is settled here: where the definition starts (decorators,
attributes, ``export``), which declarator is top-level, what kind a
JavaScript variable binds, a Go method's receiver type. Each language's
:class:`~.languages.LanguageSpec` names its shape; nesting (``Store.get``,
functions in classes being methods) is settled later, for every language
alike, in :mod:`.definitions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

from tree_sitter import Node

#: definitions that bind a value (what ``value_of`` reads)
_VALUE_KINDS = frozenset({"module-assignment", "const"})


@dataclass
class _Candidate:
    """A definition found by a query, before nesting settles kind and name."""

    kind: str
    name: str
    first: Node  # the span runs from first.start to last.end
    last: Node
    value: Node | None = None


@dataclass(frozen=True)
class QueryMatch:
    """One match of a definition query: the kind from its
    ``@definition.<kind>`` capture, that node, and every capture."""

    kind: str
    node: Node
    captures: dict[str, list[Node]]
    #: the source text of a node
    node_text: Callable[[Node], str]

    def capture(self, name: str) -> Node | None:
        return self.captures.get(name, [None])[0]

    def name(self) -> str:
        """The text of the ``@name`` capture (every pattern but Go's value
        specs has one)."""
        name_node = self.capture("name")
        assert name_node is not None
        return self.node_text(name_node)


#: a language's shape: the definitions one query match describes
Shape = Callable[[QueryMatch], Iterator[_Candidate]]


def plain(match: QueryMatch) -> Iterator[_Candidate]:
    """The captured node is the whole definition, named by ``@name``."""
    yield _Candidate(match.kind, match.name(), match.node, match.node, match.capture("value"))


def python(match: QueryMatch) -> Iterator[_Candidate]:
    """A decorated definition starts at its first decorator."""
    node = match.node
    first = last = node
    if node.parent is not None and node.parent.type == "decorated_definition":
        first = last = node.parent
    yield _Candidate(match.kind, match.name(), first, last, match.capture("value"))


def javascript(match: QueryMatch) -> Iterator[_Candidate]:
    """JavaScript and TypeScript: only top-level variables are definitions,
    of a kind by what they bind; ``export`` belongs to what it exports."""
    kind, node, value = match.kind, match.node, match.capture("value")
    name = match.name()
    first = last = node
    if kind == "variable":
        declaration = node.parent
        if declaration is None or not _js_top_level(declaration):
            return
        keyword = declaration.child(0)
        if value is not None and value.type in ("arrow_function", "function_expression", "function"):
            kind = "function"
        elif keyword is not None and keyword.type == "const":
            kind = "const"
        else:
            kind = "module-assignment"
        if declaration.named_child_count == 1:  # the whole statement is this definition
            first = last = declaration
    if first.parent is not None and first.parent.type == "export_statement":
        first = last = first.parent
    yield _Candidate(kind=kind, name=name, first=first, last=last, value=value)


def c_family(match: QueryMatch) -> Iterator[_Candidate]:
    """C and C++: a method defined outside its class (``Store::get``) is named
    by its class (``Store.get``); a definition inside a ``template<...>``
    starts at the template line."""
    node = match.node
    name = match.name()
    scope = match.capture("scope")
    if scope is not None:
        name = f"{match.node_text(scope).replace('::', '.')}.{name}"
    first = node
    if node.parent is not None and node.parent.type == "template_declaration":
        first = node.parent
    yield _Candidate(match.kind, name, first, node, match.capture("value"))


def rust(match: QueryMatch) -> Iterator[_Candidate]:
    """An ``impl`` is named by its type; attributes belong to their item."""
    name_node = match.capture("name")
    assert name_node is not None
    name = match.node_text(name_node)
    if match.kind == "impl":
        name = match.node_text(_rust_type_name(name_node))
    first = _rust_with_attributes(match.node)
    yield _Candidate(match.kind, name, first, match.node, match.capture("value"))


def go(match: QueryMatch) -> Iterator[_Candidate]:
    """A method is qualified by its receiver type; a type declaration is a
    struct or interface by its shape; one spec may name several values."""
    kind, node = match.kind, match.node
    if kind in _VALUE_KINDS:
        # ``const A, B = 1, 2`` is one spec naming two constants.
        yield from _go_specs(kind, node, match.node_text)
        return
    name = match.name()
    first = last = node
    if kind == "method" and "receiver" in match.captures:
        receiver = _go_receiver_type(match.captures["receiver"][0])
        if receiver is not None:
            name = f"{match.node_text(receiver)}.{name}"
    elif kind == "type":
        shape = match.capture("type")
        if shape is not None and shape.type == "struct_type":
            kind = "struct"
        elif shape is not None and shape.type == "interface_type":
            kind = "interface"
        declaration = node.parent
        if declaration is not None and declaration.named_child_count == 1:
            first = last = declaration
    yield _Candidate(kind=kind, name=name, first=first, last=last, value=match.capture("value"))


def _js_top_level(declaration: Node) -> bool:
    parent = declaration.parent
    if parent is not None and parent.type == "export_statement":
        parent = parent.parent
    return parent is not None and parent.type == "program"


def _rust_type_name(node: Node) -> Node:
    """``Foo`` for ``Foo<T>``, ``a::Foo``, ``&Foo``."""
    while node.type in ("generic_type", "scoped_type_identifier", "reference_type"):
        inner = node.child_by_field_name("name" if node.type == "scoped_type_identifier" else "type")
        if inner is None:
            break
        node = inner
    return node


def _rust_with_attributes(node: Node) -> Node:
    """The first of the ``#[...]`` attributes right above an item, or the item."""
    first = node
    sibling = node.prev_sibling
    while sibling is not None and sibling.type == "attribute_item":
        first = sibling
        sibling = sibling.prev_sibling
    return first


def _go_receiver_type(receiver: Node) -> Node | None:
    """``Store`` for ``(s *Store)`` or ``(s *Store[T])``."""
    for parameter in receiver.named_children:
        node = parameter.child_by_field_name("type")
        while node is not None and node.type in ("pointer_type", "generic_type", "parenthesized_type"):
            if node.type == "generic_type":
                node = node.child_by_field_name("type")
            else:
                node = node.named_child(0)
        return node
    return None


def _go_specs(kind: str, spec: Node, node_text: Callable[[Node], str]) -> Iterator[_Candidate]:
    # (the field also yields the commas between names)
    names = [n for n in spec.children_by_field_name("name") if n.is_named]
    values_node = spec.child_by_field_name("value")
    values = values_node.named_children if values_node is not None else []
    declaration = spec.parent
    if declaration is not None and declaration.type == "var_spec_list":
        declaration = declaration.parent
    whole = declaration is not None and declaration.named_child_count == 1 and len(names) == 1
    outer = declaration if whole and declaration is not None else spec
    for index, name_node in enumerate(names):
        value = values[index] if index < len(values) else None
        yield _Candidate(kind=kind, name=node_text(name_node), first=outer, last=outer, value=value)

