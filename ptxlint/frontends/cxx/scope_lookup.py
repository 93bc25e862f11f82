"""Name lookup for the Tier-1 typer: the chain of scopes around a node, a name's declaration
in it, template value parameters, members, enumerators and function results (the types
declarations give: :mod:`.declared_types`)."""

from __future__ import annotations

import re
from collections.abc import Container, Sequence

import tree_sitter

from ptxlint.frontends.cxx.c_types import (
    BUILTIN_VARIABLES,
    DECLARING_SCOPES,
    FAR,
    INTRINSICS,
    MAX_DEPTH,
    MAX_SCOPES,
    RECORD_SPECIFIERS,
    STATEMENT_SCOPES,
    Entry,
    Node,
    Scope,
    SharedParameters,
    Stop,
    _pointer,
    _text,
    _Ty,
    agree,
    declarator_name,
    is_reference,
    own_function_declarator,
)
from ptxlint.frontends.cxx.declaration_index import (
    NamePlan,
    template_value_parameters,
)
from ptxlint.frontends.cxx.declared_types import DeclaredTypes
from ptxlint.frontends.cxx.expression_types import deduced_type
from ptxlint.frontends.syntax_tree import shared_parent
from ptxlint.lazy_regex import on_first_use

# the scopes whose names are parameters, visible in the whole body
FUNCTION_SCOPES = frozenset({"function_definition", "lambda_expression", "catch_clause"})

_NOTHING: frozenset[str] = frozenset()

# the scopes ``scopes_to`` keeps: where a function's parameters and locals are declared
_OWN_SCOPES = STATEMENT_SCOPES | {"compound_statement", "function_definition", "lambda_expression"}


