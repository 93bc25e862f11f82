"""What kind of address a C++ value holds, followed through the functions of the same file.

PTX301 asks one question of an asm operand: is its value a *shared-window address* (the result
of ``__cvta_generic_to_shared`` or of ``cvta.to.shared``), a *generic address* (a C++ pointer),
or a generic pointer *truncated* to 32 bits (``(uint32_t)(uintptr_t)p``: not a shared address,
though it happens to equal one on today's GPUs)? The answer often lies outside the statement:
in a local variable, in a helper's return value, in the arguments every caller passes for a
parameter. This module follows values that far, one call level deep:

* a local's value is what every assignment in the function gives it (``+=``/``-=`` keep it, and
  so does ``p = p + i``, ``p = &p[i]``: ``value_syntax.offsets_itself``);
* an address aligned down (``p & -16``, ``p & ~uintptr_t(15)``) keeps its kind: the mask
  clears only low bits (``address_masks``);
* a call to a same-file function has the value all its ``return`` statements agree on; a call
  of a member function, those of its object's class (``method_calls.callees``);
* a parameter has the value all the file's call sites pass for it (when there is at least one);
  a member function's, all the calls that may reach it (``method_calls``); a call in a lambda
  may pass anything (its names are not read);
* a data member of the function's class (``m``, ``this->m``) has the value every place that may
  give it one agrees on (``member_values``);
* ``&r`` of a reference is the address of what it was bound to (``&*p`` is ``p``);
* an element's or member's address (``&p[i]``, ``&p->m``, ``&s.a[i]``, ``p + i``) is its base's
  plus an offset, in the base's window, unknown where the base's kind is (``_subscripted``),
  and a reference member's (``&o.r``) unknown: it is the address of what ``r`` is bound to.

Anything else is unknown (``None``), and unknown means the rule keeps its own, type-based view.
Nothing is walked up front. A function's occurrences of a name are found by a search of the
function's body alone (each answer kept per function and name); a name's definitions and call
sites by a search of the file (kept per file). A file's searches (``name_search``) are plain
``bytes.find`` scans until they have cost about what a ``Chunks`` of the file costs to build (12
searches of it: the ski-rental rule); after that each search reads only the pieces of the range
(8 KB each) whose set of words holds the name. Every answer is memoised per function, variable and
expression node.

Per occurrence of a name in a function, the node is found by one descent from the function's
node (O(depth)); the climb to the innermost function around it (each tree-sitter ``parent`` step
a descent from the root) is paid only by the few occurrences whose parent may give the name a
value (a declarator, an assignment's left side, ``++``, ``&``, an asm output), not by its uses.

Measured (a sampling profile of a flashinfer folder sample):
- Finding a function's occurrences cost 6.0% of a lint with the whole-file index (the first
  choice), and 4.5% with the body searched per name.
- An asm-bearing function is most of its file and is asked about 20-170 names, so a per-name
  search of the whole file for every name did not pay either.
Measured (flashinfer's include and csrc, in process, CPU seconds in
``operand_value``: 11.4 s before, of a 71 s lint):
- A search costs 0.37 ns a byte plus 150 ns a raw occurrence of the name; an index of every
  token's offsets 20 ns a byte (regex tokenising: 9 ns of it), so it paid after about 55
  searches of the file, not after 16 names as first estimated. csrc/kda asked 10-40 names of
  the file and searched its bodies 69 times the files' bytes (3.4 GB in all, 1.3 s).
- A tree-sitter query over a body (to list only the occurrences that give a name a value)
  costs 27-39 ns a byte: dearer than the searches. Nearly every searched body holds a parse
  error, so no lexical shortcut that needs an error-free tree (what may follow a declarator)
  would apply.
- ``_Chunks``: about 5 ns a byte to build (translate, split, a set per piece); a search then
  reads about a quarter of its range. Whole-file answers shared by the functions that ask
  about the same name read more pieces (0.40 s against 0.19 s on csrc/cake_sampling): kept
  per body. ``operand_value`` went to 8.5 s (kda 2.8 -> 1.6 s, cake_dsv4 2.5 -> 1.9 s).
- What is left is spread thin: the searches (about a third), the descents, and the value
  recursion's per-node steps (about 9 nodes per operand). Freeing an evicted file's facts
  frees its tree (2.7% of the in-process lint, which never calls ``file_memos.release``).
Then the chunks' sets came to hold whole tokens, so a function of many names sharing their
letters (``q0`` ... ``q4000``) is linear again (see the class); ``operand_value`` on kda and
cake_dsv4 unchanged (3.83-3.99 s against 3.83-3.86 s).
"""

from __future__ import annotations

import bisect
import re
import weakref
from collections.abc import Sequence
from enum import Enum

import tree_sitter

