"""PTX404's facts: which functions nvcc also compiles for the host (their declaration's words,
specifier macros included), which guards keep a statement in the host pass, and the host
assembler's verdict on PTX there."""

from __future__ import annotations

import pytest

from ptxlint.analysis.statement import analysis_of
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.ptx.targets import compiled_for_host
from tests.conftest import FIXTURES, lint_text
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_nvcc, run_cached


@pytest.mark.parametrize("guards, compiled", [
    ((), True),
    (("defined(__CUDACC__)",), True),
    (("defined(__CUDA_ARCH__)",), False),
    (("__CUDA_ARCH__ >= 800",), False),  # undefined: 0 in #if
    (("!(defined(__CUDA_ARCH__))",), True),  # the #else of #ifdef __CUDA_ARCH__
    (("defined(CUTE_ARCH_TMA_SM90_ENABLED)",), False),  # a project's macro: undecided
    (("defined(__CUDA_ARCH_FEAT_SM90_ALL)",), False),
])
def test_the_host_pass_is_the_build_without_cuda_arch(guards: tuple[str, ...],
                                                      compiled: bool) -> None:
    assert compiled_for_host(guards) is compiled


def _host_compiled(text: str) -> list[bool]:
    statements = extract_statements(SourceFile("t.cu", text)).statements
    return [analysis_of(s).compiled_for_host for s in statements]


ASM = 'unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); return r;'


@pytest.mark.parametrize("declaration, compiled", [
    ("__host__ __device__ unsigned f()", True),
    ("__device__ __host__ inline unsigned f()", True),
    ("__device__ unsigned f()", False),
    ("__global__ void k(unsigned *o)", False),
])
def test_the_function_s_own_words_say_host_and_device(declaration: str, compiled: bool) -> None:
    body = ASM.replace("return r;", "*o = r;") if "void" in declaration else ASM
    assert _host_compiled(f"{declaration} {{ {body} }}\n") == [compiled]


def test_a_specifier_macro_says_host_and_device_through_its_expansion() -> None:
    text = (
        "#define HD __forceinline__ __host__ __device__\n"
        "#define DEV __forceinline__ __device__\n"
        f"HD unsigned f() {{ {ASM} }}\n"
        f"DEV unsigned g() {{ {ASM} }}\n"
    )
    assert _host_compiled(text) == [True, False]


@needs_nvcc
def test_the_host_assembler_rejects_the_ptx_of_a_plain_host_device_definition() -> None:
    """The bad fixture's first function is a non-inline definition: every build fails. Its
    inline ones fail only once host code calls them, and the clean twin builds."""
    assert NVCC is not None
    with open(f"{FIXTURES}/rules/PTX404_bad.cu", encoding="utf-8") as f:
        bad = f.read()
    with open(f"{FIXTURES}/rules/PTX404_clean.cu", encoding="utf-8") as f:
        clean = f.read()
    command = ["-arch=sm_90", "-c", INPUT, "-o", OUTPUT]
    failed = run_cached(NVCC, command, bad, filename="k.cu")
    assert not failed.ok and "no such instruction: `mov.u32" in failed.stderr, failed.stderr
    built = run_cached(NVCC, command, clean, filename="k.cu")
    assert built.ok, built.stderr
    assert [f.rule for f in lint_text(clean, select=("PTX404",))] == []


@pytest.mark.parametrize("declaration, severity", [
    ("__host__ __device__ unsigned f()", "error"),  # emitted in every build
    ("__host__ __device__ inline unsigned f()", "warning"),
    ("static __host__ __device__ unsigned f()", "warning"),
    ("template <class T> __host__ __device__ unsigned f()", "warning"),
    ("#define HD __host__ __device__\nHD unsigned f()", "warning"),  # a macro may say inline
])
def test_an_ordinary_definition_fails_every_build_and_is_an_error(declaration: str,
                                                                   severity: str) -> None:
    [finding] = lint_text(f"{declaration} {{ {ASM} }}\n", select=("PTX404",))
    assert finding.severity.value == severity, finding.message
    assert ("every build" in finding.message) == (severity == "error")


def test_a_statement_whose_parenthesis_lies_outside_its_span_is_reported_whole() -> None:
    """A macro's expansion is spanned at its invocation while its parenthesis is in the
    #define (heavydb's FLATBUFFER_UNREACHABLE() once made PTX404 raise "span end before
    start" there): the finding spans the whole statement then."""
    import dataclasses

    from ptxlint.engine import instantiate, run_rule
    from ptxlint.registry import load_rules
    from ptxlint.rule import RuleContext

    text = "__host__ __device__ inline void f() {\n  asm(\"trap;\");\n}\n"
    (statement,) = extract_statements(SourceFile("h.cu", text)).statements
    rule = next(r for r in instantiate(load_rules().rules) if r.id == "PTX404")
    moved = dataclasses.replace(statement, open_paren=statement.span.start - 1)
    found = run_rule(rule, moved, RuleContext())
    assert isinstance(found, (list, tuple)) and [f.rule for f in found] == ["PTX404"]
    assert (found[0].span.start, found[0].span.end) == (moved.span.start, moved.span.end)
    [normal] = run_rule(rule, statement, RuleContext())
    assert text[normal.span.start:normal.span.end] == "asm"
