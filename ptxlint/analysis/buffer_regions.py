"""Which named region of a raw shared buffer an address lies in, where C++ makes that certain.

Generated kernels (flashinfer's) carve one ``extern __shared__ char smem_raw[]`` into regions
and reach each two ways: an integer address for the asm (``const int s_state_addr = smem +
4480``, ``smem`` the buffer's ``__cvta_generic_to_shared``) and a typed pointer for the C++
(``float* s_state = reinterpret_cast<float*>(smem_raw + 4480)``). A copy into the first and a
read ``s_state[i]`` of the second touch one region: :func:`copy_region` and
:func:`variable_region` name both as (the buffer variable, a constant byte offset), and
:func:`read_region` the element a C++ subscript reads.

An address is a region's base plus an index (``tile[i]``): the outermost additive term of the
copy's own operand expression, where it is a run-time value, is that index; every other term,
down the chain of locals defined once, casts and conversions, must be a compile-time constant,
scaled by the size of the element the arithmetic is on (``float* + 1`` is 4 bytes), and only
where that size is certain. A base that is not constant (``smem + stage * STAGE_BYTES + i``: a
pipeline's stage) is no region at all: a copy into stage ``s + 1`` must never read as one into
the stage being read. ``None`` wherever anything is not certain; the caller then keeps to the
variable itself.

Everything is read from the syntax tree: a definition's value, a read's subscript and a
helper's ``return`` are the file's own nodes, and an expression the flows hold as text (an asm
operand, the argument a helper's parameter is bound to) is parsed on its own
(``syntax_tree.parse_expression``), so comments, parentheses and casts are the grammar's. The
size of a type is the front end's (``c_types.certain_size``: ``long`` has none, being 4 bytes
on Windows and 8 on Linux), and an integer holds an address where it has 32 bits or more on
every target (``c_types.least_integer_size``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import Protocol

import tree_sitter

from ptxlint.analysis.flow_constants import MAX_CHAIN
from ptxlint.analysis.flow_syntax import compact, pointer_arithmetic
from ptxlint.frontends.cxx.c_types import (
    BUILTIN_TYPES,
    CASTS,
    STD_SCOPES,
    certain_size,
    least_integer_size,
)
from ptxlint.frontends.syntax_tree import ParsedSource, parse_expression
from ptxlint.model import AsmStatement, PtxOperand

__all__ = ["Region", "copy_region", "indexed_past", "memory_region", "read_region",
           "region_reads", "variable_region"]

Node = tree_sitter.Node
Region = tuple[str, int]  # (the buffer variable, the byte offset of the region in it)
_Based = tuple[str, int, int | None]  # a region, and the size of the element at its address
_Terms = list[tuple[int, Node]]  # a sum's terms, each with its sign

_DECLARATORS = frozenset({"init_declarator", "pointer_declarator", "array_declarator",
                          "parenthesized_declarator", "attributed_declarator"})
_HOLDERS = frozenset({"declaration", "parameter_declaration"})
# what a declaration or a cast says besides its type: storage, qualifiers, CUDA's spaces
_NOT_TYPE = frozenset({"extern", "static", "const", "volatile", "constexpr", "register",
                       "__shared__", "__device__", "__restrict__", "__restrict"})
# attributes, each with its parenthesised arguments; tree-sitter reads ``extern __shared__
# __align__(1024) char smem_raw[]`` as a declaration of type ``__align__``, the rest an error
_ATTRIBUTES = frozenset({"__align__", "alignas", "__attribute__"})
_NAMED_CASTS = frozenset({"reinterpret_cast", "static_cast", "const_cast"})
_BUILTINS = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim", "laneid"})
_LANES = frozenset({"x", "y", "z"})  # a vector's component: its object's own value
_CONVERSIONS = frozenset({"__cvta_generic_to_shared"})  # returns the address as an integer
# the binary operators of a sum, and those that bind tighter (a term's own: ``i * 16``)
_SUM = frozenset({"+", "-"})
_TIGHTER = frozenset({"*", "/", "%"})
# no sum of terms at all, whatever their operands
_NO_SUM = frozenset({"conditional_expression", "comma_expression", "assignment_expression"})
# what moves an address: a helper that passes its parameter on does none of it
_MOVES = _NO_SUM | {"binary_expression", "subscript_expression", "update_expression"}


class Flow(Protocol):
    """What a function's flow (``FunctionFlow``) tells of its names."""

    @property
    def parsed(self) -> ParsedSource: ...
    @property
    def node(self) -> Node: ...
    @property
    def definitions(self) -> dict[str, list[Node | None]]: ...
    @property
    def uses(self) -> dict[str, list[tuple[int, str, bool]]]: ...
    @property
    def owner(self) -> object: ...
    @property
    def parameters(self) -> tuple[str, ...]: ...
    @property
    def template_parameters(self) -> frozenset[str]: ...
    def uses_of(self, name: str) -> list[tuple[int, str, bool]]: ...
    def constant(self, expression: str, depth: int = 0) -> int | None: ...
    def text(self, node: Node) -> str: ...
    def resolve(self, expression: str, depth: int = 0,
                trail: list[str] | None = None) -> str | None: ...


