"""Strings built by a helper function of the same module, followed one call deep.

Triton code builds long asm strings in a helper (``def _cvt(n): lines = []; for i in range(n):
lines.append(f"cvt... ${i}, ${i + n};"); return "\\n".join(lines)``) and passes the call to
``inline_asm_elementwise``. Where the call's arguments are literals or module constants, the
helper's body is evaluated here, statement by statement, as Python would run it: assignments,
``+=``, ``append``/``extend``, ``for`` over ``range``, ``if`` on a knowable condition, list
comprehensions, f-strings, ``str.join``, ``str.split`` (by a known separator),
``str.format`` (plain ``{name}``, ``{0}`` and ``{}`` fields) and ``return``. Nothing is
executed: this reads the syntax tree and knows only these forms.

Where an argument is not knowable, it is a hole (its call-site span) and the text around it is
still read; a loop over an unknown range is read once, with holes before and after for the
iterations it stands for. A form this module does not know makes the whole call a hole, as
before: never a guess. Every character keeps its source position: a literal of the helper's
body maps to itself, a value substituted for a parameter to the argument at the call site.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import tree_sitter

from ptxlint.frontends.sourced import Sourced, join
from ptxlint.model import Span

from . import pystrings
from .signatures import bind, read_signature

if TYPE_CHECKING:  # the resolver Values calls: values.py imports this module
    from .values import Values

_MAX_STEPS = 4096  # statements and loop iterations per helper call
_UNKNOWN = object()  # a value the source does not make knowable

Value = object  # Sourced | int | bool | list[Value] | _UNKNOWN


class _Abort(Exception):
    """A form the evaluator does not know: the call stays a hole."""


@dataclass
class _Frame:
    values: Values
    env: dict[str, Value]
    call_span: Span
    steps: int = 0
    holes: dict[str, Span] = field(default_factory=dict)  # unknown names -> their call-site span


def module_function(values: Values, name: str) -> tree_sitter.Node | None:
    """The module-level ``def name`` when it is the name's only binding in the module."""
    found: list[tree_sitter.Node] = []
    for child in values.root.named_children:
        node = child
        if node.type == "decorated_definition":
            definition = node.child_by_field_name("definition")
            if definition is None:
                continue
            node = definition
        if node.type == "function_definition":
            ident = node.child_by_field_name("name")
            if ident is not None and values.text(ident) == name:
                found.append(node)
        elif node.type == "expression_statement" and re.match(
            rf"{re.escape(name)}\s*[:=]", values.text(node)
        ):
            return None  # also assigned at module level: which binding is meant is unknown
    return found[0] if len(found) == 1 else None


def helper_string(values: Values, call: tree_sitter.Node) -> Sourced | None:
    """The string a call of a same-module function returns (``_asm(4)``), or None where the
    callee is not one or its result is not knowable."""
    function = call.child_by_field_name("function")
    if function is None or function.type != "identifier":
        return None
    definition = module_function(values, values.text(function))
    return call_helper(values, call, definition) if definition is not None else None


def call_helper(
    values: Values, call: tree_sitter.Node, definition: tree_sitter.Node
) -> Sourced | None:
    """The string ``call`` of the helper ``definition`` returns, or None where not knowable."""
    arguments = call.child_by_field_name("arguments")
    body = definition.child_by_field_name("body")
    if arguments is None or body is None:
        return None
    frame = _Frame(values, {}, values.span(call))
    if not _bind(frame, definition, arguments):
        return None
    try:
        result = _block(frame, body)
    except (_Abort, RecursionError):
        return None
    if isinstance(result, _Return):
        return _as_string(frame, result.value, values.span(call))
    return None


@dataclass
class _Return:
    value: Value


