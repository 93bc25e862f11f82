"""The per-function protocol flows and the divergence analysis the PTX6xx rules read."""

from __future__ import annotations

import pytest

from ptxlint.analysis.divergence import Kind, _Classifier, divergent_guard
from ptxlint.analysis.function_flow import FileFlows, base_name
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.ptx.protocols import COMMIT, COPY, WAIT
from tests.conftest import lint_text

HELPERS = r"""
__device__ __forceinline__ void cp_async16(void* dst, const void* src) {
  unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s), "l"(src) : "memory");
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait() { asm volatile("cp.async.wait_group %0;" :: "n"(N)); }
"""


def _flows(text: str) -> FileFlows:
    extracted = extract_statements(SourceFile("k.cu", text))
    assert extracted.parsed is not None
    return FileFlows(extracted.parsed, tuple(extracted.statements))


def _flow(flows: FileFlows, name: str):  # noqa: ANN202 (a test helper)
    [flow] = [f for f in flows.flows() if f.name == name]
    return flow


@pytest.mark.parametrize(("expression", "base"), [
    ("(unsigned)__cvta_generic_to_shared(&tile[threadIdx.x])", "tile"),
    ("static_cast<uint32_t>(__cvta_generic_to_shared(bars + 2))", "bars"),
    ("smem_ptr", "smem_ptr"),
    ("other_call(x)", None),
    ("reinterpret_cast<int4*>(smem + 8)", "smem"),  # the template argument is a type
])
def test_base_name_sees_through_casts_and_conversions(expression: str, base: str | None) -> None:
    assert base_name(expression) == base


def test_helper_steps_are_placed_at_the_call_in_program_order() -> None:
    flows = _flows(HELPERS + r"""
__global__ void k(const float4* g) {
  __shared__ float4 tile[128];
  cp_async16(&tile[threadIdx.x], &g[threadIdx.x]);
  commit();
  wait<0>();
}
""")
    flow = _flow(flows, "k")
    assert [s.kind for s in flow.steps] == [COPY, COMMIT, WAIT]
    assert [s.call.name for s in flow.steps if s.call] == ["cp_async16", "commit", "wait"]
    copy = flow.steps[0]
    # the helper's `dst` parameter is the caller's `&tile[threadIdx.x]`
    assert flow.key(copy, copy.event.memory) == "tile"


def test_an_overloaded_helper_with_different_steps_is_not_followed() -> None:
    flows = _flows(r"""
__device__ void step(int) { asm volatile("cp.async.commit_group;"); }
__device__ void step(float) { asm volatile("cp.async.wait_all;"); }
__global__ void k() { step(1); }
""")
    flow = _flow(flows, "k")
    assert flow.steps == []
    assert flow.opaque_between(flow.start, flow.end, frozenset({COMMIT})) == ["step"]


CLASSIFY = r"""
__device__ __forceinline__ unsigned lane_id() { return threadIdx.x % 32; }
template <int kN>
__global__ void k(const int* data, int n) {
  unsigned lane = lane_id();
  int warp = threadIdx.x / 32;
  int tid = threadIdx.x;
  int v = data[threadIdx.x];
  if (lane == 0) {}
  if (warp == 0) {}
  if (tid < 64) {}
  if (tid < 48) {}
  if (tid <= 31) {}
  if (tid < n) {}
  if (v > 0) {}
  if (kN > 2 && lane < 4) {}
  if (threadIdx.x % 32 >= 8) {}
  if (blockIdx.x == 0) {}
  asm volatile("bar.warp.sync 0xffffffff;");
}
"""


def test_conditions_split_a_warp_only_where_that_is_certain() -> None:
    flows = _flows(CLASSIFY)
    flow = _flow(flows, "k")
    classifier = _Classifier(flows, flow)
    verdicts = {flow.text(c): classifier.condition(c) for _, c, _, _ in flow.ifs}
    assert verdicts == {
        "(lane == 0)": Kind.DIVERGENT,
        "(warp == 0)": Kind.UNIFORM,
        "(tid < 64)": Kind.UNIFORM,
        "(tid < 48)": Kind.DIVERGENT,
        "(tid <= 31)": Kind.UNIFORM,
        "(tid < n)": Kind.UNKNOWN,  # n is a kernel parameter: uniform, but not a constant
        "(v > 0)": Kind.UNKNOWN,  # a per-thread load
        "(kN > 2 && lane < 4)": Kind.DIVERGENT,
        "(threadIdx.x % 32 >= 8)": Kind.DIVERGENT,
        "(blockIdx.x == 0)": Kind.UNIFORM,
    }


def test_an_early_return_on_the_lane_guards_what_follows() -> None:
    text = r"""
__global__ void k(unsigned* out, unsigned a) {
  if (threadIdx.x % 32 != 0) return;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(out[0]) : "r"(a));
}
"""
    flows = _flows(text)
    flow = _flow(flows, "k")
    byte = text.encode().index(b"asm volatile")
    guard = divergent_guard(flows, flow, byte)
    assert guard is not None and guard.how == "return"
    assert divergent_guard(flows, flow, byte, early_returns=False) is None


def test_helpers_of_an_included_project_header_are_followed(tmp_path) -> None:  # noqa: ANN001
    include = tmp_path / "include" / "lib"
    include.mkdir(parents=True)
    (include / "async.cuh").write_text(HELPERS)
    kernels = tmp_path / "src"
    kernels.mkdir()
    text = r"""#include <lib/async.cuh>
__global__ void k(const float4* g, float4* out) {
  __shared__ float4 tile[128];
  asm volatile("prefetch.global.L2 [%0];" :: "l"(g));
  cp_async16(&tile[threadIdx.x], &g[threadIdx.x]);
  wait<0>();
  out[threadIdx.x] = tile[threadIdx.x];
}
"""
    path = kernels / "k.cu"
    path.write_text(text)
    findings = lint_text(text, str(path), select=("PTX602",))
    assert [(f.rule, f.path, f.span.start) for f in findings] == [
        ("PTX602", str(path), text.index("wait<0>()"))]