_MEMO: weakref.WeakKeyDictionary[object, dict[str, _Based | None]] = weakref.WeakKeyDictionary()
_STEPS: weakref.WeakKeyDictionary[object, dict[tuple[int, int], Region | None]] = \
    weakref.WeakKeyDictionary()


def memory_region(flow: Flow, step: object, operand: PtxOperand | None) -> Region | None:
    """The region ``operand`` of ``step`` (a copy's destination, a shared load's source)
    lies in, in ``flow``'s terms; ``None`` where not certain, and where the PTX adds an
    immediate (``[%0+16]``: where in the region that lands is not read)."""
    statement = getattr(step, "statement", None)
    if operand is None or not isinstance(statement, AsmStatement):
        return None
    memo = _STEPS.setdefault(flow, {})
    key = (id(step), id(operand))
    if key not in memo:
        ref = operand.ref
        if ref is None and operand.kind == "address":
            parts = operand.parts
            refs = [p.ref for p in parts if p.kind == "ref"]
            ref = refs[0] if len(refs) == 1 and not any(p.kind == "immediate" for p in parts) \
                else None
        expression = statement.operands[ref].expression \
            if ref is not None and ref < len(statement.operands) else None
        expression = _caller_expression(flow, step, expression)
        memo[key] = copy_region(flow, expression) if expression is not None else None
    return memo[key]


def region_reads(flow: Flow, region: Region | None) -> list[int]:
    """The bytes of the C++ element reads, through any variable, of ``region``."""
    if region is None:
        return []
    flow.uses_of(region[0])  # the uses are read on the first ask
    found: list[int] = []
    for name, uses in list(flow.uses.items()):
        reads = [byte for byte, how, element in uses
                 if element and how in ("read", "readwrite")]
        if reads and (found_region := variable_region(flow, name)) is not None \
                and found_region[0] == region[0]:
            found.extend(byte for byte in reads if read_region(flow, name, byte) == region)
    return sorted(found)


def indexed_past(flow: Flow, trail: list[str], offset: str) -> bool:
    """Whether an address is another plus a run-time index: ``trail`` is the chain
    ``FunctionFlow.place`` followed for the first (its own expression first, down to the
    variable), ``offset`` the place offset of the second, in the same variable. The chain's
    pointer arithmetic must end with that of ``offset``, and each step of it before that add to
    the address it starts from only terms that are run-time values (:func:`_varying`):
    ``p + i`` is ``&p[i]`` (C++ [expr.sub]: ``E1[E2]`` is ``*((E1)+(E2))``), an element of
    what ``p`` points to. A constant term (``p + 4096``, a name whose value ptxlint cannot
    see) may move it to another region of a raw buffer: then not."""
    steps = [t for t in trail if pointer_arithmetic(t) or t.startswith("this:")]
    base = offset.split("|") if offset else []
    extra = len(steps) - len(base)
    if extra <= 0:
        return False
    ours = [compact(t) for t in steps[extra:]]
    if ours != base and [_unconverted(flow, t) for t in ours] != [
            _unconverted(flow, t) for t in base]:
        return False
    return all(_adds_index(flow, step) for step in steps[:extra])


