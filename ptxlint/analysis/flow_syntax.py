"""The C++ syntax the per-function flows read off tree-sitter nodes and operand texts: how an
identifier is used, the name a declarator declares, the name a call calls, how and with which
template arguments, the subscripts after a variable, the variable an operand expression is
about. Split from
:mod:`ptxlint.analysis.function_flow`, which reads them for every function it follows.

An expression the flows have only as text (an operand, a call's argument, a local's value) is
read on its own tree (``syntax_tree.parse_expression``, kept per text); its words are read only
where it does not parse (a macro's argument list cut short)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

import tree_sitter

from ptxlint.analysis.address_masks import CASTS
from ptxlint.frontends.syntax_tree import (
    ParsedSource,
    expression_text,
    own_parameter_list,
    parse_expression,
)
from ptxlint.lazy_regex import on_first_use

__all__ = ["base_name", "call_form", "callee_name", "compact", "declared", "function_name",
           "local_lambda", "may_leave_loop", "one_argument_call", "parameter_arity",
           "pointer_arithmetic", "pointer_variables", "scope_name", "subscripts", "subscripts_at",
           "template_arguments", "usage"]

Node = tree_sitter.Node


_DECLARATORS = frozenset({"init_declarator", "array_declarator", "pointer_declarator",
                          "reference_declarator"})


# Callees whose result is about their (first) argument: conversions, casts, and types called
# as functional casts (``uint32_t(x)``); as identifiers, never the variable either.
_NOT_BASES = frozenset(
    "__cvta_generic_to_shared cvta_to_shared static_cast reinterpret_cast const_cast "
    "uint32_t uint64_t int32_t int64_t uint16_t unsigned int long short char void const size_t "
    "uintptr_t intptr_t float double bool signed auto cast_smem_ptr_to_uint smem_ptr_to_uint "
    "__cvta_generic_to_global std cute cutlass raw_pointer_cast get sizeof".split())
_IDENTIFIER = on_first_use(r"[A-Za-z_]\w*")
_TEMPLATE_ARGUMENTS = on_first_use(r"(?<=\w)\s*<[^<>()]*>")
# Subtrees that name no variable of the expression: types and template arguments (types, or
# constants), members, literals, and the operands of the unevaluated operators, whose value
# is a constant (``smem + sizeof(T) * i`` is about ``smem``, not ``T``).
_NO_VARIABLE = frozenset({
    "type_descriptor", "template_argument_list", "primitive_type", "type_identifier",
    "sized_type_specifier", "decltype", "namespace_identifier", "field_identifier", "comment",
    "number_literal", "string_literal", "raw_string_literal", "concatenated_string",
    "char_literal", "user_defined_literal", "true", "false", "null", "lambda_expression",
    "sizeof_expression", "alignof_expression", "offsetof_expression", "noexcept",
    "requires_expression", "gnu_asm_expression", "compound_statement"})
_CALLEE_NAMES = frozenset({"identifier", "qualified_identifier", "template_function",
                           "primitive_type"})


@functools.lru_cache(maxsize=8192)
def base_name(expression: str) -> str | None:
    """The variable an operand expression is about, read on its tree: the first variable, in
    the order it is written, that is not a type, a template argument, a member or an operand
    of ``sizeof``, reading through casts, ``&``/``*``, subscripts, member accesses and calls
    of conversions (``(uint32_t)__cvta_generic_to_shared(&bars[i])`` -> ``bars``,
    ``x.data()`` -> ``x``); ``None`` where the first is the result of another call
    (``smem_u32(&bar)``) or there is none. The text is read where it does not parse.
    Kept per expression: a header's statements are read again for each file that includes it
    (CUTLASS include/ with --preview: 5% of py-spy's samples were here; the run's CPU 5.58-5.63
    s -> 5.46-5.59 s)."""
    node = parse_expression(expression)
    if node is None:
        return _base_name_in_text(expression)
    return _base(node)


def _base(node: Node) -> str | None:
    """:func:`base_name` of an expression's tree: its nodes in the order written, by a stack
    (a sum of a thousand terms nests a thousand deep). A subtree without a variable leaves the
    answer to what follows (``1 + smem``); a call of another function decides ``None``."""
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in _NO_VARIABLE:
            continue
        if kind == "identifier":
            name = expression_text(current)
            if name not in _NOT_BASES:
                return name
            continue
        if kind == "this":
            return "this"
        if kind == "qualified_identifier":  # `ns::x`, `T::kSize`: the name after the scopes
            inner = current.child_by_field_name("name")
            stack.extend([inner] if inner is not None else [])
            continue
        if kind != "call_expression":
            stack.extend(reversed(current.named_children))
            continue
        function = current.child_by_field_name("function")
        while function is not None and function.type == "parenthesized_expression":
            function = next((c for c in function.named_children if c.type != "comment"), None)
        if function is not None and function.type not in _CALLEE_NAMES:
            # a method of an object, `x.data()`, or its operator() (`tensor[i](0, 0)`,
            # `(*tile)(0, 0)`, `get<1>(t)(_, k)`): about the object, whatever follows
            stack = [function]
            continue
        callee = _callee_word(function)
        if function is None or callee is None or (
                callee not in _NOT_BASES and function.type != "primitive_type"):
            return None  # another function's result
        arguments = current.child_by_field_name("arguments")  # a conversion: its argument
        stack.extend(reversed([c for c in arguments.named_children if c.type != "comment"]
                              if arguments is not None else []))
    return None


def _callee_word(function: Node | None) -> str | None:
    """The last word of the name a call spells (``cute::get<0>`` -> ``get``)."""
    while function is not None and function.type in _CALLEE_NAMES:
        if function.type in ("identifier", "primitive_type"):
            return expression_text(function)
        function = function.child_by_field_name("name")
    return None



@functools.lru_cache(maxsize=8192)
def one_argument_call(expression: str) -> tuple[str, str] | None:
    """``expression`` as a call of a named function with one argument, through the casts,
    conversions (:func:`base_name`'s) and parentheses around it (``(uint32_t)smem_u32(&bar)``,
    ``static_cast<uint32_t>(ns::cvt<T>(p))``): (the function's last name, the argument as
    written); ``None`` otherwise, a method call included. Kept per expression: the flows
    resolve each wgmma accumulator of CUTLASS's wrappers again for every file that includes
    them (CUTLASS include/ with --preview: 121,186 questions of 268 texts)."""
    node = parse_expression(expression)
    while node is not None:
        if node.type == "cast_expression":
            node = node.child_by_field_name("value")
            continue
        if node.type == "parenthesized_expression":
            node = next((c for c in node.named_children if c.type != "comment"), None)
            continue
        if node.type != "call_expression":
            return None
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        values = [c for c in arguments.named_children if c.type != "comment"] \
            if arguments is not None else []
        name = _callee_word(function)
        if function is None or name is None or len(values) != 1:
            return None
        if function.type != "primitive_type" and name not in _NOT_BASES:
            return name, expression_text(values[0])
        node = values[0]  # a conversion's argument
    return None


def _base_name_in_text(expression: str) -> str | None:
    """:func:`base_name` of a text that does not parse as an expression (a macro's argument
    list, an operand cut short): its first identifier that is not a cast, a conversion, a type
    or a namespace."""
    previous = None
    while previous != expression:  # template arguments name types, not the variable
        previous, expression = expression, _TEMPLATE_ARGUMENTS().sub("", expression)
    for match in _IDENTIFIER().finditer(expression):
        word = match.group()
        if word in _NOT_BASES:
            continue
        rest = expression[match.end():].lstrip()
        if rest.startswith("::"):
            continue  # a namespace
        if rest.startswith("(") and not rest.startswith("()"):
            return None  # a call of something else: its result is not a variable
        return word
    return None


def usage(node: Node) -> tuple[str, bool]:
    """How an identifier is used, and whether through an element (``x[i]``, ``*x``,
    ``x->f``, ``x.f``): climbs through subscripts, members and parentheses."""
    child = node
    parent = node.parent
    element = False
    while parent is not None and (
            (parent.type in ("subscript_expression", "field_expression")
             and parent.child_by_field_name("argument") == child)
            or parent.type == "parenthesized_expression"
            or (parent.type == "pointer_expression" and parent.children[0].type == "*")):
        element = element or parent.type != "parenthesized_expression"
        child, parent = parent, parent.parent
    if parent is None:
        return "read", element
    kind = parent.type
    if kind == "assignment_expression" and parent.child_by_field_name("left") == child:
        operator = parent.child_by_field_name("operator")
        plain = operator is not None and operator.type == "="
        return ("write" if plain else "readwrite"), element
    if kind == "update_expression":
        return "readwrite", element
    if kind == "pointer_expression":
        return "address", element
    if kind == "argument_list":
        return "argument", element
    if kind in _DECLARATORS and parent.child_by_field_name("declarator") == child:
        while parent is not None and parent.type in _DECLARATORS - {"init_declarator"}:
            parent = parent.parent
        if parent is not None and parent.type == "init_declarator" and \
                parent.child_by_field_name("value") is not None:
            return "initialise", element
        return "declare", element
    if kind == "call_expression" and parent.child_by_field_name("function") == child:
        return "callee", element
    return "read", element


def declared(declarator: Node | None) -> Node | None:
    while declarator is not None and declarator.type not in ("identifier", "field_identifier"):
        inner = declarator.child_by_field_name("declarator")
        if inner is None and declarator.type in ("reference_declarator",
                                                 "parenthesized_declarator"):
            # `T& x`, and `(&acc)[N]`: a reference to an array
            inner = declarator.named_children[-1] if declarator.named_children else None
        declarator = inner
    return declarator


def function_definitions(root: Node) -> list[Node]:
    """The function definitions of a file in order, by one cursor walk that does not enter
    their bodies (most of a file's nodes: a walk of them all cost half the flows' time);
    a local class's methods, inside a body, are not found."""
    found: list[Node] = []
    cursor = root.walk()
    while True:
        node = cursor.node
        if node is not None and node.type == "function_definition":
            found.append(node)
        elif node is not None and node.type != "compound_statement" and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return found


