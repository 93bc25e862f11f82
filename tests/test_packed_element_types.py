"""PTX211 packed-element-type-mismatch: the bits of a C++ floating-point value reinterpreted
into an asm operand are read by the instruction in its own type
(ptxlint.analysis.element_types). nvcc builds the mismatch without a word (the test compiles
it); where a GPU is present, a run shows f16's 1.0 read as bf16's 0.0078125."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_gpu, needs_nvcc, run_cached

PROGRAM = """
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void k(float *out) {
  VALUE one = MAKE(1.0f);
  __nv_bfloat162 b2 = __float2bfloat162_rn(1.0f);
  unsigned d, b = *reinterpret_cast<unsigned*>(&b2), c = 0;
  asm("fma.rn.bf16x2 %0, %1, %2, %3;"
      : "=r"(d) : "r"(*reinterpret_cast<unsigned*>(&one)), "r"(b), "r"(c));
  out[0] = __low2float(*reinterpret_cast<__nv_bfloat162*>(&d));
}
int main() {
  float *o, h;
  cudaMalloc(&o, sizeof(float));
  k<<<1, 1>>>(o);
  cudaMemcpy(&h, o, sizeof(float), cudaMemcpyDeviceToHost);
  printf("%g\\n", h);
  return cudaGetLastError() != cudaSuccess;
}
"""
HALF = ("__half2", "__float2half2_rn")
BF16 = ("__nv_bfloat162", "__float2bfloat162_rn")


def _program(kind: tuple[str, str]) -> str:
    return PROGRAM.replace("VALUE", kind[0]).replace("MAKE", kind[1])


def test_half2_bits_in_a_bf16x2_fma_are_flagged_and_bf16_bits_are_not() -> None:
    assert [f.rule for f in lint_text(_program(HALF), select=("PTX211",))] == ["PTX211"]
    assert lint_text(_program(BF16), select=("PTX211",)) == []


@pytest.mark.parametrize("expression", [
    "*(unsigned*)&h2", "*(const unsigned *)(&h2)", "*reinterpret_cast<uint32_t*>(&h2)",
    "reinterpret_cast<unsigned&>(h2)", "reinterpret_cast<const uint32_t &>(h2)",
])
def test_the_reinterpretations_are_followed(expression: str) -> None:
    text = ("#include <cstdint>\n#include <cuda_fp16.h>\n"
            "__device__ unsigned f(__half2 h2, unsigned b) { unsigned d;\n"
            f'  asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(d) : "r"({expression}), "r"(b));\n'
            "  return d; }\n")
    assert [f.rule for f in lint_text(text, select=("PTX211",))] == ["PTX211"]


@needs_nvcc
def test_nvcc_builds_the_mismatch_without_a_word() -> None:
    assert NVCC is not None
    run = run_cached(NVCC, ["-arch=sm_90", "-c", INPUT, "-o", OUTPUT], _program(HALF),
                     filename="k.cu")
    assert run.ok and "warning" not in run.stderr.lower(), run.stderr


@needs_gpu
def test_on_a_gpu_f16_one_is_read_as_bf16_0_0078125(tmp_path) -> None:
    assert NVCC is not None
    got = []
    for kind in (HALF, BF16):
        source = tmp_path / "run.cu"
        source.write_text(_program(kind))
        subprocess.run([NVCC, "-arch=sm_90", "-o", str(tmp_path / "run"), str(source)],
                       check=True)
        out = subprocess.run([str(tmp_path / "run")], capture_output=True, text=True, check=True)
        got.append(float(out.stdout))
    assert got == [0.0078125, 1.0]


@pytest.mark.parametrize("literal, slot, flagged", [
    ("1006648320", "bf16x2", True),     # f16 {1, 1} read as bf16 {2^-7, 2^-7}
    ("0x3C003C00u", "bf16x2", True),
    ("(uint32_t)0x3C003C00", "bf16x2", True),
    ("0x3F803F80", "f16x2", False),     # bf16 {1, 1} is f16 {1.875, 1.875}: round in both
    ("0x3F803F80", "bf16x2", False),
    ("0x3C003C00", "f16x2", False),
    ("0x38003800", "bf16x2", True),     # f16 {0.5, 0.5} read as bf16 3.05e-05
    ("0x64006400", "f16x2", False),     # lmdeploy's f16 magic 1024
    ("0", "bf16x2", False),
    ("0x80008000", "bf16x2", False),    # -0.0 in both
    ("0x3C00", "bf16", True),
    # bf16 2^112 and 2^120: exponent rebias factors (f16/e5m2, e4m3 -> bf16), not the
    # f16 30720 and 61440 they read as; 2^-112 reads as no round f16 number either
    ("0x77807780u", "bf16x2", False),
    ("2004907904", "bf16x2", False),
    ("0x7B80", "bf16", False),
    ("0x07800780", "bf16x2", False),
    ("0x5F005F00", "bf16x2", True),     # f16 {448, 448} read as bf16 {2^63, 2^63}
])
def test_a_constant_is_judged_by_the_format_it_reads_round_in(literal: str, slot: str,
                                                             flagged: bool) -> None:
    from ptxlint.analysis.element_types import constant_reading

    assert (constant_reading(literal, slot) is not None) is flagged


def test_the_type_of_a_reinterpreted_value_comes_from_the_resolver_typing_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``resolve_type`` asks the file's type resolver, the one extraction typed the operands
    with: no second resolver reads the file's declarations again, and the answer is the one a
    resolver of its own gives."""
    from ptxlint.analysis.element_types import resolve_type
    from ptxlint.engine import extract_statements
    from ptxlint.frontends.cxx import types
    from ptxlint.model import SourceFile

    text = (
        "__device__ void f(__half2 h2) {\n"
        "  unsigned d;\n"
        "  asm(\"fma.rn.bf16x2 %0, %1, %1, %1;\" : \"=r\"(d)\n"
        "      : \"r\"(*reinterpret_cast<unsigned*>(&h2)));\n"
        "}\n"
    )
    extracted = extract_statements(SourceFile("t.cu", text))
    parsed = extracted.parsed
    assert parsed is not None
    at = text.index("h2)))")
    alone = types.TypeResolver(parsed.text, parsed.tree, parsed.data).resolve("h2", at)
    assert alone is not None and "__half2" in alone.spelling
    made: list[object] = []
    real_init = types.TypeResolver.__init__

    def counted(self: types.TypeResolver, *args: object, **kwargs: object) -> None:
        made.append(self)
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(types.TypeResolver, "__init__", counted)
    assert resolve_type(parsed, "h2", at) == alone
    assert made == []  # extraction's resolver answered
