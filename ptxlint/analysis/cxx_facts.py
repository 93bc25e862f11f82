"""What the C++ around an asm statement says about its operands' variables.

The parameters and locals of a function come from the type resolver's scope tables
(``frontends.cxx.scope_lookup``), the ones typing reads: one table per block, statement header
and parameter list, read once per file for both (``types.file_resolver``). A look-up of ``name``
at a byte takes the scopes around it out to the function (``ScopeLookup.scopes_to``: the chain
of scopes typing of the statement's operands has mostly built already) and turns the entries
of ``name`` into ``Declaration`` records (where they are visible, what their declaration says
of their value), once per entry. The rest is this module's own, per function on first use:
the enclosing template parameters (a climb to the root, only when a look-up that takes them
finds no parameter or local), and every place a name may receive a value (an assignment,
``++``, ``&name``, a call argument, an asm output) and the loops, which only ``prior_value``
asks for (one tree-sitter query over the function, or one cursor walk of a small one).
``resolve`` takes the declaration of the innermost scope that has one visible, as C++ does: a
local is visible from its declaration to the end of the block or statement whose table holds
it, through the ``case`` labels, labels and ``#if`` regions between (a local of a ``case`` is
one of the whole ``switch`` body), but not in another branch of an ``#if`` it sits in (another
configuration). Where the configurations disagree (``#if A int x = 1; #else int x; #endif``,
or a local of an ``#if`` region that hides a parameter only where the region is compiled),
the name is unknown.

Rules ask three questions through a narrow interface (``facts_for``):

* ``prior_value(expression, offset)``: does the variable behind an asm operand hold a value the
  program put there before the asm (initialised, assigned, a parameter, memory behind a
  pointer)? ``False`` only when that is proven (an uninitialised local nothing touched yet).
* ``read_after(expression, offset, span_end)``: may the variable an asm output names be read
  after the asm? ``False`` only when that is proven (a local whose name the rest of its scope
  never spells, with no loop around the asm inside that scope).
* ``non_constant(expression, offset)``: the name that keeps an expression from being an integral
  constant expression (a function parameter, a non-``constexpr`` local of integral type), or
  ``None`` when ptxlint cannot prove it is not constant.

Everything unknown stays unknown: a macro body, a name declared outside the function, a class
type (whose ``constexpr`` conversion may well make it a constant).
"""

from __future__ import annotations

import bisect

import tree_sitter

from ptxlint.analysis.operand_names import (
    INTEGRAL_TYPEDEFS,
    INTEGRAL_WORDS,
    evaluated_names,
    lvalue_base,
)
from ptxlint.frontends.cxx.c_types import PREPROC_BLOCKS, Entry
from ptxlint.frontends.cxx.operand_types import typing_lock
from ptxlint.frontends.cxx.scope_lookup import ScopeLookup
from ptxlint.frontends.cxx.types import file_resolver
from ptxlint.frontends.syntax_tree import (
    WALK_LIMIT,
    ParsedSource,
    nodes_of_kinds,
    own_parameter_list,
    query,
)
from ptxlint.model import AsmStatement

__all__ = ["Declaration", "FileFacts", "FunctionFacts", "facts_for"]

Node = tree_sitter.Node

_STATIC_STORAGE = frozenset({"static", "extern", "thread_local", "__shared__", "__constant__",
                             "__device__", "__managed__"})
_FUNCTIONS = frozenset({"function_definition", "lambda_expression"})
_MAX_DEPTH = 8
_SHORTCUT_BYTES = 16384  # how far into a function resolve() searches instead of reading it


# Plain classes (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class Declaration:
    """A parameter, local or template parameter of the function around a statement: where its name
    is visible and what its declaration says about its value."""

    __slots__ = (
        "name", "kind", "visible_from", "scope_end", "integral", "reference", "indirect",
        "initialised", "constexpr", "const", "static_storage", "initializer", "conditions",
    )

    def __init__(
        self, name: str, kind: str, visible_from: int, scope_end: int, integral: bool = False,
        reference: bool = False, indirect: bool = False, initialised: bool = False,
        constexpr: bool = False, const: bool = False, static_storage: bool = False,
        initializer: tuple[int, int] | None = None, conditions: tuple[Condition, ...] = (),
    ) -> None:
        self.name = name
        self.kind = kind  # "parameter" | "local" | "template"
        self.visible_from = visible_from  # byte offset where the name starts to be visible
        self.scope_end = scope_end  # byte offset where its scope ends
        self.integral = integral  # a built-in integer/bool type (no class, no template type)
        self.reference = reference
        self.indirect = indirect  # pointer or array: the operand is memory, not this variable
        self.initialised = initialised
        self.constexpr = constexpr
        self.const = const
        # static / __shared__ / extern: a value before any write
        self.static_storage = static_storage
        self.initializer = initializer  # byte range of the initializer expression
        # the ``#if`` chains around a local inside its scope, innermost first (``Condition``)
        self.conditions = conditions

    def visible_at(self, byte: int) -> bool:
        """Whether the name is visible at ``byte`` in a configuration that compiles it."""
        return self.visible_from <= byte < self.scope_end and not any(
            c.others <= byte < c.end for c in self.conditions)

    def uncertain_at(self, byte: int) -> tuple[Condition, ...]:
        """The chains around it that end before ``byte`` (where it is visible), outermost
        first: a configuration that reaches ``byte`` compiles it only where each of them
        takes its branch. Empty: every configuration does."""
        return tuple(reversed([c for c in self.conditions if c.end <= byte]))


