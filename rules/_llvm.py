"""Shared by the PTX5xx rules: LLVM-syntax statements (Triton, Pallas, helion, CuTe DSL,
llvmlite) and what their call says. Not a rule module."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ptxlint.analysis.llvm_binding import TRITON_FAMILY, count, known_call, llvm_call
from ptxlint.model import AsmStatement, Span

if TYPE_CHECKING:  # annotations only: a C++ file's check never loads them (ptxlint.model)
    from ptxlint.model import LlvmCall

__all__ = [
    "API_NAMES", "JULIA_COPIES", "LLVMLITE_COPIES", "MLIR_COPIES", "TRITON_COPIES", "TRITON_FAMILY",
    "constraint_span", "copies", "count", "known_call", "llvm_call", "registers",
]
API_NAMES = {
    "triton": "Triton",
    "helion": "helion",
    "pallas": "Pallas",
    "torch": "PyTorch's inline_asm_elementwise",
    "cute": "MLIR llvm.inline_asm",  # CuTe DSL, JAX Mosaic GPU, any MLIR Python binding
    "cute-ptx": "CuTe DSL inline_ptx",
    "julia": "Julia",
    "llvmlite": "llvmlite",
}


# Why an unscoped name breaks in Python's LLVM-syntax APIs (research note 6a-6d).
TRITON_COPIES = (
    "Triton places the asm several times in one PTX function, once per `pack` elements per "
    "thread (BLOCK=1024, 4 warps, pack=1: 8 copies), and the second copy"
)


# CuTe DSL and JAX Mosaic GPU build the MLIR op each time the kernel's trace reaches the call
MLIR_COPIES = (
    "the DSL emits the asm again each time the kernel's trace reaches it (a helper called "
    "twice, a Python loop the trace unrolls), into one PTX function, and the second copy"
)


JULIA_COPIES = (
    "Julia inlines the function around the asm (`@inline`, or LLVM's choice) once per call site "
    "into one PTX function, and the second copy"
)


LLVMLITE_COPIES = (
    "LLVM inlines the function around the asm at each of its call sites (a Numba device "
    "function into every kernel that calls it, twice where two calls reach it) or unrolls a "
    "loop around it, so one PTX function may hold it twice, and the second copy"
)


def copies(statement: AsmStatement) -> str:
    """Why a second copy of this LLVM-syntax asm lands in the same PTX function."""
    call = statement.llvm
    api = call.api if call is not None else None
    if api == "julia":
        return JULIA_COPIES
    if api == "llvmlite":
        return LLVMLITE_COPIES
    return MLIR_COPIES if api in ("cute", "cute-ptx") else TRITON_COPIES


def registers(span: tuple[int, int]) -> str:
    low, high = span
    unit = "register" if high == 1 else "registers"
    return f"{low} {unit}" if low == high else f"between {low} and {high} {unit}"


def constraint_span(call: LlvmCall) -> Span:
    """The constraint string in the source (its first literal when it is assembled from
    literals far apart, such as a module constant and a call-site suffix)."""
    assert call.constraints is not None
    pieces = call.constraints.pieces
    start = min(p.span.start for p in pieces)
    end = max(p.span.end for p in pieces)
    if end - start > 2000:
        return pieces[0].span
    return Span(start, end)
