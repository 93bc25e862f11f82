"""A pure asm with no result, written as raw LLVM IR (llvmlite's ``ir.InlineAsm``, as Numba
emits it; Julia's ``@asmcall``), carries no memory attributes: LLVM keeps the call, and keeps
it in order with the loads and stores around it, whatever ``side_effect`` says (llvmlite 0.50,
LLVM 22, -O3 for sm_80: two identical pure void ``st.global`` calls both kept, with and without
a ``~{memory}`` clobber, the C store before them kept, a load after them not forwarded). PTX505
has nothing to report there. A pure asm with a result is deleted when the result is unused and
stays flagged; CuTe DSL's MLIR lowering marks even a void pure asm as touching no memory and
deletes it, so its void calls stay flagged too."""

from __future__ import annotations

from tests.conftest import lint_text

NUMBA = '''from llvmlite import ir


def store(builder, fnty, ptr, value):
    asm = ir.InlineAsm(fnty, "st.global.cs.b32 [$0], $1;", "l,r,~{memory}")
    builder.call(asm, [ptr, value])


def fence(builder, fnty):
    builder.call(ir.InlineAsm(fnty, "fence.acq_rel.gpu;", ""), [])


def clock(builder, fnty):
    return builder.call(ir.InlineAsm(fnty, "mov.u32 $0, %clock;", "=r"), [])
'''

CUTE = '''from cutlass._mlir.dialects import llvm


def cute_fence():
    llvm.inline_asm(None, [], "fence.acq_rel.gpu;", "", has_side_effects=False)
'''


def _lines(text: str) -> list[int]:
    return [text.count("\n", 0, f.span.start) + 1
            for f in lint_text(text, path="k.py", select=("PTX505",))]


def test_a_pure_void_llvmlite_asm_is_kept_by_llvm_and_not_flagged() -> None:
    assert _lines(NUMBA) == [14]  # the %clock read with its result: deleted when unused


def test_a_pure_void_cute_asm_is_deleted_and_flagged() -> None:
    assert _lines(CUTE) == [5]