class Condition:
    """An ``#if``...``#endif`` chain around a declaration, and the branch of it that holds the
    declaration."""

    __slots__ = ("others", "end", "branch", "branches")

    def __init__(self, others: int, end: int, branch: int, branches: int) -> None:
        # where the branches after its own start (``end`` where its own is the last)
        self.others = others
        # where the chain ends: from here every configuration goes on, some without it
        self.end = end
        self.branch = branch  # its own branch's place in the chain
        self.branches = branches  # how many branches the chain has, 0 where none is an ``#else``


# what ``_declared`` finds where configurations disagree on a name's declaration
_UNKNOWN = Declaration("", "unknown", 0, 0)


# A plain class too (see Declaration's comment).
class FunctionFacts:
    """The facts of one function (lambdas inside it included, with their own scopes)."""

    __slots__ = ("parsed", "start", "end", "node", "scopes", "_template_names", "_loops",
                 "_body_unread", "_templates_unread", "_writes", "_identifiers", "_lists",
                 "_records")

    def __init__(self, parsed: ParsedSource, start: int, end: int, node: Node,
                 scopes: ScopeLookup) -> None:
        self.parsed = parsed
        self.start = start  # byte range of the function
        self.end = end
        self.node = node  # the function definition
        self.scopes = scopes  # the file's scope tables (``types.file_resolver``)
        # the enclosing templates' parameters by name, once read (see ``resolve``)
        self._template_names: dict[str, Declaration] = {}
        self._loops: list[tuple[int, int]] = []  # byte ranges of loops
        # the body (its loops, reference aliases and identifiers) is read when a question
        # needs it
        self._body_unread = True
        # the enclosing templates' parameters are read (a climb to the root) when a look-up
        # that takes them finds no parameter or local (see ``resolve``)
        self._templates_unread = True
        # name -> byte offsets of the writes found so far; ``writes`` adds the identifiers' own
        self._writes: dict[str, list[int]] = {}
        # the function's identifier nodes, not yet examined: a list, or the node whose subtree
        # the identifier query is still to be run on
        self._identifiers: list[Node] | Node | None = None
        # the parameter list of each function or lambda asked about (by node id), as read here
        self._lists: dict[int, Node | None] = {}
        # the record of each entry of the scope tables read: a local's by its declarator's id,
        # a parameter's by (its declaration's id, where this function has it, the end of its
        # scope)
        self._records: dict[object, Declaration | None] = {}

    @property
    def writes(self) -> dict[str, list[int]]:
        """Name -> sorted byte offsets where it may receive a value. Worked out on first use:
        PTX010 asks only about declarations, and a function's every identifier is the bulk
        of its facts (O(identifiers), each a few parent steps)."""
        self._read_body()
        pending = self._identifiers
        if pending is not None:
            self._identifiers = None
            if not isinstance(pending, list):
                lo, hi = pending.start_byte, pending.end_byte
                identifiers = query(self.parsed.tree.language, _IDENTIFIER_QUERY)
                captured = tree_sitter.QueryCursor(identifiers)
                pending = [n for n in captured.captures(pending).get("identifier", ())
                           if lo <= n.start_byte and n.end_byte <= hi]
            for node in pending:
                _maybe_write(self.parsed, node, self._writes)
            for offsets in self._writes.values():
                offsets.sort()
        return self._writes

    @property
    def loops(self) -> list[tuple[int, int]]:
        """Byte ranges of the loop statements."""
        self._read_body()
        return self._loops

    def _read_body(self) -> None:
        if self._body_unread:
            self._body_unread = False
            _Builder(self).read_body()

    # ----------------------------------------------------------------- queries
    def contains(self, offset: int) -> bool:
        """Whether character ``offset`` lies in this function."""
        return self.start <= self.parsed.to_byte(offset) < self.end

    def resolve(self, name: str, byte: int, templates: bool = True) -> Declaration | None:
        """The declaration of ``name`` visible at ``byte`` (the latest one to become visible).
        ``templates=False``: a parameter or local only, never an enclosing template's
        parameter, for a caller that treats one as it treats no declaration at all.

        A template parameter is visible from the start of the file, so every parameter or
        local visible at ``byte`` became visible after it and is the answer: the templates'
        parameters are read (a climb to the root, a parent step each costing a descent in
        tree-sitter) only where none is, and never for ``templates=False``. PTX010 asks of
        each "n" operand's names, and CUTLASS's GMMA wrappers name a template parameter
        (``"n"(int32_t(scaleA))``) in 1,872 functions, each of which climbed to the root.

        A parameter or local visible at ``byte`` is declared in the function before it, so
        it spells the name there: where the function's bytes up to ``byte`` lack the name
        (``scaleA``), no scope is looked in; past ``_SHORTCUT_BYTES`` into the function the
        scopes are, so that no look-up searches more than that."""
        found: Declaration | None = None
        if self.start <= byte < self.end and not (
            byte - self.start <= _SHORTCUT_BYTES
            and name.isascii()
            and self.parsed.data.find(name.encode(), self.start, byte) == -1
        ):
            found = self._declared(name, byte)
            if found is _UNKNOWN:
                return None  # a parameter or local in some configurations: no template's
        if found is not None or not templates:
            return found
        if self._templates_unread:
            self._templates_unread = False
            _Builder(self).template_parameters()
        return self._template_names.get(name)

    def _declared(self, name: str, byte: int) -> Declaration | None:
        """The parameter or local ``name`` visible at ``byte`` (inside the function), from the
        scope tables of the scopes around it, innermost first: the first scope with one
        visible declares the name there (a local visible in an outer scope was declared
        before the inner scope began). Where that one sits in ``#if`` regions ``byte`` is
        outside of, the configurations without it look further out; the answer is the one
        every configuration finds (the earliest of them: the writes to it are counted from
        there), and ``_UNKNOWN`` where they disagree."""
        lookup = self.scopes
        found: list[Declaration] = []
        with typing_lock():  # the tables are typing's, which another thread may be filling
            where = self.parsed.tree.root_node.descendant_for_byte_range(byte, byte + 1)
            if where is None:
                return None
            for scope in lookup.scopes_to(where, self.node):
                if scope.kind in _FUNCTIONS:
                    params = self._parameter_list(scope.node)
                    if params is None:
                        continue
                    entry = lookup.parameter_entries(scope, params).get(name)
                    decl = self._parameter(entry, params, scope.node.end_byte, name) \
                        if entry is not None else None
                    visible = [decl] if decl is not None and decl.visible_at(byte) else []
                else:
                    visible = []
                    for entry in lookup.block_entries(scope).get(name, ()):
                        local = self._local(entry, name, scope.node)
                        if local is not None and local.visible_at(byte):
                            visible.append(local)
                if not visible:
                    continue
                found.extend(visible)
                if _covers([decl.uncertain_at(byte) for decl in visible]):
                    break
            else:
                if found:
                    return _UNKNOWN  # some configurations find no parameter or local
        if not found:
            return None
        first = min(found, key=lambda decl: decl.visible_from)
        meaning = self._meaning(first)
        if any(self._meaning(decl) != meaning for decl in found):
            return _UNKNOWN
        return first

    def _meaning(self, decl: Declaration) -> tuple[object, ...]:
        """What a declaration says of its variable, wherever it is: two declarations of one
        name in two configurations agree when these are equal."""
        span = decl.initializer
        return (decl.kind, decl.integral, decl.reference, decl.indirect, decl.initialised,
                decl.constexpr, decl.const, decl.static_storage,
                self.parsed.data[span[0]:span[1]] if span is not None else None)

    def _parameter_list(self, fn: Node) -> Node | None:
        """The parameter list of a function or lambda: its own function declarator's
        (``own_parameter_list``, the list typing's scope tables read)."""
        key = fn.id
        if key not in self._lists:
            self._lists[key] = own_parameter_list(fn)
        return self._lists[key]

    def _local(self, entry: Entry, name: str, scope: Node) -> Declaration | None:
        """The record of an entry of the table of ``scope``, a block or statement header (None
        where it is not a local of a declaration or a range-``for`` here, or declares another
        name). A declarator is in one table only: its record is kept by its id."""
        declarator = entry.declarator
        if declarator is None:
            return None
        key = declarator.id
        if key in self._records:
            return self._records[key]
        record = _local_record(self.parsed, declarator, name, scope)
        self._records[key] = record
        return record

    def _parameter(
        self, entry: Entry, params: Node, scope_end: int, name: str
    ) -> Declaration | None:
        """The record of parameter ``name``'s entry for the list ``params`` (an entry another
        list of the same text may have made: its place is found in ``params``)."""
        declarator = entry.declarator
        param = declarator.parent if declarator is not None else None
        if param is None or param.type not in _PARAMETER_KINDS:
            return None
        if param.parent is not None and param.parent.id == params.id:
            start = param.start_byte
        else:
            found = _same_parameter(self.parsed, params, param)
            if found is None:
                return None
            start = found
        key = (param.id, start, scope_end)
        if key in self._records:
            return self._records[key]
        record = _parameter_record(self.parsed, param, name, start, scope_end)
        self._records[key] = record
        return record

    def prior_value(self, expression: str, offset: int, span_end: int | None = None) -> bool | None:
        """Whether the variable an operand expression names holds a value from before the asm
        at character ``offset`` (``span_end``: the asm's end, whose own writes do not count)."""
        base = lvalue_base(expression)
        if base is None:
            return None
        name, tail = base
        if not name:
            return True  # memory behind a pointer holds a value
        byte = self.parsed.to_byte(offset)
        decl = self.resolve(name, byte, templates=False)
        if decl is None:
            return None
        if decl.kind == "parameter" or decl.reference or decl.static_storage:
            return True
        if decl.indirect and tail != "[":
            return True  # a pointer: what it points to is memory with a value
        if decl.initialised:
            return True
        writes = self.writes.get(name, [])
        lo = bisect.bisect_left(writes, decl.visible_from)
        hi = bisect.bisect_left(writes, byte)
        if hi > lo:
            return True
        # A loop around the asm inside the variable's scope carries a later write back to it.
        end = self.parsed.to_byte(span_end) if span_end is not None else byte
        for start, stop in self.loops:
            if decl.visible_from <= start and start <= byte < stop:
                first, last = bisect.bisect_left(writes, start), bisect.bisect_left(writes, stop)
                if any(w < byte or w >= end for w in writes[first:last]):
                    return True
        return False

    def read_after(self, expression: str, offset: int, span_end: int) -> bool | None:
        """Whether the variable an asm output expression names (the asm at characters
        ``offset``-``span_end``) may be read after the asm. ``False`` only when that is
        proven: a plain local (no reference, no static storage, under no ``#if`` of its own
        scope), its name spelled nowhere from the asm's end to the end of its scope (a comment
        counts: silence over guessing), nothing before the asm that may take its address
        (every place a write may be, ``writes``), and no loop or ``goto`` inside its scope to
        carry the asm's value back to a read before it."""
        base = lvalue_base(expression)
        if base is None or not base[0] or base[1]:
            return None  # memory behind a pointer, a member or an element: other code sees it
        name = base[0]
        byte, end = self.parsed.to_byte(offset), self.parsed.to_byte(span_end)
        decl = self.resolve(name, byte, templates=False)
        if (decl is None or decl.kind != "local" or decl.reference or decl.static_storage
                or decl.indirect or decl.conditions):
            return None
        writes = self.writes.get(name, [])
        if bisect.bisect_left(writes, byte) > bisect.bisect_left(writes, decl.visible_from):
            return None  # '&name', a call argument, an assignment: an alias cannot be ruled out
        if any(decl.visible_from <= start <= byte and end <= stop for start, stop in self.loops):
            return True  # the next iteration reads what the asm left
        data = self.parsed.data
        if data.find(b"goto", decl.visible_from, decl.scope_end) != -1:
            return None
        return data.find(name.encode(), end, decl.scope_end) != -1

    def non_constant(self, expression: str, offset: int) -> tuple[str, str] | None:
        """``(name, why)`` for a name that keeps ``expression`` (at character ``offset``) from
        being an integral constant expression; ``None`` when none is proven."""
        return self._non_constant(expression, self.parsed.to_byte(offset), 0)

    def _non_constant(self, expression: str, byte: int, depth: int) -> tuple[str, str] | None:
        if depth > _MAX_DEPTH:
            return None
        for name in evaluated_names(expression):
            decl = self.resolve(name, byte, templates=False)
            if decl is None or decl.constexpr:
                continue
            if not decl.integral or decl.indirect:
                continue  # a class type may convert through a constexpr operator
            if decl.kind == "parameter":
                return name, "a function parameter"
            if decl.const and not decl.reference and decl.initializer is not None:
                a, b = decl.initializer
                inner = self.parsed.data[a:b].decode("utf-8", "replace")
                found = self._non_constant(inner, decl.visible_from, depth + 1)
                if found is not None:
                    return name, f"a const local initialised from {found[1]} '{found[0]}'"
                continue
            if decl.const:
                continue  # const without a visible initializer: do not guess
            return name, "a local variable that is not constexpr"
        return None


