"""What an asm operand's C++ expression holds when it is used as an address.

Two answers matter to PTX301: the operand is a *generic pointer* (a C++ pointer: its value is a
generic address), or it is a *shared-window offset* (the result of ``__cvta_generic_to_shared``
or a well-known helper around it; in a Python DSL, a value of type ``!llvm.ptr<3>``). Anything
else — an integer variable, a cast to an integer, a function nobody here knows — is unknown,
and unknown means silence.

Only the operand's resolved type (``Operand.ctype``) and the spelling of its expression are used.
"""

from __future__ import annotations

import re

from ptxlint.constraints import is_array
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import Operand

__all__ = ["SHARED_ADDRESS_HELPERS", "is_generic_pointer", "is_shared_offset", "llvm_space",
           "strip_casts"]

# Functions that turn a generic pointer into a shared-window address (32- or 64-bit integer).
SHARED_ADDRESS_HELPERS = frozenset(
    {
        "__cvta_generic_to_shared",
        "__nvvm_get_smem_pointer",
        "cast_smem_ptr_to_uint",  # CUTLASS / CuTe
        "cutlass_get_smem_pointer",  # CUTLASS
        "smem_u32addr",
        "smem_ptr_to_uint",
        "get_smem_pointer",
        "__as_ptr_smem",  # libcu++ cuda::ptx
        "__as_ptr_dsmem",  # libcu++ cuda::ptx
        "__as_ptr_remote_dsmem",  # libcu++ cuda::ptx (shared::cluster)
    }
)
_HELPER_CALL = on_first_use(
    r"(?:::)?(?:[A-Za-z_]\w*::)*(" + "|".join(sorted(SHARED_ADDRESS_HELPERS)) + r")\s*\(",
    re.ASCII,
)
_ANY_HELPER = on_first_use(r"\b(?:" + "|".join(sorted(SHARED_ADDRESS_HELPERS)) + r")\b", re.ASCII)
_NAMED_CAST = on_first_use(
    r"(?:static_cast|reinterpret_cast|const_cast)\s*<[^<>;]*(?:<[^<>;]*>)?[^<>;]*>\s*\("
)
_INTEGER_WORDS = (
    r"(?:const\s+|volatile\s+)*(?:std::)?(?:unsigned|signed|int|long|short|char|size_t|uintptr_t"
    r"|intptr_t|u?int(?:8|16|32|64)_t|uint|u32|u64)(?:\s+(?:int|long|char|short))*"
)
_C_CAST = on_first_use(rf"\(\s*{_INTEGER_WORDS}\s*\)", re.ASCII)
_FUNCTIONAL_CAST = on_first_use(rf"{_INTEGER_WORDS}\s*\(", re.ASCII)


def _closing(text: str, open_index: int) -> int:
    """Index of the ``)`` matching the ``(`` at ``open_index``, or -1."""
    depth = 0
    for i in range(open_index, len(text)):
        c = text[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def strip_casts(expression: str) -> str:
    """``expression`` without outer parentheses and integer or named casts around it."""
    text = expression.strip()
    for _ in range(16):
        if text.startswith("(") and _closing(text, 0) == len(text) - 1:
            text = text[1:-1].strip()
            continue
        m = _NAMED_CAST().match(text) or _FUNCTIONAL_CAST().match(text)
        if m is not None and _closing(text, m.end() - 1) == len(text) - 1:
            text = text[m.end() : -1].strip()
            continue
        m = _C_CAST().match(text)
        if m is not None:
            text = text[m.end() :].strip()
            continue
        break
    return text


# NVPTX's LLVM address spaces (llvm/Support/NVPTXAddrSpace.h): a Python DSL's operand of type
# ``!llvm.ptr<N>`` (``mlir_types``) holds an address of space N, never a generic one (0)
_LLVM_SPACES = {1: "global", 3: "shared", 4: "const", 5: "local", 7: "shared::cluster"}
_LLVM_POINTER = on_first_use(r"ptr<(\d+)>")


def llvm_space(operand: Operand) -> str | None:
    """The state space of the address an ``!llvm.ptr<N>`` operand holds; None for any other
    operand, a generic ``ptr`` among them."""
    ctype = operand.ctype
    if ctype is None or ctype.kind != "pointer":
        return None
    m = _LLVM_POINTER().fullmatch(ctype.spelling)
    return _LLVM_SPACES.get(int(m.group(1))) if m is not None else None


def is_shared_offset(operand: Operand) -> bool:
    """The operand is a helper's shared-window result, optionally cast and offset by ``+ n``,
    or an ``!llvm.ptr<3>``."""
    if llvm_space(operand) == "shared":
        return True
    text = strip_casts(operand.expression)
    m = _HELPER_CALL().match(text)
    if m is None:
        return False
    close = _closing(text, m.end() - 1)
    if close < 0:
        return False
    rest = text[close + 1 :].strip()
    return rest == "" or rest[0] in "+-"


def is_generic_pointer(operand: Operand) -> bool:
    """The operand's value is a C++ pointer (a generic address); unknown counts as no."""
    expression = operand.expression
    if _ANY_HELPER().search(expression):
        return False
    if operand.ctype is not None:
        # an array's name decays to a pointer to its first element (`"l"(tile)`)
        return (operand.ctype.kind == "pointer" and llvm_space(operand) is None) or is_array(
            operand.ctype)
    text = strip_casts(expression)
    if text != expression.strip() and not text.startswith("&"):
        return False  # an integer cast of something: not a pointer any more
    return text.startswith("&") and not text.startswith("&&")
