"""The class whose member function a call names, read off the calling function's tree.

A method is found by its name and its class: ``bars[s]->wait(phase)`` calls ``wait`` of the
class ``bars`` is declared with ([class.member.lookup]: the lookup is in the scope of the
object expression's class), ``NamedBarrier::sync(n, id)`` ``sync`` of ``NamedBarrier``. The
protocol flows (:mod:`.function_flow`) take that class to pick, among the definitions of the
name they find, those of that class: a library summary of a member function
(:mod:`.library_helpers`) applies only at a call whose class is known to be the summary's,
and of a project's overloads in several classes the one of the object's class is followed.

What is read, in the calling function only (its parameters and body, never another scope):

* a qualified call: the part before the function's name (``cute::SM90_TMA_STORE_2D::copy``:
  ``SM90_TMA_STORE_2D``), through an alias the function declares (the one in scope at the
  call: a name aliased in both arms of an ``if constexpr``, each in its block, names each
  arm's class there), else one its class declares
  among its members or its namespace (or the file) declares before it ([basic.lookup]); a
  namespace reads the same, and matches no class's method;
* a member call: the object expression's class: a variable's declared type (a pointer, a
  reference, an array or an element of one: ``Barrier* full[4]``, ``full[s]->wait()``), an
  ``auto`` variable's initializer's, a temporary's (``NamedBarrier(128).sync()``), ``this``
  the calling method's own class; through the aliases the function declares (``using Barrier
  = cutlass::arch::ClusterTransactionBarrier;``, ``typedef``).

A type's class is its last ``::`` part without template arguments (``cute::Tensor<E, L>``:
``Tensor``). An alias may name one of several classes, ``A|B``, each a candidate:

* a member type of a class template instance (DeepGEMM's ``using WGMMA = typename
  BF16MMASelector<N>::type;``): the member alias as the primary template and each of its
  specializations declare it (which one an instance picks is not decided), found in the file
  and the project headers it includes by the C++ typer's index of their declarations
  (:meth:`.DeclarationIndex.class_definitions`); ``decltype(f())`` there is the class every
  ``return`` of the member function ``f`` constructs (``return BF16MMA<N, T>();``);
* ``conditional_t<B, T, F>``, ``conditional<B, T, F>::type`` ([meta.trans.other], where
  the project defines no template of that name): T or F, B not evaluated.

The flows follow such a call only where each candidate class has the method and all of them
take the same steps (:func:`.call_lookup.definitions`). "" where none is read (a data
member's type, a call's result, a template parameter, a member type some candidate does not
declare as a class): the flows then look the name up as before, by its name alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import tree_sitter

from ptxlint.analysis.flow_syntax import declared, function_name, scope_name
from ptxlint.frontends.syntax_tree import ParsedSource, own_function_name

__all__ = ["CallClasses"]

Node = tree_sitter.Node
# the definitions of a class (template) by name: (their file's tree, the class specifier)
ClassDefinitions = Callable[[str], list[tuple[ParsedSource, Node]]]

_DECLARES = frozenset({"declaration", "parameter_declaration", "optional_parameter_declaration"})
_ALIASES = frozenset({"alias_declaration", "type_definition"})
_MAX_HOPS = 8  # aliases, member types and ``auto`` initializers followed, at most


class CallClasses:
    """The classes of one function's calls; its declarations read on the first member call
    asked about."""

    __slots__ = ("_aliases", "_classes", "_function", "_members", "_outer", "_own", "_parsed",
                 "_types")

    def __init__(self, parsed: ParsedSource, function: Node, own_class: str,
                 classes: ClassDefinitions | None = None) -> None:
        """``function``: the definition (or the block of one recovered from the text);
        ``own_class``: the class it is a method of, "" for a free function; ``classes``:
        the definitions of a class (template) by its name, in the file and the project
        headers it includes, each with its file's tree (none: a member type is not read)."""
        self._parsed = parsed
        self._function = function
        self._own = own_class
        self._classes = classes
        self._outer: dict[str, Node | None | bool] = {}  # the function's scopes' aliases
        # the classes of a class template's member type, by (template, member) ("" while
        # being read: a member type defined through itself names no class)
        self._members: dict[tuple[str, str], str] = {}
        self._types: dict[str, Node | None] | None = None
        self._aliases: dict[str, list[Node]] = {}  # each name's aliases in the function

    def of_call(self, start: int, end: int, form: str) -> str:
        """The class of the call at bytes ``[start, end)`` of ``form``
        (:func:`.flow_syntax.call_form`); "" where it is not read."""
        if form == "plain":
            return ""
        function = self._callee(start, end)
        if function is None:
            return ""
        if form == "qualified":  # `Store::copy()` with `using Store = cute::SM90_TMA_STORE_2D;`
            return self._class_named(scope_name(self._parsed.node_text(function)), 0, start)
        target = self._receiver(function)
        return self._object_class(target, 0) if target is not None else ""

    def receiver(self, start: int, end: int) -> str:
        """The object expression of the member call at ``[start, end)`` (``full[s]`` of
        ``full[s]->wait(p)``): what ``this`` is in the method it calls; "" for another call."""
        function = self._callee(start, end)
        target = self._receiver(function) if function is not None else None
        return self._parsed.node_text(target) if target is not None else ""

    def _callee(self, start: int, end: int) -> Node | None:
        call = self._function.descendant_for_byte_range(start, end)
        while call is not None and not (call.type == "call_expression"
                                        and call.start_byte == start and call.end_byte == end):
            call = call.parent
        return call.child_by_field_name("function") if call is not None else None

    @staticmethod
    def _receiver(function: Node) -> Node | None:
        if function.type == "template_function":
            name = function.child_by_field_name("name")
            if name is None:
                return None
            function = name
        return function.child_by_field_name("argument") \
            if function.type == "field_expression" else None

    def _object_class(self, node: Node, hops: int) -> str:
        kind = node.type
        while kind in ("subscript_expression", "pointer_expression",
                       "parenthesized_expression"):
            inner = node.child_by_field_name("argument") if kind != "parenthesized_expression" \
                else (node.named_children[0] if node.named_children else None)
            if inner is None:
                return ""
            node, kind = inner, inner.type
        if kind == "this":
            return self._own
        if kind == "call_expression":  # a temporary: `NamedBarrier(n).sync()`
            function = node.child_by_field_name("function")
            return self._class_named(function_name(self._parsed.node_text(function)), hops,
                                     node.start_byte) if function is not None and function.type in (
                    "identifier", "qualified_identifier", "template_function") else ""
        if kind != "identifier" or hops >= _MAX_HOPS:
            return ""
        if self._types is None:
            self._read_declarations()
        assert self._types is not None
        declaration = self._types.get(self._parsed.node_text(node))
        if declaration is None:
            return ""
        type_node = declaration.child_by_field_name("type")
        if type_node is not None and type_node.type == "placeholder_type_specifier":
            value = _initializer(declaration)  # `auto& fb = *full[s];`: the value's class
            return self._object_class(value, hops + 1) if value is not None else ""
        return self._class_of_type(type_node, hops)

    def _class_of_type(self, type_node: Node | None, hops: int,
                       where: tuple[ParsedSource, Node] | None = None) -> str:
        """The class ``type_node`` names, written at ``where`` (a file's tree and the node
        whose scopes it is read in; the calling function by default)."""
        parsed, scope = where if where is not None else (self._parsed, self._function)
        while type_node is not None and type_node.type in ("type_descriptor", "dependent_type"):
            type_node = type_node.child_by_field_name("type") \
                if type_node.type == "type_descriptor" else _first(type_node)
        if type_node is None or hops >= _MAX_HOPS:
            return ""
        kind = type_node.type
        if kind == "decltype":  # `decltype(select_type())`: the class its returns construct
            return self._returned_class(parsed, scope, _first(type_node), hops + 1)
        if kind not in ("type_identifier", "qualified_identifier", "template_type",
                        "identifier", "template_function"):
            return ""
        member = _member_of_instance(type_node, parsed)
        if member is not None:  # `S<N>::type`: the member type of each class S may be
            return self._member_class(parsed, *member, scope, hops + 1)
        leaf = _leaf(type_node)
        if leaf.type == "template_type" and self._text_of(parsed, leaf.child_by_field_name(
                "name")) == "conditional_t" and not self._defined_classes("conditional_t"):
            return self._either(parsed, leaf, scope, hops + 1)  # [meta.trans.other]
        name = function_name(parsed.node_text(type_node))
        if parsed is self._parsed and self._function.start_byte <= scope.start_byte \
                and scope.end_byte <= self._function.end_byte:
            return self._class_named(name, hops, type_node.start_byte)
        alias = _outer_alias(scope, name, parsed)
        return self._alias_class(alias, parsed, hops) if alias is not False else name

    def _class_named(self, name: str, hops: int, at: int) -> str:
        """The class ``name`` names where it is written, at byte ``at`` of the function."""
        if self._types is None:
            self._read_declarations()
        if hops >= _MAX_HOPS:
            return name
        alias: Node | None | bool = _visible(self._aliases.get(name, ()), at, self._function)
        if alias is False:  # a member alias of the method's class, a namespace's alias
            alias = self._outer.get(name, None)
            if name not in self._outer:
                alias = self._outer[name] = _outer_alias(self._function, name, self._parsed)
            if alias is False:
                return name
        return self._alias_class(alias, self._parsed, hops)

    def _alias_class(self, alias: Node | None | bool, parsed: ParsedSource, hops: int) -> str:
        if not isinstance(alias, Node):
            return ""  # aliased twice in one scope of a class or namespace: which is not read
        return self._class_of_type(alias.child_by_field_name("type") if alias.type ==
                                   "alias_declaration" else _typedef_type(alias), hops + 1,
                                   (parsed, alias))

    def _member_class(self, parsed: ParsedSource, template: str, arguments: Node | None,
                      member: str, scope: Node, hops: int) -> str:
        """The classes the member type ``member`` of an instance of the class template
        ``template`` may be: that of its primary definition and of each specialization
        (which one an instance picks is not read), "" where one declares no such member
        type or names no class; ``std::conditional<B, T, F>::type``: T or F."""
        definitions = self._defined_classes(template)
        if not definitions:
            if template == "conditional" and member == "type" and arguments is not None:
                return self._either(parsed, arguments.parent, scope, hops)
            return ""
        known = self._members.get((template, member))
        if known is not None:
            return known
        self._members[(template, member)] = ""
        found: set[str] = set()
        for owner, record in definitions:
            alias = _member_alias(record, member, owner)
            klass = self._alias_class(alias, owner, hops) if alias is not False else ""
            if not klass:
                found.clear()
                break
            found.update(klass.split("|"))
        result = self._members[(template, member)] = "|".join(sorted(found))
        return result

    def _either(self, parsed: ParsedSource, template: Node | None, scope: Node,
                hops: int) -> str:
        """``conditional_t<B, T, F>``: the classes of T and F (B is not evaluated)."""
        arguments = template.child_by_field_name("arguments") if template is not None else None
        types = [a for a in arguments.named_children if a.type != "comment"] \
            if arguments is not None else []
        if len(types) != 3:
            return ""
        found = [self._class_of_type(t, hops, (parsed, scope)) for t in types[1:]]
        return "|".join(sorted({c for k in found for c in k.split("|")})) if all(found) else ""

    def _returned_class(self, parsed: ParsedSource, scope: Node, call: Node | None,
                        hops: int) -> str:
        """``decltype(f())`` in a class: the class of the temporaries every ``return`` of
        its member function ``f`` constructs (``return BF16MMA<N, T>();``); "" otherwise."""
        function = call.child_by_field_name("function") if call is not None and \
            call.type == "call_expression" else None
        record = scope.parent
        while record is not None and record.type != "field_declaration_list":
            record = record.parent
        if function is None or function.type != "identifier" or record is None:
            return ""
        name = parsed.node_text(function)
        bodies = [b for d in record.named_children if d.type in ("function_definition",
                  "template_declaration") for f in (_function_of(d),) if f is not None and
                  _declared_name(f, parsed) == name and (b := f.child_by_field_name("body"))]
        if len(bodies) != 1:
            return ""
        found: set[str] = set()
        for value in _returned(bodies[0]):
            made = None if value is None else value.child_by_field_name(
                "function") if value.type == "call_expression" else value.child_by_field_name(
                "type") if value.type == "compound_literal_expression" else None
            if made is None or made.type not in ("identifier", "qualified_identifier",
                                                 "template_function", "type_identifier",
                                                 "template_type"):
                return ""
            klass = self._class_of_type(made, hops, (parsed, record))
            if not klass:
                return ""
            found.update(klass.split("|"))
        return "|".join(sorted(found))

    def _defined_classes(self, name: str) -> list[tuple[ParsedSource, Node]]:
        return self._classes(name) if self._classes is not None else []

    @staticmethod
    def _text_of(parsed: ParsedSource, node: Node | None) -> str:
        return parsed.node_text(node) if node is not None else ""

    def _read_declarations(self) -> None:
        """Each name's one declaration in the function (a name declared twice: none), and the
        aliases it declares (each, in its block: ``_visible`` picks the one a use sees), by one
        walk that skips asm statements."""
        types: dict[str, Node | None] = {}
        stack = [self._function]
        while stack:
            node = stack.pop()
            kind = node.type
            if kind == "gnu_asm_expression":
                continue
            if kind in _ALIASES:
                name = _alias_name(node)
                if name is not None:
                    text = self._parsed.node_text(name)
                    self._aliases.setdefault(text, []).append(node)
                continue
            if kind in _DECLARES:
                for declarator in node.children_by_field_name("declarator"):
                    ident = declared(declarator)
                    if ident is not None:
                        text = self._parsed.node_text(ident)
                        types[text] = None if text in types else node
            stack.extend(node.named_children)
        self._types = types