def parameter_names(parsed: ParsedSource, function: Node) -> tuple[str, ...]:
    """The names of ``function``'s own parameters, in order ("" for an unnamed one): those of
    its own declarator (in ``void (*f(int a))(float)`` ``a`` is f's)."""
    plist = own_parameter_list(function)
    names: list[str] = []
    for p in plist.named_children if plist is not None else ():
        ident = declared(p.child_by_field_name("declarator"))
        names.append(parsed.node_text(ident) if ident is not None else "")
    return tuple(names)


def parameter_arity(function: Node) -> tuple[int, int | None] | None:
    """How many arguments a call of ``function`` may pass ([over.match.viable]): (the fewest:
    its parameters without a default argument, the most: ``None`` after a parameter pack or
    ``...``); ``None`` where its own parameter list cannot be read (none found, an error or
    a directive inside it)."""
    plist = own_parameter_list(function)
    if plist is None:
        return None
    required = total = 0
    for child in plist.named_children:
        kind = child.type
        if kind == "comment":
            continue
        if kind in ("variadic_parameter_declaration", "variadic_parameter"):
            return required, None
        if kind == "optional_parameter_declaration":
            total += 1
        elif kind == "parameter_declaration":
            if child.child_by_field_name("declarator") is None and \
                    (child.text or b"").strip() == b"void" and len(plist.named_children) == 1:
                return 0, 0  # ``f(void)``: no parameter
            required += 1
            total += 1
        else:
            return None
    if any(c.type == "..." for c in plist.children):
        return required, None
    return required, total


