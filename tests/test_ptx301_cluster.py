"""PTX301 on a `.shared::cluster` access: `__cvta_generic_to_shared` is `cvta.to.shared`
(`::cta`), undefined for another CTA's address, so it is offered only for a pointer proven to
be the file's own shared memory."""

from __future__ import annotations

from tests.conftest import lint_text

_MAPPED = """
#include <cstdint>
__global__ void k(int v) {
  __shared__ int scratch;
  const auto remote = static_cast<int*>(__cluster_map_shared_rank(&scratch, 1));
  asm volatile("atom.relaxed.cluster.shared::cluster.add.s32 %0, [%1], %2;"
               : "=r"(v) : "l"(remote), "r"(v) : "memory");
}
"""

_OWN = """
#include <cstdint>
__global__ void k(int v) {
  __shared__ int scratch;
  asm volatile("atom.relaxed.cluster.shared::cluster.add.s32 %0, [%1], %2;"
               : "=r"(v) : "l"(&scratch), "r"(v) : "memory");
}
"""


def test_a_cluster_mapped_pointer_is_flagged_without_the_cta_conversion_as_its_fix() -> None:
    (finding,) = lint_text(_MAPPED, select=("PTX301",))
    assert "cvta.to.shared::cluster" in finding.message
    assert finding.fix is None


def test_the_ctas_own_shared_variable_keeps_the_conversion_fix_on_a_cluster_access() -> None:
    (finding,) = lint_text(_OWN, select=("PTX301",))
    assert finding.fix is not None
    assert any("__cvta_generic_to_shared(&scratch)" in e.new_text for e in finding.fix.edits)