_PARAMETER_KINDS = ("parameter_declaration", "optional_parameter_declaration")


def _same_parameter(parsed: ParsedSource, params: Node, param: Node) -> int | None:
    """Where in the list ``params`` a parameter declaration of ``param``'s text starts (the
    scope tables give one entry to every parameter of one text: ``param`` may be another
    list's). O(matches of its text) tree steps."""
    data = parsed.data
    text = data[param.start_byte : param.end_byte]
    end = params.end_byte
    at = data.find(text, params.start_byte, end)
    while at != -1:
        node = params.descendant_for_byte_range(at, at + len(text))
        while node is not None and node.parent is not None and node.parent.id != params.id:
            node = node.parent
        if (node is not None and node.type == param.type and node.start_byte == at
                and node.end_byte == at + len(text)):
            return at
        at = data.find(text, at + 1, end)
    return None


def _parameter_record(
    parsed: ParsedSource, param: Node, name: str, start: int, scope_end: int
) -> Declaration | None:
    """The record of parameter declaration ``param``, named ``name``, that starts at ``start``
    of its function (visible from there to ``scope_end``)."""
    inner = param.child_by_field_name("declarator")
    declared = _declared_name(inner)
    if declared is None or parsed.node_text(declared) != name:
        return None
    shape = _shape(inner)
    type_node = param.child_by_field_name("type")
    return Declaration(
        name, "parameter", start, scope_end,
        integral=_is_integral(parsed.node_text(type_node) if type_node is not None else ""),
        reference="reference" in shape,
        indirect="pointer" in shape or "array" in shape,
        initialised=True,
        const=_has_word(param, "const"),
    )


