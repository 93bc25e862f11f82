"""What kind of address a C++ value holds, followed through the functions of the same file.

PTX301 asks one question of an asm operand: is its value a *shared-window address* (the result
of ``__cvta_generic_to_shared`` or of ``cvta.to.shared``), a *generic address* (a C++ pointer),
or a generic pointer *truncated* to 32 bits (``(uint32_t)(uintptr_t)p``: not a shared address,
though it happens to equal one on today's GPUs)? The answer often lies outside the statement:
in a local variable, in a helper's return value, in the arguments every caller passes for a
parameter. This module follows values that far, one call level deep:

* a local's value is what every assignment in the function gives it (``+=``/``-=`` keep it);
* a call to a same-file function has the value all its ``return`` statements agree on;
* a parameter has the value all the file's call sites pass for it (when there is at least one).

Anything else is unknown (``None``), and unknown means the rule keeps its own, type-based view.
Facts are computed once per file (its functions and call sites) and memoised per function,
variable and expression node, never per operand.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from enum import Enum

import tree_sitter

from ptxlint.model import AsmStatement, Operand, SourceFile
from ptxlint.ptx.address_values import SHARED_ADDRESS_HELPERS
from ptxlint.syntax_tree import ParsedSource, parse

__all__ = ["Value", "operand_value"]


class Value(str, Enum):
    SHARED = "shared"  # a shared-window address (any width)
    GENERIC = "generic"  # certainly a generic address: &x, an array, a copy of one
    POINTER = "pointer"  # a C++ pointer whose origin is not known here
    TRUNCATED = "truncated"  # the low 32 bits of a generic address


_MARKERS = {"array": Value.GENERIC, "shared": Value.SHARED, "generic": Value.GENERIC}


_MAX_DEPTH = 3  # statement -> parameter -> call-site argument -> helper's return value
_CASTS = frozenset({"static_cast", "reinterpret_cast", "const_cast"})
_INT32 = re.compile(
    r"^(?:const\s+)?(?:unsigned(?:\s+int)?|int|signed(?:\s+int)?|uint32_t|int32_t|uint|u32"
    r"|std::uint32_t|std::int32_t|uint32|unsigned\s+int)$"
)
_INT64 = re.compile(
    r"^(?:const\s+)?(?:uintptr_t|intptr_t|size_t|ptrdiff_t|uint64_t|int64_t|u64|long|long\s+long"
    r"|unsigned\s+long(?:\s+long)?|std::uintptr_t|std::size_t|std::uint64_t|unsigned\s+long\s+int"
    r"|long\s+int|unsigned\s+long\s+long\s+int)$"
)
# Markers for an assignment that is not an expression to classify.
_KEEP = "keep"  # `x += n`, `++x`: an offset keeps the kind of address
_UNKNOWN = "unknown"  # an asm output, `x |= m`, `&x` taken: anything may be in it
_ARRAY = "array"  # `T x[N]`: the name decays to a generic address
Assigned = tree_sitter.Node | str


def _text(parsed: ParsedSource, node: tree_sitter.Node) -> str:
    return parsed.node_text(node)


def _name_of_declarator(node: tree_sitter.Node | None) -> tuple[str | None, bool, bool]:
    """(name, is_pointer, is_array) of a declarator."""
    pointer = array = False
    while node is not None:
        if node.type in ("identifier", "field_identifier"):
            return node.text.decode("utf-8", "replace") if node.text else None, pointer, array
        if node.type == "pointer_declarator":
            pointer = True
        elif node.type == "array_declarator":
            array = True
        elif node.type not in (
            "reference_declarator",
            "init_declarator",
            "parenthesized_declarator",
            "type_qualifier",
        ):
            return None, pointer, array
        inner = node.child_by_field_name("declarator")
        if inner is None:  # reference_declarator keeps its declarator as a plain child
            inner = next(
                (
                    c
                    for c in node.named_children
                    if "declarator" in c.type or c.type == "identifier"
                ),
                None,
            )
        node = inner
    return None, pointer, array


def _callee(node: tree_sitter.Node) -> tuple[str | None, tree_sitter.Node | None]:
    """The simple name a call_expression calls, and its template arguments when written."""
    function = node.child_by_field_name("function")
    targs = None
    while function is not None:
        if function.type in ("identifier", "primitive_type", "type_identifier"):
            return (function.text.decode("utf-8", "replace") if function.text else None), targs
        if function.type == "template_function":
            targs = function.child_by_field_name("arguments")
            function = function.child_by_field_name("name")
            continue
        if function.type == "qualified_identifier":
            function = function.child_by_field_name("name")
            continue
        return None, None
    return None, None


def _arguments(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    args = node.child_by_field_name("arguments")
    return list(args.named_children) if args is not None else []


@dataclass
class _Function:
    node: tree_sitter.Node
    name: str | None
    params: list[tuple[str | None, bool]]  # (name, declared as a pointer)
    assigned: dict[str, list[Assigned]] = field(default_factory=dict)
    pointers: set[str] = field(default_factory=set)  # locals declared as pointers
    returns: list[tree_sitter.Node] = field(default_factory=list)


class _FileFacts:
    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.parsed = parse(source.path, source.text)
        self.functions: list[_Function] = []
        self.by_name: dict[str, list[_Function]] = {}
        self.calls: dict[str, list[tuple[tree_sitter.Node, _Function]]] = {}
        self.file_arrays: set[str] = set()
        self._starts: list[int] = []
        self._memo: dict[tuple[int, int, bool], Value | None] = {}
        self._busy: set[tuple[int, int, bool]] = set()
        self._collect(self.parsed.tree.root_node)

    # ------------------------------------------------------------------ the file, once

    def _collect(self, root: tree_sitter.Node) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type == "function_definition":
                self._add_function(node)
                continue  # the function's own walk indexes its body (and its calls)
            if (
                node.type == "declaration"
                and node.parent is not None
                and node.parent.type
                in (
                    "translation_unit",
                    "namespace_definition",
                    "declaration_list",
                    "linkage_specification",
                )
            ):
                for child in node.named_children:
                    name, _, array = _name_of_declarator(child)
                    if name and array:
                        self.file_arrays.add(name)
            stack.extend(reversed(node.named_children))

    def _add_function(self, node: tree_sitter.Node) -> None:
        declarator = node.child_by_field_name("declarator")
        while declarator is not None and declarator.type != "function_declarator":
            declarator = declarator.child_by_field_name("declarator")
        name = None
        params: list[tuple[str | None, bool]] = []
        if declarator is not None:
            inner = declarator.child_by_field_name("declarator")
            while inner is not None and inner.type in ("qualified_identifier", "template_function"):
                inner = inner.child_by_field_name("name")
            if inner is not None and inner.type in ("identifier", "field_identifier"):
                name = _text(self.parsed, inner)
            plist = declarator.child_by_field_name("parameters")
            for param in plist.named_children if plist is not None else ():
                if param.type not in ("parameter_declaration", "optional_parameter_declaration"):
                    continue
                pname, pointer, array = _name_of_declarator(param.child_by_field_name("declarator"))
                params.append((pname, pointer or array))
        fn = _Function(node, name, params)
        self.functions.append(fn)
        if name:
            self.by_name.setdefault(name, []).append(fn)
        body = node.child_by_field_name("body")
        if body is not None:
            self._index_body(fn, body)

    def _index_body(self, fn: _Function, body: tree_sitter.Node) -> None:
        stack = [body]
        while stack:
            node = stack.pop()
            kind = node.type
            if kind in ("function_definition", "lambda_expression"):
                continue  # their own names and returns
            if kind == "declaration":
                for child in node.named_children:
                    value = (
                        child.child_by_field_name("value")
                        if child.type == "init_declarator"
                        else None
                    )
                    name, pointer, array = _name_of_declarator(child)
                    if not name:
                        continue
                    if pointer:
                        fn.pointers.add(name)
                    if array:
                        fn.assigned.setdefault(name, []).append(_ARRAY)
                    elif value is not None and value.type not in (
                        "initializer_list",
                        "argument_list",
                    ):
                        fn.assigned.setdefault(name, []).append(value)
                    elif value is not None:
                        fn.assigned.setdefault(name, []).append(_UNKNOWN)
            elif kind == "assignment_expression":
                left = node.child_by_field_name("left")
                op = node.child_by_field_name("operator")
                if left is not None and left.type == "identifier":
                    name = _text(self.parsed, left)
                    operator = op.type if op is not None else "="
                    right = node.child_by_field_name("right")
                    if operator == "=" and right is not None:
                        fn.assigned.setdefault(name, []).append(right)
                    elif operator in ("+=", "-="):
                        fn.assigned.setdefault(name, []).append(_KEEP)
                    else:
                        fn.assigned.setdefault(name, []).append(_UNKNOWN)
            elif kind == "update_expression":
                arg = node.child_by_field_name("argument")
                if arg is not None and arg.type == "identifier":
                    fn.assigned.setdefault(_text(self.parsed, arg), []).append(_KEEP)
            elif kind == "pointer_expression":
                arg = node.child_by_field_name("argument")
                op = node.child_by_field_name("operator")
                if (
                    arg is not None
                    and arg.type == "identifier"
                    and op is not None
                    and op.type == "&"
                ):
                    fn.assigned.setdefault(_text(self.parsed, arg), []).append(_UNKNOWN)
            elif kind == "gnu_asm_expression":
                self._index_asm(fn, node)
            elif kind == "return_statement":
                value = next(iter(node.named_children), None)
                if value is not None:
                    fn.returns.append(value)
            elif kind == "call_expression":
                callee, _ = _callee(node)
                if callee:
                    self.calls.setdefault(callee, []).append((node, fn))
            stack.extend(reversed(node.named_children))

    def _index_asm(self, fn: _Function, node: tree_sitter.Node) -> None:
        template = node.child_by_field_name("assembly_code")
        text = _text(self.parsed, template) if template is not None else ""
        if "cvta.to.shared" in text:
            result: Assigned = "shared"
        elif re.search(r"\bcvta\.shared", text):
            result = "generic"
        else:
            result = _UNKNOWN
        outputs = node.child_by_field_name("output_operands")
        for operand in outputs.named_children if outputs is not None else ():
            value = operand.child_by_field_name("value")
            if value is not None and value.type == "identifier":
                fn.assigned.setdefault(_text(self.parsed, value), []).append(result)

    # ------------------------------------------------------------------ queries, memoised

    def function_at(self, byte: int) -> _Function | None:
        if not self._starts:
            self.functions.sort(key=lambda f: f.node.start_byte)
            self._starts = [f.node.start_byte for f in self.functions]
        i = bisect.bisect_right(self._starts, byte) - 1
        while i >= 0:  # the innermost definition that holds it (a local class's method)
            fn = self.functions[i]
            if byte < fn.node.end_byte:
                return fn
            i -= 1
        return None

    def value(
        self, node: tree_sitter.Node, fn: _Function, depth: int, params: bool
    ) -> Value | None:
        key = (node.id, depth, params)
        if key in self._memo:
            return self._memo[key]
        if key in self._busy or depth > _MAX_DEPTH:
            return None
        self._busy.add(key)
        try:
            found = self._value(node, fn, depth, params)
        finally:
            self._busy.discard(key)
        self._memo[key] = found
        return found

    def _value(
        self, node: tree_sitter.Node, fn: _Function, depth: int, params: bool
    ) -> Value | None:
        kind = node.type
        if kind == "parenthesized_expression":
            inner = next(iter(node.named_children), None)
            return self.value(inner, fn, depth, params) if inner is not None else None
        if kind == "pointer_expression":
            op = node.child_by_field_name("operator")
            return Value.GENERIC if op is not None and op.type == "&" else None
        if kind == "cast_expression":
            type_node = node.child_by_field_name("type")
            value = node.child_by_field_name("value")
            if type_node is None or value is None:
                return None
            return _cast(_text(self.parsed, type_node), self.value(value, fn, depth, params))
        if kind == "binary_expression":
            return self._binary(node, fn, depth, params)
        if kind == "conditional_expression":
            a = node.child_by_field_name("consequence")
            b = node.child_by_field_name("alternative")
            if a is None or b is None:
                return None
            va = self.value(a, fn, depth, params)
            return va if va is not None and va == self.value(b, fn, depth, params) else None
        if kind == "identifier":
            return self._variable(_text(self.parsed, node), fn, depth, params)
        if kind == "call_expression":
            return self._call(node, fn, depth, params)
        return None

    def _binary(
        self, node: tree_sitter.Node, fn: _Function, depth: int, params: bool
    ) -> Value | None:
        op = node.child_by_field_name("operator")
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if op is None or left is None or right is None or op.type not in ("+", "-"):
            return None
        lv = self.value(left, fn, depth, params)
        rv = self.value(right, fn, depth, params)
        if lv is not None and rv is not None:
            return None  # the distance between two addresses, or worse
        if lv is not None:
            return lv
        return rv if op.type == "+" else None

    def _call(
        self, node: tree_sitter.Node, fn: _Function, depth: int, params: bool
    ) -> Value | None:
        name, targs = _callee(node)
        args = _arguments(node)
        if name is None:
            return None
        if name in SHARED_ADDRESS_HELPERS:
            return Value.SHARED
        if name in _CASTS and targs is not None and len(args) == 1:
            return _cast(
                _text(self.parsed, targs)[1:-1].strip(), self.value(args[0], fn, depth, params)
            )
        if len(args) == 1 and (_INT32.match(name) or _INT64.match(name)):
            return _cast(name, self.value(args[0], fn, depth, params))
        callees = [f for f in self.by_name.get(name, ()) if len(f.params) == len(args)]
        if not callees or depth >= _MAX_DEPTH:
            return None
        found = {self._returns(f, depth + 1, params) for f in callees}
        return found.pop() if len(found) == 1 else None

    def _returns(self, fn: _Function, depth: int, params: bool) -> Value | None:
        if not fn.returns:
            return None
        found = {self.value(r, fn, depth, params) for r in fn.returns}
        return found.pop() if len(found) == 1 else None

    def _variable(self, name: str, fn: _Function, depth: int, params: bool) -> Value | None:
        found: set[Value | None] = set()
        pointer = name in fn.pointers
        param = next((i for i, (p, _) in enumerate(fn.params) if p == name), None)
        if param is not None:
            pointer = fn.params[param][1]
            found.add(self._parameter(fn, param, depth, params) if params else None)
        assigned = fn.assigned.get(name)
        if assigned is None and param is None:
            return Value.GENERIC if name in self.file_arrays else None
        for item in assigned or ():
            if isinstance(item, str):
                if item != _KEEP:
                    found.add(_MARKERS.get(item))
            else:
                found.add(self.value(item, fn, depth, params))
        if len(found) == 1:
            only = found.pop()
            if only is not None:
                return only
        return Value.POINTER if pointer else None

    def _parameter(self, fn: _Function, index: int, depth: int, params: bool) -> Value | None:
        """What every call site in the file passes for parameter ``index`` of ``fn``."""
        if fn.name is None or depth >= _MAX_DEPTH:
            return None
        overloads = [f for f in self.by_name.get(fn.name, ()) if len(f.params) == len(fn.params)]
        if len(overloads) != 1:
            return None  # cannot tell which overload a call picks
        sites = [
            (call, caller)
            for call, caller in self.calls.get(fn.name, ())
            if len(_arguments(call)) == len(fn.params)
        ]
        if not sites:
            return None
        found = {
            self.value(_arguments(call)[index], caller, depth + 1, params) for call, caller in sites
        }
        return found.pop() if len(found) == 1 else None


def _cast(spelling: str, inner: Value | None) -> Value | None:
    spelling = " ".join(spelling.split())
    if inner is None:
        return Value.POINTER if spelling.endswith("*") else None
    if spelling.endswith("*"):
        return inner
    if _INT32.match(spelling):
        return Value.TRUNCATED if inner in (Value.GENERIC, Value.POINTER) else inner
    if _INT64.match(spelling):
        return inner
    return None


# --------------------------------------------------------------------------- entry point

_CACHE: dict[int, _FileFacts] = {}
_CACHE_SIZE = 4


def _facts(source: SourceFile) -> _FileFacts:
    facts = _CACHE.get(id(source))
    if facts is None or facts.source is not source:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        facts = _CACHE[id(source)] = _FileFacts(source)
    return facts


def _expression_node(facts: _FileFacts, operand: Operand) -> tree_sitter.Node | None:
    parsed = facts.parsed
    start = parsed.to_byte(operand.expression_span.start)
    end = parsed.to_byte(operand.expression_span.end)
    node = parsed.tree.root_node.descendant_for_byte_range(start, end)
    while node is not None and (node.start_byte, node.end_byte) == (start, end):
        parent = node.parent
        if parent is None or (parent.start_byte, parent.end_byte) != (start, end):
            break
        node = parent
    if node is None or (node.start_byte, node.end_byte) != (start, end) or node.has_error:
        return None
    return node


def operand_value(
    statement: AsmStatement, operand: Operand, through_parameters: bool = True
) -> Value | None:
    """The kind of address ``operand`` holds, from the functions of its file; ``None`` when
    unknown. ``through_parameters=False`` leaves out what call sites pass for parameters (a
    header's helper may have callers elsewhere)."""
    if (
        statement.context.macro is not None
        or statement.syntax != "gnu"
        or statement.context.embedded_in  # C++ inside a Python string: no C++ tree of the file
        or not operand.expression.strip()
    ):
        return None
    facts = _facts(statement.source)
    node = _expression_node(facts, operand)
    if node is None:
        return None
    fn = facts.function_at(node.start_byte)
    if fn is None:
        return None
    return facts.value(node, fn, 0, through_parameters)
