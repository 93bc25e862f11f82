"""The model's classes for LLVM-syntax calls (Triton, CuTe DSL, llvmlite): what such a call says
beyond its template. Part of ``ptxlint.model``, which loads this module on first use of one of
its names: only the Python front end makes them, and a C++ file's check never needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ptxlint.value_class import value_class

if TYPE_CHECKING:
    from ptxlint.model import Span, Template


@value_class
class ConstraintEntry:
    """One comma-separated entry of an LLVM constraint string (``"=r,r,~{memory}"``)."""

    text: str  # decoded, surrounding blanks removed
    span: Span  # its characters in the source
    position: int  # 0-based place in the string
    role: str  # "output" | "input" | "clobber" | "gcc-clobber" | "empty"
    opaque: bool = False  # a hole sits inside


@value_class
class CallArgument:
    """An argument tensor/value of an LLVM-syntax call (Triton ``args``, CuTe ``operands``)."""

    text: str
    span: Span
    dtype: str | None = None  # element type when known: "fp32", "fp16", "u8", "i64", "ptr"...
    elements: int | None = None  # tensor element count when known (1 for a scalar)


@value_class
class PtxPlaceholder:
    """A ``{$rN}``/``{$wN}``/``{$rwN}`` operand placeholder of CuTe DSL's ``inline_ptx`` (MLIR's
    ``nvvm.inline_ptx``), which the NVVM lowering rewrites to ``$K`` before LLVM sees the text."""

    kind: str  # "r" (read-only) | "w" (write-only) | "rw" (read-write)
    number: int  # the N as written
    span: Span  # the placeholder in the source, braces included
    operand: int  # the $K it becomes: the lowering numbers the placeholders it sees, in order
    # the argument that operand K is ("r", 0 for read_only_args[0]); ("", -1) where K is past
    # the operands or a list before it is not known
    bound_kind: str = ""
    bound_index: int = -1


@value_class
class LlvmCall:
    """What a Triton / CuTe DSL / llvmlite call says beyond its template.

    Register counts follow Triton's packing rule (research note 1.2): every result and argument
    takes ``pack`` registers for 32/64-bit elements and pointers, ``pack * bits / 32`` for
    narrower elements; ``None`` wherever a count is not knowable from the source.
    """

    # "triton" | "helion" | "pallas" | "torch" | "cute" (llvm.inline_asm) | "cute-ptx"
    # (cute.arch.inline_ptx, nvvm.inline_ptx) | "llvmlite" | "julia"
    api: str
    call_span: Span
    callee: str  # as written, e.g. "tl.inline_asm_elementwise"
    constraints: Template | None  # the constraint string, None when it is not a string at all
    entries: tuple[ConstraintEntry, ...] = ()
    side_effects: bool | None = None  # has_side_effects (= not is_pure); None: not knowable
    side_effects_span: Span | None = None  # the argument that decides it (None: omitted)
    side_effects_name: str = ""  # "is_pure" | "has_side_effects" | "side_effect"
    pack: int | None = None
    pack_span: Span | None = None
    results: tuple[str | None, ...] | None = None  # element type per result; None: unknown
    results_span: Span | None = None
    args: tuple[CallArgument, ...] | None = None  # None: not a literal list/tuple
    args_span: Span | None = None
    args_kind: str = "list"  # "list" | "tuple" | "missing" | "other" (a bare tensor, ...)
    # Registers Triton will bind, as (fewest, most): equal when every element type is known,
    # a range when only ``pack`` and the tensor counts are; None when not even those are.
    output_registers: tuple[int, int] | None = None
    input_registers: tuple[int, int] | None = None
    result_elements: int | None = None  # elements of the result tensor, where knowable
    # asm_dialect= as written ("AD_ATT", "AD_Intel"), None when not given or not a name
    asm_dialect: str | None = None
    asm_dialect_span: Span | None = None
    # cute-ptx: the placeholders as written, and how many arguments each kind has ("r", "w",
    # "rw" -> count; absent where the list is not literal)
    placeholders: tuple[PtxPlaceholder, ...] = ()
    role_counts: tuple[tuple[str, int], ...] = ()

    @property
    def constraints_known(self) -> bool:
        return self.constraints is not None and not self.constraints.has_holes