def _unconverted(flow: Flow, text: str) -> str:
    """``text`` (compacted) without the casts and conversions around it: one address spelled
    ``smem + stage * TILE`` where a store takes it and ``static_cast<uint32_t>(
    __cvta_generic_to_shared(smem + stage * TILE))`` where the write's address starts."""
    if "(" not in text:
        return text
    node = _unwrapped(parse_expression(text), lambda call: _is_conversion(flow, call))
    return compact(_source(node)) if node is not None else text


def _unwrapped(node: Node | None, unwraps: Callable[[Node], bool]) -> Node | None:
    """``node`` through parentheses, casts and the calls of one argument ``unwraps`` takes for
    a conversion; None where a parenthesis or such a call holds other than one operand."""
    while node is not None:
        if node.type == "cast_expression":
            node = node.child_by_field_name("value")
            continue
        if node.type == "call_expression" and unwraps(node):
            holder = node.child_by_field_name("arguments")
        elif node.type == "parenthesized_expression":
            holder = node
        else:
            return node
        values = _operands(holder) if holder is not None else []
        node = values[0] if len(values) == 1 else None
    return None


def _is_conversion(flow: Flow, call: Node) -> bool:
    """``call`` is a named cast or a conversion of its one argument (:func:`_conversion`)."""
    function = call.child_by_field_name("function")
    if function is None:
        return False
    if function.type == "template_function":
        name = function.child_by_field_name("name")
        return name is not None and _source(name) in _NAMED_CASTS
    return function.type == "identifier" and _conversion(flow, _source(function)) is not False


def _adds_index(flow: Flow, text: str) -> bool:
    """``text`` (through parentheses, casts and conversions of one argument) is a sum whose
    first term is the address it moves and every other term a run-time value added to it."""
    node = _unwrapped(parse_expression(text), lambda call: True)
    terms = _terms(node) if node is not None else None
    return terms is not None and len(terms) > 1 and all(sign > 0 for sign, _ in terms) and \
        all(_varying(flow, term, 0) for _, term in terms[1:])


# the locals found to hold run-time values, per flow; how many definitions deep one is read
_INDICES: weakref.WeakKeyDictionary[object, set[str]] = weakref.WeakKeyDictionary()
_INDEX_CHAIN = 8
# what scales a value without adding a constant to it (``i * 16``, ``i / 2``, ``i ^ k``)
_SCALES = frozenset({"*", "/", "%", "<<", ">>", "&", "|", "^"})


def _varying(flow: Flow, node: Node, depth: int) -> bool:
    """``node`` is a run-time value with no compile-time constant added to it: a thread's
    coordinate, a parameter, a call's result (a lane or warp index), a local written more than
    once (a loop's counter) or defined once by such a value and not ``constexpr``; a sum of
    such values, or one scaled by anything. A constant term anywhere in a sum (``i + 4096``,
    ``(i + OFFSET) * 16``), a name ptxlint cannot see, a choice or an element read: no."""
    if depth > MAX_CHAIN or flow.constant(_source(node)) is not None:
        return False
    kind = node.type
    if kind == "parenthesized_expression":
        inner = _operands(node)
        return len(inner) == 1 and _varying(flow, inner[0], depth)
    if kind == "cast_expression":
        value = node.child_by_field_name("value")
        return value is not None and _varying(flow, value, depth)
    if kind == "binary_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return False
        if _operator(node) in _SUM:
            return _varying(flow, left, depth) and _varying(flow, right, depth)
        return _operator(node) in _SCALES and (
            _varying(flow, left, depth) or _varying(flow, right, depth))
    if kind == "call_expression":
        function, arguments = node.child_by_field_name("function"), \
            node.child_by_field_name("arguments")
        cast = function.child_by_field_name("name") if function is not None and \
            function.type == "template_function" else None
        if cast is None or _source(cast) not in _NAMED_CASTS:
            return function is not None  # a call's result: known when it runs
        args = _operands(arguments) if arguments is not None else []
        return len(args) == 1 and _varying(flow, args[0], depth)
    if kind == "field_expression":
        argument = node.child_by_field_name("argument")
        return argument is not None and _source(argument) in _BUILTINS
    return kind == "identifier" and _index_variable(flow, _source(node), depth)


