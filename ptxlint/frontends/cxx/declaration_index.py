"""The declarations of one file, indexed for the Tier-1 typer on first ask: macro names,
typedefs, aliases and records, enums, namespace-scope names, and one symbol table per
scope (see :mod:`.types` for the costs each index is built to avoid)."""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Callable, Container, Iterator, Sequence
from typing import TYPE_CHECKING

import tree_sitter

from ptxlint.frontends.cxx.c_types import (
    ENUM_KEYWORDS,
    ENUMERATOR,
    FAR,
    INDEX_KEYWORDS,
    INDEX_KINDS,
    INDEX_NAMES,
    KEYWORD_OWNERS,
    MACRO_KEYWORDS,
    PREPROC_BLOCKS,
    RECORD_SPECIFIERS,
    TRANSPARENT_STATEMENTS,
    TYPE_KEYWORDS,
    TYPE_PARAMETERS,
    VALUE_PARAMETERS,
    Bindings,
    Entry,
    Node,
    Scope,
    SharedParameters,
    _Language,
    _text,
    _Ty,
    declarator_name,
    own_function_declarator,
)
from ptxlint.frontends.syntax_tree import WALK_LIMIT, nodes_of_kinds, parse_expression
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import CType

if TYPE_CHECKING:
    from ptxlint.frontends.cxx.header_types import OutsideTypes
    from ptxlint.frontends.cxx.macros import MacroTable

@functools.lru_cache(maxsize=16)
def _type_declaration(name: str) -> re.Pattern[bytes]:
    """A declaration of the type ``name`` in one C++ declaration: ``typedef unsigned short
    half;``, ``using half = ...``, ``struct half {``."""
    word = re.escape(name.encode())
    return re.compile(rb"\b(?:typedef|using|struct|class|union)\b[^;{}()]*?\b" + word + rb"\b")


# the specifiers whose type their words decide wherever they are written
# (``ScopeLookup._specifier``): no type name (a template parameter's where one is around),
# record or enum (a body's)
SPELLED_SPECIFIERS = frozenset({"primitive_type", "sized_type_specifier", "qualified_identifier"})

# The parameters a name operand under a chain of scopes may be, by name, their types worked
# out so far, and the names that are not they there (``ScopeLookup._name_plan``)
NamePlan = tuple[dict[str, Entry], dict[str, tuple[CType | None]], frozenset[str]]