def _local_record(
    parsed: ParsedSource, declarator: Node, name: str, scope: Node
) -> Declaration | None:
    """The record of ``declarator``, of a declaration in the function or a range-``for``'s
    variable, where it declares ``name``: visible from its end to the end of ``scope``, the
    block or statement whose table holds it (through ``case`` labels, labels and ``#if``
    regions: C++ scopes a local to its block), except in the other branches of the ``#if``
    regions it sits in (``Declaration.conditions``)."""
    owner = declarator.parent
    if owner is None:
        return None
    declared = _declared_name(declarator)
    if declared is None or parsed.node_text(declared) != name:
        return None
    if owner.type == "for_range_loop":
        loop_variable = owner.child_by_field_name("declarator")
        if loop_variable is None or loop_variable.id != declarator.id:
            return None
        return Declaration(name, "local", declarator.end_byte, owner.end_byte, initialised=True)
    if owner.type != "declaration" or owner.parent is None:
        return None

    def text(node: Node | None) -> str:
        return parsed.node_text(node) if node is not None else ""

    type_text = text(owner.child_by_field_name("type"))
    words = {text(c) for c in owner.children
             if c.type in ("type_qualifier", "storage_class_specifier")}
    words |= {text(c) for c in owner.children if c.type in _STATIC_STORAGE}
    shape = _shape(declarator)
    if declarator.type == "init_declarator":
        value = declarator.child_by_field_name("value")
    else:
        # a condition's declaration, `if (int n = f())`: the value is the declaration's
        value = owner.child_by_field_name("value")
    initialised = declarator.type == "init_declarator" or value is not None or any(
        c.type == "initializer_list" for c in declarator.children)
    return Declaration(
        name, "local", declarator.end_byte, scope.end_byte,
        integral=_is_integral(type_text),
        reference="reference" in shape,
        indirect="pointer" in shape or "array" in shape,
        initialised=initialised,
        constexpr="constexpr" in words or "consteval" in words,
        const="const" in words and "volatile" not in words,
        static_storage=bool(words & _STATIC_STORAGE),
        initializer=(value.start_byte, value.end_byte) if value is not None else None,
        conditions=_conditions(owner, scope),
    )