def _initializer(declaration: Node) -> Node | None:
    for declarator in declaration.children_by_field_name("declarator"):
        if declarator.type == "init_declarator":
            return declarator.child_by_field_name("value")
    return None


def _alias_name(node: Node) -> Node | None:
    if node.type == "alias_declaration":
        return node.child_by_field_name("name")
    declarators = node.children_by_field_name("declarator")
    return declarators[0] if len(declarators) == 1 and \
        declarators[0].type == "type_identifier" else None


def _typedef_type(node: Node) -> Node | None:
    return node.child_by_field_name("type")


def _first(node: Node) -> Node | None:
    return node.named_children[0] if node.named_children else None


def _leaf(node: Node) -> Node:
    """The last part of a qualified name (``cute::conditional_t<...>``: the template type)."""
    while node.type == "qualified_identifier":
        name = node.child_by_field_name("name")
        if name is None:
            break
        node = name
    return node


def _member_of_instance(node: Node, parsed: ParsedSource) -> tuple[str, Node | None, str] | None:
    """(template, its argument list, member) of a member type of a class template instance
    (``ns::S<N>::type``: ``S``, ``<N>``, ``type``); None for another type."""
    while node.type == "qualified_identifier":
        scope, name = node.child_by_field_name("scope"), node.child_by_field_name("name")
        if scope is not None and scope.type == "template_type" and name is not None and \
                name.type == "type_identifier":
            template = scope.child_by_field_name("name")
            if template is None:
                return None
            return (parsed.node_text(template), scope.child_by_field_name("arguments"),
                    parsed.node_text(name))
        if name is None:
            return None
        node = name
    return None


