"""The types declarations give for the Tier-1 typer: what a type specifier names (built-in
types, typedefs and aliases, records, enums, class template instances), what a declarator
adds around it, and which type names are template parameters where they are written:
unknown, a template being read once, not per instantiation, except where the members of a
class template instance are typed under its arguments (``_Ty.bindings``)."""

from __future__ import annotations

from ptxlint.frontends.cxx.c_types import (
    BUILTIN_TYPES,
    FILE_DECLARABLE,
    INT,
    MAX_DEPTH,
    NAME_NODES,
    RECORD_SPECIFIERS,
    SCALAR_NAMES,
    STD_SCOPES,
    VALUE_PARAMETERS,
    Bindings,
    Node,
    Scope,
    _array,
    _float,
    _int,
    _named,
    _pointer,
    _text,
    _Ty,
    agree,
    declarator_name,
    integer_value,
    split_qualified,
    trailing_type,
)
from ptxlint.frontends.cxx.declaration_index import (
    DeclarationIndex,
    template_value_parameters,
)
from ptxlint.frontends.syntax_tree import shared_parent
from ptxlint.lazy_regex import on_first_use


class DeclaredTypes(DeclarationIndex):
    """The types of type specifiers and declarators, over :class:`DeclarationIndex`."""

    # ----------------------------------------------------------------- template parameters

    def _template_names_at(self, node: Node) -> frozenset[str]:
        """The type parameter names of every template around ``node`` (what
        ``_is_template_parameter`` asks about), memoised per node on the way up, and read
        from a node's chain of scopes where it has one (``_chain_template_names``): most
        questions are asked at an operand's value, whose chain its statement already
        climbed for (CUDA 13 headers: 4,800 climbs, 33,000 parent steps, 15% of typing)."""
        known = self._template_names
        chains = self._chains
        climbed: list[Node] = []
        current: Node | None = node
        names: frozenset[str] = frozenset()
        parents = self._parents
        ids: list[int] = []
        while current is not None:
            key = current.id
            found = known.get(key)
            if found is not None:
                names = found
                break
            chain = chains.get(key)
            if chain is not None and (not chain or chain[-1] is not None):
                names = self._chain_template_names(chain)
                known[key] = names
                break
            climbed.append(current)
            ids.append(key)
            current = shared_parent(parents, current, key)
        for current, key in zip(reversed(climbed), reversed(ids), strict=True):
            if current.type == "template_declaration":
                names = names | self._templates(current)
            known[key] = names
        return names

    def _chain_template_names(self, chain: tuple[Scope | None, ...]) -> frozenset[str]:
        """What ``_template_names_at`` climbs to at a node whose chain of scopes is ``chain``,
        a whole one (not cut at a macro body or ``MAX_SCOPES``): a template declaration is a
        declaring scope, so the chain holds every one around the node, the node included."""
        key = id(chain)  # chains live as long as the resolver (see _memoised)
        names = self._chain_templates.get(key)
        if names is None:
            names = frozenset()
            for scope in chain:
                if scope is not None and scope.kind == "template_declaration":
                    names = names | self._templates(scope.node)
            self._chain_templates[key] = names
        return names

    def _is_template_parameter(self, name: str, where: Node | None) -> bool:
        """Whether a template around ``where`` (itself included) has a type parameter
        ``name``: a set look-up in ``_template_names_at``, whose climb is memoised per node,
        where a climb to the root per named type (each parent step a descent from the root in
        tree-sitter) cost 4% of the CUDA headers' typing."""
        return where is not None and name in self._template_names_at(where)

    # ----------------------------------------------------------------- types of declarations

    def type_of_specifier(self, spec: Node | None, where: Node) -> _Ty | None:
        """The type a type specifier names; ``where`` (a node of the file's tree) scopes it."""
        if spec is None:
            return None
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                return None
            return self._specifier(spec, where)
        finally:
            self._depth -= 1

    def _specifier(self, spec: Node, where: Node) -> _Ty | None:
        kind = spec.type
        if kind == "primitive_type":
            return BUILTIN_TYPES.get(_text(spec))
        if kind == "sized_type_specifier":
            words = [
                _text(c) for c in spec.children if c.type in ("unsigned", "signed", "long", "short")
            ]
            base = spec.child_by_field_name("type")
            unsigned = "unsigned" in words
            longs = words.count("long")
            short = "short" in words
            core = _text(base) if base is not None else "int"
            if core == "__int128":
                return _int("unsigned __int128" if unsigned else "__int128")
            if core == "double":
                return _float("long double") if longs == 1 and not unsigned else None
            if core == "char":
                if longs or short:
                    return None
                return _int("unsigned char" if unsigned else "signed char" if words else "char")
            if core != "int":
                return None
            spelled = "short" if short else ["int", "long", "long long"][min(longs, 2)]
            return _int(f"unsigned {spelled}" if unsigned else spelled)
        if kind == "type_identifier":
            return self.named_type(_text(spec), where)
        if kind == "qualified_identifier":
            scope, name = split_qualified(spec)
            if name is not None and name.type == "template_type":
                return self._instance(name, where, spec)
            if name is None or name.type not in ("type_identifier", "primitive_type"):
                return None
            table = SCALAR_NAMES if scope else BUILTIN_TYPES  # ``::float2``: a global name
            return table.get(_text(name)) if scope in STD_SCOPES else None
        if kind in RECORD_SPECIFIERS:
            name = spec.child_by_field_name("name")
            if name is None:
                body = spec.child_by_field_name("body")
                bodies = (body,) if body is not None else ()
                word = kind.split("_")[0]
                return _Ty(f"{word} <anonymous>", "aggregate", None, bodies=bodies)
            if name.type != "type_identifier":
                return None  # S<int>: would need template instantiation
            # straight to the record: `typedef struct S {...} S;` must not loop through the typedef
            return self._record(_text(name))
        if kind == "enum_specifier":
            name = spec.child_by_field_name("name")
            if name is None:
                return self._enum_type(spec, "<anonymous enum>")
            enums = self._enum_names()[0].get(_text(name), [])
            return agree([self._enum_type(e, _text(name)) for e in enums])
        if kind == "template_type":
            return self._instance(spec, where)
        return None  # auto, decltype, typename T::x, ...

    def named_type(self, name: str, where: Node) -> _Ty | None:
        if self._is_template_parameter(name, where):
            bound = self._bound(name, where, True) if self._bindings else None
            return bound if isinstance(bound, _Ty) else None
        builtin = BUILTIN_TYPES.get(name)
        if builtin is not None and (name not in FILE_DECLARABLE or not self.declares_type(name)):
            return builtin
        if self._bindings:
            # a typedef may name a bound parameter (a member ``typedef T value_type;``): its
            # type under the bindings is kept nowhere; a type kept from outside them holds
            # under them too (a parameter left it unknown or a pointer to unknown)
            known = self._named.get(name)
            if known is not None:
                return known
            if name in self._bound_names:
                return None  # a cycle
            self._bound_names.add(name)
            try:
                return self._named_type_uncached(name)
            finally:
                self._bound_names.discard(name)
        if name in self._named:
            return self._named[name]
        self._named[name] = None  # while in progress: a cycle back to this name is unknown
        result = self._named_type_uncached(name)
        self._named[name] = result
        return result

    def _named_type_uncached(self, name: str) -> _Ty | None:
        typedefs, records = self._type_names()
        candidates: list[_Ty | None] = []
        for node in typedefs.get(name, []):
            candidates.append(self._typedef_type(node, name))
        if name in records:
            candidates.append(self._record(name))
        for node in self._enum_names()[0].get(name, []):
            candidates.append(self._enum_type(node, name))
        if not candidates and self.outside is not None:
            return self.outside.type_of(name)  # a project header's (``header_types``)
        # an enum declared twice (forward declaration + definition) agrees with itself
        return agree(candidates)

    def _record(self, name: str) -> _Ty | None:
        records = self._type_names()[1].get(name)
        if not records:
            return None
        bodies = tuple(b for r in records if (b := r.child_by_field_name("body")) is not None)
        return _Ty(name, "aggregate", None, bodies=bodies, home=self.itself)

    def _enum_type(self, node: Node, name: str) -> _Ty | None:
        base_node = node.child_by_field_name("base")
        scoped = any(c.type in ("class", "struct") for c in node.children)
        if base_node is not None:
            base = self.type_of_specifier(base_node, node)
            if base is None or base.kind not in ("integer", "bool"):
                return None
        else:
            # an unfixed underlying type is int unless an enumerator does not fit; such enums are
            # rare enough in device code that int is the answer
            base = INT
        return _Ty(name, "enum", base.size, target=base, scoped=scoped)

    def _typedef_type(self, node: Node, name: str) -> _Ty | None:
        if node.type == "alias_declaration":
            return self.descriptor(node.child_by_field_name("type"), node)
        base = self.type_of_specifier(node.child_by_field_name("type"), node)
        spec_text = _text(node.child_by_field_name("type"))
        for decl in node.children_by_field_name("declarator"):
            found = declarator_name(decl)
            if found is not None and _text(found) == name:
                ty = self._apply(base, decl, spec_text, function_scope=False)
                if ty is not None and ty.spelling.endswith("<anonymous>") and ty.bodies:
                    ty = _Ty(name, ty.kind, ty.size, bodies=ty.bodies,  # typedef struct {} S;
                             home=ty.home)
                return ty
        return None

    def descriptor(self, desc: Node | None, where: Node) -> _Ty | None:
        """The type of a ``type_descriptor`` (cast target, template argument, alias)."""
        if desc is None or desc.type != "type_descriptor":
            return None
        spec = desc.child_by_field_name("type")
        base = self.type_of_specifier(spec, where)
        return self._apply(base, desc.child_by_field_name("declarator"), _text(spec), False)

    def _apply(
        self, base: _Ty | None, decl: Node | None, spec_text: str, function_scope: bool
    ) -> _Ty | None:
        """Wrap ``base`` in what the declarator adds, outside in (C's inside-out reading)."""
        ty = base
        known = base is not None  # a pointer to an unknown type is still a pointer
        depth = 0
        while decl is not None:
            depth += 1
            kind = decl.type
            if depth > MAX_DEPTH:
                return None
            if kind in NAME_NODES or kind in ("qualified_identifier", "operator_name"):
                break
            if kind in ("pointer_declarator", "abstract_pointer_declarator"):
                ty = _pointer(ty, spec_text)
                known = True
                decl = decl.child_by_field_name("declarator")
            elif kind in ("array_declarator", "abstract_array_declarator"):
                size_node = decl.child_by_field_name("size")
                length = None
                if size_node is not None and size_node.type == "number_literal":
                    length = integer_value(_text(size_node))
                ty = _array(ty, length, spec_text)
                known = True
                decl = decl.child_by_field_name("declarator")
            elif kind in ("function_declarator", "abstract_function_declarator"):
                if function_scope:
                    return None  # inside a body this is usually `S s(a, b);`, not a function
                if base is None and depth == 1:
                    # `auto f(int) -> T`: the trailing return type is the function's
                    ty = self.descriptor(trailing_type(decl), decl)
                    known = ty is not None
                if ty is None:
                    return None
                ty = _Ty(ty.spelling + " ()", "function", None, target=ty)
                decl = decl.child_by_field_name("declarator")
            elif kind in (
                "reference_declarator",
                "abstract_reference_declarator",
                "parenthesized_declarator",
                "abstract_parenthesized_declarator",
                "attributed_declarator",
                "init_declarator",
            ):
                inner = decl.child_by_field_name("declarator")
                if inner is None:
                    named = [
                        c for c in _named(decl) if c.type not in ("type_qualifier", "attribute")
                    ]
                    inner = named[0] if named and kind != "init_declarator" else None
                decl = inner
            else:
                return None
        return ty if known else None

    # ----------------------------------------------------------------- class template instances

    def _bound(self, name: str, where: Node, as_type: bool) -> _Ty | int | None:
        """What the bindings in force (``_bindings``) give the template parameter ``name``
        written at ``where``: the argument of the innermost template declaration around
        ``where`` with a parameter ``name`` (a type parameter where ``as_type``, else a value
        parameter); None where that declaration is not bound or the argument is unknown."""
        node: Node | None = where
        while node is not None:
            if node.type == "template_declaration":
                names = self._templates(node) if as_type else _value_names(node)
                if name in names:
                    return self._bindings.get((node.id, name))
            node = shared_parent(self._parents, node, node.id)
        return None

    def _dependent_names(self, where: Node) -> frozenset[str]:
        """The names of the parameters, types and values, of the templates around ``where``
        (a climb to the root: asked only about the template-ids of this file's templates)."""
        names: set[str] = set(self._template_names_at(where))
        node: Node | None = where
        while node is not None:
            if node.type == "template_declaration":
                names.update(_value_names(node))
            node = shared_parent(self._parents, node, node.id)
        return frozenset(names)

    def _instance(self, spec: Node, where: Node, qualified: Node | None = None) -> _Ty | None:
        """The class that the template-id ``S<args>`` (``spec``) names, [temp.spec]: the
        explicit specialization for those arguments, else the one partial specialization
        they match (its parameters deduced), else the primary template, its parameters
        bound to the arguments (``_Ty.bindings``: members and bases are typed under them).
        Unknown: a template not declared in this file (or a plain class of its name as
        well), arguments that depend on a template parameter in force at ``where`` and not
        bound, a specialization that the arguments may or may not match (arguments this
        typer cannot compare: ``ns::tag`` spelled otherwise, an expression), two partial
        specializations that match (partial ordering), a pack, and a class not defined.
        ``qualified``: the qualified name ``spec`` ends (``ns::S<int>``), whose qualifier
        must name the namespaces and classes around the template, innermost last (``::ns``:
        all of them); one it cannot follow (an alias, an inline namespace left out, a
        class template's member) is unknown. Kept by its text where no bindings are in
        force."""
        name_node = spec.child_by_field_name("name")
        args_node = spec.child_by_field_name("arguments")
        if (
            name_node is None
            or args_node is None
            or name_node.type != "type_identifier"
            or spec.has_error
        ):
            return None
        name = _text(name_node)
        typedefs, records = self._type_names()
        primaries = records.get(name)
        if not primaries or name in typedefs or self._is_template_parameter(name, where):
            return None
        key = None
        dependent = self._dependent_names(where)
        if not self._bindings:
            key = " ".join(_text(qualified or spec).split())
            if set(_WORD().findall(key)) & dependent:
                return None  # ``S<T>`` in a template: a class of every T
            if key in self._instances:
                return self._instances[key]
            self._instances[key] = None  # while in progress: a cycle is unknown
        try:
            found = self._new_instance(name, primaries, args_node, where, dependent, qualified)
        finally:
            if key is not None:
                self._instances.pop(key, None)
        if key is not None:
            self._instances[key] = found
        return found

    def _new_instance(
        self,
        name: str,
        primaries: list[Node],
        args_node: Node,
        where: Node,
        dependent: frozenset[str],
        qualified: Node | None,
    ) -> _Ty | None:
        templates: list[Node] = []
        for record in primaries:
            template = record.parent
            if template is None or template.type != "template_declaration":
                return None  # a class of that name that is no template
            templates.append(template)
        params = _parameters(templates[0])
        if params is None or any(_parameters(t) != params for t in templates[1:]):
            return None
        given = self._arguments(args_node, params, where, dependent)
        if given is None:
            return None
        defaults = self._defaults(templates, len(params))
        given = _filled(given, defaults)
        if given is None:
            return None
        home = self._home(templates[0])
        if any(self._home(t) != home for t in templates[1:]):
            return None  # templates of one name in two namespaces or classes
        if qualified is not None and not _names_home(qualified, home):
            return None
        outcome = self._specialization(name, params, defaults, given, home)
        if outcome is None:
            return None
        chosen, bindings = outcome
        if chosen is None:  # none matches: the primary template
            definitions = [
                (r, t) for r, t in zip(primaries, templates, strict=True)
                if r.child_by_field_name("body") is not None
            ]
            if len(definitions) != 1:
                return None
            chosen, template = definitions[0]
            names = _parameter_names(template)
            bindings = tuple(
                (template.id, n, value)
                for n, (_, value) in zip(names, given, strict=True)
                if n is not None and value is not None
            )
        body = chosen.child_by_field_name("body")
        if body is None:
            return None  # declared, not defined: incomplete here
        spelled = ", ".join(
            str(v) if isinstance(v, int) else v.spelling if v is not None else t or "?"
            for t, v in given
        )
        return _Ty(f"{name}<{spelled}>", "aggregate", None, bodies=(body,), bindings=bindings)

    def _specialization(
        self,
        name: str,
        params: tuple[str, ...],
        defaults: list[Argument | None],
        given: list[Argument],
        home: tuple[str, ...],
    ) -> tuple[Node | None, Bindings] | None:
        """The explicit or partial specialization of ``name`` that ``given`` names, with the
        partial one's parameters bound: (None, ()) where none does, None where unknown (a
        specialization declared in another class or namespace than ``home``, the primary
        template's, may be another template's)."""
        partial: list[tuple[Node, Bindings]] = []
        explicit: list[Node] = []
        undecided = False
        saved = self._bindings
        self._bindings = {}  # a specialization's arguments are read where they are written
        try:
            for record in self._specializations.get(name, ()):
                template = record.parent
                spec = record.child_by_field_name("name")
                args_node = spec.child_by_field_name("arguments") if spec is not None else None
                if template is None or template.type != "template_declaration":
                    return None
                if args_node is None or args_node.has_error:
                    return None
                own = _parameter_names(template)
                binders = {n for n in own if n is not None}
                pattern = self._arguments(args_node, params, record, binders, own=binders)
                pattern = _filled(pattern, defaults) if pattern is not None else None
                if pattern is None:
                    return None
                verdict, bound = _match(pattern, given, template.id)
                if verdict is not False and self._home(template) != home:
                    return None
                if verdict is False:
                    continue
                if verdict is None:
                    undecided = True
                elif not binders:
                    explicit.append(record)
                else:
                    partial.append((record, bound))
        finally:
            self._bindings = saved
        if explicit:  # an explicit specialization wins outright; defined once
            defined = [r for r in explicit if r.child_by_field_name("body") is not None]
            return (defined[0], ()) if len(defined) == 1 else None
        if undecided or len(partial) > 1:
            return None
        return partial[0] if partial else (None, ())

    def _home(self, node: Node) -> tuple[str, ...]:
        """The names of the namespaces and classes around ``node``, innermost first."""
        names: list[str] = []
        current = shared_parent(self._parents, node, node.id)
        while current is not None:
            if current.type == "namespace_definition" or current.type in RECORD_SPECIFIERS:
                # ``namespace a::b {``: b inside a
                names.extend(reversed(_text(current.child_by_field_name("name")).split("::")))
            current = shared_parent(self._parents, current, current.id)
        return tuple(names)

    def _arguments(
        self,
        args_node: Node,
        params: tuple[str, ...],
        where: Node,
        dependent: frozenset[str] | set[str],
        own: frozenset[str] | set[str] = frozenset(),
    ) -> list[Argument] | None:
        """The template arguments of ``args_node`` as ``params`` (each parameter's kind:
        "type" or "value") reads them, each (its text, or None where the text names a
        parameter in ``dependent``; its type or value, or None where unknown). A lone name in
        ``own`` (a partial specialization's parameter) is kept as its text ``"$name"``.
        None: more arguments than parameters, or a dependent argument with no bindings in
        force (``S<T>`` inside a template: a class of every T)."""
        args = args_node.named_children
        if len(args) > len(params):
            return None
        out: list[Argument] = []
        for arg, kind in zip(args, params, strict=False):
            if arg.type == "comment":
                return None
            text = " ".join(_text(arg).split())
            words = set(_WORD().findall(text))
            if own and text in own:
                out.append(("$" + text, None))
                continue
            value: _Ty | int | None = None
            if kind == "type":
                if arg.type == "type_descriptor":
                    value = self.descriptor(arg, where)
                    if value is not None and not _complete(value):
                        value = None
            elif words & dependent:
                if self._bindings and _NAME().fullmatch(text):
                    bound = self._bound(text, where, False)
                    value = bound if isinstance(bound, int) else None
            else:
                value = self._constant(text)
            if words & dependent:
                if not self._bindings and not own:
                    return None
                text = ""
            out.append((text or None, value))
        return out

    def _defaults(self, templates: list[Node], count: int) -> list[Argument | None]:
        """The default argument of each of the ``count`` parameters, from whichever
        declaration of the template gives one; None where none does, where two do, and
        where it names a parameter of its template."""
        found: list[list[Argument]] = [[] for _ in range(count)]
        for template in templates:
            plist = template.child_by_field_name("parameters")
            if plist is None:
                continue
            names = _parameter_names(template)
            own = {n for n in names if n is not None}
            for k, param in enumerate(plist.named_children[:count]):
                node = param.child_by_field_name("default_type") or param.child_by_field_name(
                    "default_value"
                )
                if node is None:
                    continue
                text = " ".join(_text(node).split())
                if set(_WORD().findall(text)) & own:
                    found[k].append((None, None))
                    continue
                value: _Ty | int | None = None
                if param.type == "optional_parameter_declaration":
                    value = self._constant(text)
                elif param.type == "optional_type_parameter_declaration":
                    value = self.type_of_specifier(node, node)
                    if value is not None and not _complete(value):
                        value = None
                found[k].append((text, value))
        return [f[0] if len(f) == 1 and f[0] != (None, None) else None for f in found]

    def _constant(self, text: str) -> int | None:
        """The value of a template argument for a value parameter spelled ``text`` (one that
        names no template parameter): an integer literal, or an enumerator (``X``, or ``E::X``
        of a scoped one) of an enum of this file that no variable's name hides, each of its
        enumerators before it valued by a literal or one more than the one before."""
        if _NUMBER().fullmatch(text):
            return integer_value(text)
        scope, _, name = text.rpartition("::")
        if not _NAME().fullmatch(name) or (scope and not _NAME().fullmatch(scope)):
            return None
        if not scope and name in self._global_entries():
            return None
        values: set[int | None] = set()
        for enumerator in self._enum_names()[1].get(name, []):
            spec = enumerator.parent.parent if enumerator.parent is not None else None
            if spec is None or spec.type != "enum_specifier":
                return None
            scoped = any(c.type in ("class", "struct") for c in spec.children)
            if scope != _text(spec.child_by_field_name("name")) and (scoped or scope):
                continue  # ``E::X`` of another E, or a scoped one's ``X``
            values.add(_enumerator_value(enumerator))
        return values.pop() if len(values) == 1 else None


