"""Tier-1 syntactic type resolution for asm operand expressions.

The rules that consume these types (constraint-size-mismatch, non-scalar-operand) report errors,
so this module prefers silence over guessing: whenever a name is unknown, depends on a template
parameter, comes from a macro, or has conflicting declarations (``#if`` branches, overloads,
namespaces), the answer is ``None``. Only what the file itself spells out is used; types from
other headers are known only through the small built-in tables below (CUDA vector types,
``__half``, fixed-width integers, a handful of intrinsics). A variable declared ``auto`` (or
``auto*``, ``auto&``, ``decltype(auto)``) has the type C++ deduces from its initialiser, typed
as an operand expression is where the initialiser is written (``expression_types.deduced_type``),
on the first look-up that finds it; an initialiser of unknown type leaves it unknown. So is a
range-``for`` variable over a C array or a braced list, and a function declared ``auto f()``
with a trailing return type or, outside templates, returns that all deduce one type; a
functional cast with braces (``T{x}``) is ``T``, as ``T(x)`` is.

Everything is computed on the tree-sitter tree the caller already has, and nothing is redone per
operand (CUTLASS's ``mma_sm90_gmma_ext.hpp`` has 736 statements with 48,000 operands in
functions of up to 130 parameters):

- File-wide indexes (type names, namespace-scope variables and functions, enumerators, macros)
  are built once per resolver. Type names, enumerators and macros come from the keywords that
  begin their declarations (``_keyword_captures``: a search of the bytes per keyword and one
  descent per match), not from a pass over every node of the tree. Macros are read first
  (every name is checked against them); ``enum`` on the first look-up that needs an enum or
  an enumerator (``_enum_names``: a name no scope declares), the other five keywords on the
  first that needs a type name that is not built in or a class (``_type_names``). Of 257
  flashinfer files (41.6 MB), 125 never read the enums and 220 (36.7 MB) never the rest.
- Every scope (block, function parameters, class body, template parameters, ``for``/``if``
  initializers) gets one symbol table, ``name -> declarations``, built in one pass over that
  scope's own children the first time a lookup passes through it and cached by node id (a
  block's ``T x`` and ``T x = v`` read inline: ``_add_declaration``).
- An operand expression is typed from its node in the file's tree (found by its byte range);
  the expression is parsed on its own only when the file's tree does not hold it exactly (a
  parse error around it). In an ASCII file's statement read without a parse error, a name
  operand needs no node, and another value is found from its byte in its operand list
  (``_value_at``); elsewhere the statement's operand lists are walked (``_operand_values``).
- Answers are memoised per (expression, chain of scopes), each with the range of byte offsets
  it holds for (``_memoised``): the same expression in the same scope is typed once, and a
  plain name (most operands) is looked up from its statement's chain of scopes without a
  tree-sitter call. A chain is keyed by its content where that decides every answer
  (``_chain_key``), so functions written alike share their answers.
- Parameter lists of the same text share one table, and a parameter declaration of the same
  text one entry (``_parameter_table``). A name operand that is its function's parameter is
  answered from its chain's name plan (``_name_plan``): one look-up, its type worked out once
  per entry.
- Values whose type provably ignores part of their text share a key: ``a[i][j + 1]`` is keyed
  by the name and the number of subscripts (``_subscript_key``), a cast ``*(T*)&x`` or
  ``reinterpret_cast<T>(x)`` by ``T`` (``_cast_key``; file-wide when ``T`` is made of words
  such as ``unsigned long long``), and an answer that read nothing of where it is written (a
  literal, a cast of words: ``Expr.located``) serves its text anywhere in the file.
- The type of a declaration, of a record's convertibility and of a function's out-of-line class
  are memoised, so the operands of one function share all of that work, and a declaration whose
  words alone decide its type (``unsigned x;``) is typed once per text (``_spelled_entry``); so
  is each node's chain of declaring scopes, so an operand climbs only to its statement's node,
  and from a node inside its statement down to it (``_ups_from``) where the tree does not hold
  the operand as a value.

Complexity: O(N) for the file (each scope's children are visited once, each type specifier is
resolved once, a search of the bytes per index keyword) plus, per distinct key (expression, or
the shared keys above, and scope) and range between declarations of its names, O(size of the
expression x nesting depth of its scope); every other operand costs a few dictionary look-ups
(a shared key: the tree-sitter steps down to the name or the cast's type). Nothing grows with
statements x parameters.
"""

from __future__ import annotations

import functools
from bisect import bisect_left
from collections.abc import Callable, Sequence

import tree_sitter

from ptxlint import file_memos
from ptxlint.frontends.cxx.c_types import (
    BESIDE_VALUE,
    BUILTIN_VARIABLES,
    CAST_KINDS,
    CASTS,
    DECLARING_SCOPES,
    FAR,
    MAX_DEPTH,
    NON_ASCII,
    OPERAND_LISTS,
    OPERAND_VALUE_PARENTS,
    PLACELESS_SPECIFIERS,
    SCOPE_OPENING,
    SUBSCRIPTS,
    Entry,
    Node,
    Scope,
    Stop,
    _may_convert,
    _named,
    _text,
    _Ty,
    utf8_length,
)
from ptxlint.frontends.cxx.declaration_index import NamePlan
from ptxlint.frontends.cxx.expression_types import Expr
from ptxlint.frontends.cxx.header_types import OutsideTypes
from ptxlint.frontends.cxx.macro_operands import TableSource, is_macro
from ptxlint.frontends.cxx.scope_lookup import ScopeLookup, _base_types
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import CType