class ScopeLookup(DeclaredTypes):
    """Looks names up through the scopes :class:`DeclarationIndex` indexes."""

    # ----------------------------------------------------------------- name lookup

    def macro(self, name: str) -> bool:
        return name in self._macros

    def lookup(self, name: str, where: Node, b: int) -> _Ty | None:
        """The type of the variable (or function) ``name`` used at byte ``b`` in ``where``."""
        return self._lookup_chain(self._scope_chain(where), name, b)

    def _lookup_chain(
        self, chain: tuple[Scope | None, ...], name: str, b: int
    ) -> _Ty | None:
        """``lookup`` under ``chain``, memoised per (name, chain) like ``_memoised``: the answer
        (or the Stop) with the byte range it holds for, which also narrows the range of the
        answer being memoised around it (``a[0]``, ``a[1]`` and ``a`` look ``a`` up once)."""
        if self._depth:  # inside a type's resolution the depth limit may cut answers short
            return self._lookup_scopes(chain, name, b)
        key = (name, self._chain_key(chain))
        hit = self._lookups.get(key)
        if hit is not None:
            lo, hi, ty, stop = hit
            if lo <= b < hi:
                if lo > self._lo:
                    self._lo = lo
                if hi < self._hi:
                    self._hi = hi
                if stop:
                    raise Stop
                return ty
        outer_lo, outer_hi = self._lo, self._hi
        self._lo = -1
        self._hi = FAR
        stop = False
        try:
            ty = self._lookup_scopes(chain, name, b)
        except Stop:
            ty = None
            stop = True
        lo, hi = self._lo, self._hi
        self._lookups[key] = (lo, hi, ty, stop)
        self._lo = max(outer_lo, lo)
        self._hi = min(outer_hi, hi)
        if stop:
            raise Stop
        return ty

    def _lookup_scopes(
        self, chain: tuple[Scope | None, ...], name: str, b: int
    ) -> _Ty | None:
        for scope in chain:
            if scope is None:
                return None  # a macro body: names bind where it expands, not here
            found = self._lookup_in(scope, name, b)
            if found is not None:
                return agree(found)
        return self._fallback_names(name, b)

    def _scope_chain(self, where: Node, ups: Sequence[Node] = ()) -> tuple[Scope | None, ...]:
        """The ancestors of ``where`` (itself included) that can declare a name, innermost
        first, cut at a ``#define`` body (marked ``None``). Memoised per node: each operand
        climbs only to its statement's node, whose chain the first operand already built
        (a parent step costs a descent from the root in tree-sitter). ``ups``: ``where``'s
        nearest ancestors, innermost first, where the caller has read them: the climb takes
        them instead of stepping up."""
        chains = self._chains
        parents = self._parents
        # the nodes climbed, with their ids and kinds (each a call into tree-sitter)
        climbed: list[tuple[Node, int, str]] = []
        node: Node | None = where
        tail: tuple[Scope | None, ...] = ()
        given = len(ups)
        step = 0
        while node is not None:
            key = node.id
            known = chains.get(key)
            if known is not None:
                tail = known
                break
            kind = node.type
            if kind == "preproc_def" or kind == "preproc_function_def":
                tail = (None,)
                chains[key] = tail
                break
            climbed.append((node, key, kind))
            if step < given:
                node = ups[step]
                step += 1
            else:
                # shared_parent, inline: most steps are known (extraction climbed them)
                up = parents.get(key)
                if up is None:
                    up = node.parent
                    if up is not None:
                        parents[key] = up
                node = up
        declaring = DECLARING_SCOPES
        for node, key, kind in reversed(climbed):
            if kind in declaring:
                if len(tail) >= MAX_SCOPES:
                    # Past this many scopes, the outer ones are unknown (as from a macro
                    # body): each chain is a tuple of its own, and 20,000 nested blocks
                    # made them take the square of that (1.7 GB).
                    tail = (None,)
                tail = (Scope(node, kind), *tail)
            chains[key] = tail
        return tail

    def _lookup_in(self, scope: Scope, name: str, b: int) -> list[_Ty | None] | None:
        """Types ``name`` has in ``scope``'s own scope; None when it is not declared there.
        What a scope declares is read once, on the first lookup through it, and kept on it."""
        kind = scope.kind
        # the kept tables read in place (``_block_table``, ``_parameters_of`` make them): this
        # runs once per name looked up, the chain walks below once per chain
        if kind == "compound_statement" or kind in STATEMENT_SCOPES:
            table = scope.table
            if table is None:
                table = self._block_table(scope)
            found = table.get(name)
            if not found:
                return None
            visible = []
            for entry in found:
                end = entry.name_end
                if end > b:
                    if end < self._hi:
                        self._hi = end
                    continue
                until = entry.until  # a macro argument's declaration is gone past its end
                if b < until:
                    visible.append(self.entry_type(entry, True))
                    if end > self._lo:
                        self._lo = end
                    if until < self._hi:
                        self._hi = until
                elif until > self._lo:
                    self._lo = until
            return visible or None
        if kind in FUNCTION_SCOPES:
            single = scope.single
            if single is None:
                single = scope.single = self._parameter_table(scope.node)
            parameter = single.get(name)
            if parameter is not None:
                return [self.entry_type(parameter, False)]
            if kind == "function_definition":
                owner = self._out_of_line_class(scope.node)
                if owner is not None:
                    return self._member_types(owner, name, stop_if_missing=True)
            return None
        if kind in RECORD_SPECIFIERS:
            if scope.record is None:
                node = scope.node
                body = node.child_by_field_name("body")
                if body is None:
                    scope.record = (None, False)
                else:
                    scope.record = (
                        _Ty(
                            _text(node.child_by_field_name("name")),
                            "aggregate",
                            None,
                            bodies=(body,),
                        ),
                        any(c.type == "base_class_clause" for c in node.children),
                    )
            known = scope.record[0]
            if known is None:
                return None
            # a base this lookup cannot follow raises Stop (``_class_member``)
            return self._member_types(known, name, stop_if_missing=False)
        if kind == "template_declaration":
            single = scope.single
            if single is None:
                single = scope.single = self._template_value_table(scope.node)
            value = single.get(name)
            return [self.entry_type(value, False)] if value is not None else None
        return None

    def _block_table(self, scope: Scope) -> dict[str, list[Entry]]:
        """What a block or a statement's header (``STATEMENT_SCOPES``) declares, made on the
        first ask and kept on it."""
        if scope.table is not None:
            return scope.table
        if scope.kind == "compound_statement":
            table = self._scope_entries(scope.node)
        else:
            table = self._statement_entries(scope.node)
        scope.table = table
        return table

    def _name_plan(self, chain: tuple[Scope | None, ...]) -> NamePlan | None:
        """The parameters that a name operand under ``chain`` may be, by name, their types as
        far as worked out, and the names none of them is here (kept per chain); None where
        the chain reaches another kind of scope than blocks before its innermost function,
        lambda or catch clause, or a macro body. A name that none of those blocks declares
        and that is no macro or built-in variable is that function's parameter wherever in
        the blocks it is used: the lookup (``_name_type``) passes each block, whose entries
        are all of other names, and stops at the parameter, with no byte offset tested on
        the way. The functions of one parameter list (``_parameter_table``) share its table
        and its types; what a chain leaves out is read in C (set operations), so a plan
        costs the entries of its blocks, never its parameters times its blocks. Kept per
        chain, as long as the file's resolver. CUTLASS's include/ types 134,000 name
        operands, nearly all parameters: its typing went from 0.62 to 0.50 s."""
        key = id(chain)  # chains live as long as the resolver (see _memoised)
        if key in self._name_plans:
            return self._name_plans[key]
        blocks: list[dict[str, list[Entry]]] = []
        plan: NamePlan | None = None
        for scope in chain:
            if scope is None:
                break
            kind = scope.kind
            if kind == "compound_statement" or kind in STATEMENT_SCOPES:
                blocks.append(self._block_table(scope))
                continue
            if kind in FUNCTION_SCOPES:
                single = self._parameters_of(scope)
                known = self._parameter_answers.get(id(single))
                if known is None:
                    # the names no chain of this table's functions types as parameters: a
                    # macro or a built-in variable (the file's, so once per table)
                    names = single.keys()
                    hidden = (names & self._macros) | (names & BUILTIN_VARIABLES.keys())
                    known = self._parameter_answers[id(single)] = ({}, frozenset(hidden))
                answers, taken = known
                for block in blocks:
                    if block:
                        shadowed = single.keys() & block.keys()
                        if shadowed:
                            taken = taken | shadowed
                plan = (single, answers, taken if taken else _NOTHING)
            break
        self._name_plans[key] = plan
        return plan

    def _statement_entries(self, node: Node) -> dict[str, list[Entry]]:
        """What a ``for``, range-``for``, ``if``, ``while`` or ``switch`` header declares."""
        cached = self._statement_scopes.get(node.id)
        if cached is not None:
            return cached
        table: dict[str, list[Entry]] = {}
        kind = node.type
        if kind == "for_statement":
            init = node.child_by_field_name("initializer")
            if init is not None and init.type == "declaration":
                self._add_declaration(init, table)
        elif kind == "for_range_loop":
            # C++20 `for (auto n = f(); auto& e : v)`: the init-statement comes first
            self._add_init_statement(node.child_by_field_name("initializer"), table)
            decl = node.child_by_field_name("declarator")
            found = declarator_name(decl)
            if found is not None:
                entry = Entry(found.end_byte, decl, node.child_by_field_name("type"))
                table.setdefault(_text(found), []).append(entry)
        else:
            # `if (int n = f())`, `if (auto p = q; p)` and `switch (int k = f(); k)` declare
            # into the whole statement: both branches, not past it
            clause = node.child_by_field_name("condition")
            if clause is not None:
                self._add_init_statement(clause.child_by_field_name("initializer"), table)
                value = clause.child_by_field_name("value")
                if value is not None and value.type == "declaration":
                    self._add_declaration(value, table)
        self._statement_scopes[node.id] = table
        return table

    def _add_init_statement(self, init: Node | None, table: dict[str, list[Entry]]) -> None:
        """What a C++17 init-statement (``if (T x = v; c)``) declares: tree-sitter wraps its
        declaration in an ``init_statement`` node (an expression statement there declares
        nothing, an alias there declares a type, which the file-wide type names hold)."""
        if init is None:
            return
        if init.type == "init_statement":
            init = next((c for c in init.named_children if c.type == "declaration"), None)
        if init is not None and init.type == "declaration":
            self._add_declaration(init, table)

    def _template_value_table(self, node: Node) -> dict[str, Entry]:
        cached = self._template_values.get(node.id)
        if cached is None:
            cached = {}
            for param in template_value_parameters(node):
                decl = param.child_by_field_name("declarator")
                found = declarator_name(decl)
                if found is not None:
                    # the first declaration of a name wins, as the linear scan found it first
                    cached.setdefault(
                        _text(found),
                        Entry(found.end_byte, decl, param.child_by_field_name("type")),
                    )
            self._template_values[node.id] = cached
        return cached

    def _parameters_of(self, scope: Scope) -> dict[str, Entry]:
        """The parameter table of a function's scope (``FUNCTION_SCOPES``), kept on it."""
        single = scope.single
        if single is None:
            single = scope.single = self._parameter_table(scope.node)
        return single

    def _parameter_table(self, node: Node) -> dict[str, Entry]:
        """The parameters of a function, lambda or catch clause, by name (one pass, cached).

        Parameter lists repeat (CUTLASS's GMMA header: 736 functions, 110 distinct lists), so
        a later list of the same text whose types cannot depend on where it is (see
        ``_share``) gets the first one's table itself, without visiting its nodes: each of its
        parameters is the first list's entry, typed once. A list of a new text takes the
        entry of each parameter declaration read before with the same text and template
        parameters (``_parameter_entries``: CUTLASS's include/ typing 0.35 -> 0.27 s). A
        parameter's name offset (``Entry.name_end``) is never read: parameters are visible
        in the whole body."""
        cached = self._parameters.get(node.id)
        if cached is not None:
            return cached
        params = self._parameter_list(node)
        key: tuple[str, bytes] | None = None
        if params is not None and not params.has_error:
            key = (node.type, self._bytes[params.start_byte : params.end_byte])
            shared = self._shared_parameters.get(key)
            if shared is not None:
                cached = self._from_shared(shared, node)
                if cached is not None:
                    self._parameters[node.id] = cached
                    return cached
        cached = {}
        if params is not None:
            cached = self._list_entries(params, self._template_names_at(node))
        self._parameters[node.id] = cached
        if key is not None and params is not None and key not in self._shared_parameters:
            self._shared_parameters[key] = self._share(cached, node)
        return cached

    # ----------------------------------------------------------------- a function's own names

    def scopes_to(self, where: Node, function: Node) -> list[Scope]:
        """The blocks, statement headers, lambdas and the function itself around ``where``,
        innermost first, out to ``function`` (an ancestor of ``where`` or ``where`` itself):
        the scopes whose tables (``block_entries``, ``parameter_entries``) hold the
        function's parameters and locals visible at ``where``. Read from ``where``'s chain of
        scopes, which typing of its statement's operands has mostly climbed already; where
        that chain is cut first (a ``#define`` body, ``MAX_SCOPES``), by a climb of its own.
        Classes and catch clauses are passed over: what they declare is neither."""
        out: list[Scope] = []
        target = function.id
        for scope in self._scope_chain(where):
            if scope is None:
                break
            if scope.kind in _OWN_SCOPES:
                out.append(scope)
            if scope.node.id == target:
                return out
        out = []
        parents = self._parents
        node: Node | None = where
        while node is not None:
            kind = node.type
            if kind in _OWN_SCOPES:
                out.append(Scope(node, kind))
            key = node.id
            if key == target:
                break
            node = shared_parent(parents, node, key)
        return out

    def macro_body_place(
        self, where: Node, b: int
    ) -> tuple[Node, int, tuple[Scope | None, ...], frozenset[str]] | None:
        """Where byte ``b`` of a ``#define`` body (``where``, its ``preproc_arg``) lies in the
        body parsed on its own (``_macro_body_text``, at its offsets in the file): the node
        there, its offset, its chain of scopes and the macro's parameter names. Names the
        body declares around the place (a function the macro defines, its parameters and
        blocks) bind there wherever it expands; the
        chain ends in None past them (names bind where the macro expands: unknown), and the
        macro's parameters are the body's template parameters (their types unknown). The
        parse is kept per body, its tree alive as long as the resolver (its node ids key the
        memos)."""
        define = where.parent
        if where.type != "preproc_arg" or define is None or define.type not in (
            "preproc_def",
            "preproc_function_def",
        ):
            return None
        parsed = self._macro_bodies.get(where.id)
        if parsed is None:
            start, end = where.start_byte, where.end_byte
            body, words = _macro_body_text(self._bytes[start:end])
            # the body where it is, parsed alone (tree-sitter's included range): each node's
            # offsets are the file's, which the tables read names at
            data = self._bytes[:start] + body + self._bytes[end:]
            only = tree_sitter.Range(where.start_point, where.end_point, start, end)
            parser = tree_sitter.Parser(self._tree.language, included_ranges=[only])
            tree = parser.parse(data)
            root = tree.root_node
            params = define.child_by_field_name("parameters")
            for param in params.children if params is not None else ():
                if param.type == "identifier":
                    words.add(_text(param))
                elif param.type == "...":
                    words.add("__VA_ARGS__")
            self._chains[root.id] = (None,)
            self._template_names[root.id] = frozenset(words)
            parsed = self._macro_bodies[where.id] = (tree, frozenset(words))
        tree, names = parsed
        node = tree.root_node.descendant_for_byte_range(b, b)
        if node is None:
            return None
        return node, b, self._scope_chain(node), names

    def scope_chain(self, where: Node) -> tuple[Scope | None, ...]:
        """The scopes around ``where`` (itself included) that declare names, innermost first,
        ending in None where a ``#define`` body or ``MAX_SCOPES`` cuts them (``_scope_chain``,
        kept per node for the file)."""
        return self._scope_chain(where)

    def template_values(self, scope: Scope) -> dict[str, Entry]:
        """The value parameters of a template declaration among ``scope_chain``'s scopes, by
        name (the first of a name: ``_template_value_table``)."""
        return self._template_value_table(scope.node)

    def block_entries(self, scope: Scope) -> dict[str, list[Entry]]:
        """What a block or a statement's header among ``scopes_to`` declares, by name (the
        block's table, through ``#if`` blocks, ``case`` and labels: an entry's declarator's
        declaration says where it sits)."""
        return self._block_table(scope)

    def parameter_entries(self, scope: Scope, params: Node) -> dict[str, Entry]:
        """The entries of ``params``, a parameter list of the function or lambda ``scope``, by
        name: the table typing reads (``_parameter_table``, which a list of the same text may
        share with other functions, so an entry's nodes may be another list's) where
        ``params`` is the list it reads, else read on its own."""
        if self._parameter_list(scope.node) == params:
            return self._parameters_of(scope)
        return self._list_entries(params, self._template_names_at(scope.node))

    def _share(self, table: dict[str, Entry], node: Node) -> SharedParameters | None:
        """``table`` for the lists of the same text, or None where a parameter's type may
        depend on more than the text: an unnamed struct or enum (typed from its own body).
        A type name depends on the template parameters around the function as well
        (``_is_template_parameter``): those are kept, and a list elsewhere shares only under
        the same ones. Everything else a type comes from is the text or the whole file."""
        needs_templates = False
        for entry in table.values():
            spec = entry.specifier
            kind = spec.type if spec is not None else ""
            if kind in RECORD_SPECIFIERS or kind == "enum_specifier":
                if spec is not None and spec.child_by_field_name("name") is None:
                    return None
            elif kind == "type_identifier":
                needs_templates = True
        templates = self._template_names_at(node) if needs_templates else None
        return SharedParameters(table, templates)

    def _from_shared(self, shared: SharedParameters, node: Node) -> dict[str, Entry] | None:
        if shared.templates is not None and self._template_names_at(node) != shared.templates:
            return None
        return shared.table

    def _chain_key(self, chain: tuple[Scope | None, ...]) -> object:
        """What memos of answers under ``chain`` key it by (kept per chain): its content where
        that decides every answer, else its ``id``. Typing under a chain reads its scopes'
        declarations, the template parameters and the class around (``this_type``), and
        the file's namespace scope; a chain of blocks that declare nothing, functions
        defined in their class or namespace, and template declarations is decided by its
        parameter tables (shared by lists of one text under the same template parameters,
        ``_parameter_table``) and its template parameter lists' text; a block or statement
        header that declares nothing adds nothing to it, so the branches of ``if constexpr``
        and blocks nested alike share one key. Functions written alike share their answers:
        the CUDA 13 headers' operand values need 3,400 typings instead of 8,500 (each one per
        function, as in ``__as_ptr_gmem(__ptr)``; 4,000 while empty blocks were keyed). A block
        with declarations, a class, a macro body or a cut chain keeps the chain's own key,
        so the byte ranges memoised answers hold for (``_memoised``) are the file's
        namespace scope's only, which all such chains share. Kept per chain, as long as the
        file's resolver; the CUDA 13 headers' typing went from 0.27 to 0.25 s."""
        key = id(chain)  # chains live as long as the resolver (see _memoised)
        found = self._chain_keys.get(key)
        if found is not None:
            return found
        parts: list[object] = ["chain"]
        content: object = None
        for scope in chain:
            if scope is None:
                break
            kind = scope.kind
            if kind == "compound_statement" or kind in STATEMENT_SCOPES:
                if self._block_table(scope):
                    break
            elif kind in FUNCTION_SCOPES:
                single = self._parameters_of(scope)
                if kind == "function_definition":
                    try:
                        if self._out_of_line_class(scope.node) is not None:
                            break
                    except Stop:
                        break
                parts.append(id(single))  # tables live as long as the resolver
            elif kind == "template_declaration":
                params = scope.node.child_by_field_name("parameters")
                if params is None or params.has_error:
                    break
                parts.append(self._bytes[params.start_byte : params.end_byte])
            else:
                break
        else:
            content = tuple(parts)
        found = self._chain_keys[key] = key if content is None else content
        return found

    def _may_declare(self, chain: tuple[Scope | None, ...], name: str) -> bool:
        """Whether a scope of ``chain`` declares ``name`` or may: True for a chain with a
        class (whose unseen bases may declare any name), a function defined out of its class,
        a macro body or a cut; else whether one of its scopes' tables holds ``name``. Where
        False, the name is looked up at namespace scope (``_fallback_names``) from each scope
        of the chain alike. The chain's tables are gathered once per chain and asked for the
        one name, where a set of every name of the chain was made per chain (the CUDA 13
        headers ask once in nearly every chain: 1,488 sets for 1,488 questions)."""
        key = id(chain)  # chains live as long as the resolver (see _memoised)
        tables = self._chain_tables.get(key, ())
        if tables == ():
            tables = self._chain_tables[key] = self._declaring_tables(chain)
        return tables is None or any(name in table for table in tables)

    def _declaring_tables(
        self, chain: tuple[Scope | None, ...]
    ) -> tuple[Container[str], ...] | None:
        """The tables of what each scope of ``chain`` declares (``_may_declare``), or None
        where those are not all of its scopes' names."""
        tables: list[Container[str]] = []
        for scope in chain:
            if scope is None:
                return None
            kind = scope.kind
            if kind == "compound_statement" or kind in STATEMENT_SCOPES:
                tables.append(self._block_table(scope))
            elif kind in FUNCTION_SCOPES:
                if kind == "function_definition":
                    try:
                        if self._out_of_line_class(scope.node) is not None:
                            return None
                    except Stop:
                        return None
                tables.append(self._parameters_of(scope))
            elif kind == "template_declaration":
                tables.append(self._template_value_table(scope.node))
            else:
                return None
        return tuple(tables)

    def _out_of_line_class(self, fn: Node) -> _Ty | None:
        """The class of ``int S::f() {...}``; raises Stop when it is not in this file."""
        cached = self._owners.get(fn.id)
        if cached is None:
            try:
                cached = (self._find_out_of_line_class(fn), False)
            except Stop:
                cached = (None, True)
            self._owners[fn.id] = cached
        if cached[1]:
            raise Stop
        return cached[0]

    def _find_out_of_line_class(self, fn: Node) -> _Ty | None:
        key = fn.id
        if key in self._own_declarators:  # read for its parameter list (_parameter_list)
            decl = self._own_declarators[key]
        else:
            decl = own_function_declarator(fn.child_by_field_name("declarator"))
        if decl is None or decl.type != "function_declarator":
            return None
        name = decl.child_by_field_name("declarator")
        if name is None or name.type != "qualified_identifier":
            return None
        scope = name.child_by_field_name("scope")
        if scope is None:
            raise Stop
        scope_name = _text(
            scope.child_by_field_name("name") if scope.type == "template_type" else scope
        )
        records = self._type_names()[1].get(scope_name.split("::")[-1], [])
        bodies = tuple(b for r in records if (b := r.child_by_field_name("body")) is not None)
        if scope.type not in ("namespace_identifier", "template_type") or not bodies:
            raise Stop  # members of a class we cannot see may hide any outer name
        return _Ty(scope_name, "aggregate", None, bodies=bodies)

    def _member_types(
        self, record: _Ty, name: str, stop_if_missing: bool
    ) -> list[_Ty | None] | None:
        """The types of the member ``name`` of ``record``, found in the class itself or
        through its bases (``_class_member``); raises Stop where a base it cannot see may
        declare it, or where nothing declares it and ``stop_if_missing``."""
        found, unseen = self._class_member(record, name, 0)
        if unseen or (not found and stop_if_missing):
            raise Stop
        return found or None

    def _class_member(
        self, record: _Ty, name: str, depth: int
    ) -> tuple[list[_Ty | None], bool]:
        """Member name lookup in a class ([class.member.lookup]): the declarations of ``name``
        in the class's own body, else those that its direct bases' lookups find, where one
        base does (found in two: ambiguous, unknown); its members' and bases' types read
        under the class template arguments it was named with (``_Ty.bindings``). A
        definition per ``#if`` branch: each body is searched. With it, whether nothing was
        found and a declaration may be unseen: a base that cannot be followed (a dependent
        base, one not declared in this file, ``ns::Base``, a pack), or a name the class's
        body declares in a way its member table leaves out (an enumerator, a member
        template, a using-declaration), which hides the bases'."""
        home = record.home_resolver(self)
        if home is not None:
            return home._class_member(record, name, depth)  # type: ignore[attr-defined]
        if depth > MAX_DEPTH:
            return [], True
        found: list[_Ty | None] = []
        unseen = False
        saved = self._bindings
        self._bindings = dict(((t, n), v) for t, n, v in record.bindings)
        try:
            for body in record.bodies:
                entries = self._scope_entries(body).get(name)
                if entries:
                    found.extend(self._member_entry_type(e) for e in entries)
                    continue
                owner = body.parent
                clause = None
                for c in owner.children if owner is not None else ():
                    if c.type == "base_class_clause":
                        clause = c
                if clause is None:
                    continue
                if _may_declare_otherwise(body, name):
                    unseen = True
                    continue
                hits: list[list[_Ty | None]] = []
                for base in _base_types(clause):
                    ty = self._base_type(base)
                    if ty is None or ty.kind != "aggregate" or not ty.bodies:
                        unseen = True
                        break
                    inner, hidden = self._class_member(ty, name, depth + 1)
                    if hidden:
                        unseen = True
                        break
                    if inner:
                        hits.append(inner)
                else:
                    if len(hits) > 1:
                        unseen = True  # ambiguous ([class.member.lookup]/6), or one subobject
                    elif hits:
                        found.extend(hits[0])
        finally:
            self._bindings = saved
        return found, unseen and not found

    def _member_entry_type(self, entry: Entry) -> _Ty | None:
        """A member's type, under the bindings in force: with none, the entry's type kept
        for the file; with some, read afresh and kept nowhere (an ``auto`` member's
        initialiser is not typed under them)."""
        if not self._bindings:
            return self.entry_type(entry, False)
        spec = entry.specifier
        if spec is None or spec.type == "placeholder_type_specifier":
            return None
        return self._entry_type(entry, False)

    def _base_type(self, base: Node | None) -> _Ty | None:
        """The class a base specifier names, under the bindings in force."""
        if base is None or base.type not in ("type_identifier", "template_type"):
            return None  # ns::Base, decltype(x), a pack
        return self.type_of_specifier(base, base)

    def member(self, record: _Ty, name: str) -> _Ty | None:
        if record.lanes:
            if name in "xyzw"[: record.lanes] and len(name) == 1:
                return record.target
            return None
        if not record.bodies or record.array:
            return None
        found = self._member_types(record, name, stop_if_missing=False)
        return agree(found) if found else None

    def this_type(self, where: Node) -> _Ty | None:
        node: Node | None = where
        while node is not None:
            if node.type in RECORD_SPECIFIERS:
                body = node.child_by_field_name("body")
                name = _text(node.child_by_field_name("name"))
                return _pointer(_Ty(name, "aggregate", None, bodies=(body,) if body else ()))
            if node.type == "function_definition":
                owner = self._out_of_line_class(node)
                if owner is not None:
                    return _pointer(owner)
            node = node.parent
        return None

    def _fallback_names(self, name: str, b: int) -> _Ty | None:
        entries = []
        for entry in self._global_entries().get(name, ()):
            end = entry.name_end
            if end <= b:
                entries.append(entry)
                if end > self._lo:
                    self._lo = end
            elif end < self._hi:
                self._hi = end
        if entries:
            return agree([self.entry_type(e, False) for e in entries])
        enums = self._enum_names()[1].get(name, [])
        if enums:
            types: list[_Ty | None] = []
            for enumerator in enums:
                spec = enumerator.parent.parent if enumerator.parent is not None else None
                if spec is None or spec.type != "enum_specifier":
                    return None
                if any(c.type in ("class", "struct") for c in spec.children):
                    return None  # scoped enumerators need E:: in front
                spec_name = spec.child_by_field_name("name")
                types.append(self._enum_type(spec, _text(spec_name) or "<anonymous enum>"))
            return agree(types)
        return None

    def scoped_enumerator(self, enum_name: str, name: str, where: Node) -> _Ty | None:
        ty = self.named_type(enum_name, where)
        if ty is None or ty.kind != "enum":
            return None
        for spec in self._enum_names()[0].get(enum_name, []):
            body = spec.child_by_field_name("body")
            if body is not None and any(
                _text(e.child_by_field_name("name")) == name for e in body.named_children
            ):
                return ty
        return None

    def function_return(
        self, name: str, where: Node, b: int, chain: tuple[Scope | None, ...] | None = None
    ) -> _Ty | None:
        """The result of calling ``name(...)``: a declared function, function pointer or cast."""
        if self.macro(name):
            return None
        if name in INTRINSICS:
            # checked before scopes: a class with unseen bases would otherwise hide them
            return INTRINSICS[name]
        if chain is None:
            chain = self._scope_chain(where)
        found = self._lookup_chain(chain, name, b)
        if found is not None:
            if found.kind == "function":
                return found.target
            pointee = found.target if found.kind == "pointer" else None
            if pointee is not None and pointee.kind == "function":
                return pointee.target
            return None
        return self.named_type(name, where)  # a functional cast such as half(x) or u32(x)

    # ----------------------------------------------------------------- types of entries

    def entry_type(self, entry: Entry, function_scope: bool) -> _Ty | None:
        if self._depth:  # inside a type's resolution the depth limit may cut it short
            return self._entry_type(entry, function_scope)
        key = (id(entry), function_scope)  # entries live as long as the tables that hold them
        types = self._entry_types
        if key in types:
            return types[key]
        spelled = self._spelled_entry(entry, function_scope)
        if spelled is None:
            ty = types[key] = self._entry_type(entry, function_scope)
            return ty
        by_text = self._spelled_types
        if spelled in by_text:
            ty = types[key] = by_text[spelled]
            return ty
        ty = types[key] = by_text[spelled] = self._entry_type(entry, function_scope)
        return ty

    def _entry_type(self, entry: Entry, function_scope: bool) -> _Ty | None:
        spec = entry.specifier
        if spec is None:
            return None
        if spec.type == "placeholder_type_specifier" and not entry.parameter:
            deduced = self._deduced(entry)
            if deduced is not None:
                return deduced
        base = self.type_of_specifier(spec, spec)
        ty = self._apply(base, entry.declarator, _text(spec), function_scope)
        if entry.parameter and ty is not None and ty.array and not is_reference(entry.declarator):
            ty = _pointer(ty.target, _text(spec))  # array parameters are pointers
        return ty

    def _deduced(self, entry: Entry) -> _Ty | None:
        """The type ``auto`` deduces for ``entry`` from its initialiser (``deduced_type``),
        worked out when a look-up first finds the variable and kept with the other entries'
        types (``entry_type``). The answer depends on the entry alone, not on where the name
        is used: the byte range of the answer being memoised around it is left as it was.
        An initialiser that names the variable itself (``auto x = x;``, ill-formed) or a
        chain of ``auto`` variables deeper than ``MAX_DEPTH`` is unknown."""
        key = id(entry)  # entries live as long as the tables that hold them
        deducing = self._deducing
        if key in deducing or len(deducing) >= MAX_DEPTH:
            return None
        lo, hi = self._lo, self._hi
        deducing.add(key)
        try:
            return deduced_type(self, entry)
        except Stop:  # a name in the initialiser may be hidden: its type is unknown
            return None
        finally:
            deducing.discard(key)
            self._lo, self._hi = lo, hi