def _bind(frame: _Frame, definition: tree_sitter.Node, arguments: tree_sitter.Node) -> bool:
    """Each parameter of the helper bound to the call's argument or its default, as Python
    binds them; False where that is not sure (a splat in the call, a call Python rejects) or
    the helper takes ``*args``/``**kwargs``, whose values the evaluator does not model."""
    values = frame.values
    signature = read_signature(values.parsed, definition)
    if signature is None or signature.variadic:
        return False
    binding = bind(values.parsed, signature, arguments)
    if binding.splat or binding.errors or binding.missing(signature):
        return False
    for parameter in signature.parameters:
        node = binding.value(signature, parameter.name)
        if node is None:
            return False
        bound = _outside(frame, node)
        if bound is _UNKNOWN:
            frame.holes[parameter.name] = values.span(node)
        frame.env[parameter.name] = bound
    return True


def _outside(frame: _Frame, node: tree_sitter.Node) -> Value:
    """A call-site argument or a module constant: a literal, through names bound once."""
    values = frame.values
    scalar = values.scalar(node)
    if scalar is not None and not isinstance(scalar, str):
        return scalar
    text = values.string(node)
    if not text.has_holes:
        return text
    return _UNKNOWN


def _block(frame: _Frame, block: tree_sitter.Node) -> _Return | None:
    for statement in block.named_children:
        frame.steps += 1
        if frame.steps > _MAX_STEPS:
            raise _Abort
        result = _statement(frame, statement)
        if result is not None:
            return result
    return None


def _statement(frame: _Frame, node: tree_sitter.Node) -> _Return | None:
    kind = node.type
    values = frame.values
    if kind in ("comment", "pass_statement"):
        return None
    if kind == "expression_statement":
        inner = node.named_children[0] if node.named_children else None
        if inner is None or inner.type == "string":
            return None  # a docstring
        if inner.type == "assignment":
            left, right = inner.child_by_field_name("left"), inner.child_by_field_name("right")
            if left is None or right is None or left.type != "identifier":
                raise _Abort
            frame.env[values.text(left)] = _expression(frame, right)
            return None
        if inner.type == "augmented_assignment":
            left, right = inner.child_by_field_name("left"), inner.child_by_field_name("right")
            operator = inner.child_by_field_name("operator")
            if left is None or right is None or left.type != "identifier" or operator is None:
                raise _Abort
            name = values.text(left)
            if name not in frame.env or values.text(operator) != "+=":
                raise _Abort
            frame.env[name] = _add(frame, frame.env[name], _expression(frame, right), inner)
            return None
        if inner.type == "call":
            _method_call(frame, inner)
            return None
        raise _Abort
    if kind == "return_statement":
        value = node.named_children[0] if node.named_children else None
        if value is None:
            raise _Abort
        return _Return(_expression(frame, value))
    if kind == "for_statement":
        return _for(frame, node)
    if kind == "if_statement":
        return _if(frame, node)
    raise _Abort


def _method_call(frame: _Frame, call: tree_sitter.Node) -> None:
    """``name.append(x)`` / ``name.extend(xs)`` on a list the helper built."""
    values = frame.values
    function = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if function is None or arguments is None or function.type != "attribute":
        raise _Abort
    owner = function.child_by_field_name("object")
    method = function.child_by_field_name("attribute")
    args = [a for a in arguments.named_children if a.type != "comment"]
    if owner is None or method is None or owner.type != "identifier" or len(args) != 1:
        raise _Abort
    target = frame.env.get(values.text(owner))
    if not isinstance(target, list):
        raise _Abort
    value = _expression(frame, args[0])
    if values.text(method) == "append":
        target.append(value)
    elif values.text(method) == "extend" and isinstance(value, list):
        target.extend(value)
    else:
        raise _Abort


def _range(frame: _Frame, node: tree_sitter.Node) -> range | None:
    """``range(...)`` with knowable bounds; None for a range of unknown bounds; abort for any
    other iterable."""
    if node.type != "call":
        raise _Abort
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if function is None or arguments is None or frame.values.text(function) != "range":
        raise _Abort
    bounds = [_expression(frame, a) for a in arguments.named_children if a.type != "comment"]
    if not 1 <= len(bounds) <= 3:
        raise _Abort
    if any(not isinstance(b, int) or isinstance(b, bool) for b in bounds):
        return None
    ints = [b for b in bounds if isinstance(b, int)]
    r = range(*ints)
    if len(r) > _MAX_STEPS:
        raise _Abort
    return r