# the statements that leave a loop (and ``return``/``throw`` the function)
EXITS = frozenset({"break_statement", "return_statement", "goto_statement",
                    "co_return_statement", "throw_statement"})


def may_leave_loop(function: Node, loop: tuple[int, int], after: int) -> bool:
    """A ``break``, ``return``, ``goto`` or ``throw`` lies in ``function``'s loop spanning
    bytes ``loop`` after byte ``after``: a turn of the loop that reaches ``after`` may not
    come round again (a ``break`` of a loop or ``switch`` inside it counts too)."""
    node = function.descendant_for_byte_range(loop[0], loop[1])
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        if current.end_byte <= after:
            continue
        if current.type in EXITS and current.start_byte > after:
            return True
        stack.extend(current.named_children)
    return False


# what may keep a turn of a loop from reaching a place in it: a branch around the place, a
# jump before it
_BRANCHES = frozenset({"if_statement", "switch_statement", "conditional_expression",
                       "binary_expression", "case_statement", "try_statement",
                       "catch_clause", "lambda_expression"})
_SKIPS = frozenset({"continue_statement", "goto_statement", "labeled_statement"})


def turn_may_skip(function: Node, loop: tuple[int, int], at: int) -> bool:
    """A turn of ``function``'s loop spanning bytes ``loop`` may not reach byte ``at`` in it:
    an ``if``, ``switch``, ``try``, ``?:`` or ``&&``/``||`` inside the loop lies around
    ``at``, or a ``continue`` or ``goto`` (or a label a ``goto`` may jump to) before it. Its
    first turn that starts runs ``at`` before any later place of the loop otherwise."""
    node = function.descendant_for_byte_range(loop[0], loop[1])
    stack = list(node.named_children) if node is not None else []
    while stack:
        current = stack.pop()
        if current.start_byte >= at:
            continue
        if current.type in _SKIPS:
            return True
        if current.end_byte > at and current.type in _BRANCHES and (
                current.type != "binary_expression" or _short_circuit(current)):
            return True
        stack.extend(current.named_children)
    return False