class DeclarationIndex:
    """One file's declarations, and the memos the typer keeps for the file."""

    def __init__(self, source_text: str, tree: tree_sitter.Tree, source_bytes: bytes) -> None:
        self._text = source_text
        self._tree = tree
        self._root = tree.root_node
        self._bytes = source_bytes
        self._ctypes: dict[tuple[str, str, int | None], CType] = {}
        # the operand values of the last statement asked about (see _operand_value)
        self._statement: Node | Sequence[Node] | None = None
        self._values: dict[tuple[int, int], tuple[Node, str, tuple[Scope | None, ...]]] = {}
        self._lang = _Language.get()
        self._ascii = len(source_text) == len(source_bytes)
        self._length = len(source_text)
        self._byte_marks: list[int] | None = None
        self._wide: tuple[list[int], list[int]] | tuple[()] | None = None  # see _byte_offset
        self._indexed = False  # the macros (_ensure_index)
        self._types_indexed = False  # typedefs, aliases, records (_type_names)
        self._enums_indexed = False  # enums and enumerators (_enum_names)
        self._typedefs: dict[str, list[Node]] = {}
        self._records: dict[str, list[Node]] = {}  # record specifiers by name (bodies or not)
        # class template specializations (``struct S<int> {...}``) by the template's name
        self._specializations: dict[str, list[Node]] = {}
        # the arguments of the class template instance whose members are being typed
        # (``_Ty.bindings``), by (template declaration's node id, parameter name); the names
        # typed under them (a cycle guard); instances by their text, where it decides them
        self._bindings: dict[tuple[int, str], _Ty | int] = {}
        self._bound_names: set[str] = set()
        self._instances: dict[str, _Ty | None] = {}
        # each #define body parsed on its own, with its macro's parameter names, by the id
        # of its preproc_arg (ScopeLookup.macro_body_place)
        self._macro_bodies: dict[int, tuple[tree_sitter.Tree, frozenset[str]]] = {}
        self._enums: dict[str, list[Node]] = {}
        self._enumerators: dict[str, list[Node]] = {}
        self._macros: set[str] = set()
        self._declared_types: dict[str, bool] = {}  # (declares_type)
        # the file's macro table, where extraction hands it over (``TypeResolver.use_macros``)
        self.macro_source: Callable[[], MacroTable] | None = None
        # the types of names the file does not declare, from its project headers
        # (``TypeResolver.use_macros`` sets it)
        self.outside: OutsideTypes | None = None
        self.itself = weakref.ref(self)  # (``_Ty.home``)
        self._globals: dict[str, list[Entry]] | None = None
        self._scopes: dict[int, dict[str, list[Entry]]] = {}
        self._template_params: dict[int, frozenset[str]] = {}  # type names (_templates)
        self._template_texts: dict[bytes, frozenset[str]] = {}  # the same, by the list's text
        # symbol tables of parameter lists, for/if initializers and template value parameters,
        # by the id of the node that owns them
        self._parameters: dict[int, dict[str, Entry]] = {}
        # parameter lists by (owner kind, text), for the lists of the same text (_share)
        self._shared_parameters: dict[tuple[str, bytes], SharedParameters | None] = {}
        self._template_names: dict[int, frozenset[str]] = {}
        # (name, entry) of each parameter declaration by its text and the template parameter
        # names around it, for every list it recurs in: its type follows from nothing else
        # (a record body in it, ``{``, is never shared). CUTLASS's include/ declares 19,200
        # parameters in 528 distinct lists, most of them again and again (``uint32_t & d17``):
        # each was read and typed once per list, 0.14 s of its 0.35 s of typing.
        self._parameter_entries: dict[tuple[bytes, frozenset[str]], tuple[str, Entry]] = {}
        self._statement_scopes: dict[int, dict[str, list[Entry]]] = {}
        self._template_values: dict[int, dict[str, Entry]] = {}
        self._owners: dict[int, tuple[_Ty | None, bool]] = {}  # out-of-line class, raises
        self._own_declarators: dict[int, Node | None] = {}  # (_parameter_list)
        self._entry_types: dict[tuple[int, bool], _Ty | None] = {}
        self._spelled_types: dict[tuple[object, ...], _Ty | None] = {}  # (_spelled_entry)
        self._deducing: set[int] = set()  # the `auto` entries being deduced (_deduced)
        self._chains: dict[int, tuple[Scope | None, ...]] = {}  # see _scope_chain
        self._name_plans: dict[int, NamePlan | None] = {}  # by chain id (_name_plan)
        self._chain_templates: dict[int, frozenset[str]] = {}  # (_chain_template_names)
        self._chain_keys: dict[int, object] = {}  # by chain id (_chain_key)
        # what each scope of a chain declares, by chain id (ScopeLookup._may_declare)
        self._chain_tables: dict[int, tuple[Container[str], ...] | None] = {}
        # the types of the parameters name operands are, per parameter table (_name_plan),
        # with the table's names that a macro or a built-in variable hides there, and per
        # entry, which the tables of the lists it recurs in share (_parameter_table)
        self._parameter_answers: dict[
            int, tuple[dict[str, tuple[CType | None]], frozenset[str]]
        ] = {}
        self._parameter_ctypes: dict[int, tuple[CType | None]] = {}
        # node id -> parent, for the file's tree: shared with extraction's climbs (see
        # share_parents), since a tree-sitter parent step is a descent from the root
        self._parents: dict[int, Node] = {}
        self._value_field: int | None = None  # the id of the field "value" in the tree's grammar
        # the ids of the fields "declarator" and "type" (see _add_declaration)
        self._declaration_fields: tuple[int | None, int | None] | None = None
        # whether a record may convert to a scalar, by its bodies and template arguments
        self._convertible: dict[tuple[tuple[int, ...], Bindings], bool] = {}
        self._depth = 0
        # named types by name (they do not depend on where the name is used once template
        # parameters are ruled out): each typedef chain is followed once, and a cycle or a
        # malformed chain (typedef A B; typedef B A;) is unknown instead of exponential
        self._named: dict[str, _Ty | None] = {}
        # answers by (expression or name, id of a chain of scopes[, parsed alone]): the range
        # of byte offsets [lo, hi) each holds for, and the answer (see _memoised)
        self._memo: dict[tuple[object, ...], tuple[int, int, CType | None]] = {}
        self._lo = -1
        self._hi = FAR
        self._lookups: dict[tuple[str, object], tuple[int, int, _Ty | None, bool]] = {}
        self._alone: dict[str, Node | None] = {}  # see _parse_alone
        # answers of operand values (in the file's tree) that did not read where they are
        self._free: dict[str, tuple[CType | None]] = {}

    # ----------------------------------------------------------------- file-wide indexes

    def _ensure_index(self) -> None:
        """The macro names: every name an operand spells is checked against them."""
        if self._indexed:
            return
        self._indexed = True
        captures = self._keyword_captures(MACRO_KEYWORDS)
        self._macros = {_text(name) for name, _ in captures.get("macro", [])}

    def _type_names(self) -> tuple[dict[str, list[Node]], dict[str, list[Node]]]:
        """(typedefs and aliases, records) by name, read on the first look-up that needs them (a
        type name that is not built in, a class): five of the seven keyword searches
        (``_keyword_captures``), which a file whose operands name only built-in types and
        declared variables never needs."""
        if not self._types_indexed:
            self._types_indexed = True
            captures = self._keyword_captures(TYPE_KEYWORDS)
            for _, node in captures.get("typedef", []):
                for decl in node.children_by_field_name("declarator"):
                    name = declarator_name(decl)
                    if name is not None:
                        self._typedefs.setdefault(_text(name), []).append(node)
            for _, node in captures.get("alias", []):
                name_node = node.child_by_field_name("name")
                self._typedefs.setdefault(_text(name_node), []).append(node)
            for name, owner in captures.get("record", []):
                self._records.setdefault(_text(name), []).append(owner)
            for name, owner in captures.get("specialization", []):
                leaf: Node | None = name
                while leaf is not None and leaf.type == "qualified_identifier":
                    leaf = leaf.child_by_field_name("name")
                if leaf is not None and leaf.type == "template_type":
                    template = _text(leaf.child_by_field_name("name"))
                    self._specializations.setdefault(template, []).append(owner)
        return self._typedefs, self._records

    def class_definitions(self, name: str) -> list[Node]:
        """The class specifiers with a body that define the class ``name`` or specialize the
        class template ``name`` (``struct S {...}``, ``template <> struct S<3> {...}``), in
        document order: where a member of an instance ``S<...>`` may be declared, whichever
        instance it is."""
        _, records = self._type_names()
        found = [r for r in (*records.get(name, ()), *self._specializations.get(name, ()))
                 if r.child_by_field_name("body") is not None]
        return sorted(found, key=lambda n: n.start_byte)

    def declares_type(self, name: str) -> bool:
        """Whether the file declares a type ``name`` itself (a typedef, an alias or a record).
        A byte search first, so that the keyword index is built only for a file that spells
        such a declaration."""
        known = self._declared_types.get(name)
        if known is None:
            known = _type_declaration(name).search(self._bytes) is not None and (
                name in self._type_names()[0] or name in self._type_names()[1])
            self._declared_types[name] = known
        return known

    def _enum_names(self) -> tuple[dict[str, list[Node]], dict[str, list[Node]]]:
        """(enums, enumerators) by name, read on the first look-up that needs them: most often
        a name no scope declares (``_fallback_names``), which needs only the ``enum`` search."""
        if not self._enums_indexed:
            self._enums_indexed = True
            captures = self._keyword_captures(ENUM_KEYWORDS)
            for name, owner in captures.get("enum", []):
                self._enums.setdefault(_text(name), []).append(owner)
            for name, owner in captures.get("enumerator", []):
                self._enumerators.setdefault(_text(name), []).append(owner)
        return self._enums, self._enumerators

    def _keyword_captures(
        self, patterns: tuple[re.Pattern[bytes], ...] = INDEX_KEYWORDS
    ) -> dict[str, list[tuple[Node, Node]]]:
        """What ``_index_captures`` finds, as (captured node, the node that declares it), found
        from the keywords that begin each declaration instead of from the whole tree.

        Every node ``_TYPE_QUERY_SOURCE`` names has its keyword token as a child (``typedef``,
        ``using``, ``struct``, ``class``, ``union``, ``enum``, and ``#define`` for both macro
        kinds), and a keyword token is a whole word of the text. So a search of the bytes for
        each word finds every candidate, and the token tree-sitter has there (one
        descent each) with its parent tells which are declarations; a word in a comment, a
        string or an identifier is a different token. Enumerators are read from their enum
        specifier's subtree; an ``enum`` token outside an enum specifier (a parse error) may
        have left enumerators anywhere, and then the enumerators come from the whole tree
        (``_index_captures``).

        Complexity: a search of the file per keyword plus O(depth) per match, and
        the size of each enum; against a query or walk over every node of the file (as much as
        a third of the parse)."""
        root = self._root
        out: dict[str, list[tuple[Node, Node]]] = {}
        enumerators: list[tuple[Node, Node]] = []
        seen: set[int] = set()
        stray = False
        matches = (m for pattern in patterns for m in pattern.finditer(self._bytes))
        for match in matches:
            token = root.descendant_for_byte_range(*match.span())
            if token is None:
                continue
            word = token.type
            want = KEYWORD_OWNERS.get(word)
            if want is None:
                continue
            owner = token.parent
            if owner is None or owner.type not in want:
                if word == "enum":
                    stray = True
                continue
            key = owner.id
            if key in seen:
                continue
            seen.add(key)
            kind = owner.type
            if kind == "type_definition":
                out.setdefault("typedef", []).append((owner, owner))
                continue
            if kind == "alias_declaration":
                out.setdefault("alias", []).append((owner, owner))
                continue
            if kind == "enum_specifier":
                for enumerator in nodes_of_kinds(owner, ENUMERATOR).get("enumerator", ()):
                    if enumerator.id not in seen:
                        seen.add(enumerator.id)
                        name = enumerator.child_by_field_name("name")
                        if name is not None and name.type == "identifier":
                            enumerators.append((name, enumerator))
            name = owner.child_by_field_name("name")
            if name is None:
                continue
            want_name, capture = INDEX_NAMES[kind]
            if name.type == want_name:
                out.setdefault(capture, []).append((name, owner))
            elif capture == "record" and name.type in ("template_type", "qualified_identifier"):
                # ``S<int>``, and ``ns::S<int>`` (a specialization the typer does not read)
                out.setdefault("specialization", []).append((name, owner))
        if stray:
            enumerators = []
            for name in self._index_captures().get("enumerator", ()):
                assert name.parent is not None
                enumerators.append((name, name.parent))
        if enumerators:
            out["enumerator"] = enumerators
        for found in out.values():
            found.sort(key=lambda pair: pair[0].start_byte)
        return out

    def _index_captures(self) -> dict[str, list[Node]]:
        """What ``_TYPE_QUERY_SOURCE`` captures over the file, each capture's nodes in document
        order: by the query for a big file, by a walk for a small one (compiling the query costs
        about 50 ms once per process, the walk about 5 us per node)."""
        root = self._tree.root_node
        if len(self._bytes) > WALK_LIMIT:
            captured = tree_sitter.QueryCursor(self._lang.type_query).captures(root)
            # in document order, as the walk finds them: the query's own order follows its
            # matching (macros in nested #if blocks come out interleaved), and the first of
            # several agreeing declarations is the one whose spelling is reported
            return {c: sorted(nodes, key=lambda n: n.start_byte) for c, nodes in captured.items()}
        by_kind = nodes_of_kinds(root, INDEX_KINDS)
        out: dict[str, list[Node]] = {}
        kinds = ("type_definition", "alias_declaration", "struct_specifier", "class_specifier",
                 "union_specifier", "enum_specifier", "enumerator", "preproc_def",
                 "preproc_function_def")
        named = [n for kind in kinds for n in by_kind.get(kind, ())]
        named.sort(key=lambda n: n.start_byte)  # one document order across kinds, as captured
        for node in named:
            kind = node.type
            if kind == "type_definition":
                out.setdefault("typedef", []).append(node)
                continue
            if kind == "alias_declaration":
                out.setdefault("alias", []).append(node)
                continue
            name = node.child_by_field_name("name")
            if name is None:
                continue
            want, capture = INDEX_NAMES[kind]
            if name.type == want:
                out.setdefault(capture, []).append(name)
        for names in out.values():
            names.sort(key=lambda n: n.start_byte)
        return out

    def _global_entries(self) -> dict[str, list[Entry]]:
        """Namespace-scope variables and functions, through namespaces, extern "C", #if."""
        if self._globals is None:
            table: dict[str, list[Entry]] = {}
            self._collect(self._tree.root_node, table)
            self._globals = table
        return self._globals

    def _scope_entries(self, scope: Node) -> dict[str, list[Entry]]:
        cached = self._scopes.get(scope.id)
        if cached is None:
            cached = {}
            if scope.type == "field_declaration_list":
                self._collect_members(scope, cached)
            else:
                self._collect_block(scope, cached)
            self._scopes[scope.id] = cached
        return cached

    def _collect_block(self, scope: Node, table: dict[str, list[Entry]]) -> None:
        """What a block declares (``_collect`` at namespace scope): its declarations and the
        members of its anonymous unions, through ``#if`` blocks, ``case`` and labels, in
        document order. Its own loop, as a block
        reads only these kinds: typing reads one block per function at least (the CUDA
        13 headers: 3,353), and ``_collect`` asks four questions of each child and a call
        of ``next`` per child."""
        pending: list[Iterator[Node]] = [iter(scope.named_children)]
        transparent = TRANSPARENT_STATEMENTS
        while pending:
            for child in pending[-1]:
                kind = child.type
                if kind == "declaration":
                    self._add_declaration(child, table)
                elif kind == "union_specifier" and child.child_by_field_name("name") is None:
                    # an anonymous union (``union { half h; uint16_t u; };``): its members
                    # are names of the block ([class.union.anon])
                    body = child.child_by_field_name("body")
                    if body is not None:
                        self._collect_members(body, table)
                elif kind in transparent:
                    # its children before the rest of this level: a stack, not recursion
                    # (see _collect)
                    pending.append(iter(child.named_children))
                    break
                elif kind == "ERROR":
                    self._argument_declaration(child, table)
            else:
                pending.pop()

    def _argument_declaration(self, error: Node, table: dict[str, list[Entry]]) -> None:
        """The declaration that opens a macro's argument of statements, which tree-sitter
        reads as the last parameter of a call it cannot close: the CUDA headers write
        ``NV_IF_ELSE_TARGET(NV_PROVIDES_SM_90, int val; asm(... : "=r"(val) ...); ...)``,
        and the block's table then holds the statements after ``int val`` (the argument's
        later declarations among them) but not ``val``. The macro pastes the argument as
        statements, so ``val`` is declared for the rest of that argument: its entry ends
        where the argument does (the first ``,`` or ``)`` outside parentheses, as the
        preprocessor splits arguments), and where that end is not found it is left out.

        The shape: ``NAME ( ... , T x`` with the parameter last in the error, and the error
        followed by the ``;`` that ends the declaration."""
        last = error.named_children[-1] if error.named_child_count else None
        if last is None or last.type != "parameter_declaration" or last.end_byte != error.end_byte:
            return
        first, opening = error.children[0], error.children[1] if error.child_count > 1 else None
        if first.type != "identifier" or opening is None or opening.type != "(":
            return
        before = last.prev_sibling
        after = error.next_sibling
        if before is None or before.type not in (",", "(") or after is None:
            return
        if after.type != "expression_statement" or after.named_child_count:
            return  # a `;` alone: the declaration's own
        declarator = last.child_by_field_name("declarator")
        if declarator is None or last.child_by_field_name("type") is None:
            return
        until = argument_end(self._bytes, after.end_byte)
        if until is None:
            return
        own: dict[str, list[Entry]] = {}
        self._add_declaration(last, own)
        for name, entries in own.items():
            bounded = [entry._replace(until=until) for entry in entries]
            table.setdefault(name, []).extend(bounded)

    def _collect(self, scope: Node, table: dict[str, list[Entry]]) -> None:
        """Namespace-scope declarations and function definitions of ``scope`` (the file's root),
        through namespaces, ``extern "C"``, ``#if`` blocks and templates."""
        # In document order, through nested #if blocks and namespaces by a stack of the
        # children still to read, not by recursion: #if nested 2,000 deep raised
        # RecursionError, uncached, once per statement of the block.
        # A level's loop stops where it opens a child (its children first) and goes on where
        # it stopped once they are read: ``for`` over each level's iterator, where a ``next``
        # call per child made the walks of the CUDA 13 headers' 43 files run a fifth more
        # lines of Python (typing replayed there: -5.6 M instructions, cachegrind).
        pending: list[Iterator[Node]] = [iter(scope.named_children)]
        while pending:
            for child in pending[-1]:
                kind = child.type
                if kind == "declaration":
                    self._add_declaration(child, table)
                elif kind == "function_definition":
                    self._add_declarator(child, child.child_by_field_name("declarator"), table)
                elif kind == "template_declaration":
                    # function templates: a concrete return type is still usable
                    for inner in child.named_children:
                        if inner.type == "function_definition":
                            decl = inner.child_by_field_name("declarator")
                            self._add_declarator(inner, decl, table)
                        elif inner.type == "declaration":
                            self._add_declaration(inner, table)
                elif kind in TRANSPARENT_STATEMENTS:
                    pending.append(iter(child.named_children))
                    break
                elif kind in ("namespace_definition", "linkage_specification"):
                    body = child.child_by_field_name("body")
                    if body is not None:
                        # ``extern "C" T f();``: the linkage holds the one declaration itself
                        pending.append(iter(body.named_children if body.type ==
                                            "declaration_list" else (body,)))
                        break
            else:
                pending.pop()

    def _add_declaration(self, decl: Node, table: dict[str, list[Entry]]) -> None:
        """``_add_declarator`` for each declarator of ``decl``, with the two common shapes
        (``T x`` and ``T x = v``) read inline: a block table reads every declaration of its
        block, and the calls, field names and ``Node.text`` were most of its cost."""
        fields = self._declaration_fields
        if fields is None:
            language = self._tree.language
            fields = self._declaration_fields = (
                language.field_id_for_name("declarator"),
                language.field_id_for_name("type"),
            )
        declarator_field, type_field = fields
        if declarator_field is None or type_field is None:
            for declarator in decl.children_by_field_name("declarator"):
                self._add_declarator(decl, declarator, table)
            return
        declarators = decl.children_by_field_id(declarator_field)
        if not declarators:
            return
        spec = decl.child_by_field_id(type_field)
        source = self._bytes
        for declarator in declarators:
            kind = declarator.type
            name: Node | None = declarator
            if kind == "init_declarator":
                name = declarator.child_by_field_id(declarator_field)
                if name is None or name.type != "identifier":
                    name = declarator_name(declarator)
            elif kind != "identifier":
                name = declarator_name(declarator)
            if name is None or name.type == "type_identifier":
                continue
            end = name.end_byte
            entry = Entry(end, declarator, spec)
            text = source[name.start_byte : end].decode("utf-8", "replace")
            found = table.get(text)
            if found is None:
                table[text] = [entry]
            else:
                found.append(entry)

    def _add_declarator(
        self,
        owner: Node,
        declarator: Node | None,
        table: dict[str, list[Entry]],
        spec: Node | None = None,
    ) -> None:
        name = declarator_name(declarator)
        if name is None or name.type == "type_identifier":
            return
        if spec is None:
            spec = owner.child_by_field_name("type")
        entry = Entry(name.end_byte, declarator, spec)
        table.setdefault(_text(name), []).append(entry)

    def _collect_members(self, body: Node, table: dict[str, list[Entry]]) -> None:
        for child in body.named_children:
            kind = child.type
            if kind in ("field_declaration", "declaration"):
                declarators = child.children_by_field_name("declarator")
                spec = child.child_by_field_name("type")
                if not declarators and spec is not None and spec.type in RECORD_SPECIFIERS:
                    inner = spec.child_by_field_name("body")
                    if inner is not None and spec.child_by_field_name("name") is None:
                        self._collect_members(inner, table)  # anonymous union/struct members
                for declarator in declarators:
                    self._add_declarator(child, declarator, table)
            elif kind == "function_definition":
                self._add_declarator(child, child.child_by_field_name("declarator"), table)
            elif kind in PREPROC_BLOCKS:
                self._collect_members(child, table)

    def _parameter_list(self, node: Node) -> Node | None:
        """The parameter list of a function definition, lambda or catch clause: that of the
        function declarator nearest the name (``own_function_declarator``), not the list of
        the function pointer a function returns. The declarator is kept for the function's
        out-of-line class (``ScopeLookup._find_out_of_line_class``): the CUDA 13 headers have
        a function for nearly every statement (2,414 for 3,429), each read for both."""
        if node.type == "catch_clause":
            return node.child_by_field_name("parameters")
        own = own_function_declarator(node.child_by_field_name("declarator"))
        self._own_declarators[node.id] = own
        return own.child_by_field_name("parameters") if own is not None else None

    def _parse_alone(self, expression: str) -> Node | None:
        """``expression`` parsed on its own (``syntax_tree.parse_expression``): operands the
        file's tree does not hold repeat a few spellings (the CUDA 13 headers: 4,107 parses
        of 227 texts, from statements inside macro arguments). Kept here as well, so that the
        snippets' trees stay alive, and their node ids are not reused, while the resolver
        keeps them."""
        if expression in self._alone:
            return self._alone[expression]
        node = parse_expression(expression)
        self._alone[expression] = node
        return node

    def _spelled_entry(self, entry: Entry, function_scope: bool) -> tuple[object, ...] | None:
        """A key for the type of ``entry`` that its text decides: its specifier's kind and
        text, its declarator's text, and how it is read (``ScopeLookup._entry_type``), where the
        specifier names a type by its words alone (``SPELLED_SPECIFIERS``: no type name,
        which may be a template parameter where it is written) and the declarator holds no
        brace (a lambda in its initialiser) and no parse error. None for any other entry.
        The declarations of one text share one typing: the CUDA 13 headers' functions each
        declare their result (``_CUDA_VSTD::uint32_t __dest;``), 1,439 entries typed one by
        one. Kept per text, as long as the file's resolver: at most one per entry."""
        spec = entry.specifier
        declarator = entry.declarator
        if spec is None or declarator is None:
            return None
        kind = spec.type
        if kind not in SPELLED_SPECIFIERS:
            return None
        source = self._bytes
        text = source[declarator.start_byte : declarator.end_byte]
        if b"{" in text or declarator.has_error:
            return None
        spelling = source[spec.start_byte : spec.end_byte]
        return (kind, spelling, text, function_scope, entry.parameter)

    # ----------------------------------------------------------------- template parameters

    def _list_entries(self, params: Node, templates: frozenset[str]) -> dict[str, Entry]:
        """The entries of parameter list ``params`` by name (``ScopeLookup._parameter_table``),
        under the type parameter names ``templates`` of the templates around its function: a
        parameter of the same text under the same template parameters has the same name and
        type, so its first entry serves it (see ``_parameter_entries``). A list whose commas
        are all between parameters (``split_parameters``) is read from its text, and a node
        is made only for a parameter of a text not read before.

        What it buys: CUTLASS's GMMA headers spell lists of new texts made mostly of
        parameters read before (``uint32_t & d17``), each of which cost a node, its kind and
        its span: typing CUTLASS's include/ reads 511 of its 539 lists of a new text from
        the text, and 2,708 of their 19,155 parameters from a node. With the template names
        kept per text (``_templates``) and the hidden names per table (``_name_plan``), its
        typing went from 1,969 to 1,940 million instructions (the CUDA 13 headers': 1,516 to
        1,498 million; extraction, then every type read, under cachegrind)."""
        table: dict[str, Entry] = {}
        known = self._parameter_entries
        source = self._bytes
        texts = None
        if not params.has_error:
            texts = split_parameters(source[params.start_byte : params.end_byte])
        if texts is not None and len(texts) == params.named_child_count:
            nodes: list[Node] | None = None
            for k, text in enumerate(texts):
                named_entry = known.get((text, templates))
                if named_entry is None:
                    if nodes is None:
                        nodes = params.named_children
                    param = nodes[k]
                    if source[param.start_byte : param.end_byte] != text:
                        table = {}  # not the list split_parameters took it for: walk it
                        break
                    named_entry = self._parameter_entry(param, text, templates)
                    if named_entry is None:
                        continue
                # the first parameter of a name wins, as the linear scan found it first
                table.setdefault(*named_entry)
            else:
                return table
        for param in params.named_children:
            if param.type not in VALUE_PARAMETERS:
                continue
            text = source[param.start_byte : param.end_byte]
            named_entry = known.get((text, templates))
            if named_entry is None:
                named_entry = self._parameter_entry(param, text, templates)
                if named_entry is None:
                    continue
            table.setdefault(*named_entry)
        return table

    def _parameter_entry(
        self, param: Node, text: bytes, templates: frozenset[str]
    ) -> tuple[str, Entry] | None:
        """The name and entry of the parameter declaration ``param`` (spelled ``text``), kept
        for its text under ``templates`` where nothing else decides its type; None for a
        node that declares no parameter (a comment, ``...``) or none with a name."""
        if param.type not in VALUE_PARAMETERS:
            return None
        declarator = param.child_by_field_name("declarator")
        found = declarator_name(declarator)
        if found is None:
            return None
        spec = param.child_by_field_name("type")
        named_entry = (_text(found), Entry(found.end_byte, declarator, spec, True))
        if b"{" not in text and not param.has_error:
            self._parameter_entries[(text, templates)] = named_entry
        return named_entry

    def _templates(self, node: Node) -> frozenset[str]:
        """The type parameter names of one template declaration, kept per node and read once
        per text of its parameter list (a list tree-sitter read without an error): the names
        are its type parameters' own words. Generated headers repeat a few lists over every
        function (``template <typename _B8, ...>``), each of which was read node by node once
        per function: typing the CUDA 13 headers reads 1,688 template declarations and 110
        texts of their lists, CUTLASS's include/ 488 and 66. Kept as long as the file's
        resolver, one entry per text."""
        key = node.id
        cached = self._template_params.get(key)
        if cached is None:
            params = node.child_by_field_name("parameters")
            text: bytes | None = None
            if params is not None and not params.has_error:
                text = self._bytes[params.start_byte : params.end_byte]
                cached = self._template_texts.get(text)
            if cached is None:
                cached = _type_parameter_names(params)
                if text is not None:
                    self._template_texts[text] = cached
            self._template_params[key] = cached
        return cached


