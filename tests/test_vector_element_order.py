"""PTX210 vector-element-order: a memory vector bound to one C++ vector out of layout order
permutes the value (ptxlint.analysis.vector_order). nvcc and ptxas accept any binding (the
test compiles both); where a GPU is present, a run shows the rotated value."""

from __future__ import annotations

import subprocess

import pytest

from ptxlint.analysis.vector_order import vector_orders
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_gpu, needs_nvcc, run_cached

ROTATED = '"=r"(v.w), "=r"(v.x), "=r"(v.y), "=r"(v.z)'
IN_ORDER = '"=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)'
PROGRAM = """
#include <cstdio>
__global__ void k(const int4 *p, int4 *out) {
  int4 v;
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : BINDING : "l"(p));
  *out = v;
}
int main() {
  int4 h = {1, 2, 3, 4}, r, *d;
  cudaMalloc(&d, 2 * sizeof(int4));
  cudaMemcpy(d, &h, sizeof(int4), cudaMemcpyHostToDevice);
  k<<<1, 1>>>(d, d + 1);
  cudaMemcpy(&r, d + 1, sizeof(int4), cudaMemcpyDeviceToHost);
  printf("%d %d %d %d\\n", r.x, r.y, r.z, r.w);
  return cudaGetLastError() != cudaSuccess;
}
"""


def _program(binding: str) -> str:
    return PROGRAM.replace("BINDING", binding)


def test_the_rotated_binding_is_flagged_and_the_layout_order_is_not() -> None:
    assert [f.rule for f in lint_text(_program(ROTATED), select=("PTX210",))] == ["PTX210"]
    assert lint_text(_program(IN_ORDER), select=("PTX210",)) == []


@pytest.mark.parametrize("expressions, positions", [
    (("v.w", "v.x", "v.y", "v.z"), (3, 0, 1, 2)),
    (("a[1]", "a[0]"), (1, 0)),
    (("(p->y)", "p -> x"), (1, 0)),
])
def test_positions_follow_members_and_indices(expressions: tuple[str, ...],
                                              positions: tuple[int, ...]) -> None:
    refs = ", ".join(f"%{i}" for i in range(len(expressions)))
    outputs = ", ".join(f'"=r"({e})' for e in expressions)
    text = (f'__device__ void f(int4 *p, int *a, int *q) {{ asm volatile('
            f'"ld.global.v{len(expressions)}.u32 {{{refs}}}, [%{len(expressions)}];" : {outputs}'
            f' : "l"(q)); }}\n')
    [statement] = extract_statements(SourceFile("t.cu", text)).statements
    [order] = vector_orders(statement)
    assert order.positions == positions


@needs_nvcc
def test_nvcc_builds_either_binding_without_a_word() -> None:
    assert NVCC is not None
    for binding in (ROTATED, IN_ORDER):
        run = run_cached(NVCC, ["-arch=sm_90", "-c", INPUT, "-o", OUTPUT], _program(binding),
                         filename="k.cu")
        assert run.ok and "warning" not in run.stderr.lower(), run.stderr


@needs_gpu
def test_on_a_gpu_the_rotated_binding_reads_a_rotated_vector(tmp_path) -> None:
    assert NVCC is not None
    got = []
    for binding in (ROTATED, IN_ORDER):
        source = tmp_path / "run.cu"
        source.write_text(_program(binding))
        subprocess.run([NVCC, "-o", str(tmp_path / "run"), str(source)], check=True)
        out = subprocess.run([str(tmp_path / "run")], capture_output=True, text=True, check=True)
        got.append(out.stdout.split())
    assert got == [["2", "3", "4", "1"], ["1", "2", "3", "4"]]


PAIR_PROGRAM = """
#include <cstdio>
#include <cuda_fp16.h>
__global__ void k(const float2 *p, float2 *out) {
  float2 v = *p;
  unsigned r;
  asm("cvt.rn.f16x2.f32 %0, SOURCES;" : "=r"(r) : "f"(v.x), "f"(v.y));
  __half2 h = *reinterpret_cast<__half2 *>(&r);
  *out = make_float2(__low2float(h), __high2float(h));
}
int main() {
  float2 h = {1.0f, 2.0f}, r, *d;
  cudaMalloc(&d, 2 * sizeof(float2));
  cudaMemcpy(d, &h, sizeof(float2), cudaMemcpyHostToDevice);
  k<<<1, 1>>>(d, d + 1);
  cudaMemcpy(&r, d + 1, sizeof(float2), cudaMemcpyDeviceToHost);
  printf("%g %g\\n", r.x, r.y);
  return cudaGetLastError() != cudaSuccess;
}
"""


def _pair(sources: str) -> str:
    return PAIR_PROGRAM.replace("SOURCES", sources)


def test_a_packed_conversion_takes_its_first_source_as_the_upper_half() -> None:
    """PTX ISA, cvt: "the value converted from input a is stored in the upper half of d": the
    layout order binds a to v.y and b to v.x. Over 166 such bindings in 60 public trees, none
    binds them the other way."""
    assert [f.rule for f in lint_text(_pair("%1, %2"), select=("PTX210",))] == ["PTX210"]
    assert lint_text(_pair("%2, %1"), select=("PTX210",)) == []
    [found] = lint_text(_pair("%1, %2"), select=("PTX210",))
    assert "the first is v.x and the second v.y" in found.message


