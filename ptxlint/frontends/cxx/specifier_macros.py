"""Which macros expand to declaration specifiers only: what the parse may leave out where
one stands before a declaration (``frontends.specifier_uses``).

A macro is such where every definition that may be in force at a use (``MacroTable.
alternatives``: one per configuration, ``CUTLASS_DEVICE`` is ``__forceinline__ __device__``
under nvcc and ``inline`` elsewhere) is object-like and its body is, token by token:

- a specifier that belongs to no type: ``static``, ``inline``, ``constexpr``, ``extern``,
  ``virtual``, ``explicit``, ``friend``, CUDA's ``__host__``/``__device__``/``__global__`` and
  inline hints, a calling convention;
- an attribute (``__attribute__((...))``, ``__declspec(...)``, ``alignas(...)``,
  ``[[...]]``) or a pragma (``_Pragma("unroll")``, ``#pragma unroll`` spelled in the body),
  which the grammar of declarations never needs;
- another such macro;

or empty. A type word (``void``, ``int``, ``const``) is none: the declaration needs it. A
name the file and its headers never define is looked up where its companion includes the file
(``companion``: ``cuda_fp16.hpp`` reads ``__CUDA_HOSTDEVICE__`` from ``cuda_fp16.h``). One
defined nowhere the front end sees (a project built against a CUTLASS or CCCL it does not
ship) is such a macro only where it is one of those libraries' specifier macros
(``WELL_KNOWN``): each of their definitions, in every configuration, is such.

Two more kinds of macro leave nothing the tree's readers need where they stand
(``SpecifierMacros.braces``, ``SpecifierMacros.constraint``):

- one that opens namespaces only (``namespace cub {``, ``inline namespace __4 {``,
  ``extern "C" {``: CUB's ``CUB_NAMESPACE_BEGIN``, CCCL's ``_CCCL_BEGIN_NAMESPACE_CUDA``,
  ``cuda_pipeline_helpers.h``'s ``_CUDA_PIPELINE_BEGIN_NAMESPACE``) or closes them only
  (``}``), each definition through other such macros, function-like ones among them; left
  out in pairs, the declarations between read as the preprocessor's namespace holds them;
- one that is an input operand's constraint (``#define __LDG_PTR "l"``, written
  ``:: __LDG_PTR(ptr)``): each definition one or more string literals that name no output
  (no ``=`` or ``+``). The asm grammar takes no name there, and its recovery may swallow the
  rest of the file (``sm_32_intrinsics.hpp``); left out with its operand, the statement reads
  with its other operands, and an input operand is written by no asm;
- one that is a piece of an asm template (``SpecifierMacros.template_piece``: each definition
  string literals, its parameters stringified and other such macros; the CUDA headers'
  ``"cvt.rn.f16.f32 r,f;\\n" __SPEC_CASE(h, r, 0X1F79U, 0x9400U) "mov.b16 %0,r;"``), which
  the grammar cannot concatenate with the literals around it; left out, the template reads
  as its literals (the statement's reader expands it from the text);
- one that pastes its arguments into a block (``SpecifierMacros.statements``: a function-like
  macro whose expansion, through the function-like macros it calls, holds a brace pair; the
  target dispatch of CCCL's ``<nv/target>``, ``NV_IF_ELSE_TARGET(NV_IS_DEVICE, (s1;),
  (s2;))``, is ``{ s1; }`` or ``{ s2; }``). Where its arguments hold statements, the grammar
  reads them as a call's arguments and errs; left out but for the statements, these read in
  the block around, each branch's after the one before, as ``#if``/``#else`` branches do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ptxlint.frontends.cxx.companion import in_force, looked_up_in
from ptxlint.frontends.cxx.defines import MacroDef
from ptxlint.frontends.cxx.lexer import Token, literal_value
from ptxlint.frontends.cxx.macros import MacroTable

__all__ = ["SpecifierMacros"]

# The decl-specifiers and CUDA execution-space and inline words that belong to no type.
_SPECIFIERS = frozenset("""static inline constexpr consteval constinit extern virtual explicit
    friend __host__ __device__ __global__ __forceinline__ __forceinline __noinline__ __inline__
    __inline
    __cdecl __stdcall __fastcall __extension__""".split())
# Words followed by one parenthesized group that, as a whole, is an attribute or a pragma.
_GROUPS = frozenset(("__attribute__", "__declspec", "alignas", "_Pragma", "__pragma",
                     "__align__", "__builtin_align__"))
# The specifier macros of CUTLASS (cutlass/detail/helper_macros.hpp), CuTe (cute/config.hpp)
# and CCCL (cuda/std/__cccl/), each of whose definitions is such: what a name means where no
# definition of it is visible.
WELL_KNOWN = frozenset("""CUTLASS_HOST_DEVICE CUTLASS_DEVICE CUTLASS_HOST CUTLASS_GLOBAL
    CUTLASS_PRAGMA_UNROLL CUTLASS_PRAGMA_NO_UNROLL CUTLASS_GEMM_LOOP CUTE_HOST_DEVICE CUTE_DEVICE
    CUTE_HOST CUTE_UNROLL CUTE_NO_UNROLL _CCCL_HOST_DEVICE _CCCL_DEVICE _CCCL_HOST _CCCL_API
    _CCCL_HOST_API _CCCL_DEVICE_API _CCCL_FORCEINLINE _CCCL_HIDE_FROM_ABI
    _LIBCUDACXX_HIDE_FROM_ABI""".split())
# CCCL's target dispatch (``<nv/target>``, its documented macros), each of whose definitions
# pastes its arguments into a block: what a name means where no definition of it is visible.
WELL_KNOWN_BLOCKS = frozenset(("NV_IF_TARGET", "NV_IF_ELSE_TARGET", "NV_DISPATCH_TARGET"))
# A macro's body reached through other macros, at most this deep.
_DEPTH = 8


class SpecifierMacros:
    """``(name, at)``: whether ``name``, used at character ``at`` of the file, is a macro
    that expands to declaration specifiers, attributes or pragmas only. Memoised per name and
    per the file's own directives before ``at`` (``MacroTable.epoch``: all a look-up reads
    of ``at``); the table is made on first use (``MacroPieces.table_now``)."""

    def __init__(self, table: Callable[[], MacroTable]) -> None:
        self._table = table
        self._judged: dict[tuple[str, int], bool] = {}
        self._braces: dict[tuple[str, int], int] = {}
        self._constraints: dict[tuple[str, int], bool] = {}
        self._blocks: dict[tuple[str, int], bool] = {}
        self._pieces: dict[tuple[str, int], bool] = {}
        self._kernels: dict[tuple[str, int], bool] = {}

    def __call__(self, name: str, at: int) -> bool:
        table = self._table()
        key = (name, table.epoch(at))
        found = self._judged.get(key)
        if found is None:
            found = self._judged[key] = self._judge(table, name, at, frozenset(), 0)
        return found

    def braces(self, name: str, at: int) -> int:
        """1 where ``name``, used at ``at``, is an object-like macro whose every definition
        opens namespaces only, at least one of them some; -1 where it closes them only
        (``}``); 0 where it is neither. Memoised as ``__call__`` is."""
        table = self._table()
        key = (name, table.epoch(at))
        found = self._braces.get(key)
        if found is None:
            counts = self._brace_counts(table, name, at, frozenset(), 0, False)
            found = 0
            if counts is not None and counts != (0, 0) and 0 in counts:
                found = 1 if counts[0] else -1
            self._braces[key] = found
        return found

    def constraint(self, name: str, at: int) -> bool:
        """Whether ``name``, used at ``at``, is an object-like macro whose every definition is
        string literals that spell an input operand's constraint (no ``=`` or ``+``)."""
        table = self._table()
        key = (name, table.epoch(at))
        found = self._constraints.get(key)
        if found is None:
            where = in_force(table, name, at)
            definitions = where[2] if where is not None else []
            found = self._constraints[key] = bool(definitions) and all(
                d.params is None and _input_constraint(d.body) for d in definitions)
        return found

    def kernel(self, name: str, at: int) -> bool:
        """Whether ``name``, used at ``at``, declares a kernel: a macro that expands to
        declaration specifiers only (``__call__``) each of whose definitions in force holds
        ``__global__``, spelled or through such a macro (CUTLASS's ``#define CUTLASS_GLOBAL
        __global__ static``). One definition without it (``#define CUTLASS_GLOBAL`` for a
        host-only parse), or none visible, is no kernel's: what the macro says is unknown
        there, and a function is a kernel only where every configuration makes it one."""
        table = self._table()
        key = (name, table.epoch(at))
        found = self._kernels.get(key)
        if found is None:
            found = self._kernels[key] = self(name, at) and self._global_in(
                table, name, at, frozenset(), 0)
        return found

    def _global_in(self, table: MacroTable, name: str, at: int, seen: frozenset[str],
                   depth: int) -> bool:
        """Every definition of ``name`` in force at ``at`` spells ``__global__``, or a macro
        every definition of which does (``kernel`` has judged them specifiers only)."""
        return _every_definition(table, name, at, seen, depth, lambda source, d, place, inner: any(
            t.text == "__global__" or t.kind == "ident" and t.text not in _SPECIFIERS
            and self._global_in(source, t.text, place, inner, depth + 1) for t in d.body))

    def template_piece(self, name: str, at: int) -> bool:
        """Whether ``name``, used at ``at``, is a macro each of whose definitions is string
        literals, stringified parameters (``#x``) and calls or uses of other such macros."""
        table = self._table()
        key = (name, table.epoch(at))
        found = self._pieces.get(key)
        if found is None:
            found = self._pieces[key] = self._pieces_in(table, name, at, frozenset(), 0)
        return found

    def _pieces_in(self, table: MacroTable, name: str, at: int, seen: frozenset[str],
                   depth: int) -> bool:
        return _every_definition(table, name, at, seen, depth, lambda source, d, place, inner:
                                 self._piece_body(source, d.body, frozenset(d.params or ()),
                                                  place, inner, depth))

    def _piece_body(self, table: MacroTable, body: Sequence[Token], params: frozenset[str],
                    at: int, seen: frozenset[str], depth: int) -> bool:
        if not body:
            return False
        k, count = 0, len(body)
        while k < count:
            token = body[k]
            following = body[k + 1] if k + 1 < count else None
            if token.kind == "string":
                k += 1
            elif token.text == "#" and following is not None and following.text in params:
                k += 2
            elif token.kind == "ident" and token.text not in params and \
                    self._pieces_in(table, token.text, at, seen, depth + 1):
                k = _closed(body, k + 1, "(", ")") if following is not None and \
                    following.text == "(" else k + 1
                if k < 0:
                    return False
            else:
                return False
        return True

    def statements(self, name: str, at: int) -> bool:
        """Whether ``name``, used at ``at``, is a function-like macro that pastes its
        arguments into a block: each of its definitions holds a brace pair, or calls a
        function-like macro one of whose definitions does (``<nv/target>``'s dispatch picks
        one definition per compiler, and only some of them spell the braces themselves)."""
        table = self._table()
        key = (name, table.epoch(at))
        found = self._blocks.get(key)
        if found is None:
            found = self._blocks[key] = self._blocks_in(table, name, at, frozenset(), 0, {})
        return found

    def _blocks_in(self, table: MacroTable, name: str, at: int, seen: frozenset[str],
                   depth: int, done: dict[tuple[int, str], bool]) -> bool:
        """``statements`` of ``name`` (at ``depth`` 0: of each of its definitions; below, of
        any), each name's answer kept in ``done`` for the rest of the walk: a preprocessor
        library's macros call one another many times over (CCCL's ``_CCCL_PP_*``)."""
        if depth > _DEPTH or name in seen:
            return False
        where = looked_up_in(table, name, at)
        if where is None:
            return depth == 0 and name in WELL_KNOWN_BLOCKS  # no definition visible
        source, place = where
        key = (id(source), name)
        if key in done:
            return done[key]
        definitions = source.alternatives(name, place)
        if not definitions:
            return depth == 0 and name in WELL_KNOWN_BLOCKS and source is not table
        found = False
        if all(d.params is not None for d in definitions):
            inner = seen | {name}
            holds = (self._block_body(source, d.body, place, inner, depth, done)
                     for d in definitions)
            found = all(holds) if depth == 0 else any(holds)
        done[key] = found
        return found

    def _block_body(self, table: MacroTable, body: Sequence[Token], at: int,
                    seen: frozenset[str], depth: int, done: dict[tuple[int, str], bool]
                    ) -> bool:
        for k, token in enumerate(body):
            if token.text == "{":
                return True
            if token.kind == "ident" and k + 1 < len(body) and body[k + 1].text == "(" and \
                    self._blocks_in(table, token.text, at, seen, depth + 1, done):
                return True
        return False

    def _brace_counts(self, table: MacroTable, name: str, at: int, seen: frozenset[str],
                      depth: int, called: bool) -> tuple[int, int] | None:
        """The namespace braces (opened, closed) of every definition of ``name`` in force
        at ``at`` (the largest, where configurations differ), function-like ones where
        ``called``; None where a definition is anything else."""
        if depth > _DEPTH or name in seen:
            return None
        where = in_force(table, name, at)
        if where is None:
            return None
        source, place, definitions = where
        if not definitions or any((d.params is not None) != called for d in definitions):
            return None
        opened = closed = 0
        for d in definitions:
            counts = self._body_braces(source, d.body, frozenset(d.params or ()), place,
                                       seen | {name}, depth)
            if counts is None:
                return None
            opened, closed = max(opened, counts[0]), max(closed, counts[1])
        return opened, closed

    def _body_braces(self, table: MacroTable, body: Sequence[Token], params: frozenset[str],
                     at: int, seen: frozenset[str], depth: int) -> tuple[int, int] | None:
        """``_brace_counts`` of one body: namespace heads (``namespace`` or ``extern
        "C"``, a name, its scopes and attributes, then ``{``), ``}``, ``static_assert(...);``
        (CCCL checks its prologue so), specifiers and attributes, and other such macros."""
        opened = closed = 0
        k, count = 0, len(body)
        while k < count:
            token = body[k]
            text = token.text
            following = body[k + 1].text if k + 1 < count else ""
            if text == "}":
                closed += 1
                k += 1
            elif text in ("namespace", "extern"):
                k = _namespace_head(body, k + 1)
                if k < 0:
                    return None
                opened += 1
            elif text == "static_assert" and following == "(":
                k = _closed(body, k + 1, "(", ")")
                if k < 0 or k >= count or body[k].text != ";":
                    return None
                k += 1
            elif text in _SPECIFIERS:
                k += 1
            elif text in _GROUPS and following == "(":
                k = _closed(body, k + 1, "(", ")")
            elif text == "[" and following == "[":
                k = _closed(body, k, "[", "]")
            elif token.kind == "ident" and text not in params:
                called = following == "("
                counts = self._brace_counts(table, text, at, seen, depth + 1, called)
                if counts is None:
                    return None
                opened, closed = opened + counts[0], closed + counts[1]
                k = _closed(body, k + 1, "(", ")") if called else k + 1
            else:
                return None
            if k < 0:
                return None
        return opened, closed

    def _judge(self, table: MacroTable, name: str, at: int, seen: frozenset[str],
               depth: int) -> bool:
        if depth > _DEPTH or name in seen:
            return False
        where = looked_up_in(table, name, at)
        if where is None:
            return name in WELL_KNOWN  # no definition visible
        source, place = where
        definitions = source.alternatives(name, place)
        if not definitions:
            # where the file defines the name (under a condition that cannot hold) or
            # #undefs it, it is no macro here; a companion that does not define it is silent
            return name in WELL_KNOWN and source is not table
        inner = seen | {name}
        return all(
            d.params is None and self._only_specifiers(source, d.body, place, inner, depth)
            for d in definitions
        )

    def _only_specifiers(self, table: MacroTable, body: Sequence[Token], at: int,
                         seen: frozenset[str], depth: int) -> bool:
        k, count = 0, len(body)
        while k < count:
            token = body[k]
            text = token.text
            if text == "#" and k + 1 < count and body[k + 1].text == "pragma":
                return True  # ``#pragma unroll`` spelled in a body: the rest is the pragma's
            if text == "[" and k + 1 < count and body[k + 1].text == "[":
                k = _closed(body, k, "[", "]")
            elif text in _GROUPS and k + 1 < count and body[k + 1].text == "(":
                k = _closed(body, k + 1, "(", ")")
            elif token.kind == "ident" and (
                text in _SPECIFIERS or self._judge(table, text, at, seen, depth + 1)
            ):
                k += 1
                continue
            else:
                return False
            if k < 0:
                return False
        return True


