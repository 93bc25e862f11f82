"""A ``.reg`` inside a template's braces that takes names of nvcc's own register schemes hides
the registers nvcc substitutes for the template's ``%N`` operands of that scheme: PTX215. nvcc's
own PTX shows the substituted operand naming the template's register, where it is installed."""

from __future__ import annotations

import re

import pytest

from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, gpu_program, needs_gpu, run_cached


def _ptx215(template: str, operands: str) -> list[str]:
    source = (f"__device__ float f(float a, float b, int i, double d) {{ float y; int k; "
              f"asm(\"{template}\" {operands}); return y + k; }}\n")
    return [f.message for f in lint_text(source, select=("PTX215",))]


@pytest.mark.parametrize(("template", "operands", "said"), [
    ("{ .reg .f32 %%f<3>; add.f32 %0, %1, %2; }", ': "=f"(y) : "f"(a), "f"(b)', "%0, %1, %2"),
    ("{ .reg .b32 %%r1; add.u32 %0, %1, 1; }", ': "=r"(k) : "r"(i)', "%0, %1"),
    ("{ .reg .f64 %%fd<2>; cvt.rn.f32.f64 %0, %1; }", ': "=f"(y) : "d"(d)', "%1"),
    # a tied input is named as its output is
    ("{ .reg .f32 %%f<2>; add.f32 %0, %1, 1.0; }", ': "=f"(y) : "0"(a)', "%0, %1"),
])
def test_a_declaration_named_as_nvcc_names_the_operands_after_it_is_reported(
        template: str, operands: str, said: str) -> None:
    [message] = _ptx215(template, operands)
    assert f"names {said}," in message


@pytest.mark.parametrize(("template", "operands"), [
    ("{ .reg .f32 t<3>; add.f32 %0, %1, %2; }", ': "=f"(y) : "f"(a), "f"(b)'),
    ("{ .reg .b32 %%r<3>; add.f32 %0, %1, %2; }", ': "=f"(y) : "f"(a), "f"(b)'),
    ("{ add.f32 %0, %1, %2; { .reg .f32 %%f1; mov.f32 %%f1, 0f3F800000; } }",
     ': "=f"(y) : "f"(a), "f"(b)'),
    ("{ .reg .f32 %%rf<3>; add.f32 %0, %1, %2; }", ': "=f"(y) : "f"(a), "f"(b)'),
])
def test_other_names_schemes_and_blocks_stay_silent(template: str, operands: str) -> None:
    assert _ptx215(template, operands) == []


_KERNEL = """\
__device__ __forceinline__ float square_of_sum(float a, float b) {
  float y;
  asm("{\\n\\t.reg .f32 %%f<3>;\\n\\tadd.f32 %%f1, %1, %2;\\n\\tmul.f32 %0, %%f1, %%f1;\\n\\t}"
      : "=f"(y) : "f"(a), "f"(b));
  return y;
}
__global__ void k(float *out, const float *in) { out[0] = square_of_sum(in[0], in[1]); }
"""


@pytest.mark.skipif(NVCC is None, reason="nvcc (CUDA toolkit) not found")
def test_nvcc_names_an_operand_inside_the_template_s_declaration() -> None:
    """nvcc 13.0 substitutes %1 and %2 with the registers it chose for in[0] and in[1]; after
    the template's `.reg .f32 %f<3>;` one of them (13.0: %f2, beside %f3) names the template's
    own uninitialized register, and %0 (%f1) does too, so the result never leaves the braces."""
    run = run_cached(NVCC, ["-arch=sm_90", "-ptx", INPUT, "-o", OUTPUT], _KERNEL,
                     filename="k.cu", read_output=True)
    assert run.ok, run.stderr
    block = run.output[run.output.index(".reg .f32 %f<3>;"):]
    names = re.match(r"\.reg \.f32 %f<3>;\s+add\.f32 %f1, %f(\d+), %f(\d+);", block)
    assert names is not None, block[:120]
    assert min(int(n) for n in names.groups()) < 3  # an operand named as one of %f0 to %f2
    # the output %0 too: the function stores a register that only the template's block wrote
    stored = re.search(r"// end inline asm\s+st\.global\.f32\s+\[%rd\d+\], %f(\d+);", block)
    assert stored is not None and int(stored.group(1)) < 3, block[:300]
    [finding] = lint_text(_KERNEL, select=("PTX215",))
    assert "%f0 to %f2" in finding.message


_RUN = r"""
#include <cstdio>
__device__ __forceinline__ float shadowed(float a, float b) {
  float y;
  asm("{\n\t.reg .f32 %%f<3>;\n\tadd.f32 %%f1, %1, %2;\n\tmul.f32 %0, %%f1, %%f1;\n\t}"
      : "=f"(y) : "f"(a), "f"(b));
  return y;
}
__device__ __forceinline__ float renamed(float a, float b) {
  float y;
  asm("{\n\t.reg .f32 t<3>;\n\tadd.f32 t1, %1, %2;\n\tmul.f32 %0, t1, t1;\n\t}"
      : "=f"(y) : "f"(a), "f"(b));
  return y;
}
__global__ void k(float *out, const float *in) {
  out[0] = shadowed(in[0], in[1]);
  out[1] = renamed(in[0], in[1]);
}
int main() {
  float h[4] = {1.5f, 2.25f, 0.f, 0.f}, *d;
  cudaMalloc(&d, sizeof h);
  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
  k<<<1, 1>>>(d + 2, d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("%.9g %.9g\n", h[2], h[3]);
  return cudaGetLastError() != cudaSuccess;
}
"""


@needs_gpu
def test_on_a_gpu_the_shadowed_template_loses_its_result(tmp_path) -> None:
    """(1.5 + 2.25)^2 = 14.0625: the template whose `.reg .f32 %f<3>;` takes the names nvcc
    gives its operands (and its result's register) computes on its own uninitialized registers
    and never writes the output; the same template with its registers renamed is right."""
    shadowed, renamed = gpu_program(str(tmp_path), _RUN, "-arch=sm_80", "-O3")().split()
    assert float(renamed) == 14.0625
    assert float(shadowed) != 14.0625
    [finding] = lint_text(_RUN, select=("PTX215",))
    assert "%f0 to %f2" in finding.message
