"""PTX102 on the tcgen05 fences: they access no memory, but order the asynchronous tcgen05
operations against the thread synchronization beside them, which may be a memory operation
of C++'s own (PTX ISA: morally strong ld/st/atom, mbarrier and barrier instructions; its
example an ``st.relaxed`` of a flag). The clobber keeps the compiler from moving that across
the fence, so a fence without it is reported as every fence is (info when volatile)."""

from __future__ import annotations

import pytest

from ptxlint.model import Severity
from tests.conftest import lint_text


def _kernel(asm: str) -> str:
    return (
        "#include <cuda/atomic>\n"
        "__global__ void k(int* flag) {\n"
        "  asm volatile(\"tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, 1;\"\n"
        "               :: \"r\"(0u), \"l\"(0ull), \"l\"(0ull), \"r\"(0u));\n"
        f"  {asm}\n"
        "  cuda::atomic_ref<int, cuda::thread_scope_block>(*flag).store(\n"
        "      1, cuda::memory_order_relaxed);\n"
        "}\n"
    )


@pytest.mark.parametrize("side", ["before", "after"])
def test_a_tcgen05_fence_without_the_clobber_is_reported(side: str) -> None:
    text = _kernel(f'asm volatile("tcgen05.fence::{side}_thread_sync;");')
    (finding,) = lint_text(text, path="k.cu", select=("PTX102",))
    assert finding.severity is Severity.INFO
    assert f"'tcgen05.fence::{side}_thread_sync' orders memory" in finding.message


@pytest.mark.parametrize("side", ["before", "after"])
def test_a_tcgen05_fence_with_the_clobber_is_not(side: str) -> None:
    text = _kernel(f'asm volatile("tcgen05.fence::{side}_thread_sync;" ::: "memory");')
    assert lint_text(text, path="k.cu", select=("PTX102",)) == []
