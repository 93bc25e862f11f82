"""The types declarations give for the Tier-1 typer: what a type specifier names (built-in
types, typedefs and aliases, records, enums), what a declarator adds around it, and which
type names are template parameters where they are written (unknown: a template is read
once, not per instantiation)."""

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
from ptxlint.frontends.cxx.declaration_index import DeclarationIndex
from ptxlint.frontends.syntax_tree import shared_parent


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
        return None  # auto, decltype, typename T::x, S<T>, ...

    def named_type(self, name: str, where: Node) -> _Ty | None:
        if self._is_template_parameter(name, where):
            return None
        builtin = BUILTIN_TYPES.get(name)
        if builtin is not None and (name not in FILE_DECLARABLE or not self.declares_type(name)):
            return builtin
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
        # an enum declared twice (forward declaration + definition) agrees with itself
        return agree(candidates)

    def _record(self, name: str) -> _Ty | None:
        records = self._type_names()[1].get(name)
        if not records:
            return None
        bodies = tuple(b for r in records if (b := r.child_by_field_name("body")) is not None)
        return _Ty(name, "aggregate", None, bodies=bodies)

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
                    ty = _Ty(name, ty.kind, ty.size, bodies=ty.bodies)  # typedef struct {...} S;
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
