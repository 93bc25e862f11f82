"""What a class's data member may be given, read off the file's tree: the C++ facts
``value_flow`` joins into the kind of address a member holds.

By C++'s rules a non-static data member of an object is given a value by the constructor that
makes the object (its mem-initializer, else the member's default member initializer, then the
constructor's body), and afterwards by whatever assigns it: the class's member functions
(``m = v``, ``this->m = v``, an asm output ``"+l"(m)``, ``++m``, ``&m`` letting anything be
stored), and code that reaches the member through an object (``o.m = v``, ``p->m = v``). A
member function other than a constructor runs on a constructed object: it sees what some
constructor left in the member, or what some member function stored there since. So the
places that may give member ``m`` of class ``C`` a value, as one member function ``F`` sees it:

* each constructor of ``C`` other than ``F`` as it ends: a top-level statement of its body
  that assigns ``m`` unconditionally (``m = v;``, an asm statement with ``m`` an output)
  replaces what its mem-initializer and earlier statements gave (``ptr_(p) { asm("cvta.to.
  shared.u64 %0, %0;" : "+l"(ptr_)); }`` leaves the converted value), and what follows it
  counts too; without one, everything the constructor gives counts. Only where ``F`` is not a
  constructor: an object under construction has seen no other constructor;
* where ``F`` is a constructor, what it gives (mem-initializer or default initializer, and
  its body), all of it (``F`` may read the member between two of them);
* every assignment in a member function that is not a constructor, ``F`` included (``F`` may
  call it), and every assignment through an object anywhere in the file (``o.m = v``: the
  object may be a ``C``; another class's member of the same name only adds values, which
  can only make the answer unknown);
* an assignment inside a lambda is unknown (``[this] { m = ...; }``): the lambda's own names
  are not the function's.

A copy from the same member of another object of the class (``m(other.m)``, ``other`` a
parameter of type ``C``, as in a copy constructor) adds nothing: it gives a value the member
already may hold. The class is read in every definition the file has of it (a partial
specialization, ``struct Convert<Shared, T>``, is another definition of the same name): one
answer for all instances of a class template. A member function that the class declares but
the file does not define (defined in another translation unit) may give the member anything:
then the sites are incomplete, and the member unknown; a ``const`` one assigns no member.

Read once per class name (its definitions, members and member functions) and once per class
and member (the member's sites, by one search of the file for its name), when value flow
first asks about a name that a member function uses without declaring it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Protocol

import tree_sitter

from ptxlint.analysis.value_syntax import same_node
from ptxlint.frontends.syntax_tree import ParsedSource, own_function_declarator

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["ASM", "KEEP", "NEUTRAL", "UNKNOWN", "Given", "MemberSites", "Members"]

# What a site gives, where it is not an expression to evaluate.
KEEP = "keep"  # `m += n`, `++m`: an offset keeps the kind of address
UNKNOWN = "unknown"  # `m |= x`, `&m` taken, a lambda's assignment: anything may be in it
NEUTRAL = "neutral"  # `m(other.m)`: what the member already may hold
ASM = "asm"  # an asm output: what its template makes of it (``value_flow._asm_result``)

_CLASSES = ("class_specifier", "struct_specifier", "union_specifier")
_DECLARATOR_WRAPPERS = (
    "pointer_declarator", "array_declarator", "reference_declarator",
    "parenthesized_declarator", "init_declarator",
)


class Given(NamedTuple):
    """One value a site gives the member: an expression node (or ``ASM``'s asm expression
    node), or a marker, and the node of the function it is evaluated in (a
    ``field_declaration`` for a default member initializer)."""

    what: tree_sitter.Node | str
    asm: bool  # ``what`` is the asm expression whose output the member is
    where: tree_sitter.Node


class MemberSites(NamedTuple):
    given: list[Given]
    pointer: bool  # declared as a pointer or an array
    complete: bool  # no member function the file leaves undefined may assign it


class _Site(NamedTuple):
    given: Given
    function: tree_sitter.Node | None  # the function definition the site is in
    kind: str  # "default" | "init" (mem-initializer) | "body" | "outside" | "lambda"
    start: int  # byte offset, for the order within a constructor's body


class FileReader(Protocol):
    """What the member reading needs of value flow's file facts."""

    parsed: ParsedSource

    def node_at(self, start: int, end: int) -> tree_sitter.Node | None: ...

    def offsets(self, name: bytes) -> list[int]: ...

    def around(self, node: tree_sitter.Node) -> tree_sitter.Node | None: ...

    def value_in(
        self, node: tree_sitter.Node, where: tree_sitter.Node, depth: int, params: bool
    ) -> object: ...

    def asm_value(self, asm: tree_sitter.Node) -> object: ...


