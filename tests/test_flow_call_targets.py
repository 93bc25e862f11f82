"""Which definition a call reaches in the protocol flows: overloads a call's number of
arguments rules out, overloads in several project headers, and a local lambda that hides any
function of its name."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.analysis.flow_syntax import function_definitions, parameter_arity
from ptxlint.analysis.function_flow import FileFlows
from ptxlint.engine import extract_statements
from ptxlint.frontends.syntax_tree import parse
from ptxlint.model import SourceFile
from ptxlint.ptx.protocols import COMMIT, WAIT, WG_COMMIT, WG_FENCE, WG_MMA, WG_WAIT
from tests.conftest import lint_text


def _flows(text: str) -> FileFlows:
    extracted = extract_statements(SourceFile("k.cu", text))
    assert extracted.parsed is not None
    return FileFlows(extracted.parsed, tuple(extracted.statements))


def _kernel(flows: FileFlows):  # noqa: ANN202 (a test helper)
    [flow] = [f for f in flows.flows() if f.name == "k"]
    return flow


@pytest.mark.parametrize(("declaration", "arity"), [
    ("void f()", (0, 0)),
    ("void f(void)", (0, 0)),
    ("void f(int a, float b)", (2, 2)),
    ("void f(int a, float b = 1.f)", (1, 2)),
    ("void f(/* a */ int a)", (1, 1)),
    ("template <typename... T> void f(int a, T... rest)", (1, None)),
    ("void f(int a, ...)", (1, None)),
    ("template <size_t... I> void f(float* d, cute::index_sequence<I...>)", (2, 2)),
])
def test_the_arguments_a_call_may_pass_are_read_off_the_parameters(
        declaration: str, arity: tuple[int, int | None]) -> None:
    [function] = function_definitions(parse("k.cu", f"{declaration} {{}}\n").tree.root_node)
    assert parameter_arity(function) == arity


OVERLOADS = r"""
__device__ void step(int group) { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ void step(int group, int pending, int spare = 0) {
  asm volatile("cp.async.wait_group 0;" ::: "memory");
}
"""


@pytest.mark.parametrize(("call", "kinds"), [
    ("step(1);", [COMMIT]),
    ("step(1, 2);", [WAIT]),  # the default argument makes two arguments enough
    ("step(1, 2, 3);", [WAIT]),
])
def test_a_call_reaches_the_overloads_its_argument_count_allows(
        call: str, kinds: list[str]) -> None:
    flow = _kernel(_flows(OVERLOADS + f"__global__ void k() {{ {call} }}\n"))
    assert [s.kind for s in flow.steps] == kinds


@pytest.mark.parametrize("call", [
    "step(args...);",  # a pack expansion: any number of arguments
    "step(1, 2, 3, 4);",  # none fits: which one is meant is not known here
])
def test_a_call_whose_argument_count_rules_out_nothing_stays_opaque(call: str) -> None:
    flows = _flows(OVERLOADS + "template <typename... A>\n"
                   f"__global__ void k(A... args) {{ {call} }}\n")
    flow = flows.function_at(flows.parsed.data.index(call.encode()))
    assert flow is not None and flow.steps == []
    assert flow.opaque_between(flow.start, flow.end, frozenset({COMMIT})) == ["step"]


# A static member that spreads an accumulator array over the asm wrapper's registers, named
# like the wrapper: only the wrapper's own overload takes the six arguments of the inner call.
SPREAD_MMA = r"""
#include <cstdint>
struct Mma {
  __device__ static void wgmma(uint64_t a, uint64_t b, float& d0, float& d1, float& d2,
                               float& d3) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(a), "l"(b));
  }
  __device__ static void wgmma(uint64_t a, uint64_t b, float* d) {
    wgmma(a, b, d[0], d[1], d[2], d[3]);
  }
};
__device__ void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ void wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
"""


def test_a_static_wrapper_of_an_overloaded_asm_member_is_followed_to_its_registers() -> None:
    flow = _kernel(_flows(SPREAD_MMA + r"""
__global__ void k(float* out, uint64_t a, uint64_t b) {
  float acc[4];
  fence();
  Mma::wgmma(a, b, acc);
  commit();
  wait0();
  out[threadIdx.x] = acc[0];
}
"""))
    assert [s.kind for s in flow.steps][1:] == [WG_MMA, WG_COMMIT, WG_WAIT]
    mma = flow.steps[1]
    assert flow.keys(mma, mma.event.registers) == frozenset({"acc"})


def test_a_read_before_the_wait_of_a_spread_accumulator_is_reported() -> None:
    kernel = r"""