_WORDS = on_first_use(r"[A-Za-z_][A-Za-z0-9_]*")

# --------------------------------------------------------------------------- internal types


# --------------------------------------------------------------------------- the resolver


class TypeResolver(ScopeLookup):
    """Resolves the C++ type of asm operand expressions in one parsed file."""


    # ----------------------------------------------------------------- public API

    def resolve(
        self, expression: str, offset: int, statement: Node | Sequence[Node] | None = None
    ) -> CType | None:
        """The type of ``expression`` written at character ``offset``, or None when unsure.
        ``statement``: the keyword node of the asm statement whose operand this is, when the
        caller has it (see ``_operand_value``), or the keyword's nearest ancestors (the asm
        expression first) where the caller has read them: its parent steps are not made again.

        Answers are memoised per (expression, chain of scopes where it is written), with the
        range of byte offsets the answer holds for (see ``_memoised``): an operand whose
        expression was typed in the same scope costs two dictionary look-ups. A plain name that
        is an operand's whole value in the file's tree (most operands) is typed from its
        statement's chain of scopes without a tree-sitter call (``_name_type``)."""
        if not self._indexed:
            self._ensure_index()
        ascii_offset = self._ascii and 0 <= offset <= self._length
        b = offset if ascii_offset else self._byte_offset(offset)
        if statement is not None:
            if expression.isascii():
                data = expression.encode()
            else:
                data = expression.encode("utf-8", "surrogatepass")
            e = b + len(data)
            node = None
            if self._bytes[b:e] == data:
                if statement is not self._statement:
                    self._statement = statement
                    self._values = self._operand_values(statement)
                found = self._values.get((b, e))
                if found is None:
                    node = self._expression_node(expression, b)
                else:
                    value, kind, tail = found
                    if kind == "identifier" and e > b:
                        # a leaf spanning [b, e): it is the node at byte b, and its chain of
                        # scopes is its statement's (see _operand_value)
                        return self._name_type(expression, tail, b)
                    node = self._value_node(value, kind, tail)
                    if node is not None and SCOPE_OPENING().match(data) is None:
                        # typed from its own node instead of the one at byte b: see
                        # SCOPE_OPENING for why the two have the same scopes
                        return self._value_type(expression, data, value, kind, tail, b)
        else:
            node = self._expression_node(expression, b)
        alone = node is None
        if node is None:
            node = self._parse_alone(expression)
            if node is None:
                return None
        where = self._root.descendant_for_byte_range(b, b) or self._root
        if where.type == "preproc_arg":
            place = self.macro_body_place(where, b)
            if place is not None:
                # in a #define body: typed where the body, parsed alone, declares its names
                where, b, chain, parameters = place
                if parameters.intersection(_WORDS().findall(expression)):
                    return None  # the macro's arguments replace them
                if node.type == "identifier":
                    return self._name_type(_text(node), chain, b)
                return self._typed(Expr(self, where, b, chain), node)
        chain = self._scope_chain(where, self._ups_from(statement, where, b))
        if node.type == "identifier":
            return self._name_type(_text(node), chain, b)
        if chain and chain[-1] is None:
            # in a #define body: this_type and the template parameters are read from
            # ``where``'s ancestors past the cut, which the chain does not stand for
            return self._typed(Expr(self, where, b, chain), node)
        key = (expression, id(chain), alone)
        return self._memoised(key, b, lambda: self._typed(Expr(self, where, b, chain), node))

    @staticmethod
    def _ups_from(statement: Node | Sequence[Node] | None, where: Node, b: int) -> Sequence[Node]:
        """The ancestors of ``where`` (the node at byte ``b``), innermost first, where it lies
        in the statement whose keyword's nearest ancestors are ``statement`` (its asm
        expression first): the path down to it from that node, then ``statement``'s. A
        parent step in tree-sitter is a descent from the root, and the climb from an operand
        the file's tree does not hold as a value (``sm_32_intrinsics.hpp`` passes each
        pointer through ``__LDG_PTR (ptr)``: 320 operands of the CUDA 13 headers) took three
        of them per operand; a step down from a node to its child at ``b`` is one look-up
        among that node's children. () where the path does not reach ``where`` (then the
        climb steps up)."""
        if isinstance(statement, Node) or not statement:
            return ()
        top = statement[0]
        if not top.start_byte <= b < top.end_byte:
            return ()
        target = where.id
        path = [top]
        node = top
        while node.id != target:
            child = node.first_child_for_byte(b)
            if child is None or child.start_byte > b:
                return ()
            path.append(child)
            node = child
        path.pop()
        path.reverse()
        path.extend(statement[1:])
        return path

    def share_parents(self, parents: dict[int, Node]) -> None:
        """Climb the file's tree through ``parents`` (node id -> parent node, of this tree), and
        record the parent steps made here in it: extraction climbs from each asm keyword to its
        function first (``statement_context.Ancestors``), and the climb to a statement's scopes
        (``_scope_chain``) and to its template parameters (``_template_names_at``) passes the
        same nodes, so each parent step is made once per file, not once per climber."""
        parents.update(self._parents)
        self._parents = parents

    __call__ = resolve  # a TypeResolver is extraction's type look-up (engine.type_lookup)

    def use_macros(self, table: TableSource) -> None:
        """Type an operand that invokes a function-like macro as its expansion, with the
        file's macro table (``macro_operands``), made when first asked: extraction hands over
        its own."""
        self.macro_source = table
        self.outside = OutsideTypes(lambda: table().reach, _definition_resolver)

    def resolve_operands(
        self, operands: Sequence[tuple[str, int]], statement: Sequence[Node]
    ) -> list[CType | None]:
        """``[resolve(expression, offset, statement) for expression, offset in operands]`` for
        the operands of one asm statement, ``statement`` being its keyword's nearest ancestors
        (see ``resolve``): one call per statement instead of one per operand, whose loop takes
        the paths ``resolve`` takes for an operand that is a value of the statement in the
        file's tree (a name: ``_name_type``; another value: ``_value_type``), with their memo
        hits inline, and leaves every other operand to ``resolve``.

        Complexity: a few dictionary look-ups per operand typed before in its scope, plus
        ``resolve``'s cost for the others."""
        if not self._indexed:
            self._ensure_index()
        # A name spelled at its offset in an asm expression tree-sitter read without an error
        # is its operand's whole value, an identifier: typed under the statement's chain of
        # scopes (``_name_type``) with no walk of the operand lists (``_operand_values``),
        # which is made only for a statement with another value. Most operands are names
        # (CUTLASS include/: 134,000 of 143,000; CUDA 13 headers: 6,200 of 16,300).
        named: tuple[Scope | None, ...] | None = None  # the statement's chain, for names
        words: frozenset[str] = frozenset()
        text = self._text
        asm = statement[0] if statement else None
        if (
            self._ascii
            and asm is not None
            and asm.type == "gnu_asm_expression"
            and not asm.has_error
        ):
            named = self._scope_chain(asm, statement[1:])
            words = _not_names(self._tree.language)
        # the parameters a name operand is, and their types so far (_name_plan): the names of
        # the answers are parameters' names, identifiers of this ASCII file
        plan: NamePlan = _NO_PLAN
        if named is not None:
            plan = self._name_plan(named) or _NO_PLAN
        parameters, answers, taken = plan
        values: dict[tuple[int, int], tuple[Node, str, tuple[Scope | None, ...]]] | None = None
        source = self._bytes
        memo = self._memo
        free = self._free
        chains = self._chains
        handlers = Expr._HANDLERS
        length = self._length if self._ascii else -1
        named_key: object = None  # the memo key of ``named`` (_chain_key), on first need
        out: list[CType | None] = []
        for expression, offset in operands:
            known = answers.get(expression)
            if (
                known is not None
                and offset >= 0
                and expression not in taken
                and expression not in words
                and text.startswith(expression, offset)
            ):
                out.append(known[0])
                continue
            if (
                named is not None
                and expression.isidentifier()
                and expression.isascii()
                and expression not in words
                and offset >= 0
                and text.startswith(expression, offset)
            ):
                parameter = parameters.get(expression)
                if parameter is not None and expression not in taken:
                    out.append(self._parameter_ctype(parameter, expression, answers))
                    continue
                if named_key is None:
                    named_key = self._chain_key(named)
                out.append(self._name_type(expression, named, offset, named_key))
                continue
            b = offset if 0 <= offset <= length else self._byte_offset(offset)
            if expression.isascii():
                data = expression.encode()
            else:
                data = expression.encode("utf-8", "surrogatepass")
            e = b + len(data)
            spelled = expression
            if named is not None and asm is not None:  # one is set with the other
                # the value is found from its byte, in its operand list, where walking the
                # lists (_operand_values) read every operand of a statement of many names
                found = self._value_at(asm, b, e, named)
                if found is None and b"/" in data and data.isascii() and source[b:e] == data:
                    # a comment beside the value (generated headers write ``/*as_b32*/ *p``):
                    # typed as the value alone, as C++ reads it (see _beside_comments)
                    beside = BESIDE_VALUE()
                    lead = beside.match(data)  # never None: it matches nothing as well
                    start = b + (lead.end() if lead is not None else 0)
                    inner = self._value_at(asm, start, None, named)
                    end = inner[0].end_byte if inner is not None else -1
                    if start < end <= b + len(data) and beside.fullmatch(data, end - b):
                        b, e, found = start, end, inner
                        data = source[b:e]
                        spelled = data.decode()
            else:
                if values is None:
                    if statement is not self._statement:
                        self._statement = statement
                        self._values = self._operand_values(statement)
                    values = self._values
                found = values.get((b, e))
                if found is None and b"/" in data and data.isascii() and source[b:e] == data:
                    # a comment beside the value, as above
                    inner_value = _beside_comments(values, data, b)
                    if inner_value is not None:
                        b, e, found = inner_value
                        data = source[b:e]
                        spelled = data.decode()
            if found is None or source[b:e] != data:
                out.append(self.resolve(expression, offset, statement))
                continue
            value, kind, tail = found
            if kind == "identifier" and e > b:
                out.append(self._name_type(spelled, tail, b))
                continue
            if (
                value.has_error
                or value.is_missing
                or kind not in handlers
                or SCOPE_OPENING().match(data) is not None
            ):
                out.append(self.resolve(expression, offset, statement))
                continue
            key = value.id  # what _value_node records (a value kind declares nothing)
            if key not in chains:
                chains[key] = tail
            answer = free.get(spelled)
            if answer is not None:
                out.append(answer[0])
                continue
            if tail is named:
                if named_key is None:
                    named_key = self._chain_key(named)
                at = (spelled, named_key, False)
            else:
                at = (spelled, self._chain_key(tail), False)
            hit = memo.get(at)
            if hit is not None and hit[0] <= b < hit[1]:
                out.append(hit[2])
                continue
            out.append(self._new_value_type(spelled, data, value, kind, tail, b, at))
        return out

    def _value_type(
        self,
        expression: str,
        data: bytes,
        value: Node,
        kind: str,
        tail: tuple[Scope | None, ...],
        b: int,
    ) -> CType | None:
        """The type of an operand's value node of the file's tree, typed under its statement's
        chain of scopes and memoised (see ``_memoised``) per spelling, and for subscripts and
        casts also per shared key (``_subscript_key``, ``_cast_key``), looked at only when the
        spelling is new: a key costs more than a look-up. An answer that read nothing of where
        it is (``Expr.located``) serves the spelling anywhere in the file."""
        free = self._free.get(expression)
        if free is not None:
            return free[0]
        key = (expression, self._chain_key(tail), False)
        hit = self._memo.get(key)
        if hit is not None and hit[0] <= b < hit[1]:
            return hit[2]
        return self._new_value_type(expression, data, value, kind, tail, b, key)

    def _new_value_type(
        self,
        expression: str,
        data: bytes,
        value: Node,
        kind: str,
        tail: tuple[Scope | None, ...],
        b: int,
        key: tuple[object, ...],
    ) -> CType | None:
        """``_value_type`` past its look-ups of the spelling, which missed (``key``: the
        spelling's memo key): ``resolve_operands`` makes them inline, and a second look-up
        per new spelling cost a chain key and two dictionary look-ups."""
        memo = self._memo
        shared: tuple[object, ...] | None = None
        if kind == "subscript_expression":
            shared = self._subscript_key(value, data, tail)
        elif kind in CAST_KINDS:
            shared = self._cast_key(value, kind, data, tail)
            if shared is None and kind == "call_expression":
                shared = self._call_key(value, tail)
        if shared is not None:
            hit = memo.get(shared)
            if hit is not None and hit[0] <= b < hit[1]:
                memo[key] = hit
                return hit[2]
        self._lo = -1
        self._hi = FAR
        try:
            named = None if shared is None or kind != "subscript_expression" else (
                self._subscripted_name(value, shared, tail, b)
            )
            if named is not None:
                answer, located = named
            else:
                typer = Expr(self, value, b, tail)
                answer = self._typed(typer, value)
                located = typer.located
        except RecursionError:
            return None
        memo[key] = hit = (self._lo, self._hi, answer)
        if shared is not None:
            memo[shared] = hit
        if not located:
            self._free[expression] = (answer,)
        return answer

    def _subscripted_name(
        self, value: Node, shared: tuple[object, ...], chain: tuple[Scope | None, ...], b: int
    ) -> tuple[CType | None, bool] | None:
        """What ``_typed`` makes of ``name[i]...[k]`` (``shared``: its ``_subscript_key``), and
        whether it read where it is (``Expr.located``), without ``Expr``'s walk: the name's
        type as ``Expr._identifier`` reads it, then ``Expr._element`` once per pair. None
        where the value is not that chain of subscripts down to an identifier (then ``Expr``
        types it). The key already says each pair holds one index; only the chain's kinds
        down to the name are read here, one field step per pair.

        Complexity: O(pairs) tree-sitter steps plus the name's memoised look-up, against
        ``Expr``'s O(pairs) handler calls, index reads and list copies."""
        spelled, pairs = shared[0], shared[1]
        if not isinstance(spelled, bytes) or not isinstance(pairs, int) or not 0 < pairs <= 8:
            return None
        node: Node | None = value
        for _ in range(pairs):
            if node is None or node.type != "subscript_expression":
                return None
            node = node.child_by_field_name("argument")
        if node is None or node.type != "identifier":
            return None
        name = spelled.decode("utf-8", "replace")
        located = False
        if name in self._macros:
            ty = None
        else:
            ty = BUILTIN_VARIABLES.get(name)
            if ty is None:
                located = True
                self._depth = 0
                try:
                    ty = self._lookup_chain(chain, name, b)
                except Stop:
                    return None, True
                if ty is not None and ty.kind == "function":
                    ty = None
        for _ in range(pairs):
            ty = Expr._element(ty)
        return self._ctype(ty), located

    def _subscript_key(
        self, value: Node, data: bytes, chain: tuple[Scope | None, ...]
    ) -> tuple[object, ...] | None:
        """A memo key for an operand value that is a name with subscripts, ``a[i][j + 1]``:
        ``Expr._subscript`` types each pair of brackets as the element of what it follows and
        reads no index (only that there is one), so every such value with the same name and
        number of pairs has the same type in one scope. None for any other value."""
        simple = SUBSCRIPTS().fullmatch(data)
        if simple is not None:
            return (simple[1], data.count(b"["), self._chain_key(chain))
        node: Node | None = value
        pairs = 0
        while node is not None and node.type == "subscript_expression":
            indices = node.child_by_field_name("indices")
            if indices is None or len(_named(indices)) != 1:
                return None
            pairs += 1
            node = node.child_by_field_name("argument")
        if node is None or node.type != "identifier":
            return None
        return (self._bytes[node.start_byte : node.end_byte], pairs, self._chain_key(chain))

    def _cast_key(
        self, value: Node, kind: str, data: bytes, chain: tuple[Scope | None, ...]
    ) -> tuple[object, ...] | None:
        """A memo key for an operand value that is a cast, ``(T)x`` or ``xxx_cast<T>(x)``,
        or ``*`` of one: ``Expr`` types it from ``T`` alone, never from ``x``. ``T`` depends
        on where it is written only through the template parameters around it (a name may be
        one), and those are the template scopes of ``chain``; a type of words (``unsigned
        long long*``) depends on nothing. None for any other value."""
        node = value
        star = kind == "pointer_expression"
        if star:
            if not data.startswith(b"*"):  # a prefix operator: the value's first byte
                return None
            argument = value.child_by_field_name("argument")
            if argument is None:
                return None
            node, kind = argument, argument.type
        if kind == "cast_expression":
            desc = node.child_by_field_name("type")
        elif kind == "call_expression":
            fn = node.child_by_field_name("function")  # as Expr._call reads a cast
            if fn is None or fn.type != "template_function":
                return None
            if _text(fn.child_by_field_name("name")) not in CASTS:
                return None
            args = fn.child_by_field_name("arguments")
            targets = _named(args) if args is not None else []
            if len(targets) != 1 or targets[0].type != "type_descriptor":
                return None
            desc = targets[0]
        else:
            return None
        if desc is None or desc.type != "type_descriptor":
            return None
        spec = desc.child_by_field_name("type")
        placeless = spec is not None and spec.type in PLACELESS_SPECIFIERS
        scope = None if placeless else self._chain_key(chain)
        return (kind, star, self._bytes[desc.start_byte : desc.end_byte], scope)

    def _parameter_ctype(
        self, parameter: Entry, name: str, answers: dict[str, tuple[CType | None]]
    ) -> CType | None:
        """What ``_name_type`` makes of ``name``, a name that is ``parameter`` (see
        ``_name_plan``), kept in ``answers``: the parameter's types, which the functions of one
        parameter list share (``_parameter_table``). CUTLASS's include/ types 134,000 name
        operands, nearly all parameters of one-statement functions, each name once per
        function: a look-up per scope and per type step each time was 0.4 s of its 0.62 s
        of typing; 18,600 are worked out here."""
        key = id(parameter)  # entries live as long as the tables that hold them
        known = self._parameter_ctypes.get(key)
        if known is None:
            self._lo = -1
            self._hi = FAR
            self._depth = 0
            try:
                known = (self._ctype(self.entry_type(parameter, False)),)
            except Stop:
                known = (None,)
            except RecursionError:
                return None
            self._parameter_ctypes[key] = known
        answers[name] = known
        return known[0]

    def _call_key(self, value: Node, chain: tuple[Scope | None, ...]) -> tuple[object, ...] | None:
        """A key for a call ``f(...)`` of a name that no scope of ``chain`` declares: what
        ``Expr`` makes of it reads the name's declarations at namespace scope (a range of byte
        offsets, ``_memoised``) and the template parameters around it (``f`` may be a type),
        never the arguments. The CUDA 13 headers call 110 such names in 1,500 operands
        (``__as_ptr_gmem(__ptr)``), each typed once per function where the chain's parameters
        differ (``_chain_key``); with this key 1,157 of them are memo hits, and typing makes
        4% fewer Python calls. None for any other value or chain."""
        fn = value.child_by_field_name("function")
        if fn is None or fn.type != "identifier":
            return None
        name = self._bytes[fn.start_byte : fn.end_byte].decode("utf-8", "replace")
        if self._may_declare(chain, name) or is_macro(self, name):
            return None  # (a macro's expansion reads the arguments)
        return ("call", name, self._chain_template_names(chain))

    def _name_type(
        self, name: str, chain: tuple[Scope | None, ...], b: int, chain_key: object = None
    ) -> CType | None:
        """What ``Expr._identifier`` and ``resolve`` make of the name ``name`` used at byte
        ``b`` under ``chain``; memoised per (name, chain) (see ``_memoised``). ``chain_key``:
        ``_chain_key(chain)``, where the caller has it."""
        key = (name, self._chain_key(chain) if chain_key is None else chain_key)
        hit = self._memo.get(key)
        if hit is not None and hit[0] <= b < hit[1]:
            return hit[2]
        if name in self._macros:
            answer = None
            self._memo[key] = (-1, FAR, answer)
            return answer
        builtin = BUILTIN_VARIABLES.get(name)
        if builtin is not None:
            answer = self._ctype(builtin)
            self._memo[key] = (-1, FAR, answer)
            return answer
        self._lo = -1
        self._hi = FAR
        self._depth = 0
        try:
            # not through _lookup_chain's memo: this one has the same key
            answer = self._ctype(self._lookup_scopes(chain, name, b))
        except Stop:
            answer = None
        except RecursionError:
            return None
        self._memo[key] = (self._lo, self._hi, answer)
        return answer

    def _typed(self, typer: Expr, node: Node) -> CType | None:
        self._depth = 0
        try:
            ty = typer.type_of(node)
        except Stop:
            return None
        return self._ctype(ty)

    def _memoised(
        self, key: tuple[object, ...], b: int, compute: Callable[[], CType | None]
    ) -> CType | None:
        """``compute()``, memoised under ``key`` for the byte offsets ``[lo, hi)`` it holds for.

        Typing an expression under one chain of scopes depends on the byte offset ``b`` only
        through which declarations of a looked-up name are visible: a block-scope or
        namespace-scope entry counts where ``name_end <= b`` (``_lookup_in``,
        ``_fallback_names``). Every such test narrows ``[self._lo, self._hi)`` to the offsets
        that give it the same outcome, so any ``b`` in the range makes every lookup stop at
        the same scope with the same entries: the same answer. A later declaration shadowing
        the name in an inner block ends the range at that declaration's name.

        The chain is part of every key by ``id``: chains live in ``self._chains`` as long as
        the resolver, so an id is never reused for another chain. A RecursionError (the
        answer could depend on the caller's stack) is not memoised."""
        hit = self._memo.get(key)
        if hit is not None and hit[0] <= b < hit[1]:
            return hit[2]
        self._lo = -1
        self._hi = FAR
        try:
            answer = compute()
        except RecursionError:
            return None
        self._memo[key] = (self._lo, self._hi, answer)
        return answer

    def _ctype(self, ty: _Ty | None) -> CType | None:
        if ty is None or ty.kind == "function":
            return None
        if ty.kind == "aggregate" and not ty.lanes and not ty.array and self._may_convert(ty):
            # nvcc converts a class with a conversion operator to the operand's scalar type, so
            # "aggregate" is only claimed for records whose whole body is seen and plain
            return None
        # one CType per distinct answer (a frozen value): 48,000 operands, a dozen answers
        key = (ty.spelling, ty.kind, ty.size)
        ctype = self._ctypes.get(key)
        if ctype is None:
            ctype = CType(spelling=ty.spelling, kind=ty.kind, size=ty.size, tier=1,
                          unsigned=ty.unsigned if ty.kind == "integer" else None,
                          pointee=self._ctype(ty.target) if ty.kind == "pointer" else None)
            self._ctypes[key] = ctype
        return ctype

    def _expression_node(self, expression: str, b: int) -> Node | None:
        """The node of the file's tree that spans exactly ``expression`` at byte ``b``."""
        data = expression.encode("utf-8", "surrogatepass")
        e = b + len(data)
        if self._bytes[b:e] != data:
            return None
        node: Node | None = self._root.descendant_for_byte_range(b, e)
        if node is None:
            return None
        # the smallest node may be a wrapper's child: climb while the span stays the same
        parent = node.parent
        while parent is not None and parent.start_byte == b and parent.end_byte == e:
            node = parent
            parent = node.parent
        if node.start_byte != b or node.end_byte != e:
            return None
        if node.has_error or node.is_missing or node.type not in Expr._HANDLERS:
            return None
        if parent is None or parent.type not in OPERAND_VALUE_PARENTS:
            return None  # not an asm operand's value in this tree: read it on its own
        return node

    def _operand_value(self, expression: str, b: int, statement: Node) -> Node | None:
        """``_expression_node(expression, b)`` for an operand of the asm statement whose
        keyword is ``statement``, read from the statement's operand values, gathered once per
        statement, instead of from two descents and the parent steps from the expression to
        its scopes (each a descent from the root in tree-sitter: in a file of many functions
        they cost more than the rest of the typing).

        The same node: a value child of an operand that spans ``[b, e)`` is the outermost node
        of that span (its operand also holds the constraint before it), and every node of that
        span lies under it. Its chain of scopes is the statement's, plus itself where it
        declares (a lambda), since operands and their lists declare nothing."""
        data = expression.encode("utf-8", "surrogatepass")
        e = b + len(data)
        if self._bytes[b:e] != data:
            return None
        if statement is not self._statement:
            self._statement = statement
            self._values = self._operand_values(statement)
        found = self._values.get((b, e))
        if found is None:
            return self._expression_node(expression, b)
        return self._value_node(*found)

    def _value_node(
        self, node: Node, kind: str, tail: tuple[Scope | None, ...]
    ) -> Node | None:
        """An operand's value node from ``_operand_values``, unless tree-sitter could not read
        it (then it is parsed alone), with its chain of scopes recorded for ``_scope_chain``."""
        if node.has_error or node.is_missing or kind not in Expr._HANDLERS:
            return None
        key = node.id
        if key not in self._chains:
            self._chains[key] = (Scope(node, kind), *tail) if kind in DECLARING_SCOPES else tail
        return node

    def _value_at(
        self, asm: Node, b: int, e: int | None, tail: tuple[Scope | None, ...]
    ) -> tuple[Node, str, tuple[Scope | None, ...]] | None:
        """What ``_operand_values`` holds for the span ``[b, e)`` (``e`` None: for the span
        that starts at ``b``), read from the operand that holds byte ``b`` in the operand list
        of the asm expression ``asm`` that holds it: the value of an operand of those lists
        starts at ``b`` only if it is the value of that operand. Each is the child that holds
        byte ``b`` (``first_named_child_for_byte``: the first that ends past it, if it starts
        at or before it), where a list of the expression's operand lists, made per statement,
        was searched in Python."""
        section = asm.first_named_child_for_byte(b)
        if section is None or section.type not in OPERAND_LISTS or section.start_byte > b:
            return None
        operand = section.first_named_child_for_byte(b)
        if operand is None or operand.type not in OPERAND_VALUE_PARENTS:
            return None
        field = self._value_field
        if field is None:
            field = self._value_field = self._tree.language.field_id_for_name("value")
            if field is None:
                return None
        value = operand.child_by_field_id(field)
        if value is None or value.start_byte != b:
            return None
        if e is not None and value.end_byte != e:
            return None
        return value, value.type, tail

    def _operand_values(
        self, statement: Node | Sequence[Node]
    ) -> dict[tuple[int, int], tuple[Node, str, tuple[Scope | None, ...]]]:
        """The value nodes of the operands of the asm statement of ``statement`` (its keyword,
        or the keyword's nearest ancestors: see ``resolve``), by byte span, with their kind and
        the statement's chain of scopes."""
        values: dict[tuple[int, int], tuple[Node, str, tuple[Scope | None, ...]]] = {}
        if isinstance(statement, Node):
            asm = statement.parent
            ups: Sequence[Node] = ()
        else:
            asm = statement[0] if statement else None
            ups = statement[1:]
        if asm is None or asm.type != "gnu_asm_expression":
            return values
        tail = self._scope_chain(asm, ups)
        field = self._value_field
        if field is None:  # by id: a look-up by name compares the grammar's field names
            field = self._value_field = self._tree.language.field_id_for_name("value")
            if field is None:
                return values
        for section in asm.named_children:
            if section.type not in OPERAND_LISTS:
                continue
            for operand in section.named_children:
                if operand.type not in OPERAND_VALUE_PARENTS:
                    continue
                value = operand.child_by_field_id(field)
                if value is not None:
                    values[(value.start_byte, value.end_byte)] = (value, value.type, tail)
        return values

    def _may_convert(self, record: _Ty, depth: int = 0) -> bool:
        """Whether ``record`` might convert implicitly to a scalar: a body unseen, a conversion
        operator it declares, or one a base may bring ([class.conv.fct]: a conversion
        function is inherited). Each base is followed as member lookup follows it, under the
        instance's template arguments; one that cannot be (dependent, declared elsewhere,
        ``ns::Base``, a pack) may convert."""
        home = record.home_resolver(self)
        if home is not None:
            return home._may_convert(record, depth)  # type: ignore[attr-defined]
        key = (tuple(body.id for body in record.bodies), record.bindings)
        cached = self._convertible.get(key)
        if cached is None:
            cached = _may_convert(record) or self._base_may_convert(record, depth)
            self._convertible[key] = cached
        return cached

    def _base_may_convert(self, record: _Ty, depth: int) -> bool:
        if depth > MAX_DEPTH:
            return True
        saved = self._bindings
        self._bindings = dict(((t, n), v) for t, n, v in record.bindings)
        try:
            for body in record.bodies:
                owner = body.parent
                for clause in owner.children if owner is not None else ():
                    if clause.type != "base_class_clause":
                        continue
                    for base in _base_types(clause):
                        ty = self._base_type(base)
                        if ty is None or ty.kind != "aggregate" or not ty.bodies or \
                                self._may_convert(ty, depth + 1):
                            return True
        finally:
            self._bindings = saved
        return False

    # ----------------------------------------------------------------- positions

    def _byte_offset(self, offset: int) -> int:
        """The byte offset of character ``offset`` (clamped to the text): the offset plus the
        extra bytes of the non-ASCII characters before it, found by a bisect over their
        positions (read by one regex scan per file), where encoding the text up to the offset
        cost up to 4 KB of encoding per operand. A text that ``surrogateescape`` cannot encode
        (a lone surrogate that no decoding made) is measured chunk by chunk as before, since
        its fallback encoding is not additive per character."""
        offset = max(0, min(offset, len(self._text)))
        if self._ascii:
            return offset
        if self._wide is None:
            self._wide = self._wide_characters()
        if self._wide:
            where, extra = self._wide
            k = bisect_left(where, offset)
            return offset + (extra[k - 1] if k else 0)
        chunk = 4096
        if self._byte_marks is None:
            # byte offset at every chunk boundary, so each query encodes at most one chunk
            marks = [0]
            for start in range(0, len(self._text), chunk):
                marks.append(marks[-1] + utf8_length(self._text[start : start + chunk]))
            self._byte_marks = marks
        index = offset // chunk
        return self._byte_marks[index] + utf8_length(self._text[index * chunk : offset])

    def _wide_characters(self) -> tuple[list[int], list[int]] | tuple[()]:
        """(positions of the non-ASCII characters, extra bytes up to and including each), or
        () where the text holds a surrogate ``surrogateescape`` cannot encode."""
        where: list[int] = []
        extra: list[int] = []
        total = 0
        lengths: dict[str, int] = {}
        for match in NON_ASCII().finditer(self._text):
            char = match.group()
            length = lengths.get(char)
            if length is None:
                try:
                    length = len(char.encode("utf-8", "surrogateescape"))
                except UnicodeEncodeError:
                    return ()
                lengths[char] = length
            total += length - 1
            where.append(match.start())
            extra.append(total)
        return where, extra


