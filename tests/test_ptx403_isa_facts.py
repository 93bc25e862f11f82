"""PTX403 and the PTX ISA version of CCCL's TMA scatter: ``cp.async.bulk.tensor`` with
``.tile::scatter4`` is PTX ISA 8.6 (ptxas 13.0: "Feature '.tile::scatter4' requires PTX ISA
.version 8.6 or later"), not cp.async.bulk's 8.0. CCCL guarded it with ``__cccl_ptx_isa >= 800``,
which admits CUDA 12.0: PTX403 reports that guard, and not one asking for PTX ISA 8.6. Every
form's version is checked against ptxas by ``benchmarks/ptxas_isa_versions.py`` (a sample of
it by tests/test_ptxas_agreement.py)."""

from __future__ import annotations

from ptxlint.ptx.instructions import ptx_requirement
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, PTXAS, needs_ptxas, run_cached

SCATTER = "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group"


def _cccl(condition: str) -> str:
    return (
        "__device__ void scatter4(const void* map, int c0, int c1, int c2, int c3, int c4,\n"
        "                         unsigned src) {\n"
        f"#if {condition}\n"
        f'  asm("{SCATTER} [%0, {{%1, %2, %3, %4, %5}}], [%6];"\n'
        '      :: "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(src) : "memory");\n'
        "#endif\n}\n")


def test_scatter4_needs_ptx_isa_8_6() -> None:
    opcode, *modifiers = SCATTER.split(".")
    needed, feature = ptx_requirement(opcode, tuple(modifiers))
    assert needed == 86 and "tile::scatter4" in feature
    # the other Blackwell tensor modes of the same family too
    assert ptx_requirement("cp", ("async", "bulk", "tensor", "2d", "shared::cluster", "global",
                                  "tile::gather4", "mbarrier::complete_tx::bytes"))[0] == 86
    assert ptx_requirement("cp", ("async", "bulk", "tensor", "2d", "global", "shared::cta",
                                  "tile", "bulk_group"))[0] == 80


def test_ptx403_flags_the_cccl_guard_that_admits_ptx_isa_8_0() -> None:
    [finding] = lint_text(_cccl("__cccl_ptx_isa >= 800"), select=("PTX403",))
    assert "PTX ISA 8.6" in finding.message and "tile::scatter4" in finding.message
    assert "admit CUDA 12.0" in finding.message
    assert lint_text(_cccl("__cccl_ptx_isa >= 860"), select=("PTX403",)) == []


def _sm100a(version: str, body: str) -> tuple[bool, str]:
    """ptxas's word on ``body`` in an sm_100a entry under ``.version version``."""
    source = (f".version {version}\n.target sm_100a\n.address_size 64\n"
              ".visible .entry k(.param .u64 p) {\n .reg .b32 %r<8>;\n .reg .f32 %f<5>;\n"
              f" .reg .b64 %rd<4>;\n ld.param.u64 %rd1, [p];\n{body}\n ret;\n}}\n")
    done = run_cached(PTXAS, ["-arch=sm_100a", INPUT, "-o", "/dev/null"], source,
                      filename="case.ptx")
    return done.ok, done.stderr


@needs_ptxas
def test_ptxas_takes_the_scatter_from_ptx_isa_8_6_only() -> None:
    scatter = f" {SCATTER} [%rd1, {{%r1, %r2, %r3, %r4, %r5}}], [%r6];"
    ok, said = _sm100a("8.0", scatter)  # also below sm_100a's own 8.6: the line's own error
    assert not ok and "'.tile::scatter4' requires PTX ISA .version 8.6" in said
    assert _sm100a("8.6", scatter)[0]


def _three_input(condition: str, inputs: str = "%1, %2, %3") -> str:
    return ("__device__ float max3(float a, float b, float c) {\n  float d = a;\n"
            f"#if {condition}\n"
            f'  asm("max.NaN.f32 %0, {inputs};" : "=f"(d) : "f"(a), "f"(b), "f"(c));\n'
            "#endif\n  return d;\n}\n")


def test_a_form_that_differs_by_its_operands_has_its_own_version() -> None:
    """Three-input max.f32 is PTX ISA 8.8 (CUDA 12.9) where the two-input spelling of the same
    modifiers is older: torchao guarded it with CUDA_VERSION >= 12090 after a build broke."""
    guard = "CUDA_VERSION >= 12000 && __CUDA_ARCH__ >= 1000"
    [finding] = lint_text(_three_input(guard), select=("PTX403",))
    assert "PTX ISA 8.8" in finding.message and "with 4 operands" in finding.message
    assert "admit CUDA 12.8" in finding.message  # the oldest toolkit with an sm_100 target
    assert lint_text(_three_input("CUDA_VERSION >= 12090 && __CUDA_ARCH__ >= 1000"),
                     select=("PTX403",)) == []
    assert lint_text(_three_input(guard, "%1, %2"), select=("PTX403",)) == []  # two inputs


@needs_ptxas
def test_ptxas_takes_three_inputs_from_ptx_isa_8_8_only() -> None:
    three = (" ld.global.f32 %f1, [%rd1];\n max.NaN.f32 %f4, %f1, %f1, %f1;\n"
             " st.global.f32 [%rd1], %f4;")
    ok, said = _sm100a("8.7", three)
    assert not ok and "with 3 input operands' requires PTX ISA .version 8.8" in said
    assert _sm100a("8.8", three)[0]
