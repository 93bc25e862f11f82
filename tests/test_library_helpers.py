"""The protocol steps of library functions a tree lacks (``analysis.library_helpers``), and a
wait's count bound from a call's template argument (``FunctionFlow.count``)."""

from __future__ import annotations

from pathlib import Path

from ptxlint.analysis.function_flow import flows_of
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.ptx.protocols import COMMIT, COPY, WAIT
from tests.conftest import lint_text

PROTOCOL = ("PTX602", "PTX603")

# the toolkit's pipeline primitives, no header of the project defining them
PIPELINE = r"""#include <cuda_pipeline.h>
__global__ void k(const float4* g, float4* out) {
  __shared__ float4 tile[128];
  asm volatile("prefetch.global.L2 [%0];" :: "l"(g));
  __pipeline_memcpy_async(&tile[threadIdx.x], &g[threadIdx.x], sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  out[threadIdx.x] = tile[threadIdx.x];
}
"""


class _Context:
    def __init__(self, path: str, text: str) -> None:
        extracted = extract_statements(SourceFile(path, text))
        self.parsed = extracted.parsed
        self.file_statements = tuple(extracted.statements)


def _steps(path: str, text: str, name: str) -> list[tuple[str, str | None, int | None]]:
    flows = flows_of(_Context(path, text))
    assert flows is not None
    [flow] = [f for f in flows.flows() if f.name == name]
    return [(s.kind, s.call.name if s.call else None, flow.count(s)) for s in flow.steps]


def test_the_pipeline_primitives_take_their_steps(tmp_path: Path) -> None:
    path = str(tmp_path / "k.cu")
    assert _steps(path, PIPELINE, "k") == [
        (COPY, "__pipeline_memcpy_async", None), (COMMIT, "__pipeline_commit", None),
        (WAIT, "__pipeline_wait_prior", 0)]  # the argument bound to `prior`
    assert lint_text(PIPELINE, path, select=PROTOCOL) == []


def test_a_primitive_left_out_is_found(tmp_path: Path) -> None:
    path = str(tmp_path / "k.cu")
    no_wait = PIPELINE.replace("  __pipeline_wait_prior(0);\n", "")
    assert [f.rule for f in lint_text(no_wait, path, select=PROTOCOL)] == ["PTX603"]
    no_commit = PIPELINE.replace("  __pipeline_commit();\n", "")
    findings = lint_text(no_commit, path, select=PROTOCOL)
    assert [f.rule for f in findings] == ["PTX602"]
    assert "through __pipeline_memcpy_async()" in findings[0].message


def test_the_project_definition_wins_over_the_summary(tmp_path: Path) -> None:
    # a project may name its own function like a library one: what it wrote is read
    path = str(tmp_path / "k.cu")
    text = "__device__ void __pipeline_commit() {}\n" + PIPELINE
    assert _steps(path, text, "k")[1:] == [(WAIT, "__pipeline_wait_prior", 0)]


def test_a_wait_count_is_bound_from_the_template_argument(tmp_path: Path) -> None:
    include = tmp_path / "include" / "lib"
    include.mkdir(parents=True)
    (include / "async.cuh").write_text(r"""
template <typename T, int N>
__device__ __forceinline__ void wait_for() { asm volatile("cp.async.wait_group %0;" :: "n"(N)); }
""")
    text = r"""#include <lib/async.cuh>
template <int kStages>
__global__ void k() {
  constexpr int kDepth = 3;
  asm volatile("cp.async.commit_group;" ::: "memory");
  wait_for<float, 2>();
  lib::wait_for<float, kDepth - 1>();
  wait_for<float, kStages - 2>();
  cp_async_wait<1>();
}
"""
    path = str(tmp_path / "k.cu")
    assert _steps(path, text, "k") == [
        (COMMIT, None, None), (WAIT, "wait_for", 2), (WAIT, "wait_for", 2),
        (WAIT, "wait_for", None),  # a template parameter of the kernel: unknown here
        # CuTe's and CUTLASS's cp_async_wait<0>() is wait_all: the summary holds both arms
        (WAIT, "cp_async_wait", 0), (WAIT, "cp_async_wait", 1)]


# a two-stage prologue: stage 0's group, stage 1's group, wait for all but the most recent one
PROLOGUE = r"""
template <int N>
__device__ __forceinline__ void wait_for() { asm volatile("cp.async.wait_group %0;" :: "n"(N)); }
__global__ void k(const float4* g, float4* out) {
  __shared__ float4 stage0[128];
  __shared__ float4 stage1[128];
  asm volatile("prefetch.global.L2 [%0];" :: "l"(g));
  __pipeline_memcpy_async(&stage0[threadIdx.x], &g[threadIdx.x], sizeof(float4));
  __pipeline_commit();
  __pipeline_memcpy_async(&stage1[threadIdx.x], &g[128 + threadIdx.x], sizeof(float4));
  __pipeline_commit();
  wait_for<1>();
  out[threadIdx.x] = stage0[threadIdx.x];
}
"""


