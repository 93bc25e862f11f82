"""PTX601: a warp collective that only part of the warp reaches gives wrong results on the GPU
(measured where one is found), and ptxlint reports exactly those statements of the kernel."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import lint_text
from tests.toolchain_cache import gpu_program, needs_gpu

# mode 0: shfl.sync reached by the whole warp; 1: by lane 0 alone (lane 5, in the other arm,
# changes the value lane 0 reads); 2: mma.sync by lanes 0-15 only; 3: by the whole warp.
# counts[0]: lane-0 results that are not lane 5's value at the shuffle; counts[1]: accumulator
# words that differ from the whole warp's (every one is k = 16).
KERNEL = r"""
#include <cstdio>
__global__ void conv(float* out, unsigned* counts, int mode) {
  unsigned lane = threadIdx.x % 32;
  float v = lane;
  if (mode == 1) {
    if (lane == 0) asm volatile("shfl.sync.idx.b32 %0, %0, 5, 0x1f, 0xffffffff;" : "+f"(v));
    else v += 100.f;
  } else if (mode == 0) {
    asm volatile("shfl.sync.idx.b32 %0, %0, 5, 0x1f, 0xffffffff;" : "+f"(v));
    if (lane != 0) v += 100.f;
  }
  if (lane == 0 && mode < 2 && v != 5.f) atomicAdd(&counts[0], 1u);
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  unsigned a = 0x3c003c00u, b = 0x3c003c00u;
  if (mode == 2 && lane >= 16) {
    out[blockIdx.x * blockDim.x + threadIdx.x] = 0.f;
  } else if (mode >= 2) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3},"
                 " {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a), "r"(a), "r"(a), "r"(a), "r"(b), "r"(b));
    for (int i = 0; i < 4; ++i) if (d[i] != 16.f) atomicAdd(&counts[1], 1u);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v + d[0];
}
int main() {
  float* out; unsigned* counts;
  cudaMalloc(&out, 4096 * 32 * sizeof(float)); cudaMalloc(&counts, 2 * sizeof(unsigned));
  for (int mode = 0; mode < 4; ++mode) {
    unsigned h[2] = {0, 0};
    cudaMemset(counts, 0, sizeof h);
    conv<<<4096, 32>>>(out, counts, mode);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(h, counts, sizeof h, cudaMemcpyDeviceToHost);
    printf("%d %d %u %u\n", mode, e == cudaSuccess, h[0], h[1]);
  }
  return 0;
}
"""


def test_ptxlint_reports_the_collectives_part_of_the_warp_reaches() -> None:
    found = lint_text(KERNEL, select=("PTX601",))
    lines = sorted(KERNEL.count("\n", 0, f.span.start) + 1 for f in found)
    shuffle_under_lane = KERNEL.splitlines().index(
        next(line for line in KERNEL.splitlines() if "if (lane == 0) asm" in line)) + 1
    mma = KERNEL.splitlines().index(
        next(line for line in KERNEL.splitlines() if "mma.sync" in line)) + 1
    assert lines == [shuffle_under_lane, mma]


@needs_gpu
def test_part_of_a_warp_at_a_collective_gives_wrong_results(tmp_path: Path) -> None:
    out = gpu_program(str(tmp_path), KERNEL, "-arch=sm_80", "-O3")()
    rows = {int(r.split()[0]): [int(x) for x in r.split()[1:]] for r in out.splitlines()}
    assert rows[0] == [1, 0, 0] and rows[3] == [1, 0, 0]  # the whole warp: right every time
    assert rows[1][1] > 0  # lane 0 alone at the shuffle: not lane 5's value at it
    assert rows[2][2] > 0  # half a warp at the mma: wrong accumulators


# Each arm of a lane split runs a full-mask shuffle of its own (the same opcode and mask): the
# lanes of the mask wait for each other across the two, so each half exchanges within itself.
# Prints the threads whose value is not their partner's (lane ^ 1 below 16, lane ^ 2 above).
BOTH_ARMS = r"""
#include <cstdio>
__global__ void both(unsigned* wrong) {
  unsigned lane = threadIdx.x % 32;
  int v = threadIdx.x;
  if (lane < 16) {
    asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;" : "+r"(v));
  } else {
    asm volatile("shfl.sync.bfly.b32 %0, %0, 2, 0x1f, 0xffffffff;" : "+r"(v));
  }
  if (v != (int)(threadIdx.x ^ (lane < 16 ? 1u : 2u))) atomicAdd(wrong, 1u);
}
int main() {
  unsigned* wrong; unsigned h = 0;
  cudaMalloc(&wrong, sizeof h); cudaMemset(wrong, 0, sizeof h);
  both<<<128, 256>>>(wrong);
  cudaError_t e = cudaDeviceSynchronize();
  cudaMemcpy(&h, wrong, sizeof h, cudaMemcpyDeviceToHost);
  printf("%d %u\n", e == cudaSuccess, h);
  return 0;
}
"""


def test_a_shuffle_in_each_arm_of_a_lane_split_is_not_reported() -> None:
    assert lint_text(BOTH_ARMS, select=("PTX601", "PTX611")) == []


@needs_gpu
def test_the_lanes_of_a_mask_meet_across_the_two_arms(tmp_path: Path) -> None:
    out = gpu_program(str(tmp_path), BOTH_ARMS, "-arch=sm_80", "-O3")()
    assert out.split() == ["1", "0"]  # every thread got its partner's value



def test_an_arm_a_directive_branch_may_close_is_in_doubt() -> None:
    """``if (c) {`` ``#if !S`` ``}`` ``{ ...shfl... `` ``#endif`` ``}``: without S the ``if``
    closes in the ``#if`` branch and the whole warp runs the shuffle, yet tree-sitter's
    recovery may nest the block in the arm (a generated flashinfer kernel: 29 PTX601 errors).
    PTX601 takes such an arm as no certain split (``divergence.arm_in_doubt``)."""
    from ptxlint.frontends.split_conditionals import closes_before

    split = (b"if (elect()) {\n  arrive();\n#if !S\n}\n{\n  SHFL;\n#endif\n}\n")
    assert closes_before(split, split.index(b"{"), split.index(b"SHFL"))
    for whole in (b"if (elect()) {\n#if X\n  a();\n#endif\n  SHFL;\n}\n",  # no brace
                  b"if (elect()) {\n  a(); // }\n  b(\"}\");\n  SHFL;\n}\n",  # no directive
                  b"if (elect()) {\n#if X\n  { a(); }\n#else\n  '}';\n#endif\n  SHFL;\n}\n"):
        assert not closes_before(whole, whole.index(b"{"), whole.index(b"SHFL")), whole


# The shape of a generated flashinfer kernel (its other configuration's braces elsewhere):
# without S the `if` closes in the `#if` branch, and tree-sitter nests the block after it,
# shuffle and all, in the arm
SPLIT_BY_DIRECTIVE = r"""
__device__ bool elect_sync();
__global__ void k(float* out, int n) {
  float v = out[threadIdx.x];
  if (elect_sync()) {
    out[0] = 1.f;
#if !S
  }
  {
    if (n == 0) {
      asm volatile("shfl.sync.idx.b32 %0, %0, 5, 0x1f, 0xffffffff;" : "+f"(v));
    }
    out[threadIdx.x] = v;
  }
#endif
  }
}
"""


def test_a_collective_an_arm_may_not_hold_is_not_reported_under_it() -> None:
    assert lint_text(SPLIT_BY_DIRECTIVE, "k.cu", select=("PTX601",)) == []
    # the same arm with a directive that closes nothing still holds its shuffle
    held = SPLIT_BY_DIRECTIVE.replace("#if !S\n  }\n  {", "#if !S\n  out[1] = 2.f;\n#endif\n  {") \
        .replace("#endif\n  }\n}", "  }\n}")
    assert [f.rule for f in lint_text(held, "k.cu", select=("PTX601",))] == ["PTX601"]


def test_the_lanes_an_arm_may_not_hold_are_not_read() -> None:
    """The lane sets (``lane_sets.reaching_lanes``) doubt such an arm too: without S every lane
    reaches the shuffle, so its full mask names no lane that stays away."""
    lanes = SPLIT_BY_DIRECTIVE.replace("elect_sync()", "threadIdx.x % 32 < 16").replace(
        "    if (n == 0) {\n", "    {\n")
    assert lint_text(lanes, "k.cu", select=("PTX601", "PTX611")) == []
    held = lanes.replace("#if !S\n  }\n  {", "#if !S\n  out[1] = 2.f;\n#endif\n  {") \
        .replace("#endif\n  }\n}", "  }\n}")
    assert [f.rule for f in lint_text(held, "k.cu", select=("PTX601",))] == ["PTX601"]
