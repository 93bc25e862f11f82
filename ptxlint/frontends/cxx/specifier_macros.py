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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ptxlint.frontends.cxx.companion import looked_up_in
from ptxlint.frontends.cxx.lexer import Token
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

    def __call__(self, name: str, at: int) -> bool:
        table = self._table()
        key = (name, table.epoch(at))
        found = self._judged.get(key)
        if found is None:
            found = self._judged[key] = self._judge(table, name, at, frozenset(), 0)
        return found

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
