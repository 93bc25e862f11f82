"""nvcc is the oracle for PTX013: an output operand's C++ expression that nvcc 13.0 rejects is
an error, one it compiles with warning #137 ("expression must be a modifiable lvalue": a const
object written) a warning, and one it accepts silently no finding. The cases are in
tests/operand_expression_cases.py; benchmarks/operand_expressions.py prints the same matrix.
Compiles are cached by content hash (tests/toolchain_cache.py); skipped where nvcc is absent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from ptxlint.analysis.output_lvalues import classify
from tests.conftest import lint_text
from tests.operand_expression_cases import ABSTAIN, CASES, ExpressionCase
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_nvcc, parallel_map, run_cached

FLAGS = ("-std=c++17", "-arch=sm_90", "-ptx")


@dataclass(frozen=True)
class Verdict:
    accepted: bool
    const_warning: bool  # nvcc's warning #137 on the asm line
    text: str


def _compile(case: ExpressionCase) -> Verdict:
    assert NVCC is not None
    run = run_cached(NVCC, [*FLAGS, INPUT, "-o", OUTPUT], case.source)
    out = run.stdout + run.stderr
    lines = [line for line in out.splitlines() if "error" in line or "#137" in line]
    return Verdict(run.ok, any("#137" in line for line in lines), " | ".join(lines)[:300])


def _finding(case: ExpressionCase) -> str:
    """"error", "warning" or "" for PTX013 on the case."""
    found = [f for f in lint_text(case.source, "oracle.cu", select=("PTX013",))]
    assert len(found) <= 1, found
    return found[0].severity.value if found else ""


@needs_nvcc
def test_ptx013_agrees_with_nvcc() -> None:
    verdicts = parallel_map(_compile, list(CASES))
    problems = []
    for case, nvcc in zip(CASES, verdicts, strict=True):
        ours = _finding(case)
        if case.expression in ABSTAIN:
            assert not nvcc.accepted or nvcc.const_warning, f"{case}: nvcc now accepts it"
            if ours:
                problems.append(f"{case}: expected no finding, got {ours}")
            continue
        expected = "error" if not nvcc.accepted else ("warning" if nvcc.const_warning else "")
        if ours != expected:
            problems.append(f"{case}: nvcc {expected or 'accepts'} ({nvcc.text}), PTX013 {ours}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "expression",
    ["x", "*p++", "p[i++]", "x = y", "(unsigned&)f", "*(unsigned*)&f", "s.bf", "get_ref()",
     "(T)t", "static_cast<T&>(t)", "a.template get<0>()", "Box<T>::k", "x /* out */",
     "acc[i][N - 1]", "*(uint32_t*)(&v)", "reinterpret_cast<uint32_t*>(&v)[0]"],
)
def test_lvalues_and_unknowns_are_not_rejections(expression: str) -> None:
    from ptxlint.analysis.output_lvalues import _Verdict

    assert not isinstance(classify(expression), _Verdict)


def test_the_matrix_covers_both_diagnostics_and_both_directions() -> None:
    readings = {type(classify(c.expression)).__name__ for c in CASES}
    assert {"_Verdict", "_CastOf", "_Lvalue", "NoneType"} <= readings
    assert any(c.constraint.startswith("+") for c in CASES)
    assert any(c.where == "template" for c in CASES)


CONSTEXPR_OUTPUT = """
__global__ void k(unsigned *out) {
  constexpr unsigned kk = 4;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(kk));
  out[threadIdx.x] = kk;
}
"""


@needs_nvcc
def test_an_output_into_a_constexpr_is_lost() -> None:
    """Why the const class is a warning and not silence: nvcc compiles it (warning #137) and
    stores the folded constant, never the register the asm wrote."""
    [finding] = lint_text(CONSTEXPR_OUTPUT, "k.cu", select=("PTX013",))
    assert finding.severity.value == "warning" and "constexpr" in finding.message
    run = run_cached(NVCC or "", ["-arch=sm_90", "-O3", "-ptx", INPUT, "-o", OUTPUT],
                     CONSTEXPR_OUTPUT, read_output=True)
    assert run.ok, run.stderr
    written = re.search(r"mov\.u32 (%r\d+), %laneid;", run.output)
    stored = re.search(r"st\.global\.u32\s+\[%rd\d+\], (%r\d+);", run.output)
    assert written and stored and written.group(1) != stored.group(1), run.output
    assert re.search(rf"mov\.u32\s+{re.escape(stored.group(1))}, 4;", run.output), run.output


def test_memory_operands_belong_to_ptx002_whatever_the_expression() -> None:
    """nvcc rejects every "m" in device code ('asm constraint letter 'm' is not allowed inside
    a __device__/__global__ function'), lvalue or not: PTX002's defect, not PTX013's."""
    for expression in ("x", "x + 1", "42"):
        source = ('__device__ void k(int i) { int x = i; '
                  f'asm volatile("membar.cta; // %0" :: "m"({expression})); }}\n')
        rules = {f.rule for f in lint_text(source, "k.cu", select=("PTX002", "PTX013"))}
        assert rules == {"PTX002"}, (expression, rules)