def _type_parameter_names(params: Node | None) -> frozenset[str]:
    """The names of the type parameters (``template <class> class TT`` included) of a
    template parameter list."""
    types: set[str] = set()
    for param in params.named_children if params is not None else []:
        if param.type in TYPE_PARAMETERS:
            for c in param.named_children:
                if c.type == "type_identifier":
                    types.add(_text(c))
                elif c.type in TYPE_PARAMETERS:  # template <class> class TT
                    types.update(
                        _text(t) for t in c.named_children if t.type == "type_identifier"
                    )
    return frozenset(types)


def template_value_parameters(node: Node) -> list[Node]:
    """The value parameter declarations of one template declaration, in order."""
    params = node.child_by_field_name("parameters")
    values: list[Node] = []
    for param in params.named_children if params is not None else []:
        kind = param.type
        if kind not in TYPE_PARAMETERS and (
            kind in VALUE_PARAMETERS or kind.startswith("variadic")
        ):
            values.append(param)
    return values


# A byte that may put a comma inside a parameter (``<a, b>``, ``f(a, b)``, ``{a, b}``, a
# string), hide one (a comment, a directive, a line continuation) or stand for none (``...``)
_NOT_PLAIN = on_first_use(rb"""[\x80-\xff/#\\"'()\[\]{}<>.]""")