def _for(frame: _Frame, node: tree_sitter.Node) -> _Return | None:
    left = node.child_by_field_name("left")
    right = node.child_by_field_name("right")
    body = node.child_by_field_name("body")
    if left is None or right is None or body is None or left.type != "identifier":
        raise _Abort
    if node.child_by_field_name("alternative") is not None:
        raise _Abort
    name = frame.values.text(left)
    r = _range(frame, right)
    if r is None:
        # unknown bounds: read the body once with an unknown index, between holes that stand
        # for the other iterations (so no rule counts what it cannot count)
        return _unknown_loop(frame, name, body, node)
    for i in r:
        frame.env[name] = i
        result = _block(frame, body)
        if result is not None:
            return result
    return None


def _unknown_loop(
    frame: _Frame, name: str, body: tree_sitter.Node, node: tree_sitter.Node
) -> _Return | None:
    before = {k: (list(v) if isinstance(v, list) else v) for k, v in frame.env.items()}
    frame.env[name] = _UNKNOWN
    frame.holes[name] = frame.values.span(node.child_by_field_name("right") or node)
    result = _block(frame, body)
    if result is not None:
        raise _Abort  # a return inside a loop of unknown length: which iteration is unknown
    hole = Sourced.hole(frame.values.span(node))
    for key, value in frame.env.items():
        old = before.get(key)
        if isinstance(value, list) and isinstance(old, list) and len(value) > len(old):
            value[len(old) : len(old)] = [hole]
            value.append(hole)
        elif isinstance(value, Sourced) and isinstance(old, Sourced) and value is not old:
            frame.env[key] = hole + value + hole
    return None


def _if(frame: _Frame, node: tree_sitter.Node) -> _Return | None:
    condition = node.child_by_field_name("condition")
    consequence = node.child_by_field_name("consequence")
    if condition is None or consequence is None:
        raise _Abort
    value = _expression(frame, condition)
    if not isinstance(value, (bool, int)):
        raise _Abort
    if value:
        return _block(frame, consequence)
    for alternative in node.children_by_field_name("alternative"):
        if alternative.type == "else_clause":
            inner = alternative.child_by_field_name("body")
            return _block(frame, inner) if inner is not None else None
        if alternative.type == "elif_clause":
            test = alternative.child_by_field_name("condition")
            block = alternative.child_by_field_name("consequence")
            if test is None or block is None:
                raise _Abort
            chosen = _expression(frame, test)
            if not isinstance(chosen, (bool, int)):
                raise _Abort
            if chosen:
                return _block(frame, block)
    return None


_COMPARE = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}
_ARITHMETIC = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b if b else None,
    "%": lambda a, b: a % b if b else None,
}


def _expression(frame: _Frame, node: tree_sitter.Node) -> Value:
    values = frame.values
    kind = node.type
    if kind == "parenthesized_expression":
        inner = [c for c in node.named_children if c.type != "comment"]
        if len(inner) != 1:
            raise _Abort
        return _expression(frame, inner[0])
    if kind == "integer":
        try:
            return int(values.text(node).replace("_", ""), 0)
        except ValueError as exc:
            raise _Abort from exc
    if kind in ("true", "false"):
        return kind == "true"
    if kind == "string":
        if "b" in pystrings.prefix_of(values.parsed, node):
            raise _Abort
        return pystrings.decode(values.parsed, node, lambda f: _field(frame, f))
    if kind == "concatenated_string":
        return join(
            _as_string(frame, _expression(frame, child), values.span(child))
            for child in node.named_children
            if child.type != "comment"
        )
    if kind == "identifier":
        name = values.text(node)
        if name in frame.env:
            return frame.env[name]
        return _outside(frame, node)
    if kind in ("list", "tuple"):
        return [_expression(frame, c) for c in node.named_children if c.type != "comment"]
    if kind == "list_comprehension":
        return _comprehension(frame, node)
    if kind == "binary_operator":
        return _binary(frame, node)
    if kind == "comparison_operator":
        operands = [c for c in node.named_children if c.type != "comment"]
        operators = [c for c in node.children if not c.is_named]
        if len(operands) != 2 or len(operators) != 1:
            raise _Abort
        a, b = (_expression(frame, o) for o in operands)
        test = _COMPARE.get(operators[0].type)
        if test is None or not isinstance(a, int) or not isinstance(b, int):
            return _UNKNOWN
        return bool(test(a, b))
    if kind == "call":
        return _call(frame, node)
    raise _Abort