def _index_variable(flow: Flow, name: str, depth: int) -> bool:
    """``name`` holds a run-time value: a thread's coordinate, a parameter, or a local never
    declared ``constexpr`` that is written where its value is not read (``++i``, a compound
    assignment: a loop's counter) or given a value that reads such a value or a call's result
    anywhere (``lane / 8``, ``warp - 4``: arithmetic on an index is the index's own)."""
    if name in _BUILTINS or name in flow.parameters:
        return True
    known = _INDICES.setdefault(flow, set())
    if name in known:
        return True
    values = flow.definitions.get(name)
    if values is None or depth > _INDEX_CHAIN or flow.constant(name) is not None or \
            not _declared_varying(flow, name):
        return False
    if any(value is None or any(
            inner.type == "call_expression" and _varying(flow, inner, depth + 1) or
            inner.type == "identifier" and not _type_word(inner) and
            _index_variable(flow, _source(inner), depth + 1) for inner in _walk(value))
           for value in values):
        known.add(name)
        return True
    return False


def _declared_varying(flow: Flow, name: str) -> bool:
    """The local ``name`` is declared in the function, never ``constexpr``."""
    parsed = flow.parsed
    found: list[bool] = []
    for byte, how, _ in flow.uses_of(name):
        if how not in ("declare", "initialise"):
            continue
        node = parsed.tree.root_node.descendant_for_byte_range(byte, byte + len(name.encode()))
        holder = _holder(node) if node is not None and node.type == "identifier" else None
        if holder is not None and node is not None:
            found.append(all(_source(leaf) != "constexpr"
                             for leaf in _leaves(holder, holder.start_byte, node.start_byte)))
    return bool(found) and all(found)


def _caller_expression(flow: Flow, step: object, expression: str | None) -> str | None:
    """``expression`` of ``step``'s statement in ``flow``'s terms: through each helper called,
    the argument its parameter is bound to, where the helper passes that parameter's address
    on unchanged (a conversion, no arithmetic, no subscript) or adds only a run-time index to
    it (``(char*)dst + offset``: the start of the parameter's own region, as the helper reads
    it); a constant it adds (``(char*)dst + 4480``) moves the address to another region."""
    call, inner = getattr(step, "call", None), getattr(step, "inner", None)
    if call is None or expression is None:
        return expression
    helper = call.helper
    text = _caller_expression(helper, inner, expression) if inner is not None else expression
    if text is None:
        return None
    trail: list[str] = []
    name = helper.resolve(text, trail=trail)
    if name is None or name not in helper.parameters or helper.definitions.get(name):
        return None  # moved in the helper (``dst += 16``)
    if any((node := parse_expression(t)) is None or _moves(node) for t in trail) and \
            copy_region(helper, text) != (name, 0):
        return None  # an offset added, or what is added not read
    index = helper.parameters.index(name)
    return call.arguments[index] if index < len(call.arguments) else None


def copy_region(flow: Flow, expression: str) -> Region | None:
    """The region an address operand expression of ``flow``'s (a copy's destination, in
    ``flow``'s own terms) lies in; its outermost run-time term is the index in it."""
    node = parse_expression(expression)
    found = _region(flow, node, 0, index=True) if node is not None else None
    return (found[0], found[1]) if found is not None else None


