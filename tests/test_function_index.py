"""The function around a point, found by climbing, is the one the file's listing places it in."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.analysis.function_flow import FileFlows
from ptxlint.analysis.function_index import FunctionIndex
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from tests.conftest import lint_text

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
        assert flow.recovered or flow in climbing.functions


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


# A macro call with no `;` (`DEFINE_OP(+)`) makes the next definition part of an expression:
# the tree shows no function, the text does (flashinfer's xqa/utils.cuh has this shape).
BROKEN = r"""
#define DEFINE_OP(op) __device__ int apply(int a, int b) { return a op b; }
DEFINE_OP(+)
DEFINE_OP(-)
template <bool transpose>
__device__ inline unsigned load(unsigned const* row) {
  unsigned a;
  if (threadIdx.x % 32 == 0) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(a) : "l"(row));
  }
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(a) : "l"(row));
  return a;
}
"""


def test_a_function_the_tree_lost_is_taken_from_the_text() -> None:
    climbing, listing, data = _pair(BROKEN)
    first = data.index(b"asm volatile")
    flow = climbing.around(first)
    assert flow is not None and flow.name == "load" and flow.recovered
    assert flow.node.type == "compound_statement" and len(flow.statements) == 2
    assert climbing.around(data.index(b"asm volatile", first + 1)) is flow
    assert all(f.name != "load" for f in listing.functions)  # the listing holds the tree's
    _same(climbing, listing, data, 1)  # the same answers, either way, every byte


def test_ptx601_reads_a_function_the_tree_lost() -> None:
    findings = lint_text(BROKEN, "k.cu", select=("PTX601",))
    # the lane-0 ldmatrix is flagged; the whole-warp one after it is not
    assert [(f.rule, BROKEN.count("\n", 0, f.span.start)) for f in findings] == [("PTX601", 8)]