def _outer_alias(inner: Node, name: str, parsed: ParsedSource) -> Node | None | bool:
    """The alias of ``name`` the scopes around ``inner`` declare, innermost first: a class's
    member alias (a class member is in scope in its methods' bodies wherever it is declared
    in the class), a namespace's (or the file's) declared before ``inner``; None where one
    scope declares it twice, False where none declares it."""
    node = inner.parent
    while node is not None:
        if node.type in ("field_declaration_list", "declaration_list", "translation_unit"):
            found = [a for a in node.named_children if a.type in _ALIASES and (
                node.type == "field_declaration_list" or a.end_byte <= inner.start_byte)
                and (n := _alias_name(a)) is not None and parsed.node_text(n) == name]
            if found:
                return found[0] if len(found) == 1 else None
        node = node.parent
    return False


def _member_alias(record: Node, member: str, parsed: ParsedSource) -> Node | None | bool:
    """The alias ``member`` a class definition declares among its members (:func:`_outer_alias`
    of its body)."""
    body = record.child_by_field_name("body")
    found = [a for a in body.named_children if a.type in _ALIASES and (
        n := _alias_name(a)) is not None and parsed.node_text(n) == member] \
        if body is not None else []
    return (found[0] if len(found) == 1 else None) if found else False


def _function_of(node: Node) -> Node | None:
    while node.type == "template_declaration":
        inner = [c for c in node.named_children if c.type in (
            "function_definition", "template_declaration")]
        if len(inner) != 1:
            return None
        node = inner[0]
    return node if node.type == "function_definition" else None