def variable_region(flow: Flow, name: str) -> Region | None:
    """The region the pointer (or array) ``name`` points to the start of."""
    found = _variable(flow, name, 0)
    return (found[0], found[1]) if found is not None else None


def read_region(flow: Flow, name: str, at: int) -> Region | None:
    """The region the element read of ``name`` at byte ``at`` lies in: ``*q``, ``q->f`` and
    ``q[i]`` (``i`` a run-time index, of any number of terms) read ``q``'s own. A constant
    term in the subscript moves it by that many elements, where their size is certain (a raw
    buffer read as ``smem_raw[4480 + i]``), and then only one run-time term may be the index;
    a subscript of more than one dimension reads no certain region."""
    found = _variable(flow, name, 0)
    if found is None:
        return None
    buffer, offset, size = found
    use = flow.parsed.tree.root_node.descendant_for_byte_range(at, at + len(name.encode()))
    if use is None or use.type != "identifier" or flow.text(use) != name:
        return None
    read = use.parent
    if read is None or read.type != "subscript_expression" or \
            read.child_by_field_name("argument") != use:
        return buffer, offset
    around, subscript = read.parent, _index(read)
    if subscript is None or around is not None and around.type == "subscript_expression" \
            and around.child_by_field_name("argument") == read:
        return None
    terms = _terms(subscript)
    if terms is None:
        return None
    if all(flow.constant(_source(term)) is None for _, term in terms):
        return buffer, offset  # an index into the region, however many terms it has
    moved = _constant_part(flow, subscript, index=True)
    if moved is None or (moved and size is None):
        return None
    return buffer, offset + moved * (size or 0)


def _region(flow: Flow, node: Node, depth: int, index: bool) -> _Based | None:
    """``node`` as a base and constant terms (and, where ``index``, a run-time index last):
    the base's region moved by the constants, in the base's elements."""
    terms = _terms(node)
    if terms is None or depth > MAX_CHAIN:
        return None
    if index and len(terms) > 1 and _runtime(flow, terms[-1][1]):
        terms = terms[:-1]
        index = False
    (sign, base), rest = terms[0], terms[1:]
    moved = _constant_sum(flow, rest)
    if moved is None or sign < 0:
        return None
    found = _term(flow, base, depth, index and not rest)
    if found is None:
        return None
    buffer, offset, size = found
    if moved and size is None:
        return None
    return buffer, offset + moved * (size or 0), size


def _term(flow: Flow, node: Node, depth: int, index: bool) -> _Based | None:
    """One term's region: a name, a cast or conversion of an expression, ``&name[i]``."""
    kind = node.type
    if kind == "parenthesized_expression":
        inner = _operands(node)
        return _region(flow, inner[0], depth, index) if len(inner) == 1 else None
    if kind == "cast_expression":  # a C-style cast
        return _cast(flow, node.child_by_field_name("type"), node.child_by_field_name("value"),
                     depth, index)
    if kind == "call_expression":
        return _call(flow, node, depth, index)
    if kind == "pointer_expression" and _operator(node) == "&":
        return _element_address(flow, node.child_by_field_name("argument"), depth, index)
    if kind == "identifier":
        return _variable(flow, _source(node), depth)
    return None


def _cast(flow: Flow, kind: Node | None, value: Node | None, depth: int,
          index: bool) -> _Based | None:
    """The region of ``value`` cast to the type ``kind``: a pointer (the size of its element
    is that of the arithmetic on it) or an integer that holds an address whole."""
    size = _cast_size(kind) if kind is not None else None
    found = _region(flow, value, depth, index) if size is not None and value is not None \
        else None
    return (found[0], found[1], size[0]) if found is not None and size is not None else None