def _short_circuit(node: Node) -> bool:
    operator = node.child_by_field_name("operator")
    return operator is not None and operator.type in ("&&", "||", "and", "or")


def definitions_spelled(parsed: ParsedSource, body: Node, name: str) -> list[Node | None]:
    """The values ``name`` receives in ``body``, found from the places that spell it (the
    body is not walked): what :func:`received` says of each (tests/test_function_flow.py
    compares it with the walk of the body)."""
    found: list[Node | None] = []
    data, word = parsed.data, name.encode()
    at = data.find(word, body.start_byte, body.end_byte)
    while at >= 0:
        node = body.descendant_for_byte_range(at, at + len(word))
        if node is not None and node.type == "identifier" and node.start_byte == at \
                and node.end_byte == at + len(word):
            found.extend(received(node))
        at = data.find(word, at + len(word), body.end_byte)
    return found


def received(identifier: Node) -> list[Node | None]:
    """The value ``identifier`` receives where it stands, as a one-element list (empty where
    it receives none): the initializer of the variable it declares (``None`` without one), the
    right side of an ``=`` it is the left of, ``None`` as the left of a compound assignment or
    the argument of ``++``/``--``. Both ways of reading a function's locals ask it: the walk
    of the body (``FileFlows._read``) and the places that spell one name."""
    parent = identifier.parent
    if parent is None:
        return []
    if parent.type == "assignment_expression" and parent.child_by_field_name("left") == identifier:
        operator = parent.child_by_field_name("operator")
        plain = operator is not None and operator.type == "="
        return [parent.child_by_field_name("right") if plain else None]
    if parent.type == "update_expression" and \
            parent.child_by_field_name("argument") == identifier:
        return [None]
    holder: Node | None = parent
    while holder is not None and holder.type.endswith("declarator") \
            and holder.type != "init_declarator":
        holder = holder.parent
    if holder is not None and holder.type == "init_declarator":
        declared_node = declared(holder.child_by_field_name("declarator"))
        if declared_node is not None and declared_node.start_byte == identifier.start_byte:
            return [holder.child_by_field_name("value")]
    return []


# where a declarator names the variable it declares: a declaration, a parameter, `x = v`
_HOLDERS = frozenset({"declaration", "init_declarator", "parameter_declaration",
                      "optional_parameter_declaration"})
_SHAPED = frozenset({"array_declarator", "reference_declarator", "parenthesized_declarator",
                     "function_declarator"})


def pointer_variables(function: Node, parsed: ParsedSource) -> frozenset[str]:
    """The names ``function`` (its parameters and body) declares only as pointer variables
    (``float* p``, ``T* const p = q``): assigning one or its arithmetic moves the pointer, never
    the memory behind it. A name declared anything else once (an array, a reference, a value,
    ``auto``) is not one. One walk answers for every name: a question per name walked the
    function once for each (CUTLASS include/'s GMMA helpers, 128 accumulators each: 92 million
    node visits, 23 s of CPU for PTX606)."""
    shapes: dict[str, bool] = {}
    stack = [function]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "gnu_asm_expression":
            continue  # declares nothing, and a GMMA statement's is most of its function
        stack.extend(node.named_children)
        parent = node.parent
        if kind != "identifier" or parent is None:
            continue
        if parent.type == "pointer_declarator" and parent.child_by_field_name("declarator") == node:
            holder = parent.parent
            pointer = (holder is not None and holder.type in _HOLDERS
                       and holder.child_by_field_name("declarator") == parent)
        elif (parent.type in _HOLDERS and parent.child_by_field_name("declarator") == node) or (
                parent.type in _SHAPED and parent.child_by_field_name("size") != node):
            pointer = False
        else:
            continue
        name = parsed.node_text(node)
        shapes[name] = shapes.get(name, True) and pointer
    return frozenset(name for name, pointer in shapes.items() if pointer)