def _declared_name(function: Node, parsed: ParsedSource) -> str:
    name = own_function_name(function)
    return parsed.node_text(name) if name is not None else ""


def _returned(body: Node) -> list[Node | None]:
    """The values of a function body's ``return`` statements (not those of a lambda in it);
    None for a ``return;``."""
    values: list[Node | None] = []
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type == "return_statement":
            values.append(_first(node))
            continue
        if node.type != "lambda_expression":
            stack.extend(node.named_children)
    return values


_BLOCKS = frozenset({"compound_statement", "function_definition", "lambda_expression"})


def _visible(aliases: Sequence[Node], at: int, function: Node) -> Node | bool:
    """Of a function's aliases of one name, the one a use at byte ``at`` sees
    ([basic.scope.block]: an alias declared in a block is in scope from its end to the end of
    the block): the last declared before ``at`` in the innermost block around ``at`` that
    declares one (the two arms of an ``if constexpr`` alias one name each in its own block);
    False where none is in scope there."""
    best: Node | None = None
    best_block = -1
    for alias in aliases:
        if alias.end_byte > at:
            continue
        block = alias.parent
        while block is not None and block.type not in _BLOCKS and block != function:
            block = block.parent
        if block is None or not block.start_byte <= at < block.end_byte:
            continue
        if block.start_byte > best_block or (block.start_byte == best_block and best is not None
                                             and alias.start_byte > best.start_byte):
            best, best_block = alias, block.start_byte
    return best if best is not None else False
