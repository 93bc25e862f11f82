"""The type of one operand expression, computed over its tree-sitter node in the scope where it
is written: one handler per expression kind, each asking :class:`~.types.TypeResolver` for the
names, members and declarations it meets."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ptxlint.frontends.cxx.c_types import (
    BOOL,
    BUILTIN_TYPES,
    BUILTIN_VARIABLES,
    CASTS,
    INTRINSICS,
    LONG,
    MAX_DEPTH,
    PLACELESS_SPECIFIERS,
    SCALAR_NAMES,
    SIZE_T,
    STD_SCOPES,
    Entry,
    Node,
    Scope,
    _arithmetic,
    _int,
    _named,
    _pointer,
    _promote,
    _text,
    _Ty,
    inner_declarator,
    number_type,
    split_qualified,
    trailing_type,
)
from ptxlint.frontends.cxx.macro_operands import expansion

if TYPE_CHECKING:
    from ptxlint.frontends.cxx.scope_lookup import ScopeLookup


class Expr:
    """Types one parsed operand expression in the scope of a node of the file's tree."""

    def __init__(
        self,
        resolver: ScopeLookup,
        where: Node,
        b: int,
        chain: tuple[Scope | None, ...] | None = None,
    ) -> None:
        self.r = resolver
        self._where = where
        self._b = b
        # where's chain of scopes (resolve has it at hand)
        self._chain = resolver._scope_chain(where) if chain is None else chain
        self.depth = 0
        # whether the answer read where the expression is (see TypeResolver._free)
        self.located = False

    # Everything that depends on where the expression is written goes through these three, so
    # an answer computed without reading them is the same wherever the text is typed.
    @property
    def where(self) -> Node:
        self.located = True
        return self._where

    @property
    def b(self) -> int:
        self.located = True
        return self._b

    @property
    def chain(self) -> tuple[Scope | None, ...]:
        self.located = True
        return self._chain

    def type_of(self, node: Node | None) -> _Ty | None:
        if node is None:
            return None
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH * 4:
                return None
            handler = self._HANDLERS.get(node.type)
            return handler(self, node) if handler is not None else None
        finally:
            self.depth -= 1

    def _identifier(self, node: Node) -> _Ty | None:
        name = _text(node)
        if self.r.macro(name):
            return None
        if name in BUILTIN_VARIABLES:
            return BUILTIN_VARIABLES[name]
        ty = self.r._lookup_chain(self.chain, name, self.b)
        if ty is not None and ty.kind == "function":
            return None
        return ty

    def _number(self, node: Node) -> _Ty | None:
        return number_type(_text(node))

    def _char(self, node: Node) -> _Ty | None:
        # plain 'a' and '\n' only: prefixed and multi-character literals have other types
        if _text(node).startswith("'") and len(_named(node)) == 1:
            return _int("char")
        return None

    def _bool(self, node: Node) -> _Ty | None:
        return BOOL

    def _paren(self, node: Node) -> _Ty | None:
        inner = _named(node)
        return self.type_of(inner[0]) if len(inner) == 1 else None

    def _cast(self, node: Node) -> _Ty | None:
        return self._descriptor(node.child_by_field_name("type"))

    def _descriptor(self, desc: Node | None) -> _Ty | None:
        spec = desc.child_by_field_name("type") if desc is not None else None
        if spec is not None and spec.type in PLACELESS_SPECIFIERS:
            # its type is read from its words alone (TypeResolver._specifier)
            return self.r.descriptor(desc, self._where)
        return self.r.descriptor(desc, self.where)

    def _sizeof(self, node: Node) -> _Ty | None:
        return SIZE_T

    def _call(self, node: Node) -> _Ty | None:
        fn = node.child_by_field_name("function")
        if fn is None:
            return None
        if fn.type == "qualified_identifier":
            scope, leaf = split_qualified(fn)
            if (
                leaf is not None
                and leaf.type == "identifier"
                and fn.child_by_field_name("scope") is None
            ):
                # ``::__activemask()``: a CUDA intrinsic named from the global namespace,
                # where CUDA declares them
                name = _text(leaf)
                return None if self.r.macro(name) else INTRINSICS.get(name)
            if scope not in STD_SCOPES or leaf is None or leaf.type != "template_function":
                return None
            fn = leaf
        if fn.type == "template_function":
            if _text(fn.child_by_field_name("name")) not in CASTS:
                return None  # f<T>(x): the result may depend on T
            args = fn.child_by_field_name("arguments")
            targets = _named(args) if args is not None else []
            if len(targets) != 1:
                return None
            target = targets[0]
            if target.type == "type_descriptor":
                return self._descriptor(target)
            if target.type == "identifier":  # static_cast<S>(x) read as an expression
                return self.r.named_type(_text(target), self.where)
            return None
        if fn.type == "primitive_type":
            return BUILTIN_TYPES.get(_text(fn))
        if fn.type in ("identifier", "type_identifier"):
            name = _text(fn)
            if name in ("unsigned", "signed"):
                return SCALAR_NAMES[name]
            chain = self.chain
            if fn.type == "identifier" and not (chain and chain[-1] is None):
                # (in a #define body the macro in force is the one where that body expands)
                expanded = expansion(self.r, node, name, self.b)
                if expanded is not None:  # a function-like macro's invocation
                    return self.type_of(expanded)
            return self.r.function_return(name, self.where, self.b, chain)
        return None

    def _compound_literal(self, node: Node) -> _Ty | None:
        """``T{...}``, a functional cast with braces ([expr.type.conv]): a prvalue of type
        ``T`` whatever the braces hold, as ``T(x)`` is (``_call``); GNU's compound literal
        ``(T){...}`` an lvalue of type ``T`` (nvcc 13.0; the typer's types carry no
        references). A class template's ``S<int>{}``, a template parameter's ``T{}`` and an array
        of unknown bound stay unknown."""
        spec = node.child_by_field_name("type")
        if spec is None:
            return None
        kind = spec.type
        if kind == "primitive_type":
            return BUILTIN_TYPES.get(_text(spec))
        if kind == "type_identifier":
            name = _text(spec)
            if name in SCALAR_NAMES and name in ("unsigned", "signed"):
                return SCALAR_NAMES[name]
            return None if self.r.macro(name) else self.r.named_type(name, self.where)
        if kind == "qualified_identifier":
            scope, leaf = split_qualified(spec)
            if scope not in STD_SCOPES or leaf is None:
                return None
            # ``::float2{}``: the toolkit declares its vector types in the global namespace
            return (BUILTIN_TYPES if not scope else SCALAR_NAMES).get(_text(leaf))
        if kind == "type_descriptor":
            ty = self._descriptor(spec)
            return None if ty is None or (ty.array and ty.size is None) else ty
        return None

    def _field(self, node: Node) -> _Ty | None:
        field_node = node.child_by_field_name("field")
        if field_node is None or field_node.type != "field_identifier":
            return None
        operator = node.child_by_field_name("operator")
        arg = node.child_by_field_name("argument")
        if arg is None:
            return None
        base = self.r.this_type(self.where) if arg.type == "this" else self.type_of(arg)
        if base is None:
            return None
        if _text(operator) == "->":
            if base.kind != "pointer" or base.target is None:
                return None
            base = base.target
        elif base.kind == "pointer":
            return None
        if base.kind != "aggregate":
            return None
        ty = self.r.member(base, _text(field_node))
        return ty if ty is None or ty.kind != "function" else None

    def _subscript(self, node: Node) -> _Ty | None:
        indices = node.child_by_field_name("indices")
        if indices is None or len(_named(indices)) != 1:
            return None
        return self._element(self.type_of(node.child_by_field_name("argument")))

    @staticmethod
    def _element(ty: _Ty | None) -> _Ty | None:
        if ty is None:
            return None
        if ty.kind == "pointer" or ty.array:
            target = ty.target
            return target if target is not None and target.kind != "function" else None
        return None

    def _pointer_expr(self, node: Node) -> _Ty | None:
        operator = _text(node.child_by_field_name("operator"))
        arg = node.child_by_field_name("argument")
        if operator == "*":
            return self._element(self.type_of(arg))
        if operator == "&":
            inner = self.type_of(arg)
            if inner is None:
                # &x of a name we cannot type is still an address, unless x is a macro
                if arg is None or arg.type not in (
                    "identifier",
                    "subscript_expression",
                    "field_expression",
                ):
                    return None
                if arg.type == "identifier" and self.r.macro(_text(arg)):
                    return None
                return _pointer(None)
            return _pointer(inner)
        return None

    def _unary(self, node: Node) -> _Ty | None:
        operator = _text(node.child_by_field_name("operator"))
        operand = self.type_of(node.child_by_field_name("argument"))
        if operand is None:
            return None
        if operator == "!":
            scalar = ("integer", "bool", "floating", "pointer")
            return BOOL if operand.kind in scalar or _promote(operand) else None
        promoted = _promote(operand)
        if promoted is None:
            return None
        if operator == "~" and promoted.kind != "integer":
            return None
        return promoted if operator in ("-", "+", "~") else None

    def _binary(self, node: Node) -> _Ty | None:
        operator = _text(node.child_by_field_name("operator"))
        left = self.type_of(node.child_by_field_name("left"))
        right = self.type_of(node.child_by_field_name("right"))
        if left is None or right is None:
            return None
        lp, rp = self._decay(left), self._decay(right)
        if operator in ("==", "!=", "<", ">", "<=", ">=", "&&", "||"):
            ok = all(t.kind == "pointer" or _promote(t) is not None for t in (lp, rp))
            return BOOL if ok else None
        if operator in ("+", "-") and (lp.kind == "pointer" or rp.kind == "pointer"):
            if lp.kind == "pointer" and rp.kind == "pointer":
                return LONG if operator == "-" else None  # ptrdiff_t
            pointer, other = (lp, rp) if lp.kind == "pointer" else (rp, lp)
            if operator == "-" and pointer is rp:
                return None
            promoted = _promote(other)
            return pointer if promoted is not None and promoted.kind == "integer" else None
        if operator in ("<<", ">>"):
            a, b = _promote(lp), _promote(rp)
            if a is None or b is None or a.kind != "integer" or b.kind != "integer":
                return None
            return a
        if operator in ("+", "-", "*", "/", "%", "&", "|", "^"):
            result = _arithmetic(lp, rp)
            if result is None:
                return None
            if operator in ("%", "&", "|", "^") and result.kind != "integer":
                return None
            return result
        return None

    @staticmethod
    def _decay(ty: _Ty) -> _Ty:
        return _pointer(ty.target) if ty.array else ty

    def _conditional(self, node: Node) -> _Ty | None:
        a = self.type_of(node.child_by_field_name("consequence"))
        b = self.type_of(node.child_by_field_name("alternative"))
        if a is None or b is None or not a.same(b):
            return None
        return a

    def _assignment(self, node: Node) -> _Ty | None:
        return self.type_of(node.child_by_field_name("left"))

    def _update(self, node: Node) -> _Ty | None:
        ty = self.type_of(node.child_by_field_name("argument"))
        return ty if ty is not None and ty.kind in ("integer", "floating", "pointer") else None

    def _comma(self, node: Node) -> _Ty | None:
        return self.type_of(node.child_by_field_name("right"))

    def _this(self, node: Node) -> _Ty | None:
        return self.r.this_type(self.where)

    def _qualified(self, node: Node) -> _Ty | None:
        scope = node.child_by_field_name("scope")
        name = node.child_by_field_name("name")
        if scope is None or name is None or name.type != "identifier":
            return None
        return self.r.scoped_enumerator(_text(scope), _text(name), self.where)

    _HANDLERS: dict[str, Callable[[Expr, Node], _Ty | None]] = {
        "identifier": _identifier,
        "number_literal": _number,
        "char_literal": _char,
        "true": _bool,
        "false": _bool,
        "parenthesized_expression": _paren,
        "cast_expression": _cast,
        "sizeof_expression": _sizeof,
        "alignof_expression": _sizeof,
        "call_expression": _call,
        "compound_literal_expression": _compound_literal,
        "field_expression": _field,
        "subscript_expression": _subscript,
        "pointer_expression": _pointer_expr,
        "unary_expression": _unary,
        "binary_expression": _binary,
        "conditional_expression": _conditional,
        "assignment_expression": _assignment,
        "update_expression": _update,
        "comma_expression": _comma,
        "this": _this,
        "qualified_identifier": _qualified,
    }


