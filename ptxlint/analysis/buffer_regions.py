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
"""

from __future__ import annotations

import re
import weakref
from typing import Protocol

import tree_sitter

from ptxlint.analysis.flow_constants import MAX_CHAIN
from ptxlint.analysis.flow_syntax import outer
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement, PtxOperand

__all__ = ["Region", "copy_region", "memory_region", "read_region", "region_reads",
           "variable_region"]

Node = tree_sitter.Node
Region = tuple[str, int]  # (the buffer variable, the byte offset of the region in it)
_Based = tuple[str, int, int | None]  # a region, and the size of the element at its address

# element sizes certain on every CUDA target (``long`` is not among them)
_SIZES = {
    **dict.fromkeys(("char", "signed char", "unsigned char", "int8_t", "uint8_t", "byte",
                     "bool"), 1),
    **dict.fromkeys(("short", "unsigned short", "int16_t", "uint16_t", "half", "__half",
                     "nv_bfloat16", "__nv_bfloat16"), 2),
    **dict.fromkeys(("int", "unsigned", "unsigned int", "int32_t", "uint32_t", "float",
                     "half2", "__half2", "nv_bfloat162", "__nv_bfloat162"), 4),
    **dict.fromkeys(("long long", "unsigned long long", "int64_t", "uint64_t", "double",
                     "float2", "int2", "uint2"), 8),
    **dict.fromkeys(("float4", "int4", "uint4"), 16),
}
# integer types an address may be held in: arithmetic on them counts bytes
_INTEGERS = frozenset({"int", "unsigned", "unsigned int", "int32_t", "uint32_t", "long long",
                       "unsigned long long", "int64_t", "uint64_t", "size_t", "uintptr_t",
                       "intptr_t", "long", "unsigned long", "uint"})
_DECLARATORS = frozenset({"init_declarator", "pointer_declarator", "array_declarator",
                          "parenthesized_declarator", "attributed_declarator"})
_HOLDERS = frozenset({"declaration", "parameter_declaration"})
# what a declaration says besides its type: storage, qualifiers, CUDA's and C++'s attributes
_NOT_TYPE = on_first_use(
    r"\b(?:extern|static|const|volatile|constexpr|register|__shared__|__device__|"
    r"__restrict__|__restrict|std::)\b|\b(?:__align__|alignas)\s*\([^()]*\)|"
    r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)")
_TYPE = on_first_use(r"((?:[A-Za-z_]\w*\s+)*[A-Za-z_]\w*)\s*(\**)")
_CAST = on_first_use(r"(?:reinterpret_cast|static_cast|const_cast)\s*<([^<>]*)>\s*\((.*)\)")
_CALL = on_first_use(r"([A-Za-z_]\w*)\s*\((.*)\)")
_ADDRESS = on_first_use(r"&\s*([A-Za-z_]\w*)\s*\[(.*)\]")
_NAME = on_first_use(r"[A-Za-z_]\w*")
_BUILTINS = frozenset({"threadIdx", "blockIdx", "blockDim", "gridDim", "laneid"})
_CONVERSIONS = frozenset({"__cvta_generic_to_shared"})  # returns the address as an integer
# a binary operator binding looser than + and -: the expression is no sum of terms
_LOOSER = on_first_use(r"<<|>>|[<>=!]=|&&|\|\||[?:|^,=<>]")


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


def _caller_expression(flow: Flow, step: object, expression: str | None) -> str | None:
    """``expression`` of ``step``'s statement in ``flow``'s terms: through each helper called,
    the argument its parameter is bound to, where the helper passes that parameter's address
    on unchanged (a conversion, no arithmetic, no subscript)."""
    call, inner = getattr(step, "call", None), getattr(step, "inner", None)
    if call is None or expression is None:
        return expression
    helper = call.helper
    text = _caller_expression(helper, inner, expression) if inner is not None else expression
    if text is None:
        return None
    trail: list[str] = []
    name = helper.resolve(text, trail=trail)
    if name is None or name not in helper.parameters or helper.definitions.get(name) or any(
            "[" in t or (_terms(t) or [(1, ""), (1, "")])[1:] for t in trail):
        return None  # moved in the helper (``dst += 16``), or an offset or index added
    index = helper.parameters.index(name)
    return call.arguments[index] if index < len(call.arguments) else None


def copy_region(flow: Flow, expression: str) -> Region | None:
    """The region an address operand expression of ``flow``'s (a copy's destination, in
    ``flow``'s own terms) lies in; its outermost run-time term is the index in it."""
    found = _region(flow, expression, 0, index=True)
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
    text = flow.parsed.data[at:at + 400].decode("utf-8", "replace")[len(name):].lstrip()
    if not text.startswith("["):
        return buffer, offset
    subscript = _bracketed(text)
    if subscript is None or text[len(subscript) + 2:].lstrip().startswith("["):
        return None
    terms = _terms(subscript)
    if terms is None:
        return None
    if all(flow.constant(term) is None for _, term in terms):
        return buffer, offset  # an index into the region, however many terms it has
    moved = _constant_part(flow, subscript, index=True)
    if moved is None or (moved and size is None):
        return None
    return buffer, offset + moved * (size or 0)


