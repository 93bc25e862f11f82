"""PTX611: a lane outside a collective's member mask that executes it anyway gets no defined
result. On an H200 a converged warp's ballot then counts the lanes the mask leaves out
(measured where a GPU is found), and ptxlint reports exactly that statement of the program."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import lint_text
from tests.toolchain_cache import gpu_program, needs_gpu

# Every lane votes 1. `outside`: the whole warp runs a ballot whose mask names lanes 0-15 (the
# defect); `inside`: only lanes 0-15 run it (defined: lanes outside the mask count 0). Each
# program line: kernel, launched, warps whose ballot is the masked one (0x0000ffff), warps.
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
int main() {
  const int warps = 4096;
  unsigned* d; cudaMalloc(&d, warps * 32 * sizeof(unsigned));
  static unsigned h[warps * 32];
  for (int k = 0; k < 2; ++k) {
    if (k == 0) outside<<<warps, 32>>>(d); else inside<<<warps, 32>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int masked = 0;
    for (int w = 0; w < warps; ++w) masked += h[w * 32] == 0x0000ffffu;
    printf("%d %d %d %d\n", k, e == cudaSuccess, masked, warps);
  }
  return 0;
}
"""


def test_ptxlint_reports_the_ballot_the_whole_warp_runs_outside_its_mask() -> None:
    found = lint_text(KERNEL, select=("PTX611",))
    lines = [KERNEL.count("\n", 0, f.span.start) + 1 for f in found]
    first_ballot = next(n for n, line in enumerate(KERNEL.splitlines(), 1) if "vote.sync" in line)
    assert lines == [first_ballot]


@needs_gpu
def test_lanes_outside_the_mask_change_the_ballot(tmp_path: Path) -> None:
    out = gpu_program(str(tmp_path), KERNEL, "-arch=sm_80", "-O3")()
    rows = {int(r.split()[0]): [int(x) for x in r.split()[1:]] for r in out.splitlines()}
    assert rows[1] == [1, 4096, 4096]  # only the mask's lanes: the masked ballot every time
    assert rows[0][0] == 1 and rows[0][1] < 4096  # the whole warp: lanes outside it counted