# --------------------------------------------------------------------------- placeholder types


def deduced_type(resolver: ScopeLookup, entry: Entry) -> _Ty | None:
    """The type of a variable declared with ``auto`` or ``decltype(auto)`` (``entry``, whose
    specifier is a ``placeholder_type_specifier``), deduced from its initialiser by
    [dcl.type.auto.deduct]: the initialiser's type as :class:`Expr` types it where the
    initialiser is written. The typer's types carry neither cv-qualifiers nor references, so
    ``auto``, ``const auto`` and ``auto&`` differ only in decay: without a reference an array
    becomes a pointer to its element; ``auto*`` (any number of ``*``) needs a pointer that
    many levels deep; ``decltype(auto)`` keeps the expression's type (a plain declarator
    only). ``auto x{e}`` and ``auto x(e)`` are ``e``'s type; ``auto x = {e}`` is a
    ``std::initializer_list`` and ``auto [a, b]`` a structured binding: None, as for an
    initialiser of unknown type, a parameter or a template parameter.

    A range-``for`` variable (``for (auto& x : r)``) is deduced from ``*begin``
    ([stmt.ranged]): an element of ``r`` where ``r`` is a C array, or the one type of a
    braced list's items (``std::initializer_list<E>``); a class's ``begin()`` is not
    followed. A function declared ``auto f()`` is typed by its return statements
    (``deduced_return``)."""
    declarator = entry.declarator
    if declarator is not None and declarator.type == "function_declarator":
        return deduced_return(resolver, entry.specifier, declarator)
    shape = _placeholder_shape(entry.specifier, declarator)
    if shape is None:
        return None
    pointers, reference, keeps = shape
    owner = declarator.parent if declarator is not None else None
    if owner is not None and owner.type == "for_range_loop":
        ty = _range_element(resolver, owner.child_by_field_name("right"))
        if ty is None:
            return None
    else:
        value, copy_list = _initialiser(declarator)
        if value is None:
            return None
        if value.type == "initializer_list":
            items = _named(value)
            if copy_list or len(items) != 1 or keeps:
                return None
            value = items[0]
        elif value.type == "argument_list":
            items = _named(value)
            if len(items) != 1:
                return None
            value = items[0]
        ty = Expr(resolver, value, value.start_byte).type_of(value)
        if ty is None or ty.kind == "function":
            return None
        if keeps:
            # decltype(auto) x = a copies an array, which C++ rejects; (a) is a reference to it
            return None if ty.array and value.type != "parenthesized_expression" else ty
    if not reference and not keeps and ty.array:
        ty = _pointer(ty.target)
    level: _Ty | None = ty
    for _ in range(pointers):
        if level is None:
            break  # a pointer to a type unknown here: its depth cannot be checked
        if level.kind != "pointer":
            return None
        level = level.target
    return ty