def _conditions(owner: Node, scope: Node) -> tuple[Condition, ...]:
    """The ``#if`` chains between declaration ``owner`` and its ``scope``, innermost first. The
    chain's first node spans it to its ``#endif``; a later branch's node may end before text
    of its own (a trailing comment), so only the first's end is taken. A few parent steps: a
    declaration sits in few regions."""
    found: list[Condition] = []
    current, parent = owner, owner.parent
    while parent is not None and parent.id != scope.id:
        if parent.type in PREPROC_BLOCKS and not _is_alternative(parent, current):
            alternative = parent.child_by_field_name("alternative")
            first, branch = parent, 0
            while first.parent is not None and _is_alternative(first.parent, first):
                first, branch = first.parent, branch + 1
            last, branches = first, 1
            following = first.child_by_field_name("alternative")
            while following is not None:
                last, branches = following, branches + 1
                following = following.child_by_field_name("alternative")
            end = first.end_byte
            found.append(Condition(
                alternative.start_byte if alternative is not None else end, end, branch,
                branches if last.type == "preproc_else" else 0))
        current, parent = parent, parent.parent
    return tuple(found)


def _covers(chains: list[tuple[Condition, ...]]) -> bool:
    """Whether every configuration compiles one of some declarations, each given by the chains
    it depends on (``Declaration.uncertain_at``, outermost first): one depends on none, or
    every branch of a chain with an ``#else`` holds ones that cover it in turn."""
    if any(not outer for outer in chains):
        return True
    for chain in {outer[0].end: outer[0] for outer in chains}.values():
        if chain.branches and all(
            _covers([outer[1:] for outer in chains
                     if outer[0].end == chain.end and outer[0].branch == branch])
            for branch in range(chain.branches)
        ):
            return True
    return False