def _namespace_head(body: Sequence[Token], k: int) -> int:
    """The index after the ``{`` that ends the namespace head (or ``extern`` linkage) whose
    first token after its keyword is ``body[k]``: names (a macro's parameter or call among
    them), ``::``, a string literal and attributes; -1 where the head is anything else."""
    count = len(body)
    while k < count:
        token = body[k]
        text = token.text
        if text == "{":
            return k + 1
        if text == "(" or text in _GROUPS and k + 1 < count and body[k + 1].text == "(":
            k = _closed(body, k if text == "(" else k + 1, "(", ")")  # a call in the name
        elif text == "[" and k + 1 < count and body[k + 1].text == "[":
            k = _closed(body, k, "[", "]")
        elif token.kind in ("ident", "string") or text == "::":
            k += 1
        else:
            return -1
        if k < 0:
            return -1
    return -1


def _input_constraint(body: Sequence[Token]) -> bool:
    """Whether ``body`` is string literals only that spell an input operand's constraint."""
    if not body or any(token.kind != "string" for token in body):
        return False
    spelled = "".join(literal_value(token.kind, token.text) for token in body)
    return bool(spelled) and not any(mark in spelled for mark in "=+&")


def _closed(body: Sequence[Token], k: int, opening: str, closing: str) -> int:
    """The index after the token that closes the bracket at ``body[k]``; -1 where none does."""
    depth = 0
    for at in range(k, len(body)):
        text = body[at].text
        if text == opening:
            depth += 1
        elif text == closing:
            depth -= 1
            if depth == 0:
                return at + 1
    return -1


def _every_definition(table: MacroTable, name: str, at: int, seen: frozenset[str], depth: int,
                      holds: Callable[[MacroTable, MacroDef, int, frozenset[str]], bool]
                      ) -> bool:
    """Whether ``name`` has definitions in force at ``at`` and each ``holds`` (asked with the
    table it is in, the offset there, and the macros on the way including ``name``); False
    past ``_DEPTH`` macros deep or where the chain comes back to a macro on the way."""
    if depth > _DEPTH or name in seen:
        return False
    where = in_force(table, name, at)
    if where is None:
        return False
    source, place, definitions = where
    inner = seen | {name}
    return bool(definitions) and all(holds(source, d, place, inner) for d in definitions)