PACK = '__device__ void f(unsigned long long &d, uint2 v) { asm("BODY" : "=l"(d) : BOUND); }\n'
UNPACK = '__device__ void f(unsigned long long d, uint2 &v) { asm("BODY" : BOUND : "l"(d)); }\n'


@pytest.mark.parametrize("text, flagged", [
    # element 0 into the low half, and out of it
    (PACK.replace("BODY", "mov.b64 %0, {%1, %2};").replace("BOUND", '"r"(v.x), "r"(v.y)'),
     False),
    (PACK.replace("BODY", "mov.b64 %0, {%2, %1};").replace("BOUND", '"r"(v.x), "r"(v.y)'),
     True),
    (UNPACK.replace("BODY", "mov.b64 {%0, %1}, %2;").replace("BOUND", '"=r"(v.x), "=r"(v.y)'),
     False),
    (UNPACK.replace("BODY", "mov.b64 {%1, %0}, %2;").replace("BOUND", '"=r"(v.x), "=r"(v.y)'),
     True),
])
def test_a_register_pack_takes_its_brace_list_from_the_low_bits_up(text: str,
                                                                    flagged: bool) -> None:
    """PTX ISA, mov: packing "{a, b}" puts a in the low half. Over 177 packs bound to one C++
    object in public trees, none binds them the other way."""
    assert bool(lint_text(text, select=("PTX210",))) == flagged, text


@needs_gpu
def test_on_a_gpu_the_packed_conversion_puts_its_first_source_high(tmp_path) -> None:
    assert NVCC is not None
    got = []
    for sources in ("%1, %2", "%2, %1"):
        source = tmp_path / "pair.cu"
        source.write_text(_pair(sources))
        # (cvt.f16x2.f32 needs sm_80: the default target is older)
        subprocess.run([NVCC, "-arch=sm_80", "-o", str(tmp_path / "pair"), str(source)],
                       check=True)
        out = subprocess.run([str(tmp_path / "pair")], capture_output=True, text=True, check=True)
        got.append(out.stdout.split())
    assert got == [["2", "1"], ["1", "2"]]  # (low, high): v.x lands high when bound first



ROUND_TRIP = """
__device__ unsigned long long swap_halves(unsigned long long value) {
  uint2 t;
  asm("mov.b64 {%0, %1}, %2;" : "=r"(FIRST) : "l"(value));
  asm("mov.b64 %0, {%1, %2};" : "=l"(value) : SECOND);
  return value;
}
__device__ unsigned long long join(uint2 v) {
  unsigned long long r;
  asm("mov.b64 %0, {%1, %2};" : "=l"(r) : "r"(v.y), "r"(v.x));
  return r;
}
"""


@pytest.mark.parametrize("first, second, flagged_lines", [
    # split in layout order, joined swapped: the pair swaps the register's halves on purpose
    ('t.x), "=r"(t.y', '"r"(t.y), "r"(t.x)', [10]),
    # split swapped, joined in layout order: the same swap
    ('t.y), "=r"(t.x', '"r"(t.x), "r"(t.y)', [10]),
    # both swapped: the pair permutes nothing, and each is out of the object's layout
    ('t.y), "=r"(t.x', '"r"(t.y), "r"(t.x)', [4, 5, 10]),
])
def test_a_register_split_and_joined_in_another_order_is_a_permutation(
        first: str, second: str, flagged_lines: list[int]) -> None:
    """A `mov` that splits a register into an object and one that joins the object into a
    register, in one function and in two element orders, compute a permutation of the
    register's pieces (SWAPDWORDS, a rotation by 16 bits): the object only carries them. A
    join of another function's object in swapped order is still reported."""
    text = ROUND_TRIP.replace("FIRST", first).replace("SECOND", second)
    findings = lint_text(text, select=("PTX210",))
    found = [text.count("\n", 0, f.span.start) + 1 for f in findings]
    assert found == flagged_lines
    # the split is worded as one: the object receives the register's pieces
    assert all(("unpacks" in f.message) == (line == 4) for f, line in zip(findings, found, strict=True))


SWAP_NAMED = """
__device__ uint2 NAME(unsigned long long v) {
  uint2 result;
  asm("mov.b64 {%0, %1}, %2;" : "=r"(result.y), "=r"(result.x) : "l"(v));
  return result;
}
"""


@pytest.mark.parametrize("name, flagged", [
    ("vectorizeswap", False),  # ccminer: the swap is the function's purpose
    ("SwapHalves", False),
    ("vectorize", True),  # the same split in a function not named for a swap
])
def test_a_function_named_for_a_swap_swaps_on_purpose(name: str, flagged: bool) -> None:
    """A swapped split or join that is the one pack of its object in a function whose name
    says it swaps is that function's purpose; two swapped ones in such a function still undo
    each other (test_a_register_split_and_joined_in_another_order_is_a_permutation)."""
    text = SWAP_NAMED.replace("NAME", name)
    assert bool(lint_text(text, select=("PTX210",))) == flagged
