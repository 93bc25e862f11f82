"""The types a file names but does not declare, from the project headers its includes reach.

An operand's type is often declared in a header of the project (``struct Half4 { half2 a, b; };``
in ``Float16.cuh``, ``typedef unsigned short u16;`` in a common header), where the file's own
declarations say nothing of it. ``headers.closure`` already walks those headers for the
file's macros (its includes resolved beside the file and in the configured include folders,
never the toolkit's or the system's); here their namespace-scope ``typedef``\\ s, alias
declarations, and ``struct``/``class``/``union``/``enum`` definitions answer for a name the
file does not declare. A name defined more than once among them, by two texts that differ
(``#ifdef X`` / ``#else``, two namespaces, two headers), stays unknown, as does one declared
only inside a class, a function or a template: which one the file means is not read here.

A header is searched for a name asked of it (``_may_define``: where a definition may spell
it), and parsed, once per process, only where one may (``_definitions``); what it keeps is
each definition's text, typed on its own by the asking file's resolver (``OutsideTypes``)."""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Sequence
from typing import Protocol

import tree_sitter

from ptxlint.frontends.cxx.c_types import _Ty, declarator_name
from ptxlint.frontends.cxx.defines import MAX_HEADER_BYTES, read_header_bytes
from ptxlint.frontends.cxx.headers import also_forget
from ptxlint.frontends.syntax_tree import ParsedSource, parse
from ptxlint.lazy_regex import on_first_use

__all__ = ["OutsideTypes"]

# How deep a definition's own names are looked for in the headers in turn (a struct whose
# member is a typedef of another header, ...), and how many definitions one file types so
MAX_DEPTH = 4
MAX_DEFINITIONS = 256

# Where a header may define ``{name}``: after a record keyword (and maybe a word or an
# attribute: ``struct __align__(16) S``), after ``using``, as a ``typedef``'s last word, or
# after a closing brace (``typedef struct {...} S;``). A superset of what its parse finds.
_DEFINING = (rb"\b(?:struct|class|union|enum)\s+(?:\w+\s*(?:\([^()]*\))?\s*)?{name}\b"
             rb"|\busing\s+{name}\s*="
             rb"|\btypedef\b[^;]*\b{name}\s*(?:\[[^\];]*\]\s*)*;"
             rb"|}\s*{name}\s*[;,\[]")

# What a namespace-scope definition may stand in: namespaces, linkage blocks and #if groups
_CONTAINERS = frozenset({"namespace_definition", "linkage_specification", "declaration_list",
                         "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif",
                         "preproc_elifdef"})
_RECORDS = frozenset({"struct_specifier", "class_specifier", "union_specifier",
                      "enum_specifier"})

_MAY_DEFINE: dict[tuple[str, str], bool] = {}  # (a header's real path, a name) -> may it
_ASKED: dict[str, int] = {}  # a header's real path -> the names searched for in its bytes
_WORDS: dict[str, frozenset[bytes]] = {}  # -> its words, once asked of WORDS_AFTER names
# A header's words are read once this many names were searched for in it (a search costs
# about an eighth of reading its words)
WORDS_AFTER = 8
_WORD = on_first_use(rb"\w+")
_DEFINED: dict[str, dict[str, tuple[str, ...]]] = {}  # -> name -> definitions' texts


class Resolver(Protocol):
    """What ``OutsideTypes`` asks of the resolver it makes for a definition's text."""

    outside: OutsideTypes | None

    def named_type(self, name: str, where: tree_sitter.Node) -> _Ty | None: ...


def _may_define(real: str, name: str) -> bool:
    """The header spells ``name`` where a definition may (``_DEFINING``). Asked per name, by
    a search of the header's bytes for it first: an index of every name each header may
    define cost CUTLASS ``include/``'s default run 5% of its CPU, for five names asked. A
    header asked of :data:`WORDS_AFTER` names keeps the set of its words instead, so that a
    file naming many types not its own reads each header a bounded number of times."""
    key = (real, name)
    known = _MAY_DEFINE.get(key)
    if known is None:
        word = name.encode()
        words = _WORDS.get(real)
        if words is not None and word not in words:
            known = False
        else:
            data = read_header_bytes(real, None, MAX_HEADER_BYTES) or b""
            asked = _ASKED[real] = _ASKED.get(real, 0) + 1
            if words is None and asked >= WORDS_AFTER:
                _WORDS[real] = frozenset(_WORD().findall(data))
            known = word in data and re.search(
                _DEFINING.replace(b"{name}", re.escape(word)), data) is not None
        _MAY_DEFINE[key] = known
    return known


