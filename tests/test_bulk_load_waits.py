"""A bulk copy with mbarrier completion (``.mbarrier::complete_tx::bytes``) is in no bulk
async-group: only an mbarrier wait completes it, and ``cp.async.bulk.wait_group`` returns at
once (PTX603). Helpers defined twice, the real body under an ``#if`` and an empty stub in its
``#else``, are followed into the real one (``analysis/stub_definitions.py``), and an ``if`` arm
that ends in ``return`` separates what it holds from what follows the ``if``
(``exclusive_arms.left_by_return``). uccl's ukernel shipped both shapes."""

from __future__ import annotations

from tests.conftest import lint_text

HELPERS = r"""
#include <cstdint>
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
#if __CUDA_ARCH__ >= 900
__device__ __forceinline__ void load(void* smem, const void* gmem, uint64_t* bar, uint32_t n) {
  asm volatile("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(smem_u32(smem)), "l"(gmem), "r"(n), "r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void store(void* gmem, const void* smem, uint32_t n) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
               :: "l"(gmem), "r"(smem_u32(smem)), "r"(n) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
__device__ __forceinline__ void wait_group0() {
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
__device__ __forceinline__ void wait_bar(uint64_t* bar) {
  asm volatile("{\n.reg .pred p;\nW%=:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
               "@!p bra W%=;\n}" :: "r"(smem_u32(bar)) : "memory");
}
#else
__device__ __forceinline__ void load(void*, const void*, uint64_t*, uint32_t) {}
__device__ __forceinline__ void store(void*, const void*, uint32_t) {}
__device__ __forceinline__ void wait_group0() {}
__device__ __forceinline__ void wait_bar(uint64_t*) {}
#endif
__device__ void elsewhere();
"""


def _found(body: str, rules: tuple[str, ...] = ("PTX603",), helpers: str = HELPERS) -> list[str]:
    text = helpers + (
        "__global__ void k(float* out, const float* in, uint64_t* bar, int n) {\n"
        "  __shared__ alignas(128) float tile[256];\n" + body + "\n}\n")
    return [f"{f.rule}: {f.message}" for f in lint_text(text, "k.cu", select=rules)]


def test_a_bulk_group_wait_does_not_wait_for_an_mbarrier_copy() -> None:
    found = _found("  load(tile, in, bar, 1024);\n  wait_group0();\n  out[0] = tile[0];")
    assert len(found) == 1 and "waits only for async-groups" in found[0], found
    assert "mbarrier.try_wait" in found[0]


def test_a_read_with_no_wait_at_all() -> None:
    found = _found("  load(tile, in, bar, 1024);\n  out[0] = tile[0];")
    assert len(found) == 1 and "with no mbarrier wait in between" in found[0], found


def test_a_bulk_store_of_the_tile_reads_it() -> None:
    found = _found("  load(tile, in, bar, 1024);\n  wait_group0();\n  store(out, tile, 1024);")
    assert len(found) == 1 and "cp.async.bulk.global.shared::cta.bulk_group" in found[0], found


def test_the_mbarrier_wait_completes_the_copy() -> None:
    assert _found("  load(tile, in, bar, 1024);\n  wait_bar(bar);\n  store(out, tile, 1024);") \
        == []
    assert _found("  load(tile, in, bar, 1024);\n  wait_bar(bar);\n  out[0] = tile[0];") == []


def test_a_call_that_may_wait_silences_it() -> None:
    assert _found("  load(tile, in, bar, 1024);\n  elsewhere();\n  out[0] = tile[0];") == []


def test_a_stub_that_does_something_is_not_an_empty_stub() -> None:
    helpers = HELPERS.replace(
        "__device__ __forceinline__ void wait_group0() {}",
        "__device__ __forceinline__ void wait_group0() { elsewhere(); }")
    # the real wait_group0 and a stub that calls what ptxlint cannot read: which one a call
    # reaches is not known, and the call may wait (on the mbarrier, for all ptxlint knows)
    assert _found("  load(tile, in, bar, 1024);\n  wait_group0();\n  out[0] = tile[0];",
                  helpers=helpers) == []


def test_without_the_stubs_nothing_changes() -> None:
    helpers = HELPERS[:HELPERS.index("#else")] + "#endif\n__device__ void elsewhere();\n"
    found = _found("  load(tile, in, bar, 1024);\n  wait_group0();\n  out[0] = tile[0];",
                   helpers=helpers)
    assert len(found) == 1 and "waits only for async-groups" in found[0], found


def test_an_arm_that_returns_is_not_followed_by_what_comes_after_the_if() -> None:
    small = ("  if (n <= 256) {\n    load(tile, in, bar, 1024);\n    wait_bar(bar);\n"
             "    store(out, tile, 1024);\n    return;\n  }\n"
             "  load(tile, in, bar, 1024);\n  wait_bar(bar);\n  out[0] = tile[0];")
    assert _found(small, ("PTX616",)) == []
    # without the return, the second load may overwrite the tile the store still reads
    assert len(_found(small.replace("    return;\n", ""), ("PTX616",))) == 1
    # an arm that is the return statement itself, the store in it
    unbraced = ("  load(tile, in, bar, 1024);\n  wait_bar(bar);\n"
                "  if (n <= 256) return store(out, tile, 1024);\n"
                "  load(tile, in, bar, 1024);\n  wait_bar(bar);\n  out[0] = tile[0];")
    assert _found(unbraced, ("PTX616",)) == []
    assert len(_found(unbraced.replace("return store", "store"), ("PTX616",))) == 1
    # in a loop, the arm of a later turn follows what came after it in an earlier one
    looped = "  for (int i = 0; i < n; ++i) {\n" + small.replace("return;", "continue;") + "\n  }"
    assert len(_found(looped, ("PTX616",))) == 1