def _names_home(qualified: Node, home: tuple[str, ...]) -> bool:
    """Whether the qualifier of ``qualified`` (``a::b::S<int>``) names ``home``, the
    namespaces and classes around a template innermost first: its names are home's
    innermost ones (all of them after a leading ``::``)."""
    scope, _ = split_qualified(qualified)
    names = tuple(reversed(scope.split("::"))) if scope else ()
    if not names or not all(_NAME().fullmatch(n) for n in names):
        return False
    if _text(qualified).lstrip().startswith("::"):
        return names == home
    return home[: len(names)] == names


def _enumerator_value(enumerator: Node) -> int | None:
    """The value of an enumerator whose value and those before it are integer literals or
    implicit (one more than the one before, the first 0)."""
    current: int | None = -1
    for node in enumerator.parent.named_children if enumerator.parent is not None else ():
        if node.type == "comment":
            continue
        if node.type != "enumerator":
            return None  # an #if block among them
        given = node.child_by_field_name("value")
        if given is None:
            current = current + 1 if current is not None else None
        elif given.type == "number_literal":
            current = integer_value(_text(given))
        else:
            current = None
        if node.id == enumerator.id:
            return current
    return None


# one template argument: its text (None where it names a template parameter, "$T" for a
# partial specialization's own parameter T) and its type or value, None where unknown
Argument = tuple[str | None, "_Ty | int | None"]