def _definitions(real: str) -> dict[str, tuple[str, ...]]:
    """The namespace-scope type definitions of the header, by name: each one's text."""
    known = _DEFINED.get(real)
    if known is None:
        data = read_header_bytes(real, None, MAX_HEADER_BYTES) or b""
        found: dict[str, list[str]] = {}
        stack = list(parse(real, data.decode("utf-8", "replace")).tree.root_node.children)
        while stack:
            node = stack.pop()
            if node.type in _CONTAINERS:
                stack.extend(node.children)
            for name, text in _defined_by(node):
                found.setdefault(name, []).append(text)
        known = _DEFINED[real] = {name: tuple(texts) for name, texts in found.items()}
    return known


def _defined_by(node: tree_sitter.Node) -> list[tuple[str, str]]:
    """The names ``node`` defines a type for, at namespace scope, with the text that does."""
    text = node.text.decode("utf-8", "replace") if node.text is not None else ""
    names: list[str] = []
    if node.type == "type_definition":
        for declarator in node.children_by_field_name("declarator"):
            name = declarator_name(declarator)
            if name is not None and name.text is not None:
                names.append(name.text.decode("utf-8", "replace"))
        record = node.child_by_field_name("type")
        if record is not None and record.type in _RECORDS:
            names.extend(_record_name(record))
    elif node.type == "alias_declaration":
        name = node.child_by_field_name("name")
        if name is not None and name.text is not None:
            names.append(name.text.decode("utf-8", "replace"))
    elif node.type in _RECORDS:
        names.extend(_record_name(node))
        text += ";"
    elif node.type == "declaration":  # ``struct S {...} s;``: S
        record = node.child_by_field_name("type")
        if record is not None and record.type in _RECORDS:
            names.extend(_record_name(record))
    return [(name, text) for name in names] if not node.has_error else []


def _record_name(record: tree_sitter.Node) -> list[str]:
    name = record.child_by_field_name("name")
    body = record.child_by_field_name("body")
    if name is None or body is None or name.type != "type_identifier" or name.text is None:
        return []  # a forward declaration, an anonymous or a qualified one
    return [name.text.decode("utf-8", "replace")]


class OutsideTypes:
    """The types of the names one file does not declare, from the headers its includes reach
    (``reach``: their real paths, asked once), each definition typed by a resolver made for
    its text (``make``), kept for the file."""

    def __init__(self, reach: Callable[[], Sequence[str]],
                 make: Callable[[ParsedSource], Resolver]) -> None:
        self._reach_source: Callable[[], Sequence[str]] | None = reach
        self._reach: Sequence[str] = ()
        self._make = make
        self._types: dict[str, _Ty | None] = {}
        self._asking: list[str] = []
        self._made = 0
        self._resolvers: list[Resolver] = []  # kept while the file is: a record's home

    def type_of(self, name: str) -> _Ty | None:
        """The type ``name`` names in the headers, where exactly one text defines it there."""
        if name in self._types:
            return self._types[name]
        if name in self._asking or len(self._asking) >= MAX_DEPTH:
            return None  # a cycle, or too deep: unknown
        self._asking.append(name)
        try:
            found = self._type_of(name)
        finally:
            self._asking.pop()
        self._types[name] = found
        return found

    def _type_of(self, name: str) -> _Ty | None:
        if self._reach_source is not None:
            self._reach, self._reach_source = self._reach_source(), None
        texts: dict[str, None] = {}
        for real in self._reach:
            if _may_define(real, name):
                texts.update(dict.fromkeys(_definitions(real).get(name, ())))
        if len(texts) != 1 or self._made >= MAX_DEFINITIONS:
            return None
        self._made += 1
        [text] = texts
        parsed = parse("definition.cuh", text)  # the CUDA grammar, as for a .cuh header
        if parsed.tree.root_node.has_error:
            return None
        resolver = self._make(parsed)
        resolver.outside = weakref.proxy(self)  # no cycle with the resolvers kept here
        self._resolvers.append(resolver)
        return resolver.named_type(name, parsed.tree.root_node)


def forget() -> None:
    """Read the headers again from now on."""
    for memo in (_MAY_DEFINE, _ASKED, _WORDS, _DEFINED):
        memo.clear()


also_forget(forget)  # each run reads its headers afresh
