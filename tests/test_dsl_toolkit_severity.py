"""PTX204 on a form only a newer ptxas takes, in CuTe DSL code: the DSL assembles with its own
toolchain, and the toolkits it ships disagree on such a form, so by default the finding is a
warning, neither an error (one of them takes it) nor an info (the default install rejects it).

CuTe DSL supports two toolkits (its ``nvvm_wrapper._assert_min_ptx``: "CTK 12.9 (PTX ISA 8.8)
and CTK 13.3 (PTX ISA 9.3)"): ``nvidia-cutlass-dsl`` alone depends on the CUDA 12 libraries
(``nvidia-cutlass-dsl-libs-cu12``), its ``[cu13]`` extra on the CUDA 13 ones. A form new in
ptxas 13.2 (``cvt.rn.bf16x2.e4m3x2``) is rejected by the first and taken by the second:
``cuda-version`` set to either decides it."""

from __future__ import annotations

import pytest

from ptxlint.ptx.versions import version_options
from ptxlint.rule import RuleContext
from tests.conftest import lint_text

CUTE_E4M3X2 = (
    "from cutlass._mlir.dialects import llvm\n"
    "from cutlass.cutlass_dsl import T\n\n"
    "def widen(x):\n"
    '    return llvm.inline_asm(T.i32(), [x], "cvt.rn.bf16x2.e4m3x2 $0, $1;", "=r,h",\n'
    "                           has_side_effects=False, is_align_stack=False,\n"
    "                           asm_dialect=llvm.AsmDialect.AD_ATT)\n")


def _severities(cuda_version: str | None) -> list[str]:
    context = RuleContext(options=version_options(cuda_version, None, "."))
    return [f.severity.value
            for f in lint_text(CUTE_E4M3X2, "k.py", select=("PTX204",), context=context)]


def test_by_default_a_newer_form_in_dsl_code_is_a_warning() -> None:
    [finding] = lint_text(CUTE_E4M3X2, "k.py", select=("PTX204",),
                          context=RuleContext(options=version_options(None, None, ".")))
    assert finding.severity.value == "warning"
    assert "new in ptxas 13.2" in finding.message and "cannot see" in finding.message


@pytest.mark.parametrize(("cuda_version", "severities"), [
    ("12.9", ["error"]),  # nvidia-cutlass-dsl's default, CUDA 12 libraries
    ("13.3", []),  # its [cu13] extra
])
def test_the_dsls_toolkit_named_decides_it(cuda_version: str, severities: list[str]) -> None:
    assert _severities(cuda_version) == severities