# what ``_macro_body_text`` rewrites: string and character literals (kept), ``##`` and ``#``
# with the parameter it makes a string of
_PREPROCESSOR_OPERATORS = on_first_use(
    rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|##|#[ \t]*[A-Za-z_][A-Za-z0-9_]*'
)
_WORD = on_first_use(rb"[A-Za-z_][A-Za-z0-9_]*")


def _macro_body_text(body: bytes) -> tuple[bytes, set[str]]:
    """A ``#define`` body as C++ to parse on its own, each byte (and line) where it was: a
    line continuation's backslash a blank, ``a##b`` one name ``a__b``, ``#x`` a string
    literal; with the names so pasted, which name nothing of the file."""
    body = body.replace(b"\\\r\n", b" \r\n").replace(b"\\\n", b" \n")
    pasted: list[int] = []

    def rewrite(match: re.Match[bytes]) -> bytes:
        text = match.group()
        if text == b"##":
            pasted.append(match.start())
            return b"__"
        if text.startswith(b"#"):
            return b'"' + b" " * (len(text) - 2) + b'"'
        return text

    data = _PREPROCESSOR_OPERATORS().sub(rewrite, body)
    names = {
        word.group().decode()
        for word in _WORD().finditer(data)
        if any(word.start() <= at < word.end() for at in pasted)
    }
    return data, names


