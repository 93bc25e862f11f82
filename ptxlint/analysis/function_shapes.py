"""What a file's tree says of its functions, whoever asks: read once per tree.

The per-function flows (:mod:`.function_flow`) of a linted file follow its calls into the
project headers it includes, and a tree's files include much the same headers. What a
header's tree says of a function (its name and template parameters, the words it spells, the
loops, ``if`` arms, locals and calls of its body) does not depend on the file that reaches it,
so it is read once per header while :mod:`.included_helpers` keeps the header
(:func:`shapes_of`), where each linted file that reached the header read it again. Only what
the linted file decides (which definition a call reaches, the steps placed at it) stays in
its own flows. This module reads the tree and the front end's statements only."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

import tree_sitter

from ptxlint.analysis.flow_syntax import (
    base_name,
    call_form,
    callee_name,
    function_definitions,
    function_name,
    received,
    scope_name,
    template_arguments,
)
from ptxlint.analysis.included_helpers import Header
from ptxlint.frontends.syntax_tree import ParsedSource, nodes_of_kinds, own_function_name
from ptxlint.model import AsmStatement
from ptxlint.value_class import value_class

__all__ = ["BodyShape", "FunctionShape", "ShapeIndex", "constructions", "shapes_of"]

Node = tree_sitter.Node

_LOOPS = frozenset({"for_statement", "for_range_loop", "while_statement", "do_statement"})
_KINDS = frozenset({"call_expression", "if_statement", "return_statement", "identifier",
                    "gnu_asm_expression", "lambda_expression", "goto_statement", "declaration",
                    *_LOOPS})
_CLASS_TYPES = frozenset({"type_identifier", "qualified_identifier", "template_type"})
# a name a call spells as one word: found among a function's words (``\b`` on both sides)
_WORD = re.compile(rb"\w+")
_ONE_WORD = re.compile(r"\w+", re.ASCII)

# a call of the body: (start, end, callee as spelled, its argument texts, how it names it)
RawCall = tuple[int, int, str, tuple[str, ...], str]
# an ``if``: (the statement, its condition, its consequence's range, its alternative's or None)
IfArms = tuple[Node, Node | None, tuple[int, int], tuple[int, int] | None]


@value_class(slots=False)
class FunctionShape:
    """One function definition as the tree shows it (byte offsets of the file)."""

    node: Node
    name: str
    start: int
    end: int
    kernel: bool  # __global__
    template_parameters: frozenset[str]
    member: bool  # defined in a class body, or out of line under a qualified name (T::f)
    template_order: tuple[str, ...]  # in order; "" where a parameter has no name
    # the class a method belongs to, as a call's qualifier or object type names it (the class
    # body's name, or the qualifier of an out-of-line definition), without template
    # arguments; "" for a free function
    scope_class: str = ""
    # each template parameter's default where it is an integer literal a call that leaves
    # the parameter out gets (``template <int N = 0> void wait()``; ``wait()`` waits 0), in
    # the order of ``template_order``; None for the others, and for one the function's
    # parameters may deduce (``int (&a)[N]``)
    template_defaults: tuple[str | None, ...] = ()


@value_class(slots=False)
class BodyShape:
    """What a function's body holds, read from its tree; never changed once read (every
    flow of the function, in each linted file that reaches it, reads the same lists)."""

    asm_ranges: list[tuple[int, int]]
    lambdas: list[tuple[int, int]]
    loops: list[tuple[int, int]]
    ifs: list[IfArms]
    returns: list[Node]
    identifiers: list[Node]
    # name -> the value nodes it receives (an initializer, the right side of an assignment,
    # None for a write whose value is unknown: ++, a compound assignment, an asm output)
    definitions: dict[str, list[Node | None]]
    raw_calls: list[RawCall]
    template_arguments: dict[int, tuple[str, ...]]  # a call's explicit ones, by its first byte
    # where its ``goto`` statements are: a label before one makes a loop no loop statement shows
    gotos: list[int]
    # the objects it declares, which run their class's constructor (``constructions``)
    constructions: list[tuple[int, str]]


class ShapeIndex:
    """The shapes of one tree's functions, each read on first ask: the definitions outside
    any function body, in order (:attr:`all`), by name, and the body of each."""

    def __init__(self, parsed: ParsedSource, statements: Sequence[AsmStatement],
                 definitions: Sequence[Node] | None = None) -> None:
        """``statements``: the file's own asm statements (no macro's expansion);
        ``definitions``: its function definitions (``function_definitions``), where the
        caller has them."""
        self.parsed = parsed
        self._definitions = definitions
        placed = sorted((parsed.to_byte(s.span.start), k) for k, s in enumerate(statements))
        self._bytes = [byte for byte, _ in placed]
        self._placed = [statements[k] for _, k in placed]
        self._shapes: dict[int, FunctionShape | None] = {}
        self._all: list[FunctionShape] | None = None
        self._by_name: dict[str, list[FunctionShape]] = {}
        self._words: dict[int, frozenset[bytes]] = {}
        self._bodies: dict[tuple[int, bool], BodyShape] = {}

    @property
    def all(self) -> list[FunctionShape]:
        """Every function the tree defines, in order."""
        if self._all is None:
            definitions = self._definitions
            if definitions is None:
                definitions = function_definitions(self.parsed.tree.root_node)
            found = [self.of(fn) for fn in definitions]
            self._all = [shape for shape in found if shape is not None]
            for shape in self._all:
                self._by_name.setdefault(shape.name, []).append(shape)
        return self._all

    def named(self, name: str) -> list[FunctionShape]:
        """The definitions called ``name`` (overloads, specialisations), in order."""
        if self._all is None:
            self.all  # noqa: B018 - lists them
        return self._by_name.get(name, [])

    def of(self, fn: Node) -> FunctionShape | None:
        """The shape of the definition ``fn``; ``None`` for one without a name or body."""
        key = fn.start_byte
        if key not in self._shapes:
            self._shapes[key] = _shape(self.parsed, fn)
        return self._shapes[key]

    def statements_in(self, start: int, end: int) -> list[AsmStatement]:
        """The statements that begin in ``[start, end)``, in order."""
        first = bisect.bisect_left(self._bytes, start)
        return self._placed[first:bisect.bisect_left(self._bytes, end)]

    def holds_statements(self, shape: FunctionShape) -> bool:
        first = bisect.bisect_left(self._bytes, shape.start)
        return first < len(self._bytes) and self._bytes[first] < shape.end

    def spells(self, shape: FunctionShape, words: frozenset[bytes],
               odd: re.Pattern[bytes] | None) -> bool:
        """The function's text spells one of ``words`` as a whole word, or matches ``odd``
        (the names that are not one word: ``~T``, ``operator()``): what a pattern of
        ``\\b(?:name|...)\\b`` finds. Its words are read once, where each set of names asked
        compiled a pattern and searched the text again (CUTLASS ``include/`` with
        --preview: 492 patterns, 1.1 s of its 23 s profiled)."""
        known = self._words.get(shape.start)
        if known is None:
            data = self.parsed.data[shape.start:shape.end]
            known = self._words[shape.start] = frozenset(_WORD.findall(data))
        if not known.isdisjoint(words):
            return True
        return odd is not None and odd.search(self.parsed.data, shape.start, shape.end) \
            is not None

    def body(self, node: Node, recovered: bool) -> BodyShape | None:
        """The body of the function ``node`` (a definition, or the block of one the text
        shows: ``recovered``); ``None`` where it has none."""
        key = (node.start_byte, recovered)
        known = self._bodies.get(key)
        if known is None:
            block = node if recovered else node.child_by_field_name("body")
            if block is None:
                return None
            known = self._bodies[key] = _body(
                self.parsed, block, self.statements_in(node.start_byte, node.end_byte))
        return known


def names_matcher(names: set[str]) -> tuple[frozenset[bytes], re.Pattern[bytes] | None]:
    """``names`` for :meth:`ShapeIndex.spells`: the one-word names, and a pattern of the
    others (``None`` where there are none)."""
    plain = frozenset(n.encode() for n in names if _ONE_WORD.fullmatch(n))
    odd = sorted(n for n in names if not _ONE_WORD.fullmatch(n))
    pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in odd) + rb")\b") \
        if odd else None
    return plain, pattern


def shapes_of(header: Header) -> ShapeIndex:
    """The shapes of an included header's functions, kept with the header."""
    index = header.kept.get("shapes")
    if not isinstance(index, ShapeIndex):
        own = [s for s in header.statements
               if s.context.macro is None and s.source.text is header.parsed.text]
        index = header.kept["shapes"] = ShapeIndex(header.parsed, own, header.definitions)
    return index