def _call(flow: Flow, node: Node, depth: int, index: bool) -> _Based | None:
    """A named cast (``reinterpret_cast<float*>(e)``) or a conversion of one argument."""
    function, arguments = node.child_by_field_name("function"), \
        node.child_by_field_name("arguments")
    values = _operands(arguments) if arguments is not None else []
    if function is None or len(values) != 1:
        return None
    if function.type == "template_function":
        name, bound = function.child_by_field_name("name"), \
            function.child_by_field_name("arguments")
        types = _operands(bound) if bound is not None else []
        if name is None or _source(name) not in _NAMED_CASTS or len(types) != 1 or \
                types[0].type != "type_descriptor":
            return None
        return _cast(flow, types[0], values[0], depth, index)
    if function.type != "identifier":
        return None
    scale = _conversion(flow, _source(function))
    if scale is False:
        return None
    found = _region(flow, values[0], depth, index)
    return (found[0], found[1], scale) if found is not None else None


def _element_address(flow: Flow, element: Node | None, depth: int,
                     index: bool) -> _Based | None:
    """``&name[i]``: the region of ``name`` moved by the subscript's constant part."""
    if element is None or element.type != "subscript_expression":
        return None
    name, subscript = element.child_by_field_name("argument"), _index(element)
    if name is None or name.type != "identifier" or subscript is None:
        return None
    found = _variable(flow, _source(name), depth)
    if found is None:
        return None
    moved = _constant_part(flow, subscript, index)
    if moved is None or (moved and found[2] is None):
        return None
    return found[0], found[1] + moved * (found[2] or 0), found[2]


def _variable(flow: Flow, name: str, depth: int) -> _Based | None:
    """A pointer, array or integer address named ``name``: a buffer of its own (an array, a
    parameter never written), or the region of the one value it is defined by."""
    memo = _MEMO.setdefault(flow, {})
    if depth == 0 and name in memo:
        return memo[name]
    found = _variable_uncached(flow, name, depth)
    if depth == 0:
        memo[name] = found
    return found


def _variable_uncached(flow: Flow, name: str, depth: int) -> _Based | None:
    if depth > MAX_CHAIN:
        return None
    declared = _declaration(flow, name)
    if declared is None:
        return None
    size, shape = declared
    values = flow.definitions.get(name)
    if not values:
        # a buffer of its own: an array, or a pointer parameter the function never moves
        return (name, 0, size) if shape == "array" or (
            shape == "pointer" and name in flow.parameters) else None
    if len(values) != 1 or values[0] is None or shape == "array" or name in flow.parameters:
        return None
    found = _region(flow, values[0], depth + 1, index=False)
    if found is None:
        return None
    return found[0], found[1], size


def _declaration(flow: Flow, name: str) -> tuple[int | None, str] | None:
    """The size of ``name``'s element (1 for an integer address: it counts bytes) and its
    shape (``array``, ``pointer``, ``value``), from its one declaration in the function (or
    the file's array, for a buffer declared outside it); ``None`` where there is not exactly
    one or its type is not read."""
    parsed = flow.parsed
    found: list[tuple[int | None, str] | None] = []
    if name in flow.parameters:
        declarator = flow.node.child_by_field_name("declarator")
        for ident in _identifiers(declarator, name, parsed) if declarator is not None else ():
            holder = _holder(ident)
            if holder is not None:
                found.append(_declared(holder, ident))
        return found[0] if len(found) == 1 else None
    for byte, _, _ in flow.uses_of(name):
        node = parsed.tree.root_node.descendant_for_byte_range(byte, byte + len(name))
        if node is not None and node.type == "identifier":
            holder = _holder(node)
            if holder is not None:
                found.append(_declared(holder, node))
    if not found:
        spelled = name.encode()
        for node in parsed.tree.root_node.named_children:
            if node.type == "declaration" and \
                    spelled in parsed.data[node.start_byte:node.end_byte]:
                for ident in _identifiers(node, name, parsed):
                    holder = _holder(ident)
                    declared = _declared(holder, ident) if holder is not None else None
                    if declared is not None and declared[1] == "array":
                        found.append(declared)
    return found[0] if len(found) == 1 else None


