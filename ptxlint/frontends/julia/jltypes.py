"""Julia types and LLVM IR types as a Julia asm call spells them, read into the model's types.

``@asmcall``'s return and argument types are Julia types (``UInt32``, ``Float16``,
``NTuple{2,UInt32}``, ``Core.LLVMPtr{T,AS.Shared}``); a ``Base.llvmcall`` IR body spells LLVM
types (``i32``, ``<2 x half>``, ``{ i32, i32 }``). A shared-memory pointer's width depends on
the target's data layout, so it has no size here: never a guess.
"""

from __future__ import annotations

import re

from ptxlint.model import CType

_JULIA: dict[str, tuple[str, int]] = {
    "Bool": ("bool", 1),
    "Int8": ("integer", 1), "UInt8": ("integer", 1),
    "Int16": ("integer", 2), "UInt16": ("integer", 2), "Cshort": ("integer", 2),
    "Cushort": ("integer", 2),
    "Int32": ("integer", 4), "UInt32": ("integer", 4), "Cint": ("integer", 4),
    "Cuint": ("integer", 4),
    "Int64": ("integer", 8), "UInt64": ("integer", 8), "Int": ("integer", 8),
    "UInt": ("integer", 8), "Csize_t": ("integer", 8), "Clonglong": ("integer", 8),
    "Culonglong": ("integer", 8),
    "Float16": ("floating", 2), "BFloat16": ("floating", 2),
    "Float32": ("floating", 4), "Cfloat": ("floating", 4),
    "Float64": ("floating", 8), "Cdouble": ("floating", 8),
}
_VOID = frozenset({"Nothing", "Cvoid"})
_GENERIC_SPACES = frozenset({"0", "1", "AS.Generic", "AS.Global", "Generic", "Global"})


def split_top(text: str) -> list[str]:
    """``"A, B{C, D}, E"`` -> ``["A", "B{C, D}", "E"]``."""
    parts: list[str] = []
    depth = 0
    current = ""
    for c in text:
        if c in "{(<[":
            depth += 1
        elif c in "})>]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += c
    if current.strip():
        parts.append(current.strip())
    return parts


def julia_type(text: str) -> CType | None:
    """One Julia type's model type; None where not knowable."""
    text = "".join(text.split())
    name = text.rsplit(".", 1)[-1] if "{" not in text else text
    if name in _JULIA:
        kind, size = _JULIA[name]
        return CType(name, kind, size)
    m = re.fullmatch(r"(?:Core\.)?(LLVMPtr|Ptr)\{(.*)\}", text)
    if m is not None:
        params = split_top(m.group(2))
        if m.group(1) == "Ptr":
            return CType(text, "pointer", 8)
        space = params[1] if len(params) == 2 else ""
        return CType(text, "pointer", 8 if space in _GENERIC_SPACES else None)
    return None


def julia_results(text: str) -> list[CType | None] | None:
    """The outputs a return type makes: none for ``Nothing``, one per tuple element."""
    text = "".join(text.split())
    if text in _VOID:
        return []
    m = re.fullmatch(r"NTuple\{(\d+),(.*)\}", text)
    if m is not None:
        return [julia_type(m.group(2)) for _ in range(int(m.group(1)))]
    m = re.fullmatch(r"Tuple\{(.*)\}", text)
    if m is not None:
        return [julia_type(p) for p in split_top(m.group(1))]
    return [julia_type(text)]


def julia_arguments(text: str) -> list[CType | None] | None:
    """``Tuple{A, B}`` -> the types of A and B; None where it is not a literal tuple type."""
    text = "".join(text.split())
    m = re.fullmatch(r"Tuple\{(.*)\}", text)
    if m is None:
        return None
    return [julia_type(p) for p in split_top(m.group(1))]


_LLVM_SCALAR = {
    "i1": ("bool", 1), "i8": ("integer", 1), "i16": ("integer", 2), "i32": ("integer", 4),
    "i64": ("integer", 8), "i128": ("integer", 16), "half": ("floating", 2),
    "bfloat": ("floating", 2), "float": ("floating", 4), "double": ("floating", 8),
}


def llvm_type(text: str) -> CType | None:
    text = " ".join(text.split())
    if text in _LLVM_SCALAR:
        kind, size = _LLVM_SCALAR[text]
        return CType(text, kind, size)
    if text == "ptr" or text.endswith("*") or text in ("ptr addrspace(0)", "ptr addrspace(1)"):
        return CType(text, "pointer", 8 if "addrspace(3)" not in text else None)
    if text.startswith("ptr addrspace("):
        return CType(text, "pointer", None)
    m = re.fullmatch(r"<\s*(\d+)\s*x\s*(\w+)\s*>", text)
    if m is not None:
        element = llvm_type(m.group(2))
        if element is None or element.size is None:
            return None
        return CType(text, "integer", element.size * int(m.group(1)))
    return None


def llvm_results(text: str) -> list[CType | None]:
    text = " ".join(text.split())
    if text == "void":
        return []
    if text.startswith("{") and text.endswith("}"):
        return [llvm_type(p) for p in split_top(text[1:-1])]
    return [llvm_type(text)]