def split_parameters(text: bytes) -> list[bytes] | None:
    """The text of each parameter of a parameter list spelled ``text`` (a list tree-sitter
    read without an error), in order, where its commas are all between two parameters: a
    list with none of ``_NOT_PLAIN``'s bytes between its parentheses, whose parameters span
    their texts between two commas less the white space around; else None."""
    if len(text) < 2 or text[0] != 0x28 or text[-1] != 0x29:  # "(" ... ")"
        return None
    inner = text[1:-1]
    if _NOT_PLAIN().search(inner) is not None:
        return None
    return [part.strip() for part in inner.split(b",")]


def argument_end(data: bytes, start: int) -> int | None:
    """The offset of the ``,`` or ``)`` that ends the macro argument holding byte ``start``
    of ``data``: the first outside parentheses opened after ``start``, past string and
    character literals and comments (the preprocessor's split: brackets and braces do not
    group). None where the text ends first or a raw string literal is met (its end is not
    sought here)."""
    depth = 0
    at = start
    stops = _ARGUMENT_STOPS()
    while True:
        found = stops.search(data, at)
        if found is None:
            return None
        token = found.group()
        at = found.end()
        if token == b"(":
            depth += 1
        elif token == b")":
            if not depth:
                return found.start()
            depth -= 1
        elif token == b",":
            if not depth:
                return found.start()
        elif token.endswith(b'R"'):
            return None


# what ``argument_end`` stops at: parentheses, commas, and the literals and comments to step
# over whole (a quote after a digit separates digits: ``1'000``)
_ARGUMENT_STOPS = on_first_use(
    rb"[(),]"
    rb"|(?<![0-9A-Za-z_])(?:u8|[uUL])?R\""
    rb'|"(?:\\.|[^"\\\n])*"'
    rb"|(?<![0-9A-Za-z_])(?:u8|[uUL])?'(?:\\.|[^'\\\n])*'"
    rb"|//[^\n]*|/\*.*?\*/",
    re.S,
)