def _base_name(parsed: ParsedSource, node: tree_sitter.Node | None) -> str | None:
    """``C`` of a class name or scope: ``C``, ``C<T>``."""
    if node is None:
        return None
    if node.type == "template_type":
        node = node.child_by_field_name("name")
        if node is None:
            return None
    if node.type in ("type_identifier", "namespace_identifier", "identifier"):
        return parsed.node_text(node) or None
    return None


def _specifier_of_body_member(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """The class specifier whose body holds ``node`` directly (through a template head)."""
    parent = node.parent
    if parent is not None and parent.type == "template_declaration":
        parent = parent.parent
    if parent is None or parent.type != "field_declaration_list":
        return None
    spec = parent.parent
    return spec if spec is not None and spec.type in _CLASSES else None


def _qualified_name(declarator: tree_sitter.Node | None) -> tuple[tree_sitter.Node | None, str]:
    """(the last scope, the name node's type) of a function's name ``C::f``, ``ns::C<T>::f``;
    (None, its type) for an unqualified name."""
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    scope = None
    while name is not None and name.type == "qualified_identifier":
        scope = name.child_by_field_name("scope")
        name = name.child_by_field_name("name")
    return scope, name.type if name is not None else ""


def class_of(parsed: ParsedSource, node: tree_sitter.Node) -> str | None:
    """The name of the class whose member function (or member declaration) ``node`` is: a
    definition in the class's body, or one out of it whose name the class qualifies."""
    spec = _specifier_of_body_member(node)
    if spec is not None:
        return _base_name(parsed, spec.child_by_field_name("name"))
    if node.type != "function_definition":
        return None
    scope, _ = _qualified_name(own_function_declarator(node.child_by_field_name("declarator")))
    return _base_name(parsed, scope)


def _function_name(parsed: ParsedSource, node: tree_sitter.Node) -> str | None:
    declarator = own_function_declarator(node.child_by_field_name("declarator"))
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    while name is not None and name.type == "qualified_identifier":
        name = name.child_by_field_name("name")
    if name is None or name.type not in ("identifier", "field_identifier", "type_identifier"):
        return None
    return parsed.node_text(name) or None


class Members:
    """The member sites of one file, read on demand (see the module's docstring)."""

    def __init__(
        self,
        reader: FileReader,
        shadows: Callable[[tree_sitter.Node, str], bool],
        max_depth: int,
    ) -> None:
        self.reader = reader
        self.max_depth = max_depth  # how deep value flow follows values
        self.parsed = reader.parsed
        # whether function ``node`` has its own parameter or local named ``name``
        self.shadows = shadows
        self._classes: dict[str, list[tree_sitter.Node]] = {}
        self._declared: dict[tuple[str, str], tuple[bool, bool, list[tree_sitter.Node]]] = {}
        self._complete: dict[str, bool] = {}
        self._arrays: dict[tuple[str, str], bool] = {}  # (class, member): declared an array
        self._array_fields: dict[str, set[str]] = {}  # (``_field_shapes``)
        self._sites: dict[tuple[str, str], list[_Site]] = {}
        self._values: dict[tuple[str, str, int | None, int, bool], tuple[object, bool]] = {}

    def value(
        self, name: str, function: tree_sitter.Node, depth: int, params: bool
    ) -> tuple[object, bool] | None:
        """(the value every site that may give member ``name`` of ``function``'s class a
        value agrees on, None where they disagree or one is unknown; whether the member is a
        pointer) as ``function`` sees it. None where the class declares no such member."""
        cls = self.member_class(function, name)
        if cls is None:
            return None
        key = (cls, name, function.id if self.is_constructor(cls, function) else None, depth,
               params)
        known = self._values.get(key)
        if known is not None:
            return known
        sites = self.sites(cls, name, function)
        self._values[key] = (None, sites.pointer)  # a value computed from itself: unknown
        found: set[object] = set()
        if not sites.complete or depth >= self.max_depth:
            found.add(None)
        for given in sites.given if not found else ():
            what = given.what
            if given.asm and isinstance(what, tree_sitter.Node):
                found.add(self.reader.asm_value(what))
            elif isinstance(what, str):
                if what not in (KEEP, NEUTRAL):
                    found.add(None)
            else:
                found.add(self.reader.value_in(what, given.where, depth + 1, params))
        known = self._values[key] = (found.pop() if len(found) == 1 else None, sites.pointer)
        return known

    def member_class(self, function: tree_sitter.Node, name: str) -> str | None:
        """The class ``function`` is a member of, where that class declares data member
        ``name`` (read in every definition the file has of it); else None."""
        cls = class_of(self.parsed, function)
        if cls is None or not self._declaration(cls, name)[0]:
            return None
        return cls

    def classes(self, cls: str) -> list[tree_sitter.Node]:
        """The file's definitions (with a body) of class ``cls``."""
        found = self._classes.get(cls)
        if found is None:
            found = []
            size = len(cls.encode())
            for offset in self.reader.offsets(cls.encode()):
                node = self.reader.node_at(offset, offset + size)
                if node is None or node.type != "type_identifier":
                    continue
                spec = node.parent
                if spec is not None and spec.type == "template_type":
                    if spec.child_by_field_name("name") != node:
                        continue
                    named, spec = spec, spec.parent
                else:
                    named = node
                if (
                    spec is not None
                    and spec.type in _CLASSES
                    and spec.child_by_field_name("name") == named
                    and spec.child_by_field_name("body") is not None
                ):
                    found.append(spec)
            self._classes[cls] = found
        return found

    def _declaration(self, cls: str, name: str) -> tuple[bool, bool, list[tree_sitter.Node]]:
        """(declared as a data member, as a pointer or array, the default member initializers
        of its declarations)."""
        key = (cls, name)
        known = self._declared.get(key)
        if known is None:
            declared = pointer = False
            arrays = True
            defaults: list[tree_sitter.Node] = []
            for spec in self.classes(cls):
                body = spec.child_by_field_name("body")
                for field in body.named_children if body is not None else ():
                    if field.type != "field_declaration":
                        continue
                    for declarator in field.children_by_field_name("declarator"):
                        found, is_pointer, is_array = self._declarator_name(declarator)
                        if found != name:
                            continue
                        declared = True
                        pointer = pointer or is_pointer
                        arrays = arrays and is_array
                        value = field.child_by_field_name("default_value")
                        if value is not None:
                            defaults.append(value)
            known = self._declared[key] = (declared, pointer, defaults)
            self._arrays[key] = declared and arrays
        return known

    def is_array(self, function: tree_sitter.Node, name: str) -> bool:
        """Data member ``name`` of ``function``'s class is an array (in every definition the
        file has of the class): its name designates the array inside the object, whose address
        is the object's (``this``'s) plus an offset, never a value stored in it."""
        cls = self.member_class(function, name)
        return cls is not None and self._arrays[(cls, name)]

    def array_field(self, name: str) -> bool:
        """Every data member named ``name`` that a class of the file declares is an array, and
        one does: ``o.name`` (``o``'s class unknown here) is an array inside ``o``."""
        return self._field_shapes(name) == {"array"}

    def reference_field(self, name: str) -> bool:
        """Some class of the file declares a data member named ``name`` as a reference: the
        address of ``o.name`` may be that of what it is bound to, not one inside ``o``."""
        return "reference" in self._field_shapes(name)

    def _field_shapes(self, name: str) -> set[str]:
        """How the file's classes declare data members named ``name``: "array" (the declarator
        around the name is an array's), "reference" (a reference's, ``T& m``, ``T*& m``),
        "plain"."""
        known = self._array_fields.get(name)
        if known is None:
            known = self._array_fields[name] = set()
            size = len(name.encode())
            for offset in self.reader.offsets(name.encode()):
                node = self.reader.node_at(offset, offset + size)
                if node is None or node.type != "field_identifier":
                    continue
                field: tree_sitter.Node | None = node.parent
                reference = False
                while field is not None and field.type in _DECLARATOR_WRAPPERS:
                    reference = reference or field.type == "reference_declarator"
                    field = field.parent
                if field is None or field.type != "field_declaration":
                    continue
                if _specifier_of_body_member(field) is None:
                    continue
                parent = node.parent
                if reference:
                    known.add("reference")
                elif (
                    parent is not None
                    and parent.type == "array_declarator"
                    and parent.child_by_field_name("declarator") == node
                ):
                    known.add("array")
                else:
                    known.add("plain")
        return known

    def _declarator_name(self, node: tree_sitter.Node | None) -> tuple[str | None, bool, bool]:
        """(the member's name, declared as a pointer or array, as an array: the declarator
        around its name is an array's, ``T *m[4]`` an array of pointers, ``T (*m)[4]`` not)."""
        pointer = False
        innermost = ""
        while node is not None:
            if node.type == "field_identifier":
                return self.parsed.node_text(node) or None, pointer, innermost == "array_declarator"
            if node.type not in _DECLARATOR_WRAPPERS:
                return None, pointer, False  # a member function's declarator, a bit field's...
            pointer = pointer or node.type in ("pointer_declarator", "array_declarator")
            innermost = node.type
            inner = node.child_by_field_name("declarator")
            if inner is None:
                inner = next((c for c in node.named_children if "declarator" in c.type
                              or c.type == "field_identifier"), None)
            node = inner
        return None, pointer, False

    def complete(self, cls: str) -> bool:
        """Every member function the class declares that may assign a member (not ``const``,
        not defaulted, deleted or pure) has a definition in the file."""
        known = self._complete.get(cls)
        if known is None:
            known = True
            for spec in self.classes(cls):
                body = spec.child_by_field_name("body")
                for field in body.named_children if body is not None else ():
                    if field.type != "field_declaration" or not self._undefined(cls, field):
                        continue
                    known = False
                    break
                if not known:
                    break
            self._complete[cls] = known
        return known

    def _undefined(self, cls: str, field: tree_sitter.Node) -> bool:
        """``field`` declares a member function that may assign a member, defined nowhere in
        the file."""
        declarator = own_function_declarator(field.child_by_field_name("declarator"))
        if declarator is None:
            return False
        text = self.parsed.node_text(field)
        if any(q.type == "type_qualifier" and self.parsed.node_text(q) == "const"
               for q in declarator.children):
            return False
        if "= default" in text or "= delete" in text or "=default" in text or "= 0" in text:
            return False
        name_node = declarator.child_by_field_name("declarator")
        if name_node is None or name_node.type not in ("field_identifier", "identifier"):
            return name_node is not None and name_node.type != "destructor_name"
        name = self.parsed.node_text(name_node)
        size = len(name.encode())
        for offset in self.reader.offsets(name.encode()):
            node = self.reader.node_at(offset, offset + size)
            qualified = node.parent if node is not None else None
            if qualified is None or qualified.type != "qualified_identifier":
                continue
            definition: tree_sitter.Node | None = qualified
            while definition is not None and definition.type != "function_definition":
                if definition.type not in ("qualified_identifier", "function_declarator",
                                           "pointer_declarator", "reference_declarator"):
                    definition = None
                    break
                definition = definition.parent
            if definition is not None and class_of(self.parsed, definition) == cls:
                return False
        return True

    # ------------------------------------------------------------------ sites

    def sites(self, cls: str, name: str, function: tree_sitter.Node) -> MemberSites:
        """What may give member ``name`` of ``cls`` a value, as member function ``function``
        sees it."""
        declared, pointer, _ = self._declaration(cls, name)
        every = self._every_site(cls, name)
        asking_constructor = self.is_constructor(cls, function)
        given: list[Given] = []
        by_constructor: dict[int, list[_Site]] = {}
        for site in every:
            if site.kind in ("default", "init") or (
                site.kind == "body" and site.function is not None
                and self.is_constructor(cls, site.function)
            ):
                if site.kind == "default":
                    continue  # added per constructor that does not initialize the member
                assert site.function is not None
                by_constructor.setdefault(site.function.id, []).append(site)
            else:
                given.append(site.given)
        defaults = [s.given for s in every if s.kind == "default"]
        constructors = self._constructors(cls)
        if asking_constructor:
            own = by_constructor.get(function.id, [])
            if not any(s.kind == "init" for s in own):
                given.extend(defaults)
            given.extend(s.given for s in own)
        else:
            if not constructors:
                given.extend(defaults)
            for constructor in constructors:
                given.extend(self._exit(constructor, by_constructor.get(constructor.id, []),
                                        defaults))
        return MemberSites(given, pointer, declared and self.complete(cls))

    def _constructors(self, cls: str) -> list[tree_sitter.Node]:
        found: list[tree_sitter.Node] = []
        for spec in self.classes(cls):
            body = spec.child_by_field_name("body")
            for field in body.named_children if body is not None else ():
                if field.type == "template_declaration":
                    field = next((c for c in field.named_children
                                  if c.type == "function_definition"), field)
                if field.type == "function_definition" and self.is_constructor(cls, field):
                    found.append(field)
        # defined out of the class: `C::C(...)`, found by the class's name
        size = len(cls.encode())
        for offset in self.reader.offsets(cls.encode()):
            node = self.reader.node_at(offset, offset + size)
            if node is None or node.parent is None or node.parent.type != "qualified_identifier":
                continue
            definition: tree_sitter.Node | None = node.parent
            while definition is not None and definition.type in (
                "qualified_identifier", "function_declarator"
            ):
                definition = definition.parent
            if (
                definition is not None
                and definition.type == "function_definition"
                and not any(same_node(definition, f) for f in found)
                and self.is_constructor(cls, definition)
            ):
                found.append(definition)
        return found

    def is_constructor(self, cls: str, function: tree_sitter.Node) -> bool:
        return (
            function.type == "function_definition"
            and class_of(self.parsed, function) == cls
            and _function_name(self.parsed, function) == cls
        )

    def _exit(
        self, constructor: tree_sitter.Node, own: list[_Site], defaults: list[Given]
    ) -> list[Given]:
        """What ``constructor`` leaves in the member: from its last top-level statement that
        assigns the member unconditionally on, else all it gives."""
        body = constructor.child_by_field_name("body")
        statements = body.named_children if body is not None else []
        last = None
        for site in own:
            if site.kind != "body":
                continue
            statement = next((s for s in statements
                              if s.start_byte <= site.start < s.end_byte), None)
            if (
                statement is not None
                and self._unconditional(statement, site)
                and (last is None or site.start > last.start)
            ):
                last = site
        if last is not None:
            return [s.given for s in own if s.start >= last.start]
        given = [s.given for s in own]
        if not any(s.kind == "init" for s in own):
            given.extend(defaults)
        return given

    @staticmethod
    def _unconditional(statement: tree_sitter.Node, site: _Site) -> bool:
        """``statement`` (top-level in a body) is the site's own assignment or asm statement."""
        if statement.type != "expression_statement" or site.given.what in (KEEP, UNKNOWN):
            return False
        expression = next(iter(statement.named_children), None)
        if expression is None:
            return False
        if site.given.asm:
            return isinstance(site.given.what, tree_sitter.Node) and (
                same_node(expression, site.given.what)
            )
        what = site.given.what
        return (
            expression.type == "assignment_expression"
            and isinstance(what, tree_sitter.Node)
            and expression.child_by_field_name("right") == what
        )

    def _every_site(self, cls: str, name: str) -> list[_Site]:
        key = (cls, name)
        found = self._sites.get(key)
        if found is not None:
            return found
        found = []
        size = len(name.encode())
        parsed = self.parsed
        for offset in self.reader.offsets(name.encode()):
            node = self.reader.node_at(offset, offset + size)
            if node is None:
                continue
            parent = node.parent
            if parent is None:
                continue
            if node.type == "field_identifier":
                if parent.type == "field_initializer":
                    constructor = parent.parent.parent if parent.parent is not None else None
                    if constructor is None or not self.is_constructor(cls, constructor):
                        continue
                    args = parent.named_children[1:]
                    values = args[0].named_children if args else []
                    what: tree_sitter.Node | str = (
                        self._copied(values[0], constructor, cls, name)
                        if len(values) == 1 else UNKNOWN
                    )
                    found.append(_Site(Given(what, False, constructor), constructor, "init",
                                       offset))
                elif parent.type == "field_declaration" or parent.type in _DECLARATOR_WRAPPERS:
                    field: tree_sitter.Node | None = parent
                    while field is not None and field.type in _DECLARATOR_WRAPPERS:
                        field = field.parent
                    if field is None or field.type != "field_declaration":
                        continue
                    spec = _specifier_of_body_member(field)
                    value = field.child_by_field_name("default_value")
                    if (spec is not None and value is not None
                            and _base_name(parsed, spec.child_by_field_name("name")) == cls):
                        found.append(_Site(Given(value, False, field), None, "default", offset))
                elif parent.type == "field_expression" and parent.child_by_field_name(
                    "field"
                ) == node:
                    argument = parent.child_by_field_name("argument")
                    this = argument is not None and argument.type == "this"
                    self._give(parent, cls, name, found, offset, this)
            elif node.type == "identifier":
                self._give(node, cls, name, found, offset, True)
        self._sites[key] = found
        return found

    def _give(self, lvalue: tree_sitter.Node, cls: str, name: str, found: list[_Site],
              offset: int, own: bool) -> None:
        """The site ``lvalue`` (``m``, ``this->m`` or ``o.m``) is, if it gives a value."""
        holder = lvalue.parent
        while holder is not None and holder.type == "parenthesized_expression":
            lvalue, holder = holder, holder.parent
        if holder is None:
            return
        what: tree_sitter.Node | str | None = None
        asm = False
        kind = holder.type
        if kind == "assignment_expression" and holder.child_by_field_name("left") == lvalue:
            op = holder.child_by_field_name("operator")
            operator = op.type if op is not None else "="
            right = holder.child_by_field_name("right")
            if operator == "=" and right is not None:
                what = right
            else:
                what = KEEP if operator in ("+=", "-=") else UNKNOWN
        elif kind == "update_expression":
            what = KEEP
        elif kind == "pointer_expression":
            op = holder.child_by_field_name("operator")
            if op is not None and op.type == "&":
                what = UNKNOWN
        elif kind == "gnu_asm_output_operand":
            operands = holder.parent
            asm_node = operands.parent if operands is not None else None
            what = asm_node if asm_node is not None else UNKNOWN
            asm = asm_node is not None
        elif kind == "init_declarator" and holder.child_by_field_name("value") == lvalue:
            declarator = holder.child_by_field_name("declarator")
            if declarator is not None and declarator.type == "reference_declarator":
                what = UNKNOWN  # `T*& r = m;`: stores through r are stores to m
        if what is None:
            return
        around = self.reader.around(lvalue)
        if around is None:
            if own:
                return  # a name outside any function: not the member
            found.append(_Site(Given(UNKNOWN, False, lvalue), None, "outside", offset))
            return
        if around.type != "function_definition":
            # inside a lambda: its names are its own, and it may run at any time
            if own and class_of(self.parsed, self._outer_function(around)) != cls:
                return
            found.append(_Site(Given(UNKNOWN, False, around), around, "lambda", offset))
            return
        if own:
            # `m` or `this->m` in a member function of the class that declares no `m` itself
            if class_of(self.parsed, around) != cls or (
                lvalue.type == "identifier" and self.shadows(around, name)
            ):
                return
            if isinstance(what, tree_sitter.Node) and not asm:
                what = self._copied(what, around, cls, name)
            found.append(_Site(Given(what, asm, around), around, "body", offset))
        else:
            if isinstance(what, tree_sitter.Node) and not asm:
                what = self._copied(what, around, cls, name)
            found.append(_Site(Given(what, asm, around), around, "outside", offset))

    def _outer_function(self, node: tree_sitter.Node) -> tree_sitter.Node:
        """The function definition around lambda ``node`` (``node`` itself when none)."""
        current: tree_sitter.Node | None = node
        while current is not None and current.type != "function_definition":
            parent = current.parent
            if parent is None:
                return node
            current = self.reader.around(parent) if current.type == "lambda_expression" \
                else parent
        return current if current is not None else node

    def _copied(self, value: tree_sitter.Node, function: tree_sitter.Node, cls: str,
                name: str) -> tree_sitter.Node | str:
        """``NEUTRAL`` where ``value`` is the same member of another object of the class
        (``other.m``, ``other->m``, ``other`` a parameter of ``function`` whose type names
        ``cls``); else ``value``."""
        if value.type != "field_expression":
            return value
        field = value.child_by_field_name("field")
        argument = value.child_by_field_name("argument")
        if (
            field is None
            or self.parsed.node_text(field) != name
            or argument is None
            or argument.type != "identifier"
        ):
            return value
        declarator = own_function_declarator(function.child_by_field_name("declarator"))
        params = declarator.child_by_field_name("parameters") if declarator is not None else None
        wanted = self.parsed.node_text(argument)
        for param in params.named_children if params is not None else ():
            named = param.child_by_field_name("declarator")
            inner = named
            while inner is not None and inner.type != "identifier":
                inner = next((c for c in inner.named_children
                              if "declarator" in c.type or c.type == "identifier"), None)
            if inner is None or self.parsed.node_text(inner) != wanted:
                continue
            return NEUTRAL if _base_name(self.parsed, param.child_by_field_name("type")) == cls \
                else value
        return value
