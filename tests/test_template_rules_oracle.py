"""PTX201/202/205/213/301 checked against the real toolchain: what ptxlint flags, nvcc/ptxas agree with
(or, for PTX301, compile silently), and each safe fix yields code that compiles.

Skips without nvcc. Compiles run in parallel and verdicts are cached by a hash of the command and
source in the test cache (tests/toolchain_cache.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest

from ptxlint.fix import fix_text
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, NVCC, needs_nvcc, parallel_map, run_cached

pytestmark = needs_nvcc

ARCH = "sm_90"

# Calls the device function twice and in an unrolled loop: a template emitted more than once.
TWICE = """
__global__ void k(unsigned* o, unsigned x) {
  o[0] = f(x); o[1] = f(x + 3);
#pragma unroll
  for (int i = 0; i < 4; ++i) o[2 + i] = f(x + i);
}
"""


def _device(body: str) -> str:
    head = "__device__ __forceinline__ unsigned f(unsigned x) {\n  unsigned r;\n"
    return f"{head}{body}\n  return r;\n}}\n{TWICE}"


@dataclass(frozen=True)
class Case:
    name: str
    rule: str
    source: str
    flagged: bool  # ptxlint must flag it (else: must stay silent)
    compiler_error: str | None  # a substring of the nvcc/ptxas error, None: compiles cleanly


CASES = [
    Case(
        "reg-unscoped",
        "PTX201",
        _device(
            '  asm(".reg .b32 t;\\n\\tadd.u32 t, %1, 1;\\n\\tmov.u32 %0, t;" : "=r"(r) : "r"(x));'
        ),
        True,
        "Duplicate definition of variable 't'",
    ),
    Case(
        "local-unscoped",
        "PTX201",
        _device(
            '  asm volatile(".local .b32 lv;\\n\\tst.local.u32 [lv], %1;\\n\\t'
            'ld.local.u32 %0, [lv];" : "=r"(r) : "r"(x));'
        ),
        True,
        "Duplicate definition of variable 'lv'",
    ),
    Case(
        "shared-unscoped",
        "PTX201",
        _device(
            '  asm volatile(".shared .b32 sv;\\n\\tst.shared.u32 [sv], %1;\\n\\t'
            'ld.shared.u32 %0, [sv];" : "=r"(r) : "r"(x));'
        ),
        True,
        "Duplicate definition of variable 'sv'",
    ),
    Case(
        "reg-scoped",
        "PTX201",
        _device(
            '  asm("{ .reg .b32 t; add.u32 t, %1, 1; { .reg .b32 u; mov.u32 u, t; '
            'mov.u32 %0, u; } }" : "=r"(r) : "r"(x));'
        ),
        False,
        None,
    ),
    Case(
        "reg-unique-name",
        "PTX201",
        _device('  asm(".reg .b32 t%=; add.u32 t%=, %1, 1; mov.u32 %0, t%=;" : "=r"(r) : "r"(x));'),
        False,
        None,
    ),
    Case(
        "label-unscoped",
        "PTX202",
        _device(
            '  asm volatile("mov.u32 %0, %1;\\n\\tbra.uni L1;\\nL1:\\n\\t'
            'add.u32 %0, %0, 1;" : "=r"(r) : "r"(x));'
        ),
        True,
        "Duplicate definition of label 'L1'",
    ),
    Case(
        "label-unique",
        "PTX202",
        _device(
            '  asm volatile("mov.u32 %0, %1;\\n\\tbra.uni L%=;\\nL%=:\\n\\t'
            'add.u32 %0, %0, 1;" : "=r"(r) : "r"(x));'
        ),
        False,
        None,
    ),
    Case(
        "label-scoped-at-end",
        "PTX202",
        _device(
            '  asm volatile("{\\n\\tmov.u32 %0, %1;\\n\\tbra.uni DONE;\\nDONE:\\n}"'
            ' : "=r"(r) : "r"(x));'
        ),
        False,
        None,
    ),
    Case(
        "joined-pieces",
        "PTX205",
        _device('  asm("mov.u32 %0, %1"\n      "add.u32 %0, %0, 1;" : "=r"(r) : "r"(x));'),
        True,
        "syntax error",
    ),
    Case(
        "joined-barrier",
        "PTX205",
        _device('  asm volatile("bar.sync 0" "membar.gl;");\n  r = x;'),
        True,
        "error",
    ),
    Case(
        "split-inside-instruction",
        "PTX205",
        _device('  asm("mov.u32 %0, " "%1;" "add" ".u32 %0, %0, 1;" : "=r"(r) : "r"(x));'),
        False,
        None,
    ),
    Case(
        # nvcc and ptxas accept a generic pointer as a shared address: only ptxlint sees it.
        "generic-pointer-ld-shared",
        "PTX301",
        """