def _holder(ident: Node) -> Node | None:
    """The declaration whose declarator ``ident`` is, else ``None`` (a use, a size)."""
    child, parent = ident, ident.parent
    while parent is not None and parent.type in _DECLARATORS:
        if parent.child_by_field_name("value") == child or \
                parent.child_by_field_name("size") == child:
            return None
        child, parent = parent, parent.parent
    if parent is None or parent.type not in _HOLDERS:
        return None
    return parent if child in parent.children_by_field_name("declarator") else None


def _identifiers(node: Node, name: str, parsed: ParsedSource) -> list[Node]:
    return [n for n in _walk(node) if n.type == "identifier" and parsed.node_text(n) == name]


def _declared(holder: Node, ident: Node) -> tuple[int | None, str] | None:
    """The declaration's tokens before the name (read from the tree's leaves, an error node's
    among them: see ``_ATTRIBUTES``): one type and its stars, and whether a ``[`` follows the
    name. A second name in one declaration, before this one: not read."""
    spelled = _type_spelled(_leaves(holder, holder.start_byte, ident.start_byte))
    if spelled is None:
        return None
    kind, stars = spelled
    after = next(_leaves(holder, ident.end_byte, holder.end_byte), None)
    array = after is not None and after.type == "["
    if stars == 0 and array:
        return certain_size(kind), "array"
    if stars == 1 and not array:
        return certain_size(kind), "pointer"
    if stars == 0 and _address_integer(kind):
        return 1, "value"
    return None


def _cast_size(kind: Node) -> tuple[int | None] | None:
    """A cast's type: a pointer (its element's size, ``None`` where not certain) or an
    integer address (1); ``None`` for anything else."""
    spelled = _type_spelled(_leaves(kind, kind.start_byte, kind.end_byte))
    if spelled is None:
        return None
    name, stars = spelled
    if stars == 1:
        return (certain_size(name),)
    return (1,) if stars == 0 and _address_integer(name) else None


def _address_integer(kind: str) -> bool:
    """``kind`` is an integer type that holds a shared address (32 bits) whole on every
    target: arithmetic on it counts bytes."""
    size = least_integer_size(kind)
    return size is not None and size >= 4


def _type_spelled(tokens: Iterator[Node]) -> tuple[str, int] | None:
    """The type the tokens spell, its words one space apart (its namespace, if any, the
    standard library's), and the number of stars after them; ``None`` for anything else (a
    template, a reference, a comma)."""
    words: list[str] = []
    scope: list[str] = []
    stars = 0
    skip = 0  # the depth of the attribute's parentheses being passed over
    attribute = False
    for token in tokens:
        text = _source(token)
        if attribute or skip:
            if attribute and text != "(":
                return None
            attribute = False
            skip += {"(": 1, ")": -1}.get(text, 0)
        elif text in _ATTRIBUTES:
            attribute = True
        elif text in _NOT_TYPE:
            continue
        elif text == "::" and not stars:
            scope.append(words.pop() if words else "")
        elif text == "*" and words:
            stars += 1
        elif text.isidentifier() and not stars:
            words.append(text)
        else:
            return None
    if not words or attribute or skip or "::".join(scope) not in STD_SCOPES:
        return None
    return " ".join(words), stars


def _conversion(flow: Flow, name: str) -> int | None | bool:
    """A call that gives its argument's address: ``__cvta_generic_to_shared`` (an integer,
    counting bytes), or a helper of the file or of a project header it includes returning a
    conversion of its one parameter with no arithmetic (what its result counts in is not
    read: ``None``); ``False`` for another call."""
    if name in _CONVERSIONS:
        return 1
    conversion = getattr(flow.owner, "conversion", None)
    helper = conversion(name) if conversion is not None else None
    if helper is None:
        return False
    returns = [r.named_children[0] for r in helper.returns if r.named_children]
    if not returns or any((terms := _terms(r)) is None or len(terms) != 1 or terms[0][0] < 0
                          for r in returns):
        return False
    return None