_WORD = on_first_use(r"[A-Za-z_]\w*")
_NAME = on_first_use(r"[A-Za-z_]\w*")
_NUMBER = on_first_use(r"[0-9](?:[0-9a-fA-FxXbB']*[0-9a-fA-F])?[uUlL]*")


def _value_names(template: Node) -> frozenset[str]:
    """The names of the value parameters of a template declaration."""
    names = set()
    for param in template_value_parameters(template):
        found = declarator_name(param.child_by_field_name("declarator"))
        if found is not None:
            names.add(_text(found))
    return frozenset(names)


def _parameters(template: Node) -> tuple[str, ...] | None:
    """The kind of each parameter of a template declaration ("type" or "value"); None where
    one is a pack or a template template parameter."""
    plist = template.child_by_field_name("parameters")
    if plist is None or plist.has_error:
        return None
    kinds: list[str] = []
    for param in plist.named_children:
        kind = param.type
        if kind in ("type_parameter_declaration", "optional_type_parameter_declaration"):
            kinds.append("type")
        elif kind in VALUE_PARAMETERS:
            kinds.append("value")
        elif kind != "comment":
            return None
    return tuple(kinds)


def _parameter_names(template: Node) -> list[str | None]:
    """The name of each parameter of a template declaration (None for an unnamed one)."""
    plist = template.child_by_field_name("parameters")
    names: list[str | None] = []
    for param in plist.named_children if plist is not None else []:
        kind = param.type
        if kind == "comment":
            continue
        if kind in ("type_parameter_declaration", "optional_type_parameter_declaration"):
            found = param.child_by_field_name("name") or next(
                (c for c in param.named_children if c.type == "type_identifier"), None
            )
            names.append(_text(found) if found is not None else None)
        else:
            found = declarator_name(param.child_by_field_name("declarator"))
            names.append(_text(found) if found is not None else None)
    return names


