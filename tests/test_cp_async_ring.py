"""PTX603 on a ring of stages: a multistage cp.async pipeline refills stage ``(k + S - 1) % S``
and reads stage ``k % S`` each turn; over the turns each stage is read after the copy that
fills it, so a loop with no cp.async wait at all reads data a copy may still be writing. A wait
anywhere in the loop is the pipeline's (its count against the ring is not reckoned), and an
index that only grows names a new buffer each turn."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

PIPELINE = r"""
#include <cstdint>
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
               :: "r"(smem_u32(smem)), "l"(gmem) : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait_group() {
  asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory");
}
__device__ void elsewhere();
constexpr int S = 3;
__global__ void k(float* out, const float* in, int n) {
  __shared__ alignas(16) float buf[S][256];
  for (int s = 0; s < S - 1; ++s) {
    cp_async16(&buf[s][threadIdx.x * 4], in + s * 1024 + threadIdx.x * 4);
    commit();
  }
  float acc = 0.f;
  for (int k = 0; LOOP; ++k) {
    WAIT
    __syncthreads();
    acc += buf[READ][threadIdx.x];
    int next = k + S - 1;
    if (next < n) cp_async16(&buf[FILL][threadIdx.x * 4], in + next * 1024 + threadIdx.x * 4);
    commit();
  }
  out[threadIdx.x] = acc;
}
"""


def _found(wait: str = "", read: str = "k % S", fill: str = "next % S",
           loop: str = "k < n") -> list[str]:
    text = PIPELINE.replace("WAIT", wait).replace("READ", read).replace("FILL", fill) \
        .replace("LOOP", loop)
    return [f.message for f in lint_text(text, "k.cu", select=("PTX603",))]


def test_a_ring_with_no_wait_in_the_loop() -> None:
    [message] = _found()
    assert "reads a stage of the ring buffer" in message
    assert "`next % S` comes back round" in message
    assert "no cp.async wait anywhere in the loop" in message


@pytest.mark.parametrize("wait", ["wait_group<S - 2>();", "wait_group<0>();",
                                  "asm volatile(\"cp.async.wait_all;\" ::: \"memory\");"])
def test_a_wait_in_the_loop_is_the_pipeline(wait: str) -> None:
    assert _found(wait) == []


def test_a_call_that_may_wait_silences_it() -> None:
    assert _found("elsewhere();") == []


def test_the_read_and_the_fill_share_the_modulus() -> None:
    # a read of a stage another modulus picks is not known to meet the fill's stages
    assert _found(read="k % 2") == []
    assert len(_found(read="(k + 1) % S")) == 1


def test_an_index_that_only_grows_is_no_ring() -> None:
    assert _found(read="k", fill="next") == []


def test_a_loop_no_longer_than_the_ring_reads_nothing_refilled() -> None:
    # a constant count no greater than the ring's known size: the index never comes round
    text = dict(read="k % 4", fill="next % 4")
    assert _found(loop="k < 4", **text) == []
    assert len(_found(loop="k < 16", **text)) == 1


def _pieces(extra: str) -> int:
    text = PIPELINE.replace(
        "    if (next < n) cp_async16(&buf[FILL][threadIdx.x * 4], in + next * 1024 + "
        "threadIdx.x * 4);\n",
        "    for (int i = 0; i < 2; ++i)\n"
        "      cp_async16(&buf[next % S][i * 128 + threadIdx.x * 4], in + next * 1024);\n"
        + extra)
    text = text.replace("WAIT", "").replace("READ", "k % S").replace("LOOP", "k < n")
    return len(lint_text(text, "k.cu", select=("PTX603",)))


def test_copies_of_each_piece_in_an_inner_loop() -> None:
    # the inner loop's counter moves the address, and starts again each turn of the ring's loop
    assert _pieces("") == 1


def test_two_copies_into_the_ring_one_missing_wait_one_finding() -> None:
    assert _pieces("    cp_async16(&buf[next % S][threadIdx.x], in + next * 1024);\n") == 1
