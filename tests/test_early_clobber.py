"""PTX108's fact (ptxlint/analysis/early_clobber.py): which outputs a template writes before it
reads an input of their register class, and the compiler's proof that such an output gets the
input's register: in PTX from nvcc where it is installed, and in a run where a GPU is."""

from __future__ import annotations

import re
import subprocess

import pytest

from ptxlint.analysis.statement import analysis_of
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_gpu, needs_nvcc, run_cached


def _clashes(asm: str) -> dict[int, tuple[int, str]]:
    """Output index -> (the input it clashes with, the mnemonic that writes the output)."""
    [statement] = extract_statements(SourceFile("t.cu", f"__device__ void f() {{ {asm} }}\n")
                                     ).statements
    return {k: (c.input.index, c.write.instruction.mnemonic)
            for k, c in analysis_of(statement).early_clobbers.items()}


@pytest.mark.parametrize("asm, expected", [
    # written, then an input of its class read
    ('asm("mov.u32 %0, 7; add.u32 %0, %0, %1;" : "=r"(y) : "r"(x));', {0: (1, "mov.u32")}),
    # each output its own clash; %2 is written last, when every input has been read
    ('asm("mov.b32 %0, %3; mov.b32 %1, %4; mov.b32 %2, %5;"'
     ' : "=r"(a), "=r"(b), "=r"(c) : "r"(x), "r"(y), "r"(z));',
     {0: (4, "mov.b32"), 1: (5, "mov.b32")}),
    # read by the instruction that writes it: sources are read first
    ('asm("add.u32 %0, %1, %2; add.u32 %0, %0, 1;" : "=r"(y) : "r"(a), "r"(b));', {}),
    # another register class
    ('asm("mov.b32 %0, 0; ld.global.u32 %0, [%1];" : "=r"(y) : "l"(p));', {}),
    # '&', '+'
    ('asm("mov.u32 %0, 7; add.u32 %0, %0, %1;" : "=&r"(y) : "r"(x));', {}),
    ('asm("mov.u32 %0, 7; add.u32 %0, %0, %1;" : "+r"(y) : "r"(x));', {}),
    # a copy of the very input: a shared register still holds its value
    ('asm("mov.b64 %0, %1; add.u64 %0, %0, %1;" : "=l"(y) : "l"(x));', {}),
    # a copy of another input does not keep this one's
    ('asm("mov.b64 %0, %2; add.u64 %0, %0, %1;" : "=l"(y) : "l"(x), "l"(z));',
     {0: (1, "mov.b64")}),
    # @p write, @!p read of the same predicate; a write of the predicate between undoes it
    ('asm("{ .reg .pred p; setp.ne.s32 p, %3, 0; @p mov.b32 %0, %1; @!p mov.b32 %0, %2; }"'
     ' : "=r"(y) : "r"(a), "r"(b), "r"(c));', {}),
    ('asm("{ .reg .pred p; setp.ne.s32 p, %3, 0; @p mov.b32 %0, %1;'
     ' setp.eq.s32 p, %3, 1; @!p mov.b32 %0, %2; }" : "=r"(y) : "r"(a), "r"(b), "r"(c));',
     {0: (2, "mov.b32")}),
    # a loop: the read comes first in text order, and the branch leads back to it
    ('asm("{ .reg .pred p; L1: setp.eq.u32 p, %1, 0; @p bra L2; mov.u32 %0, 1; bra L1; L2: }"'
     ' : "=r"(y) : "r"(x));', {0: (1, "mov.u32")}),
    # the output is read before it is written: PTX106's one finding
    ('asm("add.u32 %0, %0, %1; add.u32 %0, %0, %1;" : "=r"(y) : "r"(x));', {}),
])
def test_an_output_written_before_an_input_of_its_class_is_read(
    asm: str, expected: dict[int, tuple[int, str]]
) -> None:
    assert _clashes(asm) == expected


def test_a_reversed_mov_is_the_one_finding() -> None:
    """CCCL 3.0.1's 128-bit compare-and-swap: the movs run backwards (PTX105/PTX106), so the
    order in which it writes its outputs is not the one meant."""
    asm = ('asm volatile("{ .reg .b128 _d; .reg .b128 _v; mov.b128 {%0, %1}, _d;'
           ' mov.b128 {%4, %5}, _v; atom.cas.b128 _d, [%2], _d, _v; mov.b128 _d, {%0, %1}; }"'
           ' : "=l"(a), "=l"(b) : "l"(p), "l"(c0), "l"(c1), "l"(n0), "l"(n1) : "memory");')
    assert _clashes(asm) == {}


def test_a_pointer_in_r_is_ptx004s_not_an_early_clobber() -> None:
    """DeepSpeed's zero-then-load with its "l" address made "r": the outputs are written
    before the address is read, but with the letter the pointer needs ("l") the two could
    never share a register. The letter is the one defect."""
    code = (
        "__device__ void f(const int4* ptr, int4& r) {\n"
        '  asm volatile("{\\n mov.b32 %0, 0;\\n mov.b32 %1, 0;\\n mov.b32 %2, 0;\\n"\n'
        '      " mov.b32 %3, 0;\\n ld.global.v4.u32 {%0, %1, %2, %3}, [%4];\\n}\\n"\n'
        '      : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "X"(ptr) : "memory");\n}\n'
    )
    assert [f.rule for f in lint_text(code.replace('"X"', '"r"'))] == ["PTX004"]
    assert [f.rule for f in lint_text(code.replace('"X"', '"l"'))] == []