__global__ void k(float* out, int i) {
  __shared__ float tile[256];
  tile[threadIdx.x] = i;
  __syncthreads();
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "l"(&tile[i]));
  out[0] = v;
}
""",
        True,
        None,
    ),
    Case(
        "shared-offset-ld-global",
        "PTX301",
        """
__global__ void k(float* out, int i) {
  __shared__ float tile[256];
  tile[threadIdx.x] = i;
  __syncthreads();
  float v;
  asm volatile("ld.global.f32 %0, [%1];"
               : "=f"(v) : "r"(static_cast<unsigned>(__cvta_generic_to_shared(&tile[i]))));
  out[0] = v;
}
""",
        True,
        "32-bit address",
    ),
    Case(
        "cvta-in-template",
        "PTX301",
        """
__global__ void k(float* out, int i) {
  __shared__ float tile[256];
  tile[threadIdx.x] = i;
  __syncthreads();
  float v;
  asm volatile("{ .reg .u64 a; cvta.to.shared.u64 a, %1; ld.shared.f32 %0, [a]; }"
               : "=f"(v) : "l"(&tile[i]));
  out[0] = v;
}
""",
        False,
        None,
    ),
    Case(
        "reg-misspelled",
        "PTX213",
        _device('  asm("{ .reg .b32 tmp; add.u32 temp, %1, 1; mov.u32 %0, tmp; }" '
                ': "=r"(r) : "r"(x));'),
        True,
        "Unknown symbol 'temp'",
    ),
    Case(
        "pred-undeclared-guard",
        "PTX213",
        _device('  r = x;\n  asm("{ setp.ne.u32 p, %1, 0; @p add.u32 %0, %0, 1; }" '
                ': "+r"(r) : "r"(x));'),
        True,
        "Unknown symbol 'p'",
    ),
    Case(
        "reg-used-before-declared",
        "PTX213",
        _device('  asm("{ add.u32 t, %1, 1; .reg .u32 t; mov.u32 %0, t; }" '
                ': "=r"(r) : "r"(x));'),
        True,
        "Label expected for forward reference of 't'",
    ),
    Case(
        "outer-reg-read-before-inner-declared",
        "PTX213",
        _device('  asm("{ .reg .u32 t; { add.u32 t, %1, 1; .reg .u32 t; mov.u32 t, 2; } '
                'mov.u32 %0, t; }" : "=r"(r) : "r"(x));'),
        False,
        None,
    ),
    Case(
        "scope-split-across-statements",
        "PTX213",
        _device('  asm volatile("{ .reg .pred P;");\n'
                '  asm volatile("setp.ne.u32 P, %1, 0; selp.u32 %0, 1, 0, P;" '
                ': "=r"(r) : "r"(x));\n  asm volatile("}");'),
        False,
        None,
    ),
]


@dataclass(frozen=True)
class Verdict:
    returncode: int
    output: str


def _compile(source: str) -> Verdict:
    assert NVCC is not None
    run = run_cached(NVCC, [f"-arch={ARCH}", "-c", "-o", os.devnull, INPUT], source)
    return Verdict(run.returncode, run.stdout + run.stderr)


def _fixed(case: Case) -> str:
    outcome = fix_text(case.source, lambda text: lint_text(text, "case.cu", select=(case.rule,)))
    return outcome.text


@pytest.fixture(scope="module")
def verdicts() -> dict[str, Verdict]:
    """Every case's source and, for flagged cases, its fixed source, compiled in parallel."""
    jobs: dict[str, str] = {}
    for case in CASES:
        jobs[case.name] = case.source
        if case.flagged:
            jobs[case.name + ":fixed"] = _fixed(case)
    return dict(zip(jobs, parallel_map(_compile, jobs.values()), strict=True))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_ptxlint_matches_the_toolchain(case: Case, verdicts: dict[str, Verdict]) -> None:
    findings = [
        f for f in lint_text(case.source, "case.cu", select=(case.rule,)) if f.rule == case.rule
    ]
    assert bool(findings) == case.flagged, [f.message for f in findings]
    verdict = verdicts[case.name]
    if case.compiler_error is None:
        assert verdict.returncode == 0, verdict.output
    else:
        assert case.compiler_error in verdict.output, verdict.output


@pytest.mark.parametrize(
    "case", [c for c in CASES if c.flagged], ids=[c.name for c in CASES if c.flagged]
)
def test_safe_fix_compiles_and_silences_the_rule(case: Case, verdicts: dict[str, Verdict]) -> None:
    fixed = _fixed(case)
    if fixed == case.source:
        pytest.skip("no safe fix for this case")
    remaining = [f for f in lint_text(fixed, "case.cu", select=(case.rule,)) if f.rule == case.rule]
    assert remaining == [], [f.message for f in remaining]
    verdict = verdicts[case.name + ":fixed"]
    assert verdict.returncode == 0, fixed + verdict.output
    assert "32-bit address" not in verdict.output