def _region(flow: Flow, expression: str, depth: int, index: bool) -> _Based | None:
    """``expression`` as a base and constant terms (and, where ``index``, a run-time index
    last): the base's region moved by the constants, in the base's elements."""
    terms = _terms(expression)
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


def _term(flow: Flow, term: str, depth: int, index: bool) -> _Based | None:
    """One term's region: a name, a cast or conversion of an expression, ``&name[i]``."""
    term = term.strip()
    if term.startswith("(") and (close := _close(term, 0)) is not None:
        if close == len(term) - 1:
            return _region(flow, term[1:-1], depth, index)
        rest = term[close + 1:].lstrip()
        size = _type_size(term[1:close])
        if size is None or not rest or not (rest[0].isalnum() or rest[0] in "_(&"):
            return None
        found = _region(flow, rest, depth, index)  # a C-style cast of what follows
        return (found[0], found[1], size[0]) if found is not None else None
    cast = _CAST().fullmatch(term)
    if cast is not None:
        size = _type_size(cast.group(1))
        found = _region(flow, cast.group(2), depth, index) if size is not None else None
        return (found[0], found[1], size[0]) if found is not None and size is not None \
            else None
    address = _ADDRESS().fullmatch(term)
    if address is not None:
        found = _variable(flow, address.group(1), depth)
        subscript = str(address.group(2))
        if found is None or _bracketed("[" + subscript + "]") != subscript:
            return None
        moved = _constant_part(flow, subscript, index)
        if moved is None or (moved and found[2] is None):
            return None
        return found[0], found[1] + moved * (found[2] or 0), found[2]
    call = _CALL().fullmatch(term)
    if call is not None:
        scale = _conversion(flow, call.group(1))
        if scale is False or _close(term, call.start(2) - 1) != len(term) - 1:
            return None
        found = _region(flow, call.group(2), depth, index)
        return (found[0], found[1], scale) if found is not None else None
    if _NAME().fullmatch(term):
        return _variable(flow, term, depth)
    return None


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
    found = _region(flow, flow.text(values[0]), depth + 1, index=False)
    if found is None:
        return None
    return found[0], found[1], size


def _declaration(flow: Flow, name: str) -> tuple[int | None, str] | None:
    """The size of ``name``'s element (1 for an integer address: it counts bytes) and its
    shape (``array``, ``pointer``, ``value``), from its one declaration in the function (or
    the file's, for a buffer declared outside it); ``None`` where there is not exactly one or
    its type is not read."""
    parsed = flow.parsed
    found: list[tuple[int | None, str] | None] = []
    if name in flow.parameters:
        declarator = flow.node.child_by_field_name("declarator")
        for ident in _identifiers(declarator, name, parsed) if declarator is not None else ():
            holder = _holder(ident)
            if holder is not None:
                found.append(_declared(parsed, holder, ident))
        return found[0] if len(found) == 1 else None
    for byte, _, _ in flow.uses_of(name):
        node = parsed.tree.root_node.descendant_for_byte_range(byte, byte + len(name))
        if node is not None and node.type == "identifier":
            holder = _holder(node)
            if holder is not None:
                found.append(_declared(parsed, holder, node))
    if not found:
        root = parsed.tree.root_node
        pattern = re.compile(rf"\b{re.escape(name)}\s*\[")
        for node in root.named_children:
            if node.type == "declaration" and pattern.search(parsed.node_text(node)):
                for ident in _identifiers(node, name, parsed):
                    holder = _holder(ident)
                    if holder is not None:
                        found.append(_declared(parsed, holder, ident))
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
    stack, found = [node], []
    while stack:
        current = stack.pop()
        if current.type == "identifier" and parsed.node_text(current) == name:
            found.append(current)
        stack.extend(current.named_children)
    return found


def _declared(parsed: ParsedSource, holder: Node, ident: Node) -> tuple[int | None, str] | None:
    """Read from the text before the name (tree-sitter reads ``extern __shared__
    __align__(1024) char smem_raw[]`` as a declaration of type ``__align__``): one type, its
    stars, and whether a ``[`` follows. Two names in one declaration: not read."""
    before = parsed.data[holder.start_byte:ident.start_byte].decode("utf-8", "replace")
    after = parsed.data[ident.end_byte:ident.end_byte + 40].decode("utf-8", "replace").lstrip()
    match = _TYPE().fullmatch(_NOT_TYPE().sub(" ", before).strip())
    if match is None:
        return None
    kind = " ".join(match.group(1).split())
    stars = len(match.group(2))
    if stars == 0 and after.startswith("["):
        return _SIZES.get(kind), "array"
    if stars == 1 and not after.startswith("["):
        return _SIZES.get(kind), "pointer"
    if stars == 0 and kind in _INTEGERS:
        return 1, "value"
    return None