from ptxlint import file_memos
from ptxlint.analysis.address_masks import CASTS as _CASTS
from ptxlint.analysis.address_masks import INT64 as _INT64
from ptxlint.analysis.address_masks import clears_only_low_bits
from ptxlint.analysis.local_storage import automatic_declaration
from ptxlint.analysis.member_values import Members
from ptxlint.analysis.method_calls import MethodCalls
from ptxlint.analysis.name_roles import NameRoles
from ptxlint.analysis.name_search import IDENTIFIER as _IDENTIFIER
from ptxlint.analysis.name_search import RAW_HIT_BYTES as _RAW_HIT_BYTES
from ptxlint.analysis.name_search import SEARCH_BUDGET as _SEARCH_BUDGET
from ptxlint.analysis.name_search import Chunks as _Chunks
from ptxlint.analysis.name_search import token_search as _token_search
from ptxlint.analysis.shared_makers import makes_shared_pointers as _makes_shared_pointers
from ptxlint.analysis.shared_makers import spells_shared_makers
from ptxlint.analysis.value_functions import Assigned
from ptxlint.analysis.value_functions import Function as _Function
from ptxlint.analysis.value_functions import describe as _describe
from ptxlint.analysis.value_syntax import arguments as _arguments
from ptxlint.analysis.value_syntax import array_rank as _array_rank
from ptxlint.analysis.value_syntax import callee as _callee
from ptxlint.analysis.value_syntax import declaring_declarator as _declared
from ptxlint.analysis.value_syntax import member_callee as _member_callee
from ptxlint.analysis.value_syntax import offsets_itself as _offsets_itself
from ptxlint.analysis.value_syntax import same_node as _same_node
from ptxlint.frontends.syntax_tree import (
    ParsedSource,
    ancestors_of,
    parse,
)
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement, Operand, SourceFile
from ptxlint.ptx.address_values import SHARED_ADDRESS_HELPERS

__all__ = ["TEMPLATE_WORDS", "Value", "holds_shared_address", "local_address_operand",
           "operand_value"]


class Value(str, Enum):
    SHARED = "shared"  # a shared-window address (any width)
    GENERIC = "generic"  # certainly a generic address: &x, an array, a copy of one
    POINTER = "pointer"  # a C++ pointer whose origin is not known here
    TRUNCATED = "truncated"  # the low 32 bits of a generic address
    # A pointer parameter no call site in the file explains, in a file that itself turns
    # pointers into shared-window pointers (nccl's shmemCvtPtr): it may well hold one.
    MAYBE_SHARED = "maybe-shared"
    # A shared-window conversion of an automatic local's address (``local_storage``): no
    # address of shared memory at all.
    LOCAL = "local"
    # What ``mapa.shared::cluster`` writes: an address in the cluster's shared window, of the
    # CTA it names (most often another one), not in the executing CTA's ``.shared::cta`` window.
    CLUSTER = "cluster"


_MARKERS = {"array": Value.GENERIC, "shared": Value.SHARED, "generic": Value.GENERIC,
            "cluster": Value.CLUSTER}
_NOT_MEMBER = object()  # ``_member``'s "the name is no data member of the function's class"

# All that value flow reads of an asm template (``_asm_result``, ``makes_shared_pointers``)
# spells one of these: an edit of a template without them, before and after, changes no value
# (the language server's re-lint keeps the other statements' "values"-scoped verdicts, see
# ``Rule.scope``). A new read of template text must add its words here.
TEMPLATE_WORDS: tuple[str, ...] = ("cvta", "mapa")


_MAX_DEPTH = 3  # statement -> parameter -> call-site argument -> helper's return value
_INT32 = on_first_use(
    r"^(?:const\s+)?(?:unsigned(?:\s+int)?|int|signed(?:\s+int)?|uint32_t|int32_t|uint|u32"
    r"|std::uint32_t|std::int32_t|uint32|unsigned\s+int)$"
)
# Markers for an assignment that is not an expression to classify.
_KEEP = "keep"  # `x += n`, `++x`: an offset keeps the kind of address
_UNKNOWN = "unknown"  # an asm output, `x |= m`, `&x` taken: anything may be in it
_ARRAY = "array"  # `T x[N]`: the name decays to a generic address


def _text(parsed: ParsedSource, node: tree_sitter.Node) -> str:
    return parsed.node_text(node)


_FUNCTION_NODES = ("function_definition", "lambda_expression")


_MISSING = object()  # a memo's "not worked out yet" (None is an answer)
# The parents of an identifier that may give it a value (see ``_assignments``).
_DECLARING = frozenset(
    {"init_declarator", "pointer_declarator", "array_declarator", "reference_declarator",
     "declaration"}
)
_GIVING = _DECLARING | {
    "assignment_expression", "update_expression", "pointer_expression", "gnu_asm_output_operand"
}