def _shape(parsed: ParsedSource, fn: Node) -> FunctionShape | None:
    body = fn.child_by_field_name("body")
    # the name of the function's own declarator: a function returning a reference or a
    # function pointer (`void (*f(int a))(float)`) has one too
    name_node = own_function_name(fn)
    if body is None or name_node is None:
        return None
    template: set[str] = set()
    order: list[str] = []
    defaults: list[str | None] = []
    parent = fn.parent
    if parent is not None and parent.type == "template_declaration":
        plist = parent.child_by_field_name("parameters")
        for p in plist.named_children if plist is not None else ():
            default = p.child_by_field_name("default_value") \
                if p.type == "optional_parameter_declaration" else None
            names = [parsed.node_text(ident) for ident in p.named_children
                     if ident.type in ("identifier", "type_identifier") and ident != default]
            template.update(names)
            order.append(names[-1] if names else "")  # `Foo N`: the last is the name
            defaults.append(_literal_default(parsed, default))
        declarator = fn.child_by_field_name("declarator")
        spelled_parameters = parsed.node_text(declarator) if declarator is not None else ""
        defaults = [None if d is None or re.search(rf"\b{re.escape(n)}\b", spelled_parameters)
                    else d for n, d in zip(order, defaults, strict=True)]
    head = parsed.data[parsed.header_start(fn.start_byte):body.start_byte]
    holder = parent.parent if parent is not None and parent.type == "template_declaration" \
        else parent
    spelled = parsed.node_text(name_node)
    in_class = holder is not None and holder.type == "field_declaration_list"
    member = "::" in spelled or in_class
    scope = ""
    if in_class and holder is not None and holder.parent is not None:
        class_name = holder.parent.child_by_field_name("name")
        scope = function_name(parsed.node_text(class_name)) if class_name is not None else ""
    elif "::" in spelled:
        scope = scope_name(spelled)
    kernel = b"__global__" in head or parsed.declares_kernel(fn)
    return FunctionShape(fn, function_name(spelled), fn.start_byte, fn.end_byte,
                         kernel, frozenset(template), member, tuple(order), scope,
                         tuple(defaults) if any(d is not None for d in defaults) else ())


