"""A function the tree holds only in part (``FunctionFlow.whole``): a rule that says a kernel
does something nowhere (PTX609: no ``tcgen05.dealloc``) stays silent where a parse error or
an ``#if`` that gives the body two heads may end the body before the rest of its code."""

from __future__ import annotations

import pytest

from ptxlint.frontends.split_conditionals import pairs_up
from tests.conftest import lint_text

HEAD = r"""
__global__ void k(unsigned smem, unsigned* out, int n) {
  if (threadIdx.x / 32 == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(smem) : "memory");
  }
"""
DEALLOC = r"""
  __syncthreads();
  if (threadIdx.x / 32 == 0) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(out[0]));
  }
}
"""


@pytest.mark.parametrize("middle", [
    # an asm statement without its `;`, as generated kernels split one across `#if` branches
    '  asm volatile("mov.u32 %0, 1;" : "=r"(out[0]) : : "memory")\n  }\n  {\n',
    # two heads: the tree closes the body at the second one's brace
    "#if A\n  if (n) {\n#else\n  if (n > 1) {\n#endif\n    out[1] = 2;\n  }\n  }\n  {\n",
])
def test_a_kernel_the_tree_ends_early_is_not_said_to_never_free(middle: str) -> None:
    assert lint_text(HEAD + middle + DEALLOC, "k.cu", select=("PTX609",)) == []


def test_a_whole_kernel_without_a_dealloc_is_still_flagged() -> None:
    findings = lint_text(HEAD + "  out[0] = n;\n}\n", "k.cu", select=("PTX609",))
    assert [f.rule for f in findings] == ["PTX609"] and "never frees" in findings[0].message


def test_braces_pair_up_across_every_branch() -> None:
    whole = b"{ if (a) { b(); } /* } */ c('}'); }"
    assert pairs_up(whole, 0, len(whole))
    two_heads = b"{\n#if A\n if (a) {\n#else\n if (b) {\n#endif\n }\n}"
    assert not pairs_up(two_heads, 0, len(two_heads))
    early = b"{ a(); } b(); }"
    assert not pairs_up(early, 0, len(early))
