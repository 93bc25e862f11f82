"""What a name's occurrences in a file make of it, read off the file's tree: the functions it
names the definitions of, the calls that call it, and whether it is an array declared at
namespace scope; and, spelt as a class member (a ``field_identifier``), the member functions
defined in a class's body under that name and the calls through an object (``o.f(x)``,
``p->f(x)``, ``this->f(x)``, ``o.template f<N>(x)``). Value flow (``value_flow``) reads a
helper's ``return`` statements through the definitions, a parameter's value through the calls,
and an array's name as a generic address.

A name's occurrences are found by one search of the file's bytes (``FileReader.offsets``, value
flow's searches), and each is read once, when the name is first asked about (kept per file and
name).
"""

from __future__ import annotations

import re
from typing import NamedTuple, Protocol

import tree_sitter

from ptxlint.analysis.name_search import IDENTIFIER, WORD_OR_DOLLAR
from ptxlint.analysis.value_syntax import array_rank, callee, declaring_declarator, same_node
from ptxlint.frontends.syntax_tree import ParsedSource, own_function_declarator

__all__ = ["FileReader", "NameRoles", "Roles"]

_NAMESPACE_SCOPES = (
    "translation_unit",
    "declaration_list",
    "linkage_specification",
    "preproc_if",
    "preproc_ifdef",
    "preproc_else",
    "preproc_elif",
)


class FileReader(Protocol):
    """What reading a name's roles needs of value flow's file facts."""

    parsed: ParsedSource
    data: bytes

    def node_at(self, start: int, end: int) -> tree_sitter.Node | None: ...

    def offsets(self, name: bytes) -> list[int]: ...


class Roles(NamedTuple):
    definitions: list[tree_sitter.Node]  # the function definitions the name is the name of
    calls: list[tree_sitter.Node]  # the call expressions that call it by that name
    file_array: bool  # an array declared at namespace scope (``extern __shared__ char s[];``)
    array_rank: int  # its fewest dimensions (``value_syntax.array_rank``), 0 when none
    # member functions defined in a class's body whose name is a field_identifier (a member
    # function template's is an identifier there: one of ``definitions``)
    methods: list[tree_sitter.Node]
    member_calls: list[tree_sitter.Node]  # `o.f(x)`, `p->f(x)`, `this->f(x)`


def _is_own(definition: tree_sitter.Node, declarator: tree_sitter.Node) -> bool:
    """Whether ``declarator`` is function definition ``definition``'s own (its name's, not
    that of a function pointer it returns, nor a macro call's in its name)."""
    own = own_function_declarator(definition.child_by_field_name("declarator"))
    return own is not None and same_node(own, declarator)


class NameRoles:
    """The roles of the names of one file, read on demand (see the module's docstring)."""

    def __init__(self, reader: FileReader) -> None:
        self.reader = reader
        self._roles: dict[str, Roles] = {}

    def of(self, name: str) -> Roles:
        found = self._roles.get(name)
        if found is None:
            found = self._roles[name] = self._read(name)
        return found

    def _named(self, name: str) -> list[tree_sitter.Node]:
        """Identifier and field identifier nodes spelled ``name`` anywhere in the file: its
        occurrences neither preceded nor followed by a word character or ``$``."""
        encoded = name.encode()
        data = self.reader.data
        if IDENTIFIER().fullmatch(encoded) is None:  # not a token of the index: search for it
            pattern = re.compile(rb"(?<![\w$])" + re.escape(encoded) + rb"(?![\w$])")
            starts = [m.start() for m in pattern.finditer(data)]
        else:
            # A token of the index is maximal, so it is followed by no word character; it may
            # follow a digit or "$" ("9abc", "a$b") or be followed by "$", which a name is not.
            size = len(encoded)
            starts = [
                start
                for start in self.reader.offsets(encoded)
                if (start == 0 or data[start - 1] not in WORD_OR_DOLLAR)
                and data[start + size : start + size + 1] != b"$"
            ]
        out = []
        for start in starts:
            node = self.reader.node_at(start, start + len(encoded))
            if (
                node is not None
                and node.type in ("identifier", "field_identifier")
                and node.parent is not None
            ):
                out.append(node)
        return out

    def _read(self, name: str) -> Roles:
        definitions: list[tree_sitter.Node] = []
        sites: list[tree_sitter.Node] = []
        arrays = False
        rank = 0
        methods: list[tree_sitter.Node] = []
        member_calls: list[tree_sitter.Node] = []
        parsed = self.reader.parsed
        for node in self._named(name):
            if node.type == "field_identifier":
                self._member(node, methods, member_calls)
                continue
            current = node.parent
            while current is not None and current.type in (
                "qualified_identifier",
                "template_function",
            ):
                current = current.parent
            if current is None:
                continue
            if current.type == "function_declarator":
                definition = current.parent
                while definition is not None and definition.type.endswith("declarator"):
                    definition = definition.parent  # `T& f()`, `void (*f(int))(int)`
                # the name's own declarator, not that of the function pointer it returns
                if (
                    definition is not None
                    and definition.type == "function_definition"
                    and _is_own(definition, current)
                ):
                    definitions.append(definition)
            elif current.type == "call_expression" and callee(parsed, current)[0] == name:
                sites.append(current)
            elif current.type == "array_declarator":
                declared, _, array = declaring_declarator(node)
                owner = declared.parent if declared is not None else None
                if (
                    array
                    and owner is not None
                    and owner.parent is not None
                    and owner.parent.type in _NAMESPACE_SCOPES
                ):
                    dims = array_rank(node)
                    rank = dims if not arrays else min(rank, dims)
                    arrays = True
        return Roles(definitions, sites, arrays, rank, methods, member_calls)

    @staticmethod
    def _member(
        node: tree_sitter.Node, methods: list[tree_sitter.Node], calls: list[tree_sitter.Node]
    ) -> None:
        """Field identifier ``node`` as the name of a member function defined in its class's
        body (added to ``methods``) or the member a call calls (added to ``calls``)."""
        parent = node.parent
        if parent is None:
            return
        if parent.type == "function_declarator":
            definition = parent.parent
            while definition is not None and definition.type.endswith("declarator"):
                definition = definition.parent  # `T& f()`
            if (
                definition is not None
                and definition.type == "function_definition"
                and _is_own(definition, parent)
            ):
                methods.append(definition)
            return
        field: tree_sitter.Node | None = parent
        if parent.type == "template_method":  # `o.f<N>(x)`, `o.template f<N>(x)`
            if parent.child_by_field_name("name") != node:
                return
            field = parent.parent
            if field is not None and field.type == "dependent_name":
                field = field.parent
        elif parent.type != "field_expression" or parent.child_by_field_name("field") != node:
            return
        call = field.parent if field is not None and field.type == "field_expression" else None
        if call is not None and call.type == "call_expression" and (
            call.child_by_field_name("function") == field
        ):
            calls.append(call)
