"""PTX611: a lane outside a collective's member mask that executes it anyway gets no defined
result. On an H200 a converged warp's ballot then counts the lanes the mask leaves out, and
under a lane condition the same defect stops the kernel with an illegal instruction (measured
where a GPU is found); ptxlint reports exactly those statements of the program."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import lint_text
from tests.toolchain_cache import gpu_program, needs_gpu

# Every lane votes 1. `outside`: the whole warp runs a ballot whose mask names lanes 0-15 (the
# defect); `inside`: only lanes 0-15 run it (defined: lanes outside the mask count 0);
# `under_a_lane_condition`: lanes 0-15 run one whose mask names lanes 0-7 (the defect again).
# Each program line: kernel, launched, warps whose ballot is the masked one (0x0000ffff; -1
# where the kernel stopped on an illegal instruction), warps.
KERNEL = r"""
#include <cstdio>
__global__ void outside(unsigned* out) {
  unsigned b;
  asm volatile("{\n.reg .pred p;\nsetp.ne.u32 p, %1, 0;\nvote.sync.ballot.b32 %0, p, 0x0000ffff;\n}"
               : "=r"(b) : "r"(1u));
  out[blockIdx.x * blockDim.x + threadIdx.x] = b;
}
__global__ void inside(unsigned* out) {
  unsigned b = 0x0000ffffu;
  if (threadIdx.x % 32 < 16) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.u32 p, %1, 0;\nvote.sync.ballot.b32 %0, p, 0x0000ffff;\n}"
                 : "=r"(b) : "r"(1u));
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = b;
}
__global__ void under_a_lane_condition(unsigned* out) {
  unsigned b = 0x0000ffffu;
  if (threadIdx.x % 32 < 16) {  // lanes 0-15 run it; the mask names lanes 0-7
    asm volatile("{\n.reg .pred p;\nsetp.ne.u32 p, %1, 0;\nvote.sync.ballot.b32 %0, p, 0x000000ff;\n}"
                 : "=r"(b) : "r"(1u));
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = b;
}
int main() {
  const int warps = 4096;
  unsigned* d; cudaMalloc(&d, warps * 32 * sizeof(unsigned));
  static unsigned h[warps * 32];
  // the last kernel's illegal instruction leaves the context unusable: it runs last
  for (int k = 0; k < 3; ++k) {
    if (k == 0) outside<<<warps, 32>>>(d);
    else if (k == 1) inside<<<warps, 32>>>(d);
    else under_a_lane_condition<<<warps, 32>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaErrorIllegalInstruction) { printf("%d 0 -1 %d\n", k, warps); break; }
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int masked = 0;
    for (int w = 0; w < warps; ++w) masked += h[w * 32] == 0x0000ffffu;
    printf("%d %d %d %d\n", k, e == cudaSuccess, masked, warps);
  }
  return 0;
}
"""


def test_ptxlint_reports_the_ballots_lanes_run_outside_their_masks() -> None:
    found = lint_text(KERNEL, select=("PTX611",))
    lines = [KERNEL.count("\n", 0, f.span.start) + 1 for f in found]
    ballots = [n for n, line in enumerate(KERNEL.splitlines(), 1) if "vote.sync" in line]
    assert lines == [ballots[0], ballots[2]]  # the whole warp's, and lanes 8-15's


@needs_gpu
def test_lanes_outside_the_mask_change_the_ballot(tmp_path: Path) -> None:
    out = gpu_program(str(tmp_path), KERNEL, "-arch=sm_80", "-O3")()
    rows = {int(r.split()[0]): [int(x) for x in r.split()[1:]] for r in out.splitlines()}
    assert rows[1] == [1, 4096, 4096]  # only the mask's lanes: the masked ballot every time
    assert rows[0][0] == 1 and rows[0][1] < 4096  # the whole warp: lanes outside it counted
    assert rows[2] == [0, -1, 4096]  # lanes 0-15 under `lane < 16`: an illegal instruction


# The member mask's slot bound to the value the instruction works on: the same operand, or two
# operands bound to one expression. A mask of its own, a constant, or one call evaluated twice
# (warp-uniform) stays silent.
DATA_MASKS = r"""
__device__ int up(int x, int d, unsigned m) {
  int r;
  asm("shfl.sync.up.b32 %0, %1, %2, 0, %3;" : "=r"(r) : "r"(x), "r"(d), "r"(x));
  asm("shfl.sync.up.b32 %0, %1, %2, 0, %3;" : "=r"(r) : "r"( x ), "r"(d), "r"(m));
  asm("shfl.sync.up.b32 %0, %1, %2, 0, %3;" : "=r"(r) : "r"(x), "r"(d), "r"(0xffffffffu));
  return r;
}
__device__ unsigned red(unsigned v, unsigned m) {
  unsigned r;
  asm volatile("redux.sync.add.u32 %0, %1, %1;" : "=r"(r) : "r"(v));
  asm volatile("redux.sync.add.u32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(m));
  asm volatile("redux.sync.min.u32 %0, %1, %2;" : "=r"(r) : "r"(__activemask()), "r"(__activemask()));
  asm volatile("vote.sync.ballot.b32 %0, 1, %1;" : "=r"(r) : "r"(m));
  return r;
}
"""


def test_a_mask_that_is_the_collectives_own_source_is_reported() -> None:
    found = lint_text(DATA_MASKS, select=("PTX611",))
    lines = [DATA_MASKS.splitlines()[DATA_MASKS.count("\n", 0, f.span.start)] for f in found]
    assert len(lines) == 2
    assert '"r"(x), "r"(d), "r"(x)' in lines[0] and "%1, %1;" in lines[1]
    assert "`x`, the value it exchanges" in found[0].message
    assert "`v`, the value it reduces" in found[1].message