def test_a_wait_that_leaves_the_copys_group_pending_is_found(tmp_path: Path) -> None:
    path = str(tmp_path / "k.cu")
    assert lint_text(PROLOGUE, path, select=PROTOCOL) == []
    # stage 1's commit left out: stage 0 is the most recent group, which wait_group 1 leaves
    shared = PROLOGUE.replace("&g[128 + threadIdx.x], sizeof(float4));\n  __pipeline_commit();",
                              "&g[128 + threadIdx.x], sizeof(float4));")
    findings = lint_text(shared, path, select=PROTOCOL)
    assert [(f.rule, f.span.start) for f in findings] == [
        ("PTX603", shared.index("stage0[threadIdx.x];"))]
    assert "`cp.async.wait_group 1` at line 11 (through wait_for())" in findings[0].message
    # the first commit left out: both stages share one group, the most recent
    both = PROLOGUE.replace("sizeof(float4));\n  __pipeline_commit();\n  __pipeline_memcpy",
                            "sizeof(float4));\n  __pipeline_memcpy")
    assert [f.rule for f in lint_text(both, path, select=PROTOCOL)] == ["PTX603"]
    # a count not known here (a template parameter of the kernel): silent
    unknown = shared.replace("__global__ void k(", "template <int S>\n__global__ void k(") \
        .replace("wait_for<1>()", "wait_for<S>()")
    assert lint_text(unknown, path, select=PROTOCOL) == []


def test_a_read_of_one_buffer_that_two_stages_fill_is_left_alone(tmp_path: Path) -> None:
    # one buffer, indexed by stage: the read may be of stage 0's copy, which the wait completes
    text = r"""
__global__ void k(const float4* g, float4* out) {
  __shared__ float4 tiles[256];
  asm volatile("prefetch.global.L2 [%0];" :: "l"(g));
  __pipeline_memcpy_async(&tiles[threadIdx.x], &g[threadIdx.x], sizeof(float4));
  __pipeline_commit();
  __pipeline_memcpy_async(&tiles[128 + threadIdx.x], &g[128 + threadIdx.x], sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(1);
  out[threadIdx.x] = tiles[threadIdx.x];
}
"""
    assert lint_text(text, str(tmp_path / "k.cu"), select=PROTOCOL) == []


def test_commits_taken_in_a_loop_are_not_counted(tmp_path: Path) -> None:
    text = r"""
__global__ void k(const float4* g, float4* out, int n) {
  __shared__ float4 stage0[128];
  __shared__ float4 other[128];
  asm volatile("prefetch.global.L2 [%0];" :: "l"(g));
  __pipeline_memcpy_async(&stage0[threadIdx.x], &g[threadIdx.x], sizeof(float4));
  __pipeline_commit();
  for (int i = 0; i < n; ++i) {
    __pipeline_memcpy_async(&other[threadIdx.x], &g[i * 128 + threadIdx.x], sizeof(float4));
    __pipeline_commit();
  }
  __pipeline_wait_prior(1);
  out[threadIdx.x] = stage0[threadIdx.x];
}
"""
    assert lint_text(text, str(tmp_path / "k.cu"), select=PROTOCOL) == []


def test_a_count_made_of_parameters_is_bound_through_the_calls(tmp_path: Path) -> None:
    text = r"""
template <int N>
__device__ __forceinline__ void wait_before() { asm volatile("cp.async.wait_group %0;" :: "n"(N - 1)); }
template <int S>
__device__ __forceinline__ void stage_wait() { wait_before<S * 2>(); }
__device__ __forceinline__ void local_wait() {
  constexpr int n = 2;
  asm volatile("cp.async.wait_group %0;" :: "n"(n + 1));
}
__global__ void k() {
  asm volatile("cp.async.commit_group;" ::: "memory");
  wait_before<3>();
  stage_wait<2>();
  local_wait();
  __pipeline_wait_prior(3);
  __pipeline_wait_prior(12);  // the toolkit waits for 8 groups at most
}
"""
    path = str(tmp_path / "k.cu")
    assert [count for _, _, count in _steps(path, text, "k")] == [None, 2, 3, 3, 3, 8]


def test_a_step_of_an_included_headers_helper_left_out_is_found(tmp_path: Path) -> None:
    # the helpers in a project header, the wait's count a template argument of the call
    include = tmp_path / "include" / "lib"
    include.mkdir(parents=True)
    (include / "pipe.cuh").write_text(r"""
namespace lib {
struct Copy {
  static __device__ __forceinline__ void issue(void* dst, const void* src) {
    unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s), "l"(src) : "memory");
  }
};
__device__ __forceinline__ void fence() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait() { asm volatile("cp.async.wait_group %0;" :: "n"(N)); }
}  // namespace lib
""")
    (tmp_path / "src").mkdir()
    text = r"""#include <lib/pipe.cuh>
__global__ void k(const float4* g, float4* out) {
  __shared__ float4 stage0[128];
  __shared__ float4 stage1[128];
  asm volatile("prefetch.global.L2 [%0];" :: "l"(g));
  lib::Copy::issue(&stage0[threadIdx.x], &g[threadIdx.x]);
  lib::fence();
  lib::Copy::issue(&stage1[threadIdx.x], &g[128 + threadIdx.x]);
  lib::fence();
  lib::wait<1>();
  out[threadIdx.x] = stage0[threadIdx.x];
}
"""
    path = str(tmp_path / "src" / "k.cu")
    assert lint_text(text, path, select=PROTOCOL) == []
    second = text.replace("g[128 + threadIdx.x]);\n  lib::fence();", "g[128 + threadIdx.x]);")
    findings = lint_text(second, path, select=PROTOCOL)
    assert [(f.rule, f.span.start) for f in findings] == [
        ("PTX603", second.index("stage0[threadIdx.x];"))]
    assert "`cp.async.wait_group 1` at line 9 (through wait())" in findings[0].message
    no_wait = text.replace("  lib::wait<1>();\n", "")
    assert [f.rule for f in lint_text(no_wait, path, select=PROTOCOL)] == ["PTX603"]