def _binary(frame: _Frame, node: tree_sitter.Node) -> Value:
    operator = node.child_by_field_name("operator")
    left = node.child_by_field_name("left")
    right = node.child_by_field_name("right")
    if operator is None or left is None or right is None:
        raise _Abort
    a, b = _expression(frame, left), _expression(frame, right)
    op = operator.type
    if op == "+":
        return _add(frame, a, b, node)
    if isinstance(a, int) and isinstance(b, int) and op in _ARITHMETIC:
        result = _ARITHMETIC[op](a, b)
        return _UNKNOWN if result is None else result
    if a is _UNKNOWN or b is _UNKNOWN:
        return _UNKNOWN
    raise _Abort


def _add(frame: _Frame, a: Value, b: Value, node: tree_sitter.Node) -> Value:
    if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
        return a + b
    if isinstance(a, list) and isinstance(b, list):
        return a + b
    if isinstance(a, Sourced) or isinstance(b, Sourced):
        span = frame.values.span(node)
        return _as_string(frame, a, span) + _as_string(frame, b, span)
    if a is _UNKNOWN or b is _UNKNOWN:
        return _UNKNOWN
    raise _Abort


def _call(frame: _Frame, node: tree_sitter.Node) -> Value:
    values = frame.values
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if function is None or arguments is None:
        raise _Abort
    args = [a for a in arguments.named_children if a.type != "comment"]
    receiver = function.child_by_field_name("object")
    method = function.child_by_field_name("attribute")
    called = values.text(method) if function.type == "attribute" and method is not None else None
    if called == "format" and receiver is not None:
        return _format(frame, receiver, args)  # before the refusal of keyword arguments
    if any(a.type in ("keyword_argument", "list_splat", "dictionary_splat") for a in args):
        raise _Abort
    if function.type == "identifier":
        name = values.text(function)
        if name == "str" and len(args) == 1:
            return _as_string(frame, _expression(frame, args[0]), values.span(args[0]))
        if name == "len" and len(args) == 1:
            value = _expression(frame, args[0])
            if isinstance(value, Sourced):
                return _UNKNOWN if value.has_holes else len(value.text)
            return len(value) if isinstance(value, list) else _UNKNOWN
        raise _Abort
    if called is None or receiver is None or len(args) != 1:
        raise _Abort
    if called == "split":
        return _split(_expression(frame, receiver), _expression(frame, args[0]))
    if called != "join":
        raise _Abort
    separator = _expression(frame, receiver)
    items = _expression(frame, args[0])
    if not isinstance(separator, Sourced):
        raise _Abort
    if not isinstance(items, list):
        return _UNKNOWN
    parts: list[Sourced] = []
    for k, item in enumerate(items):
        if k:
            parts.append(separator)
        parts.append(_as_string(frame, item, values.span(args[0])))
    return join(parts)


def _split(text: Value, separator: Value) -> Value:
    """``text.split(separator)`` with a known, non-empty separator: the pieces keep their map.
    A text with a hole may hide a separator, so its pieces are not known."""
    if not isinstance(separator, Sourced) or not separator.text or separator.has_holes:
        raise _Abort
    if not isinstance(text, Sourced):
        if text is _UNKNOWN:
            return _UNKNOWN
        raise _Abort
    if text.has_holes:
        return _UNKNOWN
    pieces: list[Value] = []
    at = 0
    while (found := text.text.find(separator.text, at)) >= 0:
        pieces.append(text.slice(at, found))
        at = found + len(separator.text)
    pieces.append(text.slice(at, len(text.text)))
    return pieces