def test_one_finding_names_every_output_and_its_fix_marks_them_all() -> None:
    text = ('__device__ void f(unsigned x, unsigned y, unsigned z, unsigned &a, unsigned &b,'
            ' unsigned &c) {\n'
            '  asm("mov.b32 %0, %3; mov.b32 %1, %4; mov.b32 %2, %5;"'
            ' : "=r"(a), "=r"(b), "=r"(c) : "r"(x), "r"(y), "r"(z));\n}\n')
    [finding] = lint_text(text, select=("PTX108",))
    assert "output %1 too" in finding.message and "('=&r')" in finding.message
    assert finding.fix is not None and finding.fix.safe
    fixed = text
    for edit in sorted(finding.fix.edits, key=lambda e: e.span.start, reverse=True):
        fixed = fixed[: edit.span.start] + edit.new_text + fixed[edit.span.end :]
    assert '"=&r"(a), "=&r"(b), "=r"(c)' in fixed
    assert lint_text(fixed, select=("PTX108",)) == []


# A running maximum that reports whether the maximum came from a, written as CUDA 13's
# __vibmax_s16x2 is (crt/device_functions.hpp): the max is written before a is read again.
RUNNING_MAX = r"""
#include <cstdio>
__device__ __forceinline__ unsigned max_from_a(unsigned a, unsigned b, unsigned &from_a) {
  unsigned val;
  asm("{ .reg .pred p;\n\t"
      ".reg .s16 v0, v1, a0, a1;\n\t"
      "max.s16x2 %0, %2, %3;\n\t"
      "mov.b32 {v0, v1}, %0;\n\t"
      "mov.b32 {a0, a1}, %2;\n\t"
      "setp.eq.s16 p, v0, a0;\n\t"
      "selp.b32 %1, 1, 0, p; }"
      : "=r"(val), "=r"(from_a) : "r"(a), "r"(b));
  return val;
}
__global__ void k(const unsigned *in, unsigned *out, int n) {
  unsigned m = in[0], count = 0;
  for (int i = 1; i < n; ++i) {
    unsigned from_a;
    m = max_from_a(m, in[i], from_a);
    count += from_a;
  }
  out[0] = count;
}
int main() {
  const int n = 8;
  unsigned h[n], r, *d;
  for (int i = 0; i < n; ++i) h[i] = (i + 1) * 0x00010001u;  // each larger: the max is never a
  cudaMalloc(&d, (n + 1) * sizeof(unsigned));
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  k<<<1, 1>>>(d, d + n, n);
  cudaMemcpy(&r, d + n, sizeof r, cudaMemcpyDeviceToHost);
  printf("%u\n", r);
  return cudaGetLastError() != cudaSuccess;
}
"""
EARLY = RUNNING_MAX.replace('"=r"(val)', '"=&r"(val)')


def test_the_running_maximum_is_flagged_and_its_fix_is_silent() -> None:
    [finding] = lint_text(RUNNING_MAX, select=("PTX108",))
    assert "input %2" in finding.message
    assert lint_text(EARLY, select=("PTX108",)) == []


def _compares_the_max_with_itself(ptx: str) -> bool:
    return re.search(r"max\.s16x2 (%r\d+), \1, %r\d+;\s*mov\.b32 \{v0, v1\}, \1;\s*"
                     r"mov\.b32 \{a0, a1\}, \1;", ptx) is not None


@needs_nvcc
def test_nvcc_gives_the_loop_carried_input_the_output_register() -> None:
    assert NVCC is not None
    ptx = []
    for source in (RUNNING_MAX, EARLY):
        run = run_cached(NVCC, ["-arch=sm_90", "-O3", "-ptx", INPUT, "-o", OUTPUT], source,
                         filename="k.cu", read_output=True)
        assert run.ok, run.stderr
        ptx.append(run.output)
    assert _compares_the_max_with_itself(ptx[0]), ptx[0]
    assert not _compares_the_max_with_itself(ptx[1]), ptx[1]


@needs_gpu
def test_on_a_gpu_the_shared_register_counts_the_maximum_as_from_a(tmp_path) -> None:
    """Seven steps, b larger each time: none of the maxima comes from a. nvcc unrolls four
    steps and loops over the other three, where the max and a share a register."""
    assert NVCC is not None
    counts = []
    for source in (RUNNING_MAX, EARLY):
        path = tmp_path / "run.cu"
        path.write_text(source)
        subprocess.run([NVCC, "-arch=sm_90", "-O3", "-o", str(tmp_path / "run"), str(path)],
                       check=True)
        out = subprocess.run([str(tmp_path / "run")], capture_output=True, text=True, check=True)
        counts.append(int(out.stdout))
    assert counts == [3, 0]