# a chain with no name plan: no name is typed as a parameter from it
_NO_PLAN: NamePlan = ({}, {}, frozenset())


@functools.lru_cache(maxsize=4)
def _not_names(language: tree_sitter.Language) -> frozenset[str]:
    """Words that are not an ``identifier`` node where a name could be: the named literals
    (``true``, ``NULL``, ``this``...) and every keyword token of the grammar. A keyword that
    cannot be a value makes its statement a parse error (``size_t``, ``asm``), and a contextual
    one may be read either way (``final``): all of them take the walk of the operand values."""
    words = {"true", "false", "TRUE", "FALSE", "NULL", "nullptr", "this"}
    for kind in range(language.node_kind_count):
        word = language.node_kind_for_id(kind)
        if word and not language.node_kind_is_named(kind) and word.isidentifier():
            words.add(word)
    return frozenset(words)


def _beside_comments(
    values: dict[tuple[int, int], tuple[Node, str, tuple[Scope | None, ...]]],
    data: bytes,
    b: int,
) -> tuple[int, int, tuple[Node, str, tuple[Scope | None, ...]]] | None:
    """The operand value that ``data`` (an operand's expression, at byte ``b``) spells with
    only comments and white space around it, with its byte span; None where there is none.
    An operand's values are a handful: they are looked through rather than indexed."""
    beside = BESIDE_VALUE()
    lead = beside.match(data)  # never None: the pattern matches nothing as well
    start = b + (lead.end() if lead is not None else 0)
    for (first, end), found in values.items():
        if first == start and start < end <= b + len(data) and beside.fullmatch(data, end - b):
            return first, end, found
    return None