# a replacement field of str.format: a name or number with no conversion or format spec
_FORMAT_FIELD = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*|[0-9]*)\}|[{}]")


def _format(frame: _Frame, receiver: tree_sitter.Node, args: list[tree_sitter.Node]) -> Value:
    """``template.format(...)`` of a known template: each ``{name}``, ``{0}`` or ``{}`` field is
    the argument's value, mapped to the argument; ``{{`` and ``}}`` are braces. A field with a
    conversion or a format spec (``{x!r}``, ``{x:>4}``) is a form not known here."""
    values = frame.values
    template = _expression(frame, receiver)
    if not isinstance(template, Sourced) or template.has_holes:
        raise _Abort
    positional: list[tuple[Value, Span]] = []
    named: dict[str, tuple[Value, Span]] = {}
    for a in args:
        if a.type == "keyword_argument":
            key, value = a.child_by_field_name("name"), a.child_by_field_name("value")
            if key is None or value is None:
                raise _Abort
            named[values.text(key)] = (_expression(frame, value), values.span(value))
        elif a.type in ("list_splat", "dictionary_splat") or named:
            raise _Abort
        else:
            positional.append((_expression(frame, a), values.span(a)))
    parts: list[Sourced] = []
    at = auto = 0
    numbered = False
    for m in _FORMAT_FIELD.finditer(template.text):
        parts.append(template.slice(at, m.start()))
        at = m.end()
        if m.group() in ("{{", "}}"):
            parts.append(template.slice(m.start(), m.start() + 1))
            continue
        field_name = m.group(1)
        if field_name is None:
            raise _Abort  # a lone brace, or a field with a conversion or a format spec
        if field_name == "":
            field_name, auto = str(auto), auto + 1
        elif field_name.isdigit():
            numbered = True
        if auto and numbered:
            raise _Abort  # Python refuses to mix automatic and manual numbering
        chosen = (positional[int(field_name)] if field_name.isdigit()
                  and int(field_name) < len(positional) else named.get(field_name))
        if chosen is None:
            raise _Abort  # Python raises KeyError or IndexError here
        parts.append(_as_string(frame, chosen[0], chosen[1]))
    parts.append(template.slice(at, len(template.text)))
    return join(parts)


def _comprehension(frame: _Frame, node: tree_sitter.Node) -> Value:
    """``[expr for i in range(...)]`` (one ``for``, no ``if``)."""
    body = node.child_by_field_name("body")
    clauses = [c for c in node.named_children if c.type in ("for_in_clause", "if_clause")]
    if body is None or len(clauses) != 1 or clauses[0].type != "for_in_clause":
        raise _Abort
    left = clauses[0].child_by_field_name("left")
    right = clauses[0].child_by_field_name("right")
    if left is None or right is None or left.type != "identifier":
        raise _Abort
    name = frame.values.text(left)
    saved = frame.env.get(name, _UNKNOWN)
    r = _range(frame, right)
    if r is None:
        frame.env[name] = _UNKNOWN
        hole = Sourced.hole(frame.values.span(node))
        items: list[Value] = [hole, _expression(frame, body), hole]
    else:
        items = []
        for i in r:
            frame.steps += 1
            if frame.steps > _MAX_STEPS:
                raise _Abort
            frame.env[name] = i
            items.append(_expression(frame, body))
    frame.env[name] = saved
    return items


def _field(frame: _Frame, node: tree_sitter.Node) -> Sourced | None:
    try:
        value = _expression(frame, node)
    except _Abort:
        return None
    span = frame.values.span(node)
    if value is _UNKNOWN:
        return None
    return _as_string(frame, value, span)


def _as_string(frame: _Frame, value: Value, span: Span) -> Sourced:
    if isinstance(value, Sourced):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(value)
        return Sourced(text, [span.start] * len(text), [span.end] * len(text), [])
    if value is _UNKNOWN:
        return Sourced.hole(span)
    raise _Abort