def _range_element(resolver: ScopeLookup, value: Node | None) -> _Ty | None:
    """The type of ``*begin`` for the range ``value`` of a range-``for``: a C array's element,
    or ``E`` for a braced list whose items all deduce to ``E`` (each decayed, as
    ``std::initializer_list<E>`` deduces it). None for anything else (a class whose
    ``begin()`` is not followed here, a pointer, which C++ rejects)."""
    if value is None:
        return None
    if value.type == "initializer_list":
        return _one_decayed_type(resolver, _named(value))
    ty = Expr(resolver, value, value.start_byte).type_of(value)
    if ty is None or not ty.array or ty.target is None or ty.target.kind == "function":
        return None
    return ty.target


def deduced_return(resolver: ScopeLookup, spec: Node | None, function: Node) -> _Ty | None:
    """The function type of ``auto f(...) { ... }`` (``function`` its declarator), whose
    return type C++ deduces from its return statements ([dcl.spec.auto.general]): each
    ``return e;`` deduces as ``auto x = e`` (decayed), and every one must deduce the same
    type. Only where that deduction is made once, for every call: not in a template
    (nor a member of one, nor a function with an ``auto`` parameter, an abbreviated
    template), not ``decltype(auto)``, not with a trailing return type (read from the
    declarator). A return of unknown type, of a braced list, without a value, or one that
    calls the function itself (its type is not known while it is worked out) leaves it
    unknown. The returns of lambdas and local classes in its body are theirs, not its."""
    if spec is None or any(c.type == "decltype" for c in spec.children):
        return None
    owner = function.parent
    if owner is None or owner.type != "function_definition" or trailing_type(function):
        return None
    params = function.child_by_field_name("parameters")
    if params is None or any(
        (t := p.child_by_field_name("type")) is not None and t.type == spec.type
        for p in params.named_children
    ):
        return None
    up: Node | None = owner
    while up is not None:
        if up.type == "template_declaration":
            return None
        up = up.parent
    body = owner.child_by_field_name("body")
    if body is None:
        return None
    returned: list[Node] = []
    pending = [body]
    while pending:
        node = pending.pop()
        if node.type in _OWN_RETURNS:
            continue
        if node.type != "return_statement":
            pending.extend(node.named_children)
            continue
        values = [c for c in node.named_children if c.type != "comment"]
        if len(values) != 1 or values[0].type == "initializer_list":
            return None
        returned.append(values[0])
    found = _one_decayed_type(resolver, returned)
    if found is None:
        return None
    return _Ty(found.spelling + " ()", "function", None, target=found)


