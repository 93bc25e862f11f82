"""Shared by the PTX5xx rules: LLVM-syntax statements (Triton, Pallas, helion, CuTe DSL,
llvmlite) and what their call says. Not a rule module."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ptxlint.model import AsmStatement, Span

if TYPE_CHECKING:  # annotations only: a C++ file's check never loads them (ptxlint.model)
    from ptxlint.model import ConstraintEntry, LlvmCall

TRITON_FAMILY = ("triton", "helion", "pallas", "torch")
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
    "Triton (and CuTe DSL helpers called twice) place the asm several times in one PTX "
    "function, once per `pack` elements per thread (BLOCK=1024, 4 warps, pack=1: 8 copies), "
    "and the second copy"
)


JULIA_COPIES = (
    "Julia inlines the function around the asm (`@inline`, or LLVM's choice) once per call site "
    "into one PTX function, and the second copy"
)


def copies(statement: AsmStatement) -> str:
    """Why a second copy of this LLVM-syntax asm lands in the same PTX function."""
    call = statement.llvm
    return JULIA_COPIES if call is not None and call.api == "julia" else TRITON_COPIES


def llvm_call(statement: AsmStatement) -> LlvmCall | None:
    return statement.llvm if statement.syntax == "llvm" else None


def known_entries(call: LlvmCall) -> tuple[ConstraintEntry, ...] | None:
    """The constraint entries, when the whole string is known."""
    return call.entries if call.constraints_known else None


def known_call(statement: AsmStatement) -> tuple[LlvmCall, tuple[ConstraintEntry, ...]] | None:
    """An LLVM-syntax statement's call and its constraint entries, when the whole constraint
    string is known: what every PTX5xx constraint rule starts from."""
    call = llvm_call(statement)
    if call is None:
        return None
    entries = known_entries(call)
    return None if entries is None else (call, entries)


def count(entries: tuple[ConstraintEntry, ...], role: str) -> int:
    return sum(1 for e in entries if e.role == role)


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