def _constant_part(flow: Flow, node: Node, index: bool) -> int | None:
    """The constant sum of ``node``'s terms, its last dropped where ``index`` and it is a
    run-time value; ``None`` where another term is not a constant."""
    terms = _terms(node)
    if terms is None:
        return None
    if index and terms and _runtime(flow, terms[-1][1]):
        terms = terms[:-1]
    return _constant_sum(flow, terms)


def _constant_sum(flow: Flow, terms: _Terms) -> int | None:
    """The signed sum of ``terms``, each a constant of the function; ``None`` where one is
    not."""
    moved = 0
    for sign, term in terms:
        value = flow.constant(_source(term))
        if value is None:
            return None
        moved += value if sign > 0 else -value
    return moved


def _runtime(flow: Flow, term: Node) -> bool:
    """``term`` is a value known only when the kernel runs: it names a local, a parameter or
    a thread's coordinates, and is no constant. A name ptxlint cannot see the value of (a
    macro, a ``constexpr`` of another scope, a member of a record it does not read) may be a
    region's constant offset: not an index."""
    if flow.constant(_source(term)) is not None:
        return False
    names = {_source(n) for n in _walk(term) if n.type == "field_identifier" or
             n.type == "identifier" and not _type_word(n)}
    known = [n for n in names if n in _BUILTINS or n in flow.parameters
             or n in flow.definitions]
    unknown = [n for n in names if n not in known and n not in _LANES]
    return bool(known) and not unknown


def _type_word(identifier: Node) -> bool:
    """An identifier that names a type (``sizeof(float4)``) or a named cast, not a value."""
    parent = identifier.parent
    return _source(identifier) in BUILTIN_TYPES or parent is not None and \
        parent.type == "template_function" and _source(identifier) in CASTS


def _terms(node: Node) -> _Terms | None:
    """The terms of the sum ``node`` is (one where it is no sum), with their signs; ``None``
    where an operator binding looser than ``+`` joins them (``a << 2``, ``c ? a : b``)."""
    terms: _Terms = []
    while node.type == "binary_expression" and _operator(node) in _SUM:
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is None or right is None:
            return None
        terms.append((1 if _operator(node) == "+" else -1, right))
        node = left
    if node.type in _NO_SUM or node.type == "binary_expression" and \
            _operator(node) not in _TIGHTER:
        return None
    sign = -1 if node.type == "unary_expression" and _operator(node) == "-" else 1
    if node.type == "unary_expression" and _operator(node) in _SUM:
        argument = node.child_by_field_name("argument")
        if argument is None:
            return None
        node = argument  # a leading sign
    terms.append((sign, node))
    terms.reverse()
    return terms


def _moves(node: Node) -> bool:
    """``node`` does more than pass the address it is written on along (through parentheses,
    casts and conversions): some arithmetic, a subscript, a choice."""
    return any(n.type in _MOVES for n in _walk(node)) or node.type == "unary_expression"


def _index(subscript: Node) -> Node | None:
    """The one index of a subscript (C++23's ``a[i, j]`` has two)."""
    indices = subscript.child_by_field_name("indices") or \
        subscript.child_by_field_name("index")
    values = _operands(indices) if indices is not None else []
    return values[0] if len(values) == 1 else None


def _operands(node: Node) -> list[Node]:
    return [c for c in node.named_children if c.type != "comment"]


def _operator(node: Node) -> str:
    operator = node.child_by_field_name("operator")
    return operator.type if operator is not None else ""


def _source(node: Node) -> str:
    text = node.text
    return text.decode("utf-8", "replace") if text is not None else ""


def _walk(node: Node) -> Iterator[Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _leaves(node: Node, start: int, end: int) -> Iterator[Node]:
    """The tokens of ``node`` within bytes ``[start, end)``, in order: no comments, nothing
    tree-sitter only supposed (a missing parenthesis)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.end_byte <= start or current.start_byte >= end:
            continue
        if current.child_count == 0:
            if current.type != "comment" and current.start_byte < current.end_byte and \
                    start <= current.start_byte and current.end_byte <= end:
                yield current
            continue
        stack.extend(reversed(current.children))