def _one_decayed_type(resolver: ScopeLookup, values: Iterable[Node]) -> _Ty | None:
    """The one type every value deduces to as ``auto x = value`` deduces it (an array decayed
    to a pointer), or None where one is unknown or a function, or two differ, or there is
    none: a braced list's items for a range-for, a function's returns."""
    found: _Ty | None = None
    for value in values:
        ty = Expr(resolver, value, value.start_byte).type_of(value)
        if ty is None or ty.kind == "function":
            return None
        if ty.array:
            ty = _pointer(ty.target)
        if found is not None and not found.same(ty):
            return None
        found = ty
    return found


# nodes inside a function body whose return statements return from something else
_OWN_RETURNS = frozenset(
    {"lambda_expression", "function_definition", "field_declaration_list", "template_declaration"}
)


def _placeholder_shape(
    spec: Node | None, declarator: Node | None
) -> tuple[int, bool, bool] | None:
    """(the ``*`` before the declared name, whether a reference, whether
    ``decltype(auto)``) for a declarator of a placeholder type, read outside in: pointers,
    then at most one reference (a pointer to a reference is no type), then the name. None
    for any other declarator (an array or function of ``auto``, a structured binding)."""
    if spec is None or spec.type != "placeholder_type_specifier":
        return None
    keeps = any(c.type == "decltype" for c in spec.children)
    node = declarator
    if node is not None and node.type == "init_declarator":
        node = node.child_by_field_name("declarator")
    pointers = 0
    reference = False
    for _ in range(MAX_DEPTH):
        if node is None:
            return None
        kind = node.type
        if kind in ("identifier", "field_identifier"):
            if keeps and (pointers or reference):
                return None  # decltype(auto) stands alone
            return pointers, reference, keeps
        if kind == "pointer_declarator":
            if reference:
                return None
            pointers += 1
        elif kind == "reference_declarator":
            if reference:
                return None
            reference = True
        elif kind not in ("parenthesized_declarator", "attributed_declarator"):
            return None
        node = inner_declarator(node)
    return None


def _initialiser(declarator: Node | None) -> tuple[Node | None, bool]:
    """The initialiser of the variable ``declarator`` declares, and whether it
    follows ``=``: an init-declarator's value, or the value that follows the name in a
    condition's declaration (``if (auto p = q)``) or a static member's
    (``static constexpr auto n = 4;``). None where there is none (a parameter, a template
    parameter, a range-``for`` variable)."""
    if declarator is None:
        return None, False
    if declarator.type == "init_declarator":
        value = declarator.child_by_field_name("value")
        return value, any(c.type == "=" for c in declarator.children)
    owner = declarator.parent
    if owner is None or owner.type not in _VALUE_OWNERS:
        return None, False
    seen = False
    equals = False
    for index, child in enumerate(owner.children):
        if not seen:
            seen = child == declarator
            continue
        kind = child.type
        if kind == "=":
            equals = True
        elif kind in (",", ";") or owner.field_name_for_child(index) == "declarator":
            break
        elif owner.field_name_for_child(index) in ("value", "default_value"):
            return child, equals
    return None, False


# the declarations that hold a declarator's value beside it, not in an init-declarator
_VALUE_OWNERS = frozenset({"declaration", "field_declaration"})
