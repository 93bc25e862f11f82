"""The targets a statement's arch guards admit (``StatementAnalysis.arch_targets``): one fact for
the build's question, which ``-arch`` compiles the statement, read by ``--verify``. Every arch
guard counts, file-wide ones included, a project's own macro beside them chooses nothing, and the
targets the file ``#error``s for are never among them."""

from __future__ import annotations

import pytest

from ptxlint.analysis.statement import analysis_of
from ptxlint.engine import extract_statements
from ptxlint.model import AsmStatement, SourceFile
from ptxlint.ptx.targets import TARGETS, names_architecture

BODY = """
__device__ void f(unsigned a) {
  asm volatile("mov.b32 %0, %0;" : "+r"(a));
}
"""
# more lines than a local #if block holds (frontends.cxx.guards.LOCAL_GUARD_LINES)
FILLER = "int filler;\n" * 400


def only(text: str) -> AsmStatement:
    [statement] = extract_statements(SourceFile("t.cu", text)).statements
    return statement


def from_sm(sm: int) -> tuple:
    return tuple(t for t in TARGETS if t.sm >= sm)


@pytest.mark.parametrize("guard", [
    "__CUDA_ARCH__ >= 900",
    "defined(__CUDA_ARCH__)",
    "defined(__CUDA_ARCH_FEAT_SM90_ALL)",
    "__CUDA_ARCH_SPECIFIC__ == 1000",
    "__CUDA_ARCH_FAMILY_SPECIFIC__ == 1000",
    "__CUDA_ARCH_HAS_FEATURE__(SM100_ALL)",
    "__NVCOMPILER_CUDA_ARCH__ >= 800",
    "FOO && __CUDA_ARCH__ < 700",
])
def test_a_guard_on_a_macro_the_target_sets_names_the_architecture(guard: str) -> None:
    assert names_architecture(guard)


@pytest.mark.parametrize("guard", [
    "defined(CUTLASS_ARCH_MMA_SM90_ENABLED)",
    "__CUDA_ARCH_HELPERS_H__",  # a header's own name that starts like one
    "CUDA_VERSION >= 12000",
    "defined(__CUDACC__)",
])
def test_a_project_or_toolkit_macro_does_not_name_the_architecture(guard: str) -> None:
    assert not names_architecture(guard)


def test_no_guard_chooses_no_target() -> None:
    analysis = analysis_of(only(BODY))
    assert analysis.arch_guards == ()
    assert analysis.arch_targets is None


def test_a_guard_every_target_passes_chooses_none() -> None:
    assert analysis_of(only("#ifdef __CUDA_ARCH__" + BODY + "#endif\n")).arch_targets is None


def test_a_local_arch_guard_gives_the_targets_the_rules_judge() -> None:
    analysis = analysis_of(only("#if __CUDA_ARCH__ >= 900" + BODY + "#endif\n"))
    assert analysis.arch_targets == from_sm(90)
    assert analysis.admitted_targets == analysis.arch_targets


def test_an_operator_spelt_as_a_word_joins_the_arch_test() -> None:
    # C++'s `and` before a parenthesis is `&&`, not a call of a macro named `and`
    guard = "#if defined(__CUDA_ARCH__) and (__CUDA_ARCH__ >= 1000)"
    analysis = analysis_of(only(guard + BODY + "#endif\n"))
    assert analysis.arch_targets == from_sm(100)
    assert analysis.admitted_targets == analysis.arch_targets
    analysis = analysis_of(only("#if not (__CUDA_ARCH__ >= 900)" + BODY + "#endif\n"))
    assert analysis.arch_targets == tuple(t for t in TARGETS if t.sm < 90)
    # a project's function-like macro still reads as one unknown name: sm_90 is not certain
    analysis = analysis_of(only("#if IS_ARCH(900) or __CUDA_ARCH__ >= 1000" + BODY + "#endif\n"))
    assert analysis.arch_targets == from_sm(100)


def test_a_file_wide_arch_guard_chooses_where_the_rules_leave_the_target_unknown() -> None:
    analysis = analysis_of(only("#if __CUDA_ARCH__ >= 900\n" + FILLER + BODY + "#endif\n"))
    assert analysis.admitted_targets == ()  # no local guard chooses: PTX401 stays silent
    assert analysis.arch_targets == from_sm(90)


def test_nested_guards_narrow_each_other() -> None:
    text = ("#if __CUDA_ARCH__ >= 800\n" + FILLER + "#if __CUDA_ARCH__ >= 900\n#else"
            + BODY + "#endif\n#endif\n")
    analysis = analysis_of(only(text))
    assert analysis.arch_targets == tuple(t for t in TARGETS if 80 <= t.sm < 90)
    # the #else alone would admit every target below sm_90; the file-wide guard keeps sm_80 on
    assert analysis.admitted_targets == analysis.arch_targets


def test_a_project_macro_beside_the_arch_test_chooses_no_target() -> None:
    text = ("#if defined(CUTLASS_ARCH_MMA_SM90_ENABLED)\n#if __CUDA_ARCH__ >= 900"
            + BODY + "#endif\n#endif\n")
    analysis = analysis_of(only(text))
    assert analysis.arch_guards == ("__CUDA_ARCH__ >= 900",)
    assert analysis.arch_targets == from_sm(90)
    # the rules' set: the project's macro may well choose the target, so none is certain
    assert analysis.admitted_targets == ()


def test_a_guard_that_holds_in_no_build_says_nothing_of_the_target() -> None:
    text = "#if !defined(__LP64__)\n#if __CUDA_ARCH__ < 800" + BODY + "#endif\n#endif\n"
    assert analysis_of(only(text)).arch_targets == tuple(t for t in TARGETS if t.sm < 80)


ERROR_BELOW_SM90 = "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900\n#error needs sm_90\n#endif\n"


def test_the_targets_the_file_errors_for_are_left_out() -> None:
    analysis = analysis_of(only(ERROR_BELOW_SM90 + "#if __CUDA_ARCH__ >= 800" + BODY + "#endif\n"))
    assert analysis.arch_targets == from_sm(90)


def test_an_error_for_old_targets_chooses_for_an_unguarded_statement() -> None:
    # the build stops there for those targets: the statement is compiled for the others alone
    analysis = analysis_of(only(ERROR_BELOW_SM90 + BODY))
    assert analysis.arch_guards == ()
    assert analysis.arch_targets == from_sm(90)
    assert analysis.admitted_targets == ()  # the rules still leave its target unknown


def test_guards_that_exclude_every_target_admit_none() -> None:
    text = "#if __CUDA_ARCH__ >= 1000\n#if __CUDA_ARCH__ < 900" + BODY + "#endif\n#endif\n"
    assert analysis_of(only(text)).arch_targets == ()