__global__ void k(float* out, uint64_t a, uint64_t b) {
  float acc[4];
  fence();
  Mma::wgmma(a, b, acc);
  commit();
  out[threadIdx.x] = acc[0];
  wait0();
}
"""
    findings = lint_text(SPREAD_MMA + kernel, select=("PTX606",))
    assert [f.rule for f in findings] == ["PTX606"]
    assert "`acc` is read" in findings[0].message


LAMBDA = SPREAD_MMA + r"""
__device__ void notify(int* flags, int s);  // defined in another file
__global__ void k(float* out, int* flags, uint64_t a, uint64_t b) {
  float acc[4];
  auto release = [&](int s) { RELEASE_BODY };
  fence();
  Mma::wgmma(a, b, acc);
  commit();
  release(0);
  out[threadIdx.x] = acc[0];
  wait0();
}
"""


def test_a_call_of_a_local_lambda_takes_only_the_steps_its_body_may_take() -> None:
    harmless = LAMBDA.replace("RELEASE_BODY", "flags[s] = 1;")
    flow = _kernel(_flows(harmless))
    assert flow.opaque_between(flow.start, flow.end, frozenset({WG_WAIT})) == []
    findings = lint_text(harmless, select=("PTX606",))
    assert [f.rule for f in findings] == ["PTX606"]


@pytest.mark.parametrize("body", [
    "notify(flags, s);",  # a function ptxlint cannot read: it may wait
    "wait0();",  # it waits
])
def test_a_local_lambda_that_may_wait_keeps_the_rules_silent(body: str) -> None:
    text = LAMBDA.replace("RELEASE_BODY", body)
    assert lint_text(text, select=("PTX606",)) == []


def test_a_callable_that_is_no_local_lambda_stays_opaque() -> None:
    text = r"""
template <typename F>
__global__ void k(F release) {
  asm volatile("cp.async.commit_group;" ::: "memory");
  release(0);  // a parameter: whatever the caller passes
}
"""
    flow = _kernel(_flows(text))
    assert flow.opaque_between(flow.start, flow.end, frozenset({WAIT})) == ["release"]


# Two project headers, each defining one overload of `drain`: C++ lookup sees both (a header is
# no scope), and which one `drain(d)` calls is the argument's type's to decide.
_NO_WAIT = '__device__ void drain(int n) { asm volatile("bar.sync %0;" :: "r"(n)); }\n'
_WAITS = ('__device__ void drain(float* d) {\n'
          '  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");\n'
          '  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");\n}\n')
_DRAINED = r"""#include "first.cuh"
#include "second.cuh"
__global__ void k(unsigned long long a, unsigned long long b, float* out) {
  float d[4];
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(a), "l"(b));
  drain(d);
  out[threadIdx.x] = d[0];
}
"""


@pytest.mark.parametrize("first", [_NO_WAIT, _WAITS])
def test_overloads_in_two_headers_that_differ_in_steps_leave_the_call_opaque(
        tmp_path: Path, first: str) -> None:
    # the header included first used to win: its `drain(int)` read as the call's, and the
    # read of `d` after it reported though `drain(float*)` is the one called, and waits
    (tmp_path / "first.cuh").write_text(first)
    (tmp_path / "second.cuh").write_text(_WAITS if first is _NO_WAIT else _NO_WAIT)
    path = str(tmp_path / "k.cu")
    assert lint_text(_DRAINED, path, select=("PTX606",)) == []
    extracted = extract_statements(SourceFile(path, _DRAINED))
    assert extracted.parsed is not None
    flow = _kernel(FileFlows(extracted.parsed, tuple(extracted.statements), path))
    assert [s.kind for s in flow.steps] == [WG_FENCE, WG_MMA]
    assert flow.opaque_between(flow.start, flow.end, frozenset({WG_WAIT})) == ["drain"]


def test_the_one_overload_a_call_may_reach_across_headers_is_followed(tmp_path: Path) -> None:
    (tmp_path / "first.cuh").write_text(_NO_WAIT.replace("drain", "other"))
    (tmp_path / "second.cuh").write_text(_WAITS)
    path = str(tmp_path / "k.cu")
    assert lint_text(_DRAINED.replace("drain(d);", ""), path, select=("PTX606",)) != []
    assert lint_text(_DRAINED, path, select=("PTX606",)) == []