class _FileFacts:
    """One file's tree and the facts asked of it so far. Nothing is walked up front: a function
    is indexed when a statement in it (or a call to it) is first asked about, and a name's
    definitions and call sites are looked up once, by a search of the file's bytes."""

    def __init__(self, source: SourceFile, parsed: ParsedSource | None = None) -> None:
        self.source = source
        self.parsed = parsed if parsed is not None else parse(source.path, source.text)
        self.data = self.parsed.data
        self.functions: dict[tuple[int, int], _Function] = {}  # by the definition's bytes
        self._occurrences_of: dict[bytes, list[int]] = {}  # in the whole file, by name
        self._chunks: _Chunks | None = None  # built once searches cost enough (``_search``)
        self._searched = 0  # what the searches without it cost so far, in bytes
        # The readers below hold a proxy, not the facts: a cycle would keep the file's tree
        # alive until the collector ran (tests/test_collector.py: each tree dies with the
        # file's outcome, by reference counting alone).
        self._names = NameRoles(weakref.proxy(self))  # definitions, call sites, arrays
        self._definitions: dict[str, list[_Function]] = {}
        # with their callers, by callee name and whether through an object
        self._calls: dict[tuple[str, bool], list[tuple[tree_sitter.Node, _Function]]] = {}
        self._method_calls: MethodCalls | None = None
        self._methods: dict[str, list[_Function]] = {}  # (``methods``)
        self._outside: dict[tuple[str, bool], list[tree_sitter.Node]] = {}  # (``calls``)
        self._memo: dict[tuple[int, int, bool], Value | None] = {}
        self._busy: set[tuple[int, int, bool]] = set()
        self._makes_shared_pointers: bool | None = None
        # node id -> the innermost function or lambda around it (None: none)
        self._function_around: dict[int, tree_sitter.Node | None] = {}
        # the file's linted statements, when the caller has them (``operand_value``)
        self.statements: Sequence[AsmStatement] | None = None
        self._members: Members | None = None

    # ------------------------------------------------------------------ structure, on demand

    def _node_at(self, start: int, end: int) -> tree_sitter.Node | None:
        if not self.parsed.reads(start, end):
            return None  # left out of a part's parse: the part is linted again with it
        return self.parsed.positions().root_node.descendant_for_byte_range(start, end)

    def _around(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """The innermost function definition or lambda strictly around ``node``.

        Memoised for every node the climb passes: each ``parent`` step of tree-sitter is a
        descent from the root, and the occurrences of a name in a big kernel share most of
        their ancestors, so a climb stops at the first ancestor already climbed from."""
        memo = self._function_around
        passed: list[int] = []
        found: tree_sitter.Node | None = None
        # the ancestors by one descent from the root: a parent step per level cost the square
        # of the depth (one asm under 20,000 nested #if blocks: 16 s)
        for current in ancestors_of(self.parsed.positions().root_node, node):
            if current.type in _FUNCTION_NODES:
                found = current
                break
            known = memo.get(current.id, _MISSING)
            if known is not _MISSING:
                found = known  # type: ignore[assignment]
                break
            passed.append(current.id)
        for key in passed:
            memo[key] = found
        return found

    node_at, around = _node_at, _around  # (``member_values``' and ``name_roles``' readers)

    def function_of(self, node: tree_sitter.Node) -> _Function | None:
        """The innermost function definition around ``node`` (None inside a lambda)."""
        current = self._around(node)
        if current is None or current.type != "function_definition":
            return None
        return self._function(current)

    def _function(self, node: tree_sitter.Node) -> _Function:
        key = (node.start_byte, node.end_byte)
        fn = self.functions.get(key)
        if fn is None:
            fn = self.functions[key] = _describe(self.parsed, node)
        return fn

    def _search(self, name: bytes, start: int, end: int) -> list[int]:
        """``_token_starts(self.data, name, start, end)``, by a search of the range until the
        file's searches have cost ``_SEARCH_BUDGET`` times its bytes, and through the file's
        ``_Chunks`` after: the ski-rental rule, so a file never pays much more than twice the
        cheaper of the two, and a file asked about few names pays a fraction of the chunks."""
        chunks = self._chunks
        if chunks is None:
            if self._searched < _SEARCH_BUDGET * len(self.data):
                found, raw = _token_search(self.data, name, start, end)
                self._searched += end - start + raw * _RAW_HIT_BYTES
                return found
            chunks = self._chunks = _Chunks(self.data)
        return chunks.token_starts(name, start, end)

    def _offsets(self, name: bytes) -> list[int]:
        """Where the identifier-like token ``name`` occurs in the file (every maximal
        ``[A-Za-z_]\\w*`` run, comments and strings included), in increasing order."""
        found = self._occurrences_of.get(name)
        if found is None:
            found = self._occurrences_of[name] = self._search(name, 0, len(self.data))
        return found

    offsets = _offsets  # (``member_values``' and ``name_roles``' readers)

    def _occurrences(self, fn: _Function, name: str) -> list[int]:
        """Where ``name`` occurs in ``fn``'s body as a token of the file (a body starts with
        "{" or "try" and ends with "}", so no token straddles its bounds). Searched in the body
        alone, and kept by the callers per function and name: the whole file's occurrences of
        a name that several functions ask about cost more (the chunks of functions never asked
        are read too: 0.40 s against 0.19 on csrc/cake_sampling)."""
        body = fn.node.child_by_field_name("body")
        if body is None:
            return []
        encoded = name.encode()
        every = self._occurrences_of.get(encoded)
        if every is not None:  # the whole file was searched for it (``_named``)
            return every[
                bisect.bisect_left(every, body.start_byte) : bisect.bisect_left(
                    every, body.end_byte
                )
            ]
        return self._search(encoded, body.start_byte, body.end_byte)

    def _owned(self, node: tree_sitter.Node, fn: _Function) -> bool:
        """``node`` belongs to ``fn`` itself, not to a lambda or local class inside it."""
        current = self._around(node)
        return current is not None and _same_node(current, fn.node)

    def _assignments(self, fn: _Function, name: str) -> tuple[list[Assigned], bool]:
        """What ``name`` is given in ``fn`` (declarations, assignments, asm outputs), and
        whether ``fn`` declares it as a pointer."""
        cached = fn.assigned.get(name)
        if cached is not None:
            return cached
        assigned: list[Assigned] = []
        pointer = False
        size = len(name.encode())
        top = fn.node
        for offset in self._occurrences(fn, name):
            # From the function down, not from the root: the root's descent passes through it
            node = top.descendant_for_byte_range(offset, offset + size)
            if node is None or node.type != "identifier":
                continue
            parent = node.parent
            if parent is None:
                continue
            kind = parent.type
            # Most occurrences are uses: the climb to the function around is paid only for
            # the few that may give the name a value.
            if kind not in _GIVING or not self._owned(node, fn):
                continue
            if kind in _DECLARING:
                declared, is_pointer, is_array = _declared(node)
                if declared is None:
                    continue
                pointer = pointer or is_pointer
                fn.declared.add(name)
                if parent.type == "reference_declarator":
                    fn.declared_references.add(name)
                # `T (*p)[4]` declares a pointer (to an array): its value is its initializer's
                rank = _array_rank(node) if is_array else 0
                if rank:
                    assigned.append(_ARRAY)
                    fn.array_ranks[name] = min(rank, fn.array_ranks.get(name, rank))
                elif declared.type == "init_declarator":
                    value = declared.child_by_field_name("value")
                    if value is not None and value.type not in (
                        "initializer_list",
                        "argument_list",
                    ):
                        assigned.append(value)
                    elif value is not None:
                        assigned.append(_UNKNOWN)
            elif kind == "assignment_expression" and parent.child_by_field_name("left") == node:
                op = parent.child_by_field_name("operator")
                operator = op.type if op is not None else "="
                right = parent.child_by_field_name("right")
                if operator == "=" and right is not None:
                    # `p = p + i`, `p = &p[i]`: an offset keeps the kind, as `p += i` does
                    assigned.append(_KEEP if _offsets_itself(self.parsed, right, name) else right)
                else:
                    assigned.append(_KEEP if operator in ("+=", "-=") else _UNKNOWN)
            elif kind == "update_expression":
                assigned.append(_KEEP)
            elif kind == "pointer_expression":
                op = parent.child_by_field_name("operator")
                if op is not None and op.type == "&":
                    assigned.append(_UNKNOWN)  # its address escapes: anything may be stored
            elif kind == "gnu_asm_output_operand":
                holder = parent.parent
                assigned.append(self._asm_result(holder.parent if holder is not None else None))
        result = (assigned, pointer)
        fn.assigned[name] = result
        return result

    def _asm_result(self, asm: tree_sitter.Node | None) -> Assigned:
        if asm is None or asm.type != "gnu_asm_expression":
            return _UNKNOWN
        template = asm.child_by_field_name("assembly_code")
        text = _text(self.parsed, template) if template is not None else ""
        if "cvta.to.shared" in text:
            return "shared"
        if re.search(r"\bcvta\.shared", text):
            return "generic"
        if "mapa.shared::cluster" in text:
            return "cluster"
        return _UNKNOWN

    def _returns_of(self, fn: _Function) -> list[tree_sitter.Node]:
        if fn.returns is None:
            found = []
            for offset in self._occurrences(fn, "return"):
                node = fn.node.descendant_for_byte_range(offset, offset + 6)
                statement = node.parent if node is not None else None
                if (
                    statement is not None
                    and statement.type == "return_statement"
                    and self._owned(statement, fn)
                ):
                    value = next(iter(statement.named_children), None)
                    if value is not None:
                        found.append(value)
            fn.returns = found
        return fn.returns

    def definitions(self, name: str) -> list[_Function]:
        """The file's definitions of functions named ``name``."""
        found = self._definitions.get(name)
        if found is None:
            found = self._definitions[name] = [
                self._function(d) for d in self._names.of(name).definitions
            ]
        return found

    def calls(self, name: str, members: bool = False) -> list[tuple[tree_sitter.Node, _Function]]:
        """The calls of ``name`` inside functions, with their caller (with ``members``, the
        calls through an object, ``o.name(x)``). Only a parameter's value asks for the callers
        (a climb per call site), so ``name_roles`` leaves them out."""
        found = self._calls.get((name, members))
        if found is None:
            found = []
            outside = []
            roles = self._names.of(name)
            for site in roles.member_calls if members else roles.calls:
                caller = self.function_of(site)
                if caller is not None:
                    found.append((site, caller))
                else:
                    outside.append(site)
            self._calls[(name, members)] = found
            self._outside[(name, members)] = outside
        return found

    def calls_outside(self, name: str, members: bool = False) -> list[tree_sitter.Node]:
        """The calls of ``name`` in no function definition's own body: in a lambda, whose
        names value flow does not read, or at namespace scope (an initializer)."""
        self.calls(name, members)
        return self._outside[(name, members)]

    def methods(self, name: str) -> list[_Function]:
        """The member functions named ``name`` defined in a class's body (a member function
        template's are among ``definitions``)."""
        found = self._methods.get(name)
        if found is None:
            found = self._methods[name] = [self._function(d) for d in self._names.of(name).methods]
        return found

    def file_array(self, name: str) -> bool:
        """``name`` is an array declared at namespace scope (``extern __shared__ char s[];``)."""
        return self._names.of(name).file_array

    # ------------------------------------------------------------------ queries, memoised

    def value(
        self, node: tree_sitter.Node, fn: _Function, depth: int, params: bool
    ) -> Value | None:
        key = (node.id, depth, params)
        known = self._memo.get(key, _MISSING)
        if known is not _MISSING:
            return known  # type: ignore[return-value]
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
            if op is None or op.type != "&":
                return None
            argument = node.child_by_field_name("argument")
            return self._address_of(argument, fn, depth, params) if argument is not None else None
        if kind == "this":
            return self._this(fn)
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
        if kind == "field_expression":  # `this->m`: a member of the function's class
            argument = node.child_by_field_name("argument")
            field = node.child_by_field_name("field")
            if argument is None or argument.type != "this" or field is None:
                return None
            member = self._member(_text(self.parsed, field), fn, depth, params)
            return None if member is _NOT_MEMBER else member  # type: ignore[return-value]
        if kind == "call_expression":
            return self._call(node, fn, depth, params)
        return None

    def _binary(
        self, node: tree_sitter.Node, fn: _Function, depth: int, params: bool
    ) -> Value | None:
        op = node.child_by_field_name("operator")
        if op is None or op.type not in ("+", "-", "&"):  # most index arithmetic: no node fetched
            return None
        left = node.child_by_field_name("left")
        right = node.child_by_field_name("right")
        if left is None or right is None:
            return None
        if op.type == "&":
            # Aligning an address down clears only its low bits: it stays in its window.
            if clears_only_low_bits(self.parsed, right):
                return self.value(left, fn, depth, params)
            if clears_only_low_bits(self.parsed, left):
                return self.value(right, fn, depth, params)
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
        name, targs = _callee(self.parsed, node)
        args = _arguments(node)
        if name is None:
            name = _member_callee(self.parsed, node)  # `o.f(x)`: o's class's member function
            if name is None:
                return None
        elif name in SHARED_ADDRESS_HELPERS:
            local = len(args) == 1 and self.local_address(args[0], fn) is not None
            return Value.LOCAL if local else Value.SHARED
        if name in _CASTS and targs is not None and len(args) == 1:
            return _cast(
                _text(self.parsed, targs)[1:-1].strip(), self.value(args[0], fn, depth, params)
            )
        if len(args) == 1 and (_INT32().match(name) or _INT64().match(name)):
            return _cast(name, self.value(args[0], fn, depth, params))
        if depth >= _MAX_DEPTH:
            return None
        callees = [f for f in self.definitions(name) if len(f.params) == len(args)]
        named = [*callees, *(f for f in self.methods(name) if len(f.params) == len(args))]
        chosen = self._method_calls_of().callees(node, fn.node, [f.node for f in named])
        if chosen is not None:  # a member function's call (``method_calls``)
            callees = [self._function(d) for d in chosen]
        if not callees:
            return None
        found = {self._returns(f, depth + 1, params) for f in callees}
        return found.pop() if len(found) == 1 else None

    def local_address(self, node: tree_sitter.Node, fn: _Function) -> tree_sitter.Node | None:
        """The declaration of the automatic local (``local_storage``) whose address, or an
        element's or member's of it, ``node`` is (``&bar``, ``&bars[i]``, ``&s.bar``, an
        array's name); None for anything else, where ``fn`` declares the name as a parameter,
        or where one of its declarations of it is no automatic local's."""
        while node.type == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
        array = node.type == "identifier"
        if node.type == "pointer_expression" and _text(self.parsed, node)[:1] == "&":
            argument = node.child_by_field_name("argument")
            while argument is not None and argument.type in ("subscript_expression",
                                                             "field_expression"):
                if _text(self.parsed, argument).find("->") >= 0:
                    return None  # a member through a pointer: wherever the pointer points
                argument = argument.named_children[0] if argument.named_children else None
            node = argument if argument is not None else node
        if node.type != "identifier":
            return None
        name = _text(self.parsed, node)
        if name in fn.param_index:
            return None
        found: list[tuple[tree_sitter.Node, bool]] = []
        for offset in self._occurrences(fn, name):
            at = fn.node.descendant_for_byte_range(offset, offset + len(name.encode()))
            if at is None or at.type != "identifier" or at.parent is None \
                    or at.parent.type not in _DECLARING:
                continue
            # None for a use (in an initializer, an array's size), not the name declared
            declarator, _, declares_array = _declared(at)
            if declarator is not None and declarator.parent is not None and self._owned(at, fn):
                found.append((declarator.parent, declares_array))
        # a name declared in several blocks (two loops' `half value`) is a local's in each
        if not found or not all(automatic_declaration(self.parsed, declaration) and (
                declares_array or not array) for declaration, declares_array in found):
            return None  # (a scalar's name is its value, not its address)
        return found[0][0]

    def _returns(self, fn: _Function, depth: int, params: bool) -> Value | None:
        returns = self._returns_of(fn)
        if not returns:
            return None
        found = {self.value(r, fn, depth, params) for r in returns}
        return found.pop() if len(found) == 1 else None

    def _variable(self, name: str, fn: _Function, depth: int, params: bool) -> Value | None:
        found: set[Value | None] = set()
        assigned, pointer = self._assignments(fn, name)
        param = fn.param_index.get(name)
        if param is None and name not in fn.declared:
            member = self._member(name, fn, depth, params)
            if member is not _NOT_MEMBER:
                return member  # type: ignore[return-value]
        if param is not None:
            pointer = fn.params[param][1]
            found.add(self._parameter(fn, param, depth, params) if params else None)
        elif not assigned:
            return Value.GENERIC if self.file_array(name) else None
        for item in assigned:
            if isinstance(item, str):
                if item != _KEEP:
                    found.add(_MARKERS.get(item))
            else:
                found.add(self.value(item, fn, depth, params))
        if len(found) == 1:
            only = found.pop()
            if only is not None:
                return only
        if pointer and param is not None and found <= {None} and self.makes_shared_pointers():
            return Value.MAYBE_SHARED
        return Value.POINTER if pointer else None

    def _member(self, name: str, fn: _Function, depth: int, params: bool) -> object:
        """The value data member ``name`` of ``fn``'s class holds as ``fn`` sees it: the one
        kind every site that may give it a value agrees on (``member_values``), else
        ``Value.POINTER`` for a pointer member and None; ``_NOT_MEMBER`` where the class (as
        the file defines it) declares no such member."""
        members = self._members_of()
        found = members.value(name, fn.node, depth, params)
        if found is None:
            return _NOT_MEMBER
        if members.is_array(fn.node, name):
            return self._this(fn)  # the array inside the object: `this`'s address, offset
        only, pointer = found
        return only if only is not None else (Value.POINTER if pointer else None)

    def _method_calls_of(self) -> MethodCalls:
        if self._method_calls is None:
            self._method_calls = MethodCalls(self.parsed)
        return self._method_calls

    def _members_of(self) -> Members:
        if self._members is None:
            me = weakref.proxy(self)
            self._members = Members(me, lambda node, name: me._shadows(node, name),
                                    _MAX_DEPTH)
        return self._members

    def value_in(
        self, node: tree_sitter.Node, where: tree_sitter.Node, depth: int, params: bool
    ) -> Value | None:
        """``value`` of ``node`` in function definition ``where``, or in the class scope of
        a default member initializer's ``field_declaration`` (``member_values.FileReader``)."""
        in_class = where.type != "function_definition"
        owner = _Function(where, None, []) if in_class else self._function(where)
        return self.value(node, owner, depth, params)

    def asm_value(self, asm: tree_sitter.Node) -> Value | None:
        """What an asm statement writes to its outputs (``member_values.FileReader``)."""
        marker = self._asm_result(asm)
        return _MARKERS.get(marker) if isinstance(marker, str) else None

    def _shadows(self, node: tree_sitter.Node, name: str) -> bool:
        """Function ``node`` has its own parameter or local named ``name``."""
        fn = self._function(node)
        self._assignments(fn, name)
        return name in fn.param_index or name in fn.declared

    def _address_of(
        self, node: tree_sitter.Node, fn: _Function, depth: int, params: bool
    ) -> Value | None:
        """The kind of address ``&node`` is, where a reference is bound to ``node``. A
        variable's is generic; ``&*p`` is ``p``'s value. An element's (``&p[i]``, ``&a[i][j]``)
        or a member's (``&p->m``, ``&s.m``, ``&this->m``, ``&m``) is the address of the object
        its base designates plus an offset ([expr.sub], [expr.add]): the same window as the
        base's, unknown where the base's is (``&p[i]`` of a pointer converted in place with
        ``cvta.to.shared`` is a shared-window address, converting it again is wrong). A
        reference's is the address of what it was bound to (``T& r`` bound to ``*p`` of a
        shared-window pointer holds that address: NvCloth's ``Reference(T& ref) :
        mPtr(&ref)``)."""
        while node.type == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
        kind = node.type
        if kind == "identifier":
            name = _text(self.parsed, node)
            assigned, _ = self._assignments(fn, name)
            if name not in fn.declared_references:
                members = self._members_of()
                if (
                    name not in fn.declared
                    and name not in fn.param_index
                    and members.member_class(fn.node, name) is not None
                ):  # `&m`: `&this->m`; a reference member's is what it is bound to's
                    return None if members.reference_field(name) else self._this(fn)
                return Value.GENERIC  # a variable's address
            param = fn.param_index.get(name)
            if param is not None:
                bound = self._parameter(fn, param, depth, params, bound=True) if params else None
                if bound is None:  # no call site explains it: a variable's address, unless
                    # the file makes shared-window pointers, which `*p` binds it through
                    return Value.MAYBE_SHARED if self.makes_shared_pointers() else Value.GENERIC
                return bound
            found = {
                self._address_of(a, fn, depth + 1, params)
                if isinstance(a, tree_sitter.Node) and depth < _MAX_DEPTH
                else None
                for a in assigned
            }
            return found.pop() if len(found) == 1 else None
        if kind == "pointer_expression":
            op = node.child_by_field_name("operator")
            inner = node.child_by_field_name("argument")
            if op is not None and op.type == "*" and inner is not None:
                return self.value(inner, fn, depth, params)
        elif kind == "subscript_expression":
            return self._subscripted(node, fn, depth, params)
        elif kind == "field_expression":
            argument = node.child_by_field_name("argument")
            op = node.child_by_field_name("operator")
            field = node.child_by_field_name("field")
            if argument is None or op is None or field is None:
                return None
            if self._members_of().reference_field(_text(self.parsed, field)):
                return None  # the address of what the reference member is bound to
            if op.type == "->":  # inside the object the pointer points to
                return self.value(argument, fn, depth, params)
            return self._address_of(argument, fn, depth, params)  # inside the object
        return None

    def _subscripted(
        self, node: tree_sitter.Node, fn: _Function, depth: int, params: bool
    ) -> Value | None:
        """The kind of address the base of subscript ``node`` (``B[i]``, which is ``*(B + i)``)
        gives: a pointer's value, an array's address (``this``'s, an array member's). Of
        ``a[i][j]`` only where ``a`` is an array of that many dimensions (``T a[2][64]``): of an
        array of pointers or a pointer to pointers, ``a[i]`` is a pointer loaded from memory,
        whose kind is unknown."""
        base = node.child_by_field_name("argument")
        rank = 1
        while base is not None:
            while base.type == "parenthesized_expression" and base.named_child_count == 1:
                base = base.named_children[0]
            if base.type != "subscript_expression":
                break
            rank += 1
            base = base.child_by_field_name("argument")
        if base is None:
            return None
        if rank > 1:
            return self.value(base, fn, depth, params) if self._array_rank(base, fn) >= rank \
                else None
        if base.type == "field_expression":
            argument = base.child_by_field_name("argument")
            field = base.child_by_field_name("field")
            if (
                argument is not None
                and argument.type != "this"
                and field is not None
                and self._members_of().array_field(_text(self.parsed, field))
            ):
                return self._address_of(base, fn, depth, params)  # `s.arr[i]`, `p->arr[i]`
        return self.value(base, fn, depth, params)

    def _array_rank(self, node: tree_sitter.Node, fn: _Function) -> int:
        """How many array dimensions name ``node`` has (``value_syntax.array_rank``): a local
        array's, else a namespace-scope array's; 0 for anything else."""
        if node.type != "identifier":
            return 0
        name = _text(self.parsed, node)
        self._assignments(fn, name)  # (fills ``declared`` and ``array_ranks``)
        if name in fn.param_index:
            return 0
        if name in fn.declared:
            return fn.array_ranks.get(name, 0)
        roles = self._names.of(name)
        return roles.array_rank if roles.file_array else 0

    def _this(self, fn: _Function) -> Value | None:
        """The kind of address ``this`` is: an object's, generic, except in a file that makes
        shared-window pointers (the object may have been reached through one), as a pointer
        parameter no call site explains is."""
        return Value.MAYBE_SHARED if self.makes_shared_pointers() else Value.GENERIC

    def makes_shared_pointers(self) -> bool:
        """Some function of the file returns ``cvta.to.shared``'s result typed as a pointer
        (``shared_makers.makes_shared_pointers``)."""
        if self._makes_shared_pointers is None:
            self._makes_shared_pointers = _makes_shared_pointers(self)
        return self._makes_shared_pointers

    def pointer_function(self, node: tree_sitter.Node) -> tree_sitter.Node | None:
        """The function definition around ``node`` where it returns a pointer
        (``shared_makers.FileReader``)."""
        fn = self.function_of(node)
        declarator = fn.node.child_by_field_name("declarator") if fn is not None else None
        if fn is None or declarator is None or declarator.type != "pointer_declarator":
            return None
        return fn.node

    def returns_shared(self, function: tree_sitter.Node) -> bool:
        return self._returns(self._function(function), 1, False) is Value.SHARED

    def returned(self, function: tree_sitter.Node) -> list[tree_sitter.Node]:
        return self._returns_of(self._function(function))

    def _parameter(
        self, fn: _Function, index: int, depth: int, params: bool, bound: bool = False
    ) -> Value | None:
        """What every call site in the file passes for parameter ``index`` of ``fn``; with
        ``bound``, the address of what each binds the reference parameter to."""
        if fn.name is None or depth >= _MAX_DEPTH:
            return None
        classes = self._method_calls_of()
        cls = classes.class_of(fn.node)
        overloads = [f for f in self.definitions(fn.name) if len(f.params) == len(fn.params)]
        sites = [
            (call, caller)
            for call, caller in self.calls(fn.name)
            if len(_arguments(call)) == len(fn.params)
        ]
        # a call whose argument value flow cannot read (in a lambda) may pass anything
        unread = any(
            len(_arguments(call)) == len(fn.params)
            for members in ((False, True) if cls is not None else (False,))
            for call in self.calls_outside(fn.name, members)
        )
        if cls is not None:  # a member function: its class's overloads, the calls that may
            # reach it (``method_calls``), through an object too
            named = (*self.definitions(fn.name), *self.methods(fn.name))
            defining = classes.defining(fn.name, [f.node for f in named])
            overloads = [
                f for f in named
                if len(f.params) == len(fn.params) and classes.class_of(f.node) == cls
            ]
            sites = [
                (call, caller)
                for call, caller in (*sites, *self.calls(fn.name, members=True))
                if len(_arguments(call)) == len(fn.params)
                and classes.may_call(cls, call, caller.node, defining)
            ]
        if len(overloads) != 1:
            return None  # cannot tell which overload a call picks
        if not sites:
            return None
        passed = self._address_of if bound else self.value
        found = {
            passed(_arguments(call)[index], caller, depth + 1, params) for call, caller in sites
        }
        if unread:
            found.add(None)
        if len(found) == 1:
            return found.pop()
        # Callers disagree: when one of them passes a plain pointer, so may the parameter hold.
        return Value.POINTER if found & {Value.GENERIC, Value.POINTER} else None


def _cast(spelling: str, inner: Value | None) -> Value | None:
    spelling = " ".join(spelling.split())
    if inner is None:
        return Value.POINTER if spelling.endswith("*") else None
    if spelling.endswith("*"):
        return inner
    if _INT32().match(spelling):
        return Value.TRUNCATED if inner in (Value.GENERIC, Value.POINTER) else inner
    if _INT64().match(spelling):
        return inner
    return None


# --------------------------------------------------------------------------- entry point

_CACHE: dict[int, _FileFacts] = {}
file_memos.register(_CACHE.clear)
_CACHE_SIZE = 4


def _facts(
    source: SourceFile,
    parsed: ParsedSource | None,
    statements: Sequence[AsmStatement] | None = None,
) -> _FileFacts:
    facts = _CACHE.get(id(source))
    if facts is None or facts.source is not source:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        if parsed is not None and parsed.text != source.text:
            parsed = None  # the tree of other text (a fix pass): parse this one
        facts = _CACHE[id(source)] = _FileFacts(source, parsed)
    if statements is not None and facts.statements is None:
        facts.statements = statements
        if facts._makes_shared_pointers is False:
            # answered from the tree alone, and the values that asked: ask again
            facts._makes_shared_pointers = None
            facts._memo.clear()
            facts._members = None
    return facts


def _expression_node(facts: _FileFacts, operand: Operand) -> tree_sitter.Node | None:
    parsed = facts.parsed
    start = parsed.to_byte(operand.expression_span.start)
    end = parsed.to_byte(operand.expression_span.end)
    node = parsed.positions().root_node.descendant_for_byte_range(start, end)
    while node is not None and (node.start_byte, node.end_byte) == (start, end):
        parent = node.parent
        if parent is None or (parent.start_byte, parent.end_byte) != (start, end):
            break
        node = parent
    if node is None or (node.start_byte, node.end_byte) != (start, end) or node.has_error:
        return None
    return node


def holds_shared_address(
    statement: AsmStatement,
    operand: Operand,
    parsed: object | None = None,
    file_statements: Sequence[AsmStatement] | None = None,
) -> bool:
    """Whether ``operand`` holds a shared-window address (``operand_value`` is
    ``Value.SHARED``). Value flow finds one only where the file spells what makes one (a helper
    of ``SHARED_ADDRESS_HELPERS``, ``cvta.to.shared``); a file that spells neither is answered
    by one search of its text, without following any value: over the CUDA 13 headers the
    value flow follows 60 operands instead of 1,856 (0.074 s of CPU -> 0.003 s)."""
    if not spells_shared_makers(statement.source):
        return False
    return operand_value(statement, operand, True, parsed, file_statements) is Value.SHARED


def operand_value(
    statement: AsmStatement,
    operand: Operand,
    through_parameters: bool = True,
    parsed: object | None = None,
    file_statements: Sequence[AsmStatement] | None = None,
) -> Value | None:
    """The kind of address ``operand`` holds, from the functions of its file; ``None`` when
    unknown. ``through_parameters=False`` leaves out what call sites pass for parameters (a
    header's helper may have callers elsewhere). ``parsed`` is the file's tree when the caller
    has it (``RuleContext.parsed``), so that the file is not parsed twice; ``file_statements``
    the file's linted statements (``RuleContext.file_statements``), read only where the file's
    own making of shared-window pointers is asked (``makes_shared_pointers``)."""
    if not _readable(statement, operand):
        return None
    facts = _facts(
        statement.source, parsed if isinstance(parsed, ParsedSource) else None, file_statements
    )
    node = _expression_node(facts, operand)
    if node is None:
        return _left_out_name(facts, statement, operand, through_parameters)
    fn = facts.function_of(node)
    if fn is None:
        return None
    return facts.value(node, fn, 0, through_parameters)


def local_address_operand(statement: AsmStatement, operand: Operand,
                          parsed: object | None = None) -> bool:
    """``operand`` is written as the address of an automatic local of its function (``&x``,
    ``&buf[i]``, an array's name: ``local_storage``), a generic address in the thread's local
    window."""
    if not _readable(statement, operand):
        return False
    facts = _facts(statement.source, parsed if isinstance(parsed, ParsedSource) else None, None)
    node = _expression_node(facts, operand)
    fn = facts.function_of(node) if node is not None else None
    return fn is not None and node is not None and facts.local_address(node, fn) is not None


def _readable(statement: AsmStatement, operand: Operand) -> bool:
    """The operand's expression can be read in the file's C++ tree: the statement is written
    in a function of the file (not a macro's body, nor C++ inside a Python string)."""
    return (statement.context.macro is None and statement.syntax == "gnu"
            and not statement.context.embedded_in and bool(operand.expression.strip()))


def _left_out_name(
    facts: _FileFacts, statement: AsmStatement, operand: Operand, through_parameters: bool
) -> Value | None:
    """An operand that is a plain name the tree does not hold (the parse leaves out a macro
    constraint's use with its operand, ``POINTER_CONSTRAINT(ptr)``, ``specifier_uses``): the
    name as the function around the statement sees it."""
    name = operand.expression.strip()
    if _IDENTIFIER().fullmatch(name.encode()) is None:
        return None
    start = facts.parsed.to_byte(statement.span.start)
    node = facts._node_at(start, start + 1)
    fn = facts.function_of(node) if node is not None else None
    return facts._variable(name, fn, 0, through_parameters) if fn is not None else None
