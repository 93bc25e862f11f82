"""PTX214 shuffle-moves-nothing: the PTX ISA's shfl pseudocode (ptxlint.ptx.shuffle), the rule
on its bad and clean cases, and, where a GPU is present, a warp showing that a .up shuffle with
the .down clamp hands every lane its own value."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ptxlint.ptx.shuffle import conventional_clamp, moves_data, source_lane
from tests.conftest import lint_text
from tests.toolchain_cache import NVCC, needs_gpu


def test_the_pseudocode_reads_cudas_own_clamps() -> None:
    full_up, full_down = 0x0, 0x1F  # __shfl_up_sync and the others, width 32
    assert [source_lane("up", lane, 1, full_up) for lane in (0, 1, 31)] == [None, 0, 30]
    assert [source_lane("down", lane, 1, full_down) for lane in (0, 30, 31)] == [1, 31, None]
    assert source_lane("bfly", 5, 1, full_down) == 4
    assert source_lane("idx", 7, 3, full_down) == 3
    # width 16: segment mask 0x10; lane 17 reads lane 16's segment, never lane 15
    assert source_lane("up", 16, 1, 0x1000) is None and source_lane("up", 17, 1, 0x1000) == 16
    assert source_lane("idx", 20, 3, 0x101F) == 19


def test_a_clamp_of_the_other_mode_moves_nothing() -> None:
    assert not moves_data("up", range(32), 0x1F)
    assert not moves_data("down", range(32), 0x0)
    assert moves_data("up", range(32), 0x0) and moves_data("down", range(32), 0x1F)
    assert moves_data("idx", range(32), 0x0)  # b = 0 broadcasts lane 0
    assert moves_data("bfly", (4,), 0x0)  # lane 4 reads lane 0
    assert not moves_data("down", (0,), 0x1F)  # no offset
    assert moves_data("down", (1,), 0x1F, lanes=(0, 1)) and not moves_data(
        "down", (1,), 0x1F, lanes=(31,))
    assert conventional_clamp("up", 0x101F) == 0x1000
    assert conventional_clamp("down", 0x1000) == 0x101F


def _shuffle(template: str, operands: str = ': "=r"(r) : "r"(x)') -> str:
    return ("__device__ unsigned f(unsigned x, unsigned off, unsigned c) {\n  unsigned r;\n"
            f'  asm volatile("{template}" {operands});\n  return r;\n}}\n')


BAD = [
    ("up-with-down-clamp", _shuffle("shfl.sync.up.b32 %0, %1, 1, 0x1f, 0xffffffff;"),
     "whatever the offset"),
    ("down-with-up-clamp", _shuffle("shfl.sync.down.b32 %0, %1, %2, 0, 0xffffffff;",
                                    ': "=r"(r) : "r"(x), "r"(off)'), "pass 0x1f here"),
    ("no-offset", _shuffle("shfl.sync.down.b32 %0, %1, 0, 0x1f, -1;"), "with offset 0"),
    ("clamp-through-n", _shuffle("shfl.sync.up.b32 %0, %1, %2, %3, -1;",
                                 ': "=r"(r) : "r"(x), "n"(1), "n"(0x1f)'), "%3 (0x1f)"),
    ("deprecated-shfl", _shuffle("{ .reg .pred p; shfl.up.b32 %0|p, %1, 1, 31; }"),
     "whatever the offset"),
    # the only member lane is the last: shifting down, it has no lane above to read
    ("only-last-lane-member", _shuffle("shfl.sync.down.b32 %0, %1, 1, 0x1f, 0x80000000;"),
     "every lane of member mask 0x80000000 keeps its own"),
]

CLEAN = [
    ("up", _shuffle("shfl.sync.up.b32 %0, %1, 1, 0x0, 0xffffffff;")),
    ("down", _shuffle("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;",
                      ': "=r"(r) : "r"(x), "r"(off)')),
    ("idx-broadcast-clamp", _shuffle("shfl.sync.idx.b32 %0, %1, %2, 0, 0xffffffff;",
                                     ': "=r"(r) : "r"(x), "r"(off)')),
    ("width-16-up", _shuffle("shfl.sync.up.b32 %0, %1, 1, 0x1000, 0xffffffff;")),
    ("width-16-down-half-mask", _shuffle("shfl.sync.down.b32 %0, %1, 8, 0x101f, 0xffff;")),
    ("bfly-zero-clamp", _shuffle("shfl.sync.bfly.b32 %0, %1, 4, 0, 0xffffffff;")),
    ("clamp-unknown", _shuffle("shfl.sync.up.b32 %0, %1, 1, %2, 0xffffffff;",
                               ': "=r"(r) : "r"(x), "r"(c)')),
]


@pytest.mark.parametrize("name, text, words", BAD, ids=[b[0] for b in BAD])
def test_flags(name: str, text: str, words: str) -> None:
    found = lint_text(text, select=("PTX214",))
    assert len(found) == 1, found
    assert words in found[0].message


@pytest.mark.parametrize("name, text", CLEAN, ids=[c[0] for c in CLEAN])
def test_silent(name: str, text: str) -> None:
    assert lint_text(text, select=("PTX214",)) == []


_RUN = r"""
#include <cstdio>
__global__ void k(unsigned *out) {
  unsigned x = threadIdx.x + 100, r;
  asm volatile("shfl.sync.up.b32 %0, %1, 1, CLAMP, 0xffffffff;" : "=r"(r) : "r"(x));
  out[threadIdx.x] = r;
}
int main() {
  unsigned *d, h[32];
  cudaMalloc(&d, sizeof h); k<<<1, 32>>>(d); cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 32; ++i) printf("%u ", h[i]);
  return cudaGetLastError() != cudaSuccess;
}
"""


@needs_gpu
def test_on_a_gpu_up_with_the_down_clamp_keeps_every_lane_own_value(tmp_path: Path) -> None:
    got = {}
    for clamp in ("0x1f", "0x0"):
        source = tmp_path / "run.cu"
        source.write_text(_RUN.replace("CLAMP", clamp))
        binary = tmp_path / "run"
        assert NVCC is not None
        subprocess.run([NVCC, "-arch=native", "-o", str(binary), str(source)], check=True)
        out = subprocess.run([str(binary)], capture_output=True, text=True, check=True)
        got[clamp] = [int(v) for v in out.stdout.split()]
    assert got["0x1f"] == [100 + lane for lane in range(32)]  # nothing moved
    assert got["0x0"] == [100] + [99 + lane for lane in range(1, 32)]  # lane i reads i - 1