def _type_size(text: str) -> tuple[int | None] | None:
    """A cast's type: a pointer (its element's size, ``None`` where not certain) or an
    integer address (1); ``None`` for anything else."""
    match = _TYPE().fullmatch(_NOT_TYPE().sub(" ", text).strip())
    if match is None:
        return None
    kind = " ".join(match.group(1).split())
    stars = len(match.group(2))
    if stars == 1:
        return (_SIZES.get(kind),)
    return (1,) if stars == 0 and kind in _INTEGERS else None


def _conversion(flow: Flow, name: str) -> int | None | bool:
    """A call that gives its argument's address: ``__cvta_generic_to_shared`` (an integer,
    counting bytes), or a same-file helper returning a conversion of its one parameter with no
    arithmetic (what its result counts in is not read: ``None``); ``False`` for another call."""
    if name in _CONVERSIONS:
        return 1
    owner = flow.owner
    converts = getattr(owner, "converts", None)
    named = getattr(owner, "functions_named", None)
    if converts is None or named is None or not converts(name):
        return False
    helpers = named(name)
    if len(helpers) != 1:
        return False
    returns = [r.named_children[0] for r in helpers[0].returns if r.named_children]
    if not returns or any(_terms(helpers[0].text(r)) != [(1, helpers[0].text(r))]
                          for r in returns):
        return False
    return None


def _constant_part(flow: Flow, expression: str, index: bool) -> int | None:
    """The constant sum of ``expression``'s terms, its last dropped where ``index`` and it
    is a run-time value; ``None`` where another term is not a constant."""
    terms = _terms(expression)
    if terms is None:
        return None
    if index and terms and _runtime(flow, terms[-1][1]):
        terms = terms[:-1]
    return _constant_sum(flow, terms)


def _constant_sum(flow: Flow, terms: list[tuple[int, str]]) -> int | None:
    """The signed sum of ``terms``, each a constant of the function; ``None`` where one is
    not."""
    moved = 0
    for sign, term in terms:
        value = flow.constant(term)
        if value is None:
            return None
        moved += value if sign > 0 else -value
    return moved


def _runtime(flow: Flow, term: str) -> bool:
    """``term`` is a value known only when the kernel runs: it names a local, a parameter or
    a thread's coordinates, and is no constant. A name ptxlint cannot see the value of (a
    macro, a ``constexpr`` of another scope) may be a region's constant offset: not an index."""
    if flow.constant(term) is not None:
        return False
    names = set(_NAME().findall(outer(term))) | set(_NAME().findall(term))
    known = [n for n in names if n in _BUILTINS or n in flow.parameters
             or n in flow.definitions]
    unknown = [n for n in names if n not in known and not _is_type_word(n)]
    return bool(known) and not unknown


def _is_type_word(word: str) -> bool:
    return word in _SIZES or word in _INTEGERS or word in {
        "signed", "unsigned", "long", "short", "char", "int", "x", "y", "z", "sizeof",
        "static_cast", "reinterpret_cast", "const"}


def _terms(expression: str) -> list[tuple[int, str]] | None:
    """The top-level terms of a sum, with their signs; ``None`` where an operator binding
    looser than ``+`` joins them (``a << 2``, ``c ? a : b``) or brackets do not balance."""
    text = expression.strip()
    terms: list[tuple[int, str]] = []
    depth, start, sign = 0, 0, 1
    k = 0
    while k < len(text):
        c = text[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0 and c in "+-":
            if text[k:k + 2] in ("++", "--", "->"):
                k += 2
                continue
            before = text[start:k].rstrip()
            if before and (before[-1].isalnum() or before[-1] in "_)]"):
                terms.append((sign, before))  # a binary + or -: after an operand
                sign, start = (1 if c == "+" else -1), k + 1
            elif not before and not terms:
                sign, start = (1 if c == "+" else -1), k + 1  # a leading sign
        k += 1
    if depth != 0:
        return None
    last = text[start:].strip()
    if not last:
        return None
    terms.append((sign, last))
    for _, term in terms:
        if _LOOSER().search(_without_casts(outer(term))) or _binary_and(outer(term)):
            return None
    return terms


def _without_casts(text: str) -> str:
    text = re.sub(r"(?:static|reinterpret|const)_cast\s*<[^<>]*>", "cast", text)
    return text.replace("::", ".")


def _binary_and(text: str) -> bool:
    """A ``&`` with an operand before it: the bitwise and, looser than ``+``."""
    return re.search(r"[\w)\]]\s*&(?!&)", text) is not None


def _close(text: str, start: int) -> int | None:
    """The index of the bracket closing the one at ``start``."""
    depth = 0
    for k in range(start, len(text)):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(text[k], 0)
        if depth == 0:
            return k
    return None


def _bracketed(text: str) -> str | None:
    """What the ``[...]`` that ``text`` starts with holds."""
    close = _close(text, 0)
    return text[1:close] if close is not None else None

