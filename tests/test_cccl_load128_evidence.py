"""Proof from ptxas that the CUDA 13.0 headers' 128-bit atomic loads are real defects.

CCCL 3.0.1 (``cuda/std/__atomic/functions/cuda_ptx_generated.h``) writes each 128-bit load as
``ld.<order>.<scope>.b128 [%2],_d;``: the address first and the destination second. ptxlint's
PTX207 reports the 13 of them (tests/data/reviewed_findings.toml lists them as reviewed real
defects). A template error only counts once an instantiation proves it, so this test
instantiates each of the 13 overloads (every memory order, scope and mmio tag that selects a
128-bit load), compiles the file with nvcc for sm_90 and sm_100, and asserts that ptxas rejects
exactly those 13 loads with "Arguments mismatch for instruction 'ld'". Skipped without nvcc; it
skips too when a toolkit's CCCL no longer has the overloads or spells them the right way round.
"""

from __future__ import annotations

import os
import re

import pytest

from tests.conftest import lint_text
from tests.test_corpora import precision
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_nvcc, run_cached

HEADER = "cccl/cuda/std/__atomic/functions/cuda_ptx_generated.h"

# (order, scope, mmio) of each overload whose 128-bit load swaps its operands
OVERLOADS = [
    *[("acquire", scope, "disable") for scope in ("block", "cluster", "device", "system")],
    *[("relaxed", scope, "disable") for scope in ("block", "cluster", "device", "system")],
    ("relaxed", "system", "enable"),
    *[("volatile", scope, "disable") for scope in ("block", "cluster", "device", "system")],
]

PROBE_HEAD = """#include <cuda/atomic>
namespace s = cuda::std;
template <class Order, class Scope, class Mmio>
__global__ void probe(const s::__atomic_longlong2* p, s::__atomic_longlong2* out) {
  s::__atomic_longlong2 v;
  s::__cuda_atomic_load(p, v, Order{}, s::__atomic_cuda_operand_b128{}, Scope{}, Mmio{});
  *out = v;
}
"""


def probe_source() -> str:
    lines = [PROBE_HEAD]
    for order, scope, mmio in OVERLOADS:
        args = (f"s::__atomic_cuda_{order}, s::__thread_scope_{scope}_tag, "
                f"s::__atomic_cuda_mmio_{mmio}")
        lines.append(f"template __global__ void probe<{args}>(const s::__atomic_longlong2*, "
                     "s::__atomic_longlong2*);\n")
    return "".join(lines)


def header_path() -> str:
    include = precision.cuda_include()
    path = os.path.join(str(include), HEADER) if include is not None else ""
    if not path or not os.path.exists(path):
        pytest.skip(f"no CUDA toolkit with {HEADER}")
    return path


def header_text() -> str:
    with open(header_path()) as f:
        return f.read()


def swapped_loads_in_header() -> list[int]:
    text = header_text()
    return [text.count("\n", 0, m.start()) + 1
            for m in re.finditer(r"ld\.[\w.]*\.b128 \[%\d+\],_d;", text)]


@needs_nvcc
@pytest.mark.parametrize("arch", ["sm_90", "sm_100"])
def test_ptxas_rejects_every_instantiated_128_bit_load(arch: str) -> None:
    lines = swapped_loads_in_header()
    if not lines:
        pytest.skip("this toolkit's CCCL writes its 128-bit loads the right way round")
    assert NVCC is not None
    atomics = os.path.dirname(os.path.dirname(header_path()))  # cccl/cuda/std/__atomic
    # keyed on the atomics' headers too: a toolkit's headers can be patched under one nvcc
    run = run_cached(NVCC, [f"-arch={arch}", "-O3", "-c", INPUT, "-o", OUTPUT], probe_source(),
                     filename="load128.cu", inputs=[atomics])
    if "has no member" in run.stderr or "is not a member" in run.stderr:
        pytest.skip("this toolkit's CCCL has no such overloads")
    assert not run.ok
    mismatches = re.findall(r"line \d+; error\s*: Arguments mismatch for instruction 'ld'",
                            run.stderr)
    assert len(mismatches) == len(OVERLOADS) == len(lines), run.stderr


def test_ptx207_reports_each_swapped_load() -> None:
    lines = swapped_loads_in_header()
    text = header_text()
    findings = [f for f in lint_text(text, select=("PTX207",)) if f.rule == "PTX207"]
    reported = sorted({text.count("\n", 0, f.span.start) + 1 for f in findings
                       if "b128" in f.message})
    assert reported == lines