# ``std::f(...)``, ``::std::f(...)``: the C++ standard library, which holds no PTX (libcu++'s
# ``cuda::std::`` does, and is not this)
_STANDARD = re.compile(rb"\s*(?:::\s*)?std\s*::")


def _standard(parsed: ParsedSource, call: Node) -> bool:
    """``call`` calls a function of the C++ standard library: no protocol step, no helper."""
    function = call.child_by_field_name("function")
    return function is not None and function.type in ("qualified_identifier",
                                                      "template_function") and \
        _STANDARD.match(parsed.data, function.start_byte) is not None


def _literal_default(parsed: ParsedSource, default: Node | None) -> str | None:
    """A template parameter's default, where it is an integer literal (``= 0``, ``= 2u``)."""
    if default is None or default.type != "number_literal":
        return None
    text = parsed.node_text(default)
    return text if re.fullmatch(r"(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*", text) else None


def _body(parsed: ParsedSource, block: Node, statements: Sequence[AsmStatement]) -> BodyShape:
    found = nodes_of_kinds(block, _KINDS)
    loops = sorted((n.start_byte, n.end_byte) for kind in _LOOPS for n in found.get(kind, ()))
    ifs: list[IfArms] = []
    for node in found.get("if_statement", ()):
        then = node.child_by_field_name("consequence")
        other = node.child_by_field_name("alternative")
        if then is None:
            continue
        ifs.append((node, node.child_by_field_name("condition"), (then.start_byte, then.end_byte),
                    (other.start_byte, other.end_byte) if other is not None else None))
    identifiers = list(found.get("identifier", ()))
    definitions: dict[str, list[Node | None]] = {}
    for ident in identifiers:
        for value in received(ident):
            definitions.setdefault(parsed.node_text(ident), []).append(value)
    # asm outputs are writes of their variables, with values the C++ cannot see
    for statement in sorted(statements, key=lambda s: s.span.start):
        for operand in statement.outputs:
            name = base_name(operand.expression)
            if name is not None:
                definitions.setdefault(name, []).append(None)
    raw_calls: list[RawCall] = []
    bound_arguments: dict[int, tuple[str, ...]] = {}
    # a macro's invocation that expands to its asm statements alone is those statements, which
    # are the function's own steps: no call of a function ptxlint cannot read
    expanded = {(parsed.to_byte(e.span.start), parsed.to_byte(e.span.end))
                for s in statements for e in (s.context.expansion,)
                if e is not None and e.only_asm}
    for node in found.get("call_expression", ()):
        name = callee_name(parsed, node)
        if name is None or _in_directive_condition(node, block) or (
                expanded and (node.start_byte, node.end_byte) in expanded) or _standard(
                parsed, node):
            continue
        arguments = node.child_by_field_name("arguments")
        texts = tuple(parsed.node_text(a) for a in arguments.named_children
                      if a.type != "comment") if arguments is not None else ()
        raw_calls.append((node.start_byte, node.end_byte, name, texts, call_form(node)))
        bound = template_arguments(parsed, node)
        if bound:
            bound_arguments[node.start_byte] = bound
    raw_calls.sort()
    return BodyShape(
        asm_ranges=[(n.start_byte, n.end_byte) for n in found.get("gnu_asm_expression", ())],
        lambdas=[(n.start_byte, n.end_byte) for n in found.get("lambda_expression", ())],
        loops=loops, ifs=ifs, returns=list(found.get("return_statement", ())),
        identifiers=identifiers, definitions=definitions, raw_calls=raw_calls,
        template_arguments=bound_arguments,
        gotos=[n.start_byte for n in found.get("goto_statement", ())],
        constructions=constructions(found.get("declaration", ())))


