"""PTX209 carry-chain-broken: a consumer that reads a carry its chain did not mean, inside one
template (ptxlint.analysis.carry). ptxas cannot judge it: it builds every broken chain
without a word (the tests below compile each one), so the ISA's text is the evidence (the
rule's docs quote it); where a GPU is present, a run shows the wrong sum."""

from __future__ import annotations

import subprocess

import pytest

from ptxlint.analysis.carry import carry_breaks
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_gpu, needs_nvcc, run_cached

HEAD = "__device__ void f(unsigned a0, unsigned a1, unsigned a2, unsigned b0, unsigned b1,\n" \
       "                  unsigned b2, unsigned p, unsigned *r) {\n"
OPS = (': "=r"(r[0]), "=r"(r[1]), "=r"(r[2])'
       ' : "r"(a0), "r"(a1), "r"(a2), "r"(b0), "r"(b1), "r"(b2), "r"(p));\n}\n')

# (kind, broken template, its fix)
CASES = [
    ("consumed-twice",
     "add.cc.u32 %0, %3, %6; addc.u32 %1, %4, %7; addc.u32 %2, %5, %8;",
     "add.cc.u32 %0, %3, %6; addc.cc.u32 %1, %4, %7; addc.u32 %2, %5, %8;"),
    ("overwritten",
     "add.cc.u32 %0, %3, %6; add.cc.u32 %1, %4, %7; addc.u32 %2, %5, %8;",
     "add.cc.u32 %0, %3, %6; addc.cc.u32 %1, %4, %7; addc.u32 %2, %5, %8;"),
    ("not-on-every-path",
     "{ .reg .pred q; setp.ne.u32 q, %9, 0; @q add.cc.u32 %0, %3, %6; addc.u32 %1, %4, %7;"
     " mov.u32 %2, 0; }",
     "{ .reg .pred q; setp.ne.u32 q, %9, 0; @q add.cc.u32 %0, %3, %6; @q addc.u32 %1, %4, %7;"
     " mov.u32 %2, 0; }"),
]


def _source(template: str) -> str:
    return HEAD + f'  asm("{template}"\n      ' + OPS


@pytest.mark.parametrize("kind, bad, good", CASES, ids=[c[0] for c in CASES])
def test_broken_chain_is_found_and_its_fix_is_clean(kind: str, bad: str, good: str) -> None:
    [statement] = extract_statements(SourceFile("t.cu", _source(bad))).statements
    assert [b.kind for b in carry_breaks(statement)] == [kind]
    assert [f.rule for f in lint_text(_source(bad), select=("PTX209",))] == ["PTX209"]
    assert lint_text(_source(good), select=("PTX209",)) == []


def test_a_carry_read_across_statements_is_ptx107s_not_this_rules() -> None:
    text = _source("addc.u32 %0, %3, %6; addc.u32 %1, %4, %7; mov.u32 %2, 0;")
    assert [f.rule for f in lint_text(text, select=("PTX107", "PTX209"))] == ["PTX107"]


def test_after_a_label_the_flow_is_not_followed() -> None:
    text = _source("{ add.cc.u32 %0, %3, %6; L: addc.u32 %1, %4, %7; addc.u32 %2, %5, %8; }")
    assert lint_text(text, select=("PTX209",)) == []


def test_rule_runs_by_default() -> None:
    from ptxlint.registry import load_rules

    rule = next(r for r in load_rules().rules if r.id == "PTX209")
    assert not rule.preview


@needs_nvcc
@pytest.mark.parametrize("kind, bad, good", CASES, ids=[c[0] for c in CASES])
def test_ptxas_builds_the_broken_chain_silently(kind: str, bad: str, good: str) -> None:
    assert NVCC is not None
    kernel = _source(bad) + "__global__ void k(unsigned *r) { f(1, 2, 3, 4, 5, 6, 1, r); }\n"
    run = run_cached(NVCC, ["-arch=sm_90", "-c", INPUT, "-o", OUTPUT], kernel, filename="k.cu")
    assert run.ok, run.stderr
    assert "warning" not in run.stderr.lower()


# On a GPU: 0xffffffff + 1 carries into word 1; with the middle link lacking .cc, word 2 gets
# word 0's carry again (1) where the right sum has 0.
_RUN = r"""
#include <cstdio>
__global__ void k(unsigned *r) {
  unsigned a0 = 0xffffffffu, a1 = 0, a2 = 0, b0 = 1, b1 = 0, b2 = 0;
  asm volatile("TEMPLATE" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2])
               : "r"(a0), "r"(a1), "r"(a2), "r"(b0), "r"(b1), "r"(b2));
}
int main() {
  unsigned *d, h[3];
  cudaMalloc(&d, 12); k<<<1, 1>>>(d); cudaMemcpy(h, d, 12, cudaMemcpyDeviceToHost);
  printf("%u %u %u\n", h[0], h[1], h[2]);
  return cudaGetLastError() != cudaSuccess;
}
"""


@needs_gpu
def test_on_a_gpu_the_middle_link_without_cc_adds_the_carry_twice(tmp_path) -> None:
    sums = []
    for template in (CASES[0][1], CASES[0][2]):
        source = tmp_path / "run.cu"
        source.write_text(_RUN.replace("TEMPLATE", template))
        binary = tmp_path / "run"
        assert NVCC is not None
        subprocess.run([NVCC, "-o", str(binary), str(source)], check=True)
        out = subprocess.run([str(binary)], capture_output=True, text=True, check=True)
        sums.append(out.stdout.split())
    assert sums == [["0", "1", "1"], ["0", "1", "0"]]