def local_lambda(parameters: tuple[str, ...], definitions: dict[str, list[Node | None]],
                 name: str) -> Node | None:
    """The lambda that ``name`` holds where a function (its ``parameters``, its locals'
    ``definitions``) defines it once as a local initialised by a lambda expression (``auto
    arrive = [&](int s) {...};``), which hides any function of that name from a plain call in
    the function's body; ``None`` otherwise."""
    if name in parameters:
        return None
    values = definitions.get(name)
    if values is None or len(values) != 1 or values[0] is None:
        return None
    value = values[0]
    return value if value.type == "lambda_expression" else None


def call_form(call: Node) -> str:
    """How a call names its function: ``member`` (``x.f()``, ``p->f()``: a method of an object
    whose type the flows do not know), ``qualified`` (``ns::f()``, ``T::f()``) or ``plain``."""
    function = call.child_by_field_name("function")
    if function is not None and function.type == "template_function":
        function = function.child_by_field_name("name")
    if function is not None and function.type == "field_expression":
        return "member"
    if function is not None and function.type == "qualified_identifier":
        return "qualified"
    return "plain"


def function_name(spelled: str) -> str:
    """The name a call spells for a function whose declarator names it ``spelled``: its last
    ``::`` part, without its template arguments, which may hold ``::`` themselves
    (``utmaldg<2, fmha::cudaTmaDescType::TILED, false>``: ``utmaldg``)."""
    return _unqualified_parts(spelled)[-1]


def scope_name(spelled: str) -> str:
    """The ``::`` part before the last of ``spelled``, without template arguments: the class
    (or namespace) a qualified name is in (``cute::SM90_TMA_STORE_2D::copy``:
    ``SM90_TMA_STORE_2D``, ``S<N>::fma``: ``S``); "" for a name without one."""
    parts = _unqualified_parts(spelled)
    return parts[-2] if len(parts) > 1 else ""


def _unqualified_parts(spelled: str) -> list[str]:
    kept: list[str] = []
    depth = 0
    for ch in spelled:  # template argument lists dropped, nested ones too (`S<N>::fma`: fma)
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif not depth:
            kept.append(ch)
    return [part.strip() for part in "".join(kept).split("::")]


# how far above a name the argument that holds it may start (``&tile[i] + 4``: four levels)
_ARGUMENT_DEPTH = 8


def argument_of(parsed: ParsedSource, node: Node) -> tuple[Node, int, Node] | None:
    """The call whose argument holds ``node`` (a cast's, ``static_cast<T*>(p)``, is climbed
    through), the argument's index and the argument; ``None`` where no argument of a call
    within :data:`_ARGUMENT_DEPTH` levels holds it. What the argument makes of the node is
    the caller's to read (``value_syntax.offsets_itself``)."""
    child, up = node, node.parent
    for _ in range(_ARGUMENT_DEPTH):
        if up is None:
            return None
        call = up.parent
        if up.type == "argument_list" and call is not None and call.type == "call_expression" \
                and callee_name(parsed, call) not in CASTS:
            arguments = [a for a in up.named_children if a.type != "comment"]
            return call, next(i for i, a in enumerate(arguments) if a.id == child.id), child
        child, up = up, up.parent
    return None


def callee_name(parsed: ParsedSource, call: Node) -> str | None:
    function = call.child_by_field_name("function")
    while function is not None:
        if function.type == "identifier":
            return parsed.node_text(function)
        if function.type in ("template_function", "qualified_identifier", "template_method"):
            function = function.child_by_field_name("name")
        elif function.type == "field_expression":
            function = function.child_by_field_name("field")
        elif function.type == "dependent_name":  # `T::template f<N>()`, `x.template f<N>()`
            function = function.named_children[0] if function.named_children else None
        elif function.type == "field_identifier":
            return parsed.node_text(function)
        else:
            return None
    return None


# the nodes around a called function's name, and the field each holds it in
_CALLEE_WRAPPERS = {"qualified_identifier": "name", "field_expression": "field",
                    "dependent_name": ""}


def template_arguments(parsed: ParsedSource, call: Node) -> tuple[str, ...]:
    """The explicit template arguments a call names its function with, in order
    (``ns::wait<kStages - 2>()`` -> ``("kStages - 2",)``); empty without."""
    function = call.child_by_field_name("function")
    while function is not None and function.type in _CALLEE_WRAPPERS:
        if function.type == "dependent_name":  # `T::template f<N>`, `x.template f<N>`
            function = function.named_children[0] if function.named_children else None
        else:
            function = function.child_by_field_name(_CALLEE_WRAPPERS[function.type])
    if function is None or function.type not in ("template_function", "template_method"):
        return ()
    arguments = function.child_by_field_name("arguments")
    if arguments is None:
        return ()
    return tuple(parsed.node_text(a) for a in arguments.named_children if a.type != "comment")