def _is_alternative(branch: Node, node: Node) -> bool:
    """Whether ``node`` is the ``#elif``/``#else`` that follows ``branch`` in its chain."""
    if branch.type not in PREPROC_BLOCKS:
        return False
    alternative = branch.child_by_field_name("alternative")
    return alternative is not None and alternative.id == node.id


# the template parameters that name a value
_TEMPLATE_VALUES = ("parameter_declaration", "optional_parameter_declaration",
                    "variadic_parameter_declaration")

# where a declaration declares no local of a function
_OUTSIDE_FUNCTIONS = ("translation_unit", "declaration_list", "field_declaration_list",
                      "template_declaration")


# --------------------------------------------------------------------------- the pass


class _Builder:
    """Reads part of a function's facts when a question first needs it, and is let go after:
    the facts hold nothing that refers back to them. They held a closure over the builder
    each, which held the facts: a reference cycle that kept the file's tree, text and scope
    tables alive until the cyclic collector found it: after each of CUTLASS's two GMMA
    ``_ext`` headers the young collection freed some 16,000 objects, 4,000-5,000 of them in
    these cycles and the rest held by them. None is left for it now, on the CUDA 13 headers
    and CUTLASS's include/ alike."""

    def __init__(self, facts: FunctionFacts) -> None:
        self.parsed = facts.parsed
        self.facts = facts

    def text(self, node: Node | None) -> str:
        return self.parsed.node_text(node) if node is not None else ""

    def read_body(self) -> None:
        """One query over the function's subtree (tree-sitter walks it in C) for the nodes
        that matter; a Python walk of every node cost more than the rest of the lint of
        CUTLASS's GMMA headers. The order of the facts does not matter: writes are sorted,
        loops are only searched."""
        fn = self.facts.node
        lo, hi = fn.start_byte, fn.end_byte
        identifiers: list[Node] | Node
        # a small function, in a file of any size: walked (syntax_tree.WALK_LIMIT says why)
        if hi - lo <= WALK_LIMIT:
            by_kind = nodes_of_kinds(fn, _KINDS)
            found = {name: [n for k in kinds for n in by_kind.get(k, ())]
                     for name, kinds in _CAPTURES.items()}
        else:
            # the identifiers (most of the captured nodes) only when a rule asks about writes
            compiled = query(self.parsed.tree.language, _QUERY_SOURCE)
            found = tree_sitter.QueryCursor(compiled).captures(fn)

        def inside(kind: str) -> list[Node]:
            return [n for n in found.get(kind, ()) if lo <= n.start_byte and n.end_byte <= hi]

        for node in inside("declaration"):
            self._aliases(node)
        self.facts._loops.extend((n.start_byte, n.end_byte) for n in inside("loop"))
        self.facts._loops.extend((n.start_byte, n.end_byte) for n in inside("range"))
        identifiers = inside("identifier") if "identifier" in found else fn
        self.facts._identifiers = identifiers

    # ----------------------------------------------------------------- declarations
    def template_parameters(self) -> None:
        """The value parameters of the templates around the function: from the tables typing
        reads (``ScopeLookup.template_values``) of the template declarations on the
        function's chain of scopes; by a climb of its own where that chain is cut (a
        ``#define`` body, ``MAX_SCOPES``)."""
        fn = self.facts.node
        names = self.facts._template_names
        scopes = self.facts.scopes
        with typing_lock():  # the chains and tables are typing's
            chain = scopes.scope_chain(fn)
            if not chain or chain[-1] is not None:
                for scope in chain:
                    if scope is not None and scope.kind == "template_declaration":
                        for text, entry in scopes.template_values(scope).items():
                            declarator = entry.declarator
                            param = declarator.parent if declarator is not None else None
                            if param is not None and param.type in _TEMPLATE_VALUES:
                                self._template_parameter(param, text, names)
                return
        current: Node | None = fn.parent
        while current is not None:
            if current.type == "template_declaration":
                params = current.child_by_field_name("parameters")
                for param in params.named_children if params is not None else ():
                    if param.type in _TEMPLATE_VALUES:
                        self._template_parameter(param, None, names)
            current = current.parent

    def _template_parameter(
        self, param: Node, name: str | None, names: dict[str, Declaration]
    ) -> None:
        """Record template value parameter ``param`` (where it declares ``name``, if given)."""
        declared = _declared_name(param.child_by_field_name("declarator"))
        if declared is None:
            return
        text = self.text(declared)
        if name is None or text == name:
            names.setdefault(text, Declaration(text, "template", 0, 1 << 62))

    def _aliases(self, node: Node) -> None:
        """`T &alias = x;`: x may be written through the alias from here on."""
        scope = node.parent
        if scope is None or scope.type in _OUTSIDE_FUNCTIONS:
            return
        for declarator in node.children_by_field_name("declarator"):
            if _declared_name(declarator) is None or declarator.type != "init_declarator":
                continue
            value = declarator.child_by_field_name("value")
            if value is not None and "reference" in _shape(declarator):
                base = _base_identifier(value)
                if base is not None:
                    self._write(self.text(base), value.start_byte)

    # ----------------------------------------------------------------- writes
    def _write(self, name: str, byte: int) -> None:
        self.facts._writes.setdefault(name, []).append(byte)


