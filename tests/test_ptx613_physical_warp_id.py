"""PTX613: %warpid is a warp's physical slot; a value read from it must not be counted with as
the warp's index in the block."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import lint_text
from tests.toolchain_cache import gpu_program, needs_gpu

READ = 'asm volatile("mov.u32 %0, %%warpid;" : "=r"(w));'


def _found(text: str) -> list[str]:
    return [f.message for f in lint_text(text, select=("PTX613",))]


def _kernel(body: str, before: str = "") -> list[str]:
    return _found(before + "__global__ void k(int* out, int n) {\n  unsigned w;\n  " + READ
                  + "\n" + body + "\n}\n")


def test_a_comparison_an_index_and_arithmetic_are_uses() -> None:
    assert "`w < 4` (line 4)" in _kernel("  if (w < 4) out[0] = 1;")[0]
    assert "`out[w]`" in _kernel("  out[w] = 1;")[0]
    assert "`w * 32`" in _kernel("  out[0] = w * 32 + threadIdx.x % 32;")[0]


def test_through_parentheses_casts_and_a_copy() -> None:
    assert "`out[(int)w]`" in _kernel("  out[(int)w] = 1;")[0]
    assert "`static_cast<int>(w) == 0`" in _kernel("  if (static_cast<int>(w) == 0) n = 1;")[0]
    found = _kernel("  const int warp = (w);\n  out[warp] = 1;")
    assert len(found) == 1 and "`out[warp]` (line 5)" in found[0]


def test_a_switch_on_it_is_a_use() -> None:
    assert "`switch (w)`" in _kernel("  switch (w) { case 0: out[0] = 1; break; default: break; }")[0]


def test_logging_and_passing_it_on_are_not_uses() -> None:
    assert _kernel('  printf("%u", w);\n  out[threadIdx.x] = w;\n  n = w;') == []
    assert _kernel("  out[0] = 1;") == []  # read, never used


def test_uses_before_the_read_do_not_count() -> None:
    text = ("__global__ void k(int* out) {\n  unsigned w = 0;\n  out[w] = 1;\n  " + READ
            + "\n  out[1] = w;\n}\n")
    assert _found(text) == []


def test_a_getter_is_judged_by_its_callers_in_the_file() -> None:
    getter = ("__device__ int warp_slot() {\n  int w;\n  " + READ + "\n  return w;\n}\n")
    assert _found(getter) == []  # no caller: a wrapper whose callers decide
    assert _found(getter + '__global__ void k() { printf("%d", warp_slot()); }\n') == []
    found = _found(getter + "__global__ void k(int* o) { o[warp_slot()] = 1; }\n")
    assert len(found) == 1 and "`o[warp_slot()]` (line 6)" in found[0]
    # a getter of the getter, and a local that copies a call
    found = _found(getter + "__device__ int group() { return warp_slot() / 4; }\n")
    assert "`warp_slot() / 4`" in found[0]
    found = _found(getter + "__global__ void k(int* o) {\n  int s = warp_slot();\n"
                   "  if (s == 0) o[0] = 1;\n}\n")
    assert "`s == 0` (line 8)" in found[0]


def test_more_than_two_copies_deep_is_not_followed() -> None:
    getter = ("__device__ int a() {\n  int w;\n  " + READ + "\n  return w;\n}\n"
              "__device__ int b() { return a(); }\n"
              "__global__ void k(int* o) {\n  int c = b();\n  o[c] = 1;\n}\n")
    assert _found(getter) == []


def test_memory_and_members_are_not_followed() -> None:
    text = ("struct S { unsigned w; };\n__global__ void k(S* s, int* o) {\n"
            '  asm volatile("mov.u32 %0, %%warpid;" : "=r"(s->w));\n  o[s->w] = 1;\n}\n')
    assert _found(text) == []


def test_laneid_and_smid_are_not_flagged() -> None:
    for register in ("laneid", "smid", "nwarpid"):
        text = ("__global__ void k(int* o) {\n  unsigned w;\n  asm volatile(\"mov.u32 %0, %%"
                + register + ';" : "=r"(w));\n  o[w] = 1;\n}\n')
        assert _found(text) == [], register


def test_a_register_the_template_computes_with_is_not_followed() -> None:
    # the slot moved into a PTX register and shifted there: the output is no longer %warpid
    text = ("__global__ void k(int* o) {\n  unsigned w;\n"
            '  asm volatile("{ .reg .u32 t; mov.u32 t, %%warpid; shr.u32 %0, t, 2; }" : "=r"(w));'
            "\n  o[w] = 1;\n}\n")
    assert _found(text) == []


_RUN = r"""
#include <cstdio>
__device__ unsigned warpid() {
  unsigned w;
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(w));
  return w;
}
// Blocks of two warps, many of them resident on each SM at once: each warp records the slot
// it read and its rank in its block (threadIdx.x / 32).
__global__ void k(unsigned* slot, unsigned* rank) {
  if (threadIdx.x % 32 == 0) {
    unsigned at = blockIdx.x * 2 + threadIdx.x / 32;
    slot[at] = warpid();
    rank[at] = threadIdx.x / 32;
  }
  if (warpid() >= 2) __nanosleep(1000);  // the slot counted with as the rank
}
int main() {
  const int blocks = 4096;
  unsigned *slot, *rank;
  cudaMallocManaged(&slot, blocks * 2 * sizeof(unsigned));
  cudaMallocManaged(&rank, blocks * 2 * sizeof(unsigned));
  k<<<blocks, 64>>>(slot, rank);
  cudaDeviceSynchronize();
  int differ = 0;
  unsigned highest = 0;
  for (int i = 0; i < blocks * 2; ++i) {
    differ += slot[i] != rank[i];
    highest = slot[i] > highest ? slot[i] : highest;
  }
  printf("%d %u\n", differ, highest);
}
"""


@needs_gpu
def test_on_a_gpu_the_slot_is_not_the_warps_rank(tmp_path: Path) -> None:
    # the statement is flagged (its value compared with 2), and on the GPU most warps' slot
    # differs from their rank in a two-warp block: later blocks on an SM sit in higher slots
    assert len(lint_text(_RUN, select=("PTX613",))) == 1
    differ, highest = (int(v) for v in gpu_program(str(tmp_path), _RUN, "-arch=native")().split())
    assert differ > 0 and highest >= 2


SMID = 'asm volatile("mov.u32 %0, %%smid;" : "=r"(s));'


def test_a_slot_on_the_gpu_made_with_smid_is_what_warpid_is() -> None:
    # one state per hardware thread (HugeCTR's GlobalThreadId): SM, then slot, then lane
    assert _kernel("  unsigned s;\n  " + SMID + "\n  out[s * 2048 + w * 32 + threadIdx.x % 32] = 1;"
                   ) == []
    assert _kernel("  unsigned s;\n  " + SMID + "\n  out[(s << 6) | w] = 1;") == []
    # through getters of both
    getters = ("__device__ unsigned sm() {\n  unsigned s;\n  " + SMID + "\n  return s;\n}\n"
               "__device__ unsigned slot() {\n  unsigned w;\n  " + READ + "\n  return w;\n}\n")
    assert _found(getters + "__global__ void k(int* o) { o[sm() * 64 + slot()] = 1; }\n") == []


def test_smid_elsewhere_leaves_a_rank_use_flagged() -> None:
    # %smid read in the function, but the comparison counts with %warpid alone
    found = _kernel("  unsigned s;\n  " + SMID + "\n  out[s] = 1;\n  if (w < 4) out[1] = 2;")
    assert len(found) == 1 and "`w < 4`" in found[0]
    found = _kernel("  unsigned s;\n  " + SMID + "\n  out[s * 4] = w * 32;")
    assert len(found) == 1 and "`w * 32`" in found[0]