# the members a class body's table holds (``_collect_members``): the declarators of its data
# members and its member functions' declarations and definitions
_TABLED = frozenset({"field_declaration", "declaration", "function_definition"})


def _may_declare_otherwise(body: Node, name: str) -> bool:
    """Whether the class body ``body`` may declare ``name`` as something its member table
    leaves out (an enumerator, a nested class, a member template, a using-declaration, a
    friend, ``#if`` blocks): a declaration other than a data member's or member function's
    declarator, or a class or enum defined in one, whose text spells ``name``."""
    word = re.compile(r"(?<![A-Za-z0-9_])" + re.escape(name) + r"(?![A-Za-z0-9_])")
    for child in body.named_children:
        kind = child.type
        if kind in ("access_specifier", "comment"):
            continue
        if kind in _TABLED:
            spec = child.child_by_field_name("type")
            if spec is None or spec.child_by_field_name("body") is None:
                continue  # its names are declarators, which the table holds
            child = spec
        if word.search(_text(child)):
            return True
    return False


def _base_types(clause: Node) -> list[Node | None]:
    """The class each base specifier of a ``base_class_clause`` names (None for one this
    typer does not follow: a pack expansion, an error)."""
    out: list[Node | None] = []
    for child in clause.children:
        kind = child.type
        if kind in (":", ",", "access_specifier", "virtual", "comment"):
            continue
        if not child.is_named:
            out.append(None)  # ``...`` and the like
            continue
        out.append(child)
    return out