def _maybe_write(parsed: ParsedSource, node: Node, writes: dict[str, list[int]]) -> None:
    """Record identifier ``node`` in ``writes`` when its use may store to it."""

    def text(n: Node | None) -> str:
        return parsed.node_text(n) if n is not None else ""

    current = node
    parent = current.parent
    while parent is not None and (
        (parent.type in ("field_expression", "subscript_expression")
         and parent.child_by_field_name("argument") == current)
        or parent.type in ("parenthesized_expression", "cast_expression")
        or (parent.type == "pointer_expression" and text(
            parent.child_by_field_name("operator")) == "*")
    ):
        current, parent = parent, parent.parent
    if parent is None:
        return
    kind = parent.type
    written = (
        (kind == "assignment_expression" and parent.child_by_field_name("left") == current)
        or kind == "update_expression"
        or (kind == "pointer_expression"
            and text(parent.child_by_field_name("operator")) == "&")
        or kind == "argument_list"
        or kind == "gnu_asm_output_operand"
        or (kind == "call_expression" and current.type == "field_expression")
    )
    if written:
        writes.setdefault(text(node), []).append(node.start_byte)


# what the query captures, by capture name, for the walk of a small function
_CAPTURES = {
    "identifier": ("identifier",),
    "declaration": ("declaration",),
    "range": ("for_range_loop",),
    "loop": ("for_statement", "while_statement", "do_statement"),
}
_KINDS = frozenset(k for kinds in _CAPTURES.values() for k in kinds)
_IDENTIFIER_QUERY = "(identifier) @identifier"
_QUERY_SOURCE = """
(declaration) @declaration
(for_range_loop) @range
[(for_statement) (while_statement) (do_statement)] @loop
"""


def _declared_name(declarator: Node | None) -> Node | None:
    node = declarator
    while node is not None:
        if node.type == "identifier":
            return node
        if node.type in ("qualified_identifier", "field_identifier", "operator_name",
                         "destructor_name", "structured_binding_declarator"):
            return None
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in node.named_children if c.type in (
                "identifier", "pointer_declarator", "reference_declarator", "array_declarator",
                "parenthesized_declarator")), None)
        node = inner
    return None