def _filled(args: list[Argument], defaults: list[Argument | None]) -> list[Argument] | None:
    """``args`` with the default arguments after them; None where one is missing."""
    out = list(args)
    for default in defaults[len(args):]:
        if default is None:
            return None
        out.append(default)
    return out


def _complete(ty: _Ty) -> bool:
    """Whether ``ty`` is known whole, so that two such types are the same exactly when
    ``_Ty.same`` says so: no unknown pointee or element, no array of unknown bound, no
    function (whose spelling leaves its parameters out)."""
    depth = 0
    current: _Ty | None = ty
    while current is not None and depth <= MAX_DEPTH:
        depth += 1
        if current.kind == "function" or (current.array and current.size is None):
            return False
        if current.kind in ("pointer", "vector", "enum") or current.array:
            if current.target is None:
                return False
            current = current.target
            continue
        return True
    return False


def _same(a: Argument, b: Argument) -> bool | None:
    """Whether two template arguments are the same: by their values where both are known
    (an integer and a type are never the same argument), else by their texts where both
    have one; unknown otherwise."""
    (ta, va), (tb, vb) = a, b
    if va is not None and vb is not None:
        if isinstance(va, int) != isinstance(vb, int):
            return None
        if isinstance(va, int):
            return va == vb
        assert isinstance(vb, _Ty)
        return va.same(vb)
    if ta is not None and ta == tb:
        return True
    return None


def _match(
    pattern: list[Argument], given: list[Argument], template_id: int
) -> tuple[bool | None, Bindings]:
    """Whether ``given`` matches a specialization's ``pattern`` ([temp.spec.partial.match]):
    False where one argument differs, True where each is the same or a lone parameter of
    the specialization (deduced as that argument, the same wherever it recurs), else
    unknown; with the deduced parameters."""
    verdict: bool | None = True
    deduced: dict[str, Argument] = {}
    if len(pattern) != len(given):
        return None, ()
    for p, g in zip(pattern, given, strict=True):
        text = p[0]
        if text is not None and text.startswith("$"):
            name = text[1:]
            if name in deduced:
                same = _same(deduced[name], g)
                if same is False:
                    return False, ()
                if same is None:
                    verdict = None
            else:
                deduced[name] = g
            continue
        same = _same(p, g)
        if same is False:
            return False, ()
        if same is None:
            verdict = None
    bindings = tuple(
        (template_id, name, value)
        for name, (_, value) in deduced.items()
        if value is not None
    )
    return verdict, bindings