_BRACKETED = on_first_use(r"\[[^\[\]]*\]|<[^<>]*>")
# pointer arithmetic in the text of an address expression: a + or - that is not ++, -- or ->
_ARITHMETIC_TEXT = on_first_use(r"(?<![+\-])[+\-](?![+\->])")
_ARITHMETIC = frozenset({"+", "-", "+=", "-="})
# what an address's arithmetic never lies in: a subscript's index (``tile[i + 1]`` is an
# element of ``tile``), types and template arguments, the unevaluated operators' operands
_NOT_ARITHMETIC = frozenset({"subscript_argument_list", "template_argument_list",
                             "type_descriptor", "sizeof_expression", "alignof_expression",
                             "decltype", "comment", "lambda_expression"})


def compact(text: str) -> str:
    return "".join(text.split())


@functools.lru_cache(maxsize=4096)
def subscripts(text: str, variable: str) -> tuple[str, ...]:
    """The subscripts written right after ``variable`` in the expression ``text``, at its first
    place that has one: ``tile[s][i]`` -> ``("s", "i")``. The text is read where it does not
    parse."""
    node = parse_expression(text)
    if node is None:
        return tuple(_subscripts_in_text(text, variable))
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "identifier" and expression_text(current) == variable:
            found = subscripts_at(current, expression_text)
            if found:
                return found
        stack.extend(reversed(current.named_children))
    return ()


def subscripts_at(identifier: Node, text: Callable[[Node], str]) -> tuple[str, ...]:
    """The subscripts written on the variable ``identifier`` names (``ns::tile`` through its
    scope), innermost first: ``tile[s][i]`` -> ``("s", "i")``; ``tile[s].x[i]``: ``("s",)``."""
    found: list[str] = []
    child, parent = identifier, identifier.parent
    if parent is not None and parent.type == "qualified_identifier" and \
            parent.child_by_field_name("name") == child:
        child, parent = parent, parent.parent
    while parent is not None and parent.type == "subscript_expression" and \
            parent.child_by_field_name("argument") == child:
        indices = parent.child_by_field_name("indices")
        values = [c for c in indices.named_children if c.type != "comment"] \
            if indices is not None else []
        found.append(text(values[0]) if len(values) == 1 else
                     text(indices)[1:-1] if indices is not None else "")
        child, parent = parent, parent.parent
    return tuple(found)


def _subscripts_in_text(text: str, variable: str) -> list[str]:
    """:func:`subscripts` of a text that does not parse: the bracketed texts right after the
    first ``variable`` followed by ``[``."""
    match = re.search(rf"\b{re.escape(variable)}\s*\[", text)
    found: list[str] = []
    k = match.end() - 1 if match else len(text)
    while k < len(text) and text[k] == "[":
        depth, start = 0, k + 1
        for j in range(k, len(text)):
            depth += {"[": 1, "]": -1}.get(text[j], 0)
            if depth == 0:
                found.append(text[start:j])
                k = j + 1
                while k < len(text) and text[k].isspace():
                    k += 1
                break
        else:
            break
    return found


@functools.lru_cache(maxsize=4096)
def pointer_arithmetic(expression: str) -> bool:
    """Whether an address expression adds to or subtracts from what it points at
    (``smem + 1024``, ``p - k``), outside its subscripts' indices (``&tile[i + 1]`` is an
    element of ``tile``), types and template arguments; a sign (``-1``), ``++``, ``--`` and
    ``->`` are no such arithmetic. The text is read where it does not parse."""
    node = parse_expression(expression)
    if node is None:
        return bool(_ARITHMETIC_TEXT().search(_outer(expression)))
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in _NOT_ARITHMETIC:
            continue
        if kind in ("binary_expression", "assignment_expression"):
            operator = current.child_by_field_name("operator")
            if operator is not None and operator.type in _ARITHMETIC:
                return True
        stack.extend(current.named_children)
    return False


def _outer(expression: str) -> str:
    """``expression`` without what its brackets hold (a subscript's index is not an offset
    into the buffer: ``tile[i + 1]`` is an element of ``tile``)."""
    previous = None
    while previous != expression:
        previous, expression = expression, _BRACKETED().sub("", expression)
    return expression
