"""The function around a point, found by climbing, is the one the file's listing places it in."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.analysis.function_flow import FileFlows
from ptxlint.analysis.function_index import FunctionIndex
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile

ROOT = Path(__file__).resolve().parent.parent

SHAPES = r"""
namespace ns {
template <int N> struct S {
  __device__ int m(int a) { struct L { __device__ int inner() { return 1; } }; return a + N; }
  __device__ int fma(int a);
};
template <int N> __device__ int S<N>::fma(int a) { return a * N; }
}  // namespace ns
extern "C" { __device__ void c_linkage(unsigned* p) { asm volatile("st.u32 [%0], 1;" :: "l"(p)); } }
__device__ int (*pick(int n))(int) { return nullptr; }
#define BODY { return 3; }
__device__ int through_macro() BODY
__global__ void k(unsigned* out) {
  auto f = [&](int x) { asm volatile("add.u32 %0, %0, 1;" : "+r"(x)); return x; };
  if (threadIdx.x % 32 == 0) out[0] = f(1);
  asm volatile("bar.sync 0;");
}
void broken( { int x = ; }
__device__ void after_error() { asm volatile("bar.sync 1;"); }
"""


def _pair(text: str, path: str = "k.cu") -> tuple[FunctionIndex, FunctionIndex, bytes]:
    extracted = extract_statements(SourceFile(path, text))
    assert extracted.parsed is not None
    parsed = extracted.parsed
    climbing, listing = FileFlows(parsed, tuple(extracted.statements)), \
        FileFlows(parsed, tuple(extracted.statements))
    return climbing._index, listing._index, parsed.data


def _same(climbing: FunctionIndex, listing: FunctionIndex, data: bytes, step: int) -> None:
    listing.functions  # noqa: B018 - answers by the list from here on
    for byte in range(0, len(data), step):
        left, right = climbing.around(byte), listing.around(byte)
        assert (left is None) == (right is None), byte
        if left is not None and right is not None:
            assert (left.name, left.start, left.end) == (right.name, right.start, right.end)
            assert [s.span for s in left.statements] == [s.span for s in right.statements]
    # one flow per function, whichever way it was found
    for flow in climbing.made():
        assert flow in climbing.functions


def test_climbing_agrees_with_the_listing_on_every_byte() -> None:
    climbing, listing, data = _pair(SHAPES)
    _same(climbing, listing, data, 1)
    names = [f.name for f in listing.functions]
    # a local class's method is m's; a macro's body is no definition; the parse after the
    # broken one does not recover `after_error`
    assert names == ["m", "fma", "c_linkage", "pick", "k"]


@pytest.mark.parametrize("name", ["PTX601_bad.cu", "PTX601_clean.cu", "PTX606_bad.cu"])
def test_climbing_agrees_on_fixtures(name: str) -> None:
    path = ROOT / "fixtures" / "rules" / name
    climbing, listing, data = _pair(path.read_text(), str(path))
    _same(climbing, listing, data, 7)