def constructions(declarations: Sequence[Node]) -> list[tuple[int, str]]:
    """The objects ``declarations`` (a body's, in order) declare (``T x;``, ``T x(a);``,
    ``T x{a};``): each declarator's first byte and the class it names (its last name, no
    template arguments); a pointer, a reference or a copy of a value (``T x = v;``) runs no
    constructor of its own here. Read from the body's one walk (``_body``), where the flows
    walked each function's whole tree again from Python for them: CUTLASS ``include/`` with
    --preview, 6,904 walks and 2.0 of its 20 s profiled."""
    found: list[tuple[int, str]] = []
    for declaration in declarations:
        kind = declaration.child_by_field_name("type")
        if kind is None or kind.type not in _CLASS_TYPES or kind.text is None:
            continue
        name = kind.text.decode(errors="replace").split("<", 1)[0]
        name = name.rsplit("::", 1)[-1].strip()
        for declarator in declaration.children_by_field_name("declarator"):
            value = declarator.child_by_field_name("value")
            if declarator.type == "identifier" or (
                    declarator.type == "init_declarator" and value is not None
                    and value.type in ("argument_list", "initializer_list")):
                found.append((declarator.start_byte, name))
    found.sort()
    return found


_DIRECTIVES = frozenset(("preproc_if", "preproc_elif"))


def _in_directive_condition(node: Node, block: Node) -> bool:
    """``node`` lies in the condition of an ``#if`` or ``#elif`` inside ``block``: the
    preprocessor's expression, never a call the function makes (``#if defined(A) and
    (B)``, where the grammar reads ``and (B)`` as a call of ``and``)."""
    parent = node.parent
    while parent is not None and parent != block:
        if parent.type in _DIRECTIVES:
            # up to the condition's end: the directive's line (the grammar may err on the
            # words before the condition it reads, ``and``'s among them)
            condition = parent.child_by_field_name("condition")
            return condition is not None and node.end_byte <= condition.end_byte
        parent = parent.parent
    return False