# --------------------------------------------------------------------------- expressions


# resolve types an operand's value in the file's tree under its statement's chain of scopes:
# none of the values it can type declares names itself
assert not DECLARING_SCOPES & Expr._HANDLERS.keys()


# --------------------------------------------------------------------------- one per file


_LAST: tuple[ParsedSource, TypeResolver] | None = None  # the latest file's, by identity


def _definition_resolver(parsed: ParsedSource) -> TypeResolver:
    """The resolver of a project header's type definition, read on its own
    (``header_types``)."""
    return TypeResolver(parsed.text, parsed.tree, parsed.data)


def file_resolver(parsed: ParsedSource) -> TypeResolver:
    """The type resolver of ``parsed``, one per file: extraction types the operands with it
    (``engine.type_lookup``) and the rules' C++ facts of a function read its scope tables
    (``analysis.cxx_facts``), so a function's parameters and locals are read from the tree
    once for both. Kept for the latest file only, by identity (a file is linted to its end
    before the next one starts); another file's gets a new one. Released with the file's
    other memos (``file_memos``). What reading the facts from it bought, with the facts'
    own climbs to a statement's function read from the chains typing made: PTX010's CPU
    went from 0.082-0.091 to 0.066-0.072 s on CUTLASS's include/ and from 0.011-0.012 to
    0.005 s on the CUDA 13 headers, answers identical."""
    global _LAST
    last = _LAST
    if last is not None and last[0] is parsed:
        return last[1]
    resolver = TypeResolver(parsed.text, parsed.tree, parsed.data)
    _LAST = (parsed, resolver)
    return resolver


def keep_resolver(parsed: ParsedSource, resolver: TypeResolver) -> None:
    """Make ``resolver`` the one :func:`file_resolver` gives for ``parsed``: the one that
    typed its operands where its extraction was made elsewhere and taken by the engine
    (``included_helpers.extraction_of``)."""
    global _LAST
    _LAST = (parsed, resolver)


def _forget() -> None:
    global _LAST
    _LAST = None


file_memos.register(_forget)  # a batch run lets go of each file after it
