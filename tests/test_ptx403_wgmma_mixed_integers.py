"""wgmma with mixed integer types (.s8.u8, .u8.s8), dense or sparse, needs PTX ISA 8.4: ptxas
13.0 under .version 8.3 answers "Feature 'WGMMA with mixed integer types' requires PTX ISA
.version 8.4 or later" (and "Sparse WGMMA with mixed integer types" for .sp), where one integer
type (.s8.s8, .u8.u8) needs 8.0 dense and 8.2 sparse. CUTLASS's mma_sm90_gmma.hpp spells them
under a guard that admits CUDA 12.0."""

from __future__ import annotations

import pytest

from ptxlint.ptx.instructions import ptx_requirement
from tests.conftest import lint_text

_ASM = """\
__device__ void f(unsigned long long a, unsigned long long b, unsigned& d0, unsigned& d1,
                  unsigned& d2, unsigned& d3, int scale) {
#if GUARD
  asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, %6, 0;\\n"
               "wgmma.mma_async.sync.aligned.m64n8k32.s32.TYPES {%0, %1, %2, %3}, %4, %5, p;\\n}\\n"
               : "+r"(d0), "+r"(d1), "+r"(d2), "+r"(d3) : "l"(a), "l"(b), "r"(scale));
#endif
}
"""


@pytest.mark.parametrize(("modifiers", "needed"), [
    (("mma_async", "sync", "aligned", "m64n8k32", "s32", "s8", "u8"), 84),
    (("mma_async", "sync", "aligned", "m64n8k32", "s32", "u8", "s8"), 84),
    (("mma_async", "sp", "sync", "aligned", "m64n8k64", "s32", "s8", "u8"), 84),
    (("mma_async", "sync", "aligned", "m64n8k32", "s32", "s8", "s8"), 80),
    (("mma_async", "sp", "sync", "aligned", "m64n8k64", "s32", "u8", "u8"), 82),
])
def test_the_isa_version_each_integer_form_needs(modifiers: tuple[str, ...], needed: int) -> None:
    assert ptx_requirement("wgmma", modifiers)[0] == needed


def _ptx403(types: str, guard: str) -> list[str]:
    text = _ASM.replace("TYPES", types).replace("GUARD", guard)
    return [f.message for f in lint_text(text, select=("PTX403",))]


def test_a_mixed_integer_wgmma_under_a_guard_admitting_cuda_12_0_is_reported() -> None:
    [message] = _ptx403("s8.u8", "__CUDACC_VER_MAJOR__ >= 12")
    assert "needs PTX ISA 8.4" in message and "CUDA 12.4 or newer" in message


@pytest.mark.parametrize(("types", "guard"), [
    ("s8.s8", "__CUDACC_VER_MAJOR__ >= 12"),  # one integer type: PTX ISA 8.0
    ("u8.s8", "CUDA_VERSION >= 12040"),  # the guard asks for CUDA 12.4
])
def test_one_integer_type_or_a_guard_asking_for_cuda_12_4_is_not(types: str, guard: str) -> None:
    assert _ptx403(types, guard) == []
