"""The cache qualifiers of ld/st/cp.async/prefetch (prefetch sizes, cache hints, eviction
priorities) need PTX ISA 7.4, so CUDA 11.4: PTX403 knows it from the ISA table, and ptxas is
the judge (with `.version 7.3` it refuses each, with 7.4 it takes it)."""

from __future__ import annotations

import pytest

from ptxlint.ptx.instructions import ptx_requirement
from ptxlint.rule import RuleContext
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, OUTPUT, PTXAS, needs_ptxas, run_cached

# (instruction as PTX, with the registers r1/r2 (.b32) and rd1/rd2 (.b64))
FORMS = [
    "cp.async.cg.shared.global.L2::128B [r1], [rd1], 16;",
    "cp.async.ca.shared.global.L2::256B [r1], [rd1], 16;",
    "cp.async.cg.shared.global.L2::cache_hint [r1], [rd1], 16, rd2;",
    "ld.global.L2::64B.u32 r2, [rd1];",
    "ld.global.nc.L2::128B.u32 r2, [rd1];",
    "ld.global.L1::evict_last.u32 r2, [rd1];",
    "ld.global.L2::cache_hint.u32 r2, [rd1], rd2;",
    "st.global.L1::no_allocate.u32 [rd1], r2;",
    "prefetch.global.L2::evict_last [rd1];",
]


def _opcode_modifiers(form: str) -> tuple[str, tuple[str, ...]]:
    opcode, *modifiers = form.split()[0].split(".")
    return opcode, tuple(modifiers)


@pytest.mark.parametrize("form", FORMS)
def test_the_table_says_ptx_isa_7_4(form: str) -> None:
    assert ptx_requirement(*_opcode_modifiers(form))[0] >= 74


def test_ptx403_flags_the_form_for_cuda_11_3_and_not_for_11_4() -> None:
    text = ('__device__ void f(unsigned s, const void *g) {\n'
            '  asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" '
            ':: "r"(s), "l"(g));\n}\n')

    def findings(version: tuple[int, int]) -> list[str]:
        context = RuleContext(options={"min_cuda_version": version})
        return [f.rule for f in lint_text(text, select=("PTX403",), context=context)]

    assert findings((11, 3)) == ["PTX403"]
    assert findings((11, 4)) == []


def _ptx(version: str, form: str) -> str:
    return (f".version {version}\n.target sm_80\n.address_size 64\n"
            ".visible .entry k(.param .u64 p) {\n .reg .b32 r<4>;\n .reg .b64 rd<4>;\n"
            " ld.param.u64 rd1, [p];\n mov.u32 r1, 0;\n mov.u64 rd2, 0;\n"
            f" {form}\n ret;\n}}\n")


@needs_ptxas
@pytest.mark.parametrize("form", FORMS)
def test_ptxas_refuses_the_form_before_ptx_isa_7_4(form: str) -> None:
    assert PTXAS is not None
    older = run_cached(PTXAS, ["-arch=sm_80", INPUT, "-o", OUTPUT], _ptx("7.3", form),
                       filename="k.ptx")
    newer = run_cached(PTXAS, ["-arch=sm_80", INPUT, "-o", OUTPUT], _ptx("7.4", form),
                       filename="k.ptx")
    assert not older.ok and "7.4" in older.stderr
    assert newer.ok, newer.stderr


def _lint_pair(tmp_path, header: str) -> list[str]:
    (tmp_path / "common.h").write_text(header)
    kernel = tmp_path / "iterator.h"
    kernel.write_text(
        '#include "common.h"\n'
        "__device__ void f(unsigned s, const void *g) {\n"
        "#if PROJECT_ARCH_SM80\n"
        '  asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" '
        ':: "r"(s), "l"(g));\n'
        "#endif\n}\n")
    context = RuleContext(options={"min_cuda_version": (11, 3)})
    found = lint_text(kernel.read_text(), path=str(kernel), select=("PTX403",), context=context)
    return [f.rule for f in found]


def test_a_guard_macro_defined_in_an_included_header_is_read(tmp_path) -> None:
    # the macro tests the architecture, not the toolkit: CUDA 11.3 compiles the branch
    arch = ("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n#define PROJECT_ARCH_SM80 1\n"
            "#else\n#define PROJECT_ARCH_SM80 0\n#endif\n")
    assert _lint_pair(tmp_path, arch) == ["PTX403"]


def test_a_guard_macro_that_keeps_the_old_toolkit_out_silences_it(tmp_path) -> None:
    toolkit = ("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && CUDA_VERSION >= 11040\n"
               "#define PROJECT_ARCH_SM80 1\n#else\n#define PROJECT_ARCH_SM80 0\n#endif\n")
    assert _lint_pair(tmp_path, toolkit) == []