def _shape(declarator: Node | None) -> set[str]:
    out: set[str] = set()
    node = declarator
    while node is not None and node.type != "identifier":
        if node.type == "reference_declarator":
            out.add("reference")
        elif node.type == "pointer_declarator":
            out.add("pointer")
        elif node.type == "array_declarator":
            out.add("array")
        elif node.type == "function_declarator":
            out.add("function")
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in node.named_children if c.type.endswith("declarator")
                          or c.type == "identifier"), None)
        node = inner
    return out


def _base_identifier(node: Node) -> Node | None:
    while node.type in ("field_expression", "subscript_expression", "parenthesized_expression"):
        inner = node.child_by_field_name("argument") or (
            node.named_children[0] if node.named_children else None)
        if inner is None:
            return None
        node = inner
    return node if node.type == "identifier" else None


def _is_integral(type_text: str) -> bool:
    words = type_text.replace("const", " ").replace("volatile", " ").split()
    if not words:
        return False
    if all(w in INTEGRAL_WORDS for w in words):
        return True
    return len(words) == 1 and words[0] in INTEGRAL_TYPEDEFS


def _has_word(node: Node, word: str) -> bool:
    return any(c.type == "type_qualifier" and c.text == word.encode() for c in node.children)


# --------------------------------------------------------------------------- per file


class FileFacts:
    """Lazily built, memoised per-function facts of one parsed file."""

    def __init__(self, parsed: ParsedSource) -> None:
        self.parsed = parsed
        self._by_function: dict[int, FunctionFacts] = {}
        self._scopes: ScopeLookup | None = None  # the file's scope tables, on first need
        # the last statement asked about and its function's facts (``of_statement``)
        self._last: tuple[AsmStatement, FunctionFacts | None] | None = None

    def of_statement(self, statement: AsmStatement) -> FunctionFacts | None:
        """``function_at`` the statement's start, found once for the statement: its rules ask
        for each operand in turn (PTX010: 4,816 look-ups for CUTLASS's 1,891 statements with an
        "n" operand, each a descent of the tree and a climb), None where the tree cannot be
        read."""
        last = self._last
        if last is not None and last[0] is statement:
            return last[1]
        try:
            facts = self.function_at(statement.span.start)
        except Exception:  # facts are an improvement: a tree we cannot read means "unknown"
            facts = None
        self._last = (statement, facts)
        return facts

    def function_at(self, offset: int) -> FunctionFacts | None:
        """The facts of the function definition nearest around character ``offset`` (a lambda's
        parameters and locals are part of its function's facts, with their own scopes)."""
        byte = self.parsed.to_byte(offset)
        node = self.parsed.tree.root_node.descendant_for_byte_range(byte, byte)
        if node is None:
            return None
        scopes = self._scopes
        if scopes is None:
            scopes = self._scopes = file_resolver(self.parsed)
        fn = _function_around(scopes, node)
        if fn is None:
            return None
        facts = self._by_function.get(fn.start_byte)
        if facts is None:
            facts = FunctionFacts(self.parsed, fn.start_byte, fn.end_byte, fn, scopes)
            self._by_function[fn.start_byte] = facts
        return facts


def _function_around(scopes: ScopeLookup, node: Node) -> Node | None:
    """The nearest function definition around ``node`` (itself included), None in a
    ``#define`` body or outside any: from ``node``'s chain of scopes (a function definition
    declares names), whose climb typing of the statement's operands has mostly made already
    (CUTLASS's include/: 1,887 statements each climbed to its function again), and by a climb
    of its own where the chain is cut before one (a ``#define`` body, ``MAX_SCOPES``)."""
    with typing_lock():  # the chains are typing's, which another thread may be extending
        chain = scopes.scope_chain(node)
    for scope in chain:
        if scope is None:
            break
        if scope.kind == "function_definition":
            return scope.node
    else:
        return None
    current: Node | None = node
    while current is not None:
        if current.type == "function_definition":
            return current
        if current.type in ("preproc_def", "preproc_function_def"):
            return None  # a #define body: no function around it
        current = current.parent
    return None


def facts_for(context: object, statement: AsmStatement) -> FunctionFacts | None:
    """The facts of the function around ``statement``, from the rule context's file facts."""
    files = getattr(context, "cxx", None)
    if not isinstance(files, FileFacts) or statement.context.macro is not None:
        return None
    if files.parsed.text is not statement.source.text:
        return None  # facts of another file (never expected: the engine builds one per file)
    return files.of_statement(statement)
