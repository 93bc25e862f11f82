"""The per-function protocol flows and the divergence analysis the PTX6xx rules read."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.analysis.divergence import (
    FULL_MASK,
    Classifier,
    Kind,
    divergent_guard,
    may_split,
    member_mask,
)
from ptxlint.analysis.flow_syntax import pointer_arithmetic, subscripts
from ptxlint.analysis.function_flow import FOLLOW_DEPTH, FileFlows, base_name
from ptxlint.analysis.lane_sets import reaching_lanes
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.ptx.protocols import COMMIT, COPY, WAIT, WG_COMMIT, WG_FENCE, WG_MMA, WG_WAIT
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
    # where the words of the text were read: a user type in a C cast, a comment, a literal's
    # suffix, a template argument holding parentheses, `sizeof`'s operand, a call's result
    ("&((__nv_bfloat16*)(state))[row + 0]", "state"),
    ("((uint8_t *)ptr) + 16", "ptr"),
    ("/*as_b32*/ *reinterpret_cast<const int32_t*>(&values)", "values"),
    ("0x0000ffff", None),
    ("1.0f + acc", "acc"),
    ("reinterpret_cast<Vec<float, sizeof(acc) / sizeof(float)> const&>(acc)", "acc"),
    ("sizeof(SharedStorage)", None),
    ("smem + sizeof(T) * stage", "smem"),
    ("addr()", None),
    ("uint8_t(mantissa >> 4)", "mantissa"),  # a functional cast
    ("x.data()", "x"),  # a method of x
    ("&(*tile)(0, 0)", "tile"),  # an element, through a tensor's operator()
    ("(::cuda::std::max)(a, b)", None),
])
def test_base_name_sees_through_casts_and_conversions(expression: str, base: str | None) -> None:
    assert base_name(expression) == base


def test_a_long_sum_is_read_without_recursion() -> None:
    # a sum of n terms nests n deep in the tree (the old reading of the words had no depth)
    assert base_name(" + ".join(["1"] * 2000) + " + smem") == "smem"


@pytest.mark.parametrize("value", [
    "static_cast<unsigned>(smem_u32(&bar))",  # a cast around the helper's call
    "::smem_u32(&bar)",  # a name from the global scope
    "(unsigned)smem_u32(/* the barrier */ &bar)",  # a comment in the argument
])
def test_a_same_file_conversion_is_followed_through_casts_and_comments(value: str) -> None:
    flows = _flows(r"""
__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__global__ void k() {
  __shared__ unsigned long long bar;
  unsigned a = VALUE;
  asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"(a));
}
""".replace("VALUE", value))
    trail: list[str] = []
    assert _flow(flows, "k").resolve("a", trail=trail) == "bar"
    assert trail[-1] == "&bar"


@pytest.mark.parametrize(("expression", "moves"), [
    ("smem + 1024", True),
    ("reinterpret_cast<char*>(p) - k", True),
    ("&tile[i + 1]", False),  # an element of tile, whatever the index
    ("reinterpret_cast<Vec<float, N - 1>*>(p)", False),  # a template argument
    ("-x", False),  # a sign
    ("p->next", False),
    ("smem /* + 16 */", False),  # a comment
    ("smem + sizeof(a - b)", True),
    ("ptr_of(sizeof(a - b))", False),  # sizeof's operand is not evaluated
])
def test_pointer_arithmetic_is_read_outside_indices_and_types(expression: str,
                                                              moves: bool) -> None:
    assert pointer_arithmetic(expression) is moves


@pytest.mark.parametrize(("expression", "variable", "found"), [
    ("&tile[s][threadIdx.x]", "tile", ("s", "threadIdx.x")),
    ("&tile [ s ] [ i + 1 ]", "tile", ("s", "i + 1")),
    ("tile[s].x[i]", "tile", ("s",)),
    ("tile + x.tile[s][i]", "tile", ()),  # a member of that name is another object
    ("&ns::tile[s][i]", "tile", ("s", "i")),
])
def test_the_subscripts_of_a_variable_are_read_on_the_tree(
        expression: str, variable: str, found: tuple[str, ...]) -> None:
    assert subscripts(expression, variable) == found


@pytest.mark.parametrize(("read", "reported"), [
    ("tile[s][threadIdx.x]", True),
    ("tile[s /* this stage */][threadIdx.x]", True),  # the same index, a comment beside it
    ("tile[s ^ 1][threadIdx.x]", False),  # another stage of the pipeline's buffer
])
def test_a_read_of_another_stage_is_not_a_read_of_the_copied_one(read: str,
                                                                 reported: bool) -> None:
    text = r"""
__global__ void k(const float4* g, float4* out, int s) {
  __shared__ float4 tile[2][128];
  unsigned d = (unsigned)__cvta_generic_to_shared(&tile[s][threadIdx.x]);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(g + threadIdx.x));
  asm volatile("cp.async.commit_group;" ::: "memory");
  out[threadIdx.x] = READ;
  asm volatile("cp.async.wait_group 0;" ::: "memory");
}
""".replace("READ", read)
    assert [f.rule for f in lint_text(text, select=("PTX603",))] == (["PTX603"] if reported else [])


_LDSM = r"""
__device__ __forceinline__ void ldsm(unsigned r[4], const void* p) {
  unsigned a = (unsigned)__cvta_generic_to_shared(p);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}
"""


@pytest.mark.parametrize(("lambdas", "reported"), [
    # a lambda's body runs where it is called: a copy in one lambda and a read in another are
    # in the order of their calls (wait between), not of their definitions
    ("auto load = [&]() { cp_async16(&tile[threadIdx.x], g + threadIdx.x); };\n"
     "  auto frags = [&]() { ldsm(r, &tile[threadIdx.x % 8]); };\n"
     "  load(); commit(); wait<0>(); __syncthreads(); frags();", False),
    ("auto step = [&]() { cp_async16(&tile[threadIdx.x], g + threadIdx.x);\n"
     "                    ldsm(r, &tile[threadIdx.x % 8]); };\n"
     "  step(); commit(); wait<0>();", True),  # one lambda: the read comes before any wait
])
def test_steps_of_two_lambdas_are_not_in_program_order(lambdas: str, reported: bool) -> None:
    text = HELPERS + _LDSM + r"""
__global__ void k(const int4* g, unsigned* out) {
  __shared__ int4 tile[128];
  unsigned r[4];
  LAMBDAS
  out[threadIdx.x] = r[0];
}
""".replace("LAMBDAS", lambdas)
    assert [f.rule for f in lint_text(text, select=("PTX603",))] == (["PTX603"] if reported else [])


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
  unsigned odd = tid & 1;
  if (tid % 2 == 0) {}
  if (odd) {}
  if ((lane & 3) != 1) {}
  if (tid % 4 < 4) {}
  if (tid % 8 == 9) {}
  if (threadIdx.x % 64 < 32) {}
  asm volatile("bar.warp.sync 0xffffffff;");
}
"""


def test_conditions_split_a_warp_only_where_that_is_certain() -> None:
    flows = _flows(CLASSIFY)
    flow = _flow(flows, "k")
    classifier = Classifier(flows, flow)
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
        # the lane's low bits: every warp holds each value
        "(tid % 2 == 0)": Kind.DIVERGENT,
        "(odd)": Kind.DIVERGENT,
        "((lane & 3) != 1)": Kind.DIVERGENT,
        "(tid % 4 < 4)": Kind.UNIFORM,  # always true
        "(tid % 8 == 9)": Kind.UNIFORM,  # never true
        "(threadIdx.x % 64 < 32)": Kind.UNIFORM,  # whole warps on each side
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


@pytest.mark.parametrize(("condition", "splits"), [
    ("threadIdx.x % 32 == 0", True),
    ("(my_lane() & 1) == 0", True),  # a same-file helper returning the lane
    ("lane_id() < 8", True),
    ("elect_one_sync()", True),
    ("n > 4", False),
])
def test_a_file_that_spells_no_lane_varying_word_cannot_split_a_warp(condition: str,
                                                                      splits: bool) -> None:
    helper = "" if "my_lane" not in condition else \
        "__device__ unsigned my_lane() { unsigned l; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l)); " \
        "return l; }\n"
    text = helper + (
        "__global__ void k(unsigned* out, unsigned a, int n) {\n"
        f"  if ({condition}) {{\n"
        '    asm volatile("bar.warp.sync 0xffffffff;");\n'
        "  }\n}\n")
    flows = _flows(text)
    flow = _flow(flows, "k")
    byte = text.encode().index(b"asm volatile")
    # the words are a necessary condition: where a guard splits, the file spells one
    assert (divergent_guard(flows, flow, byte) is not None) is splits
    assert may_split(flows.parsed) is splits
    assert may_split(None) is False


@pytest.mark.parametrize(("before", "around", "reached"), [
    ("", "{}", True),
    ("int a = 1; { a += 2; }", "{ {} }", True),  # plain blocks
    ("if (threadIdx.x < 64) out[0] = 1;", "{}", True),  # an if that does not leave
    ("float* p = reinterpret_cast<float*>(out);", "{}", True),  # `ret` is a word, not a part
    ("if (threadIdx.x >= 64) return;", "{}", False),  # an early return on no lane alone
    ("goto done; done:", "{}", False),
    ('asm volatile("exit;");', "{}", False),
    ("", "if (n > 0) {}", False),  # an if arm: who takes it is not read
    ("", "for (int i = 0; i < n; ++i) {}", True),  # a loop every lane runs alike
    ("", "for (int i = 0; i < n; ++i) { if (out[i]) break; {} }", False),  # some may leave
    ("", "for (int i = threadIdx.x; i < n; i += 32) {}", False),  # a per-thread count
    ("", "switch (n) { case 0: {} }", False),
    ("", "auto f = [&]() {}; ", False),  # in a lambda: called by whom is not known
])
def test_every_lane_reaches_only_straight_line_code(before: str, around: str,
                                                    reached: bool) -> None:
    asm = 'asm volatile("bar.warp.sync 0xffff;");'
    body = around.replace("{}", "{ " + asm + " }", 1) if around != "{}" else asm
    text = f"__global__ void k(int* out, int n) {{\n  {before}\n  {body}\n}}\n"
    flows = _flows(text)
    byte = text.encode().index(b"asm volatile(\"bar")
    flow = flows.function_at(byte, follow=False)
    assert flow is not None
    lanes = reaching_lanes(flows, flow, byte)
    assert (lanes is not None and lanes.reach == FULL_MASK) is reached


def test_member_masks_are_read_where_certain() -> None:
    text = r"""
__device__ void f(unsigned runtime) {
  const unsigned half = 0xffff;
  asm volatile("bar.warp.sync 0x0000ffff;");
  asm volatile("bar.warp.sync %0;" :: "r"(half));
  asm volatile("bar.warp.sync %0;" :: "r"(~0u));
  asm volatile("bar.warp.sync %0;" :: "r"(runtime));
}
"""
    flows = _flows(text)
    flow = _flow(flows, "f")
    masks = []
    for statement in flow.statements:
        [instruction] = statement.ptx.instructions
        masks.append(member_mask(statement, instruction.operands[0], flow))
    assert masks == [0xFFFF, 0xFFFF, FULL_MASK, None]


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


WGMMA = r"""
#include <cstdint>
__device__ __forceinline__ void arrive() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void commit_batch() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
__device__ __forceinline__ void mma(uint64_t a, uint64_t b, float (&acc)[4]) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
               : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]) : "l"(a), "l"(b));
}
// two levels above the asm: a mainloop step that calls the wrappers
__device__ __forceinline__ void k_block(uint64_t a, uint64_t b, float (&acc)[4]) {
  arrive();
  mma(a, b, acc);
  commit_batch();
}
__device__ __forceinline__ void finish() { wait0(); }
"""


def test_helpers_are_followed_a_few_calls_deep_with_their_operands() -> None:
    flows = _flows(WGMMA + r"""
__global__ void k(float* out, uint64_t a, uint64_t b) {
  float acc[4];
  k_block(a, b, acc);
  finish();
  out[threadIdx.x] = acc[0];
}
""")
    flow = _flow(flows, "k")
    assert [s.kind for s in flow.steps] == [WG_FENCE, WG_MMA, WG_COMMIT, WG_WAIT]
    mma_step = flow.steps[1]
    assert mma_step.call is not None and mma_step.call.name == "k_block"
    assert mma_step.inner is not None and mma_step.inner.call is not None
    assert mma_step.inner.call.name == "mma"
    # acc of mma() is acc of k_block() is the kernel's acc
    assert flow.keys(mma_step, mma_step.event.registers) == {"acc"}


def test_a_read_through_two_helper_levels_is_judged() -> None:
    text = WGMMA + r"""
__global__ void k(float* out, uint64_t a, uint64_t b) {
  float acc[4];
  k_block(a, b, acc);
  out[threadIdx.x] = acc[0];
  finish();
}
"""
    findings = lint_text(text, "k.cu", select=("PTX606",))
    assert [(f.rule, f.span.start) for f in findings] == [
        ("PTX606", text.index("acc[0];"))]
    fine = text.replace("  out[threadIdx.x] = acc[0];\n  finish();",
                        "  finish();\n  out[threadIdx.x] = acc[0];")
    assert lint_text(fine, "k.cu", select=("PTX606",)) == []


def test_a_call_a_followed_helper_makes_and_ptxlint_cannot_read_stays_opaque() -> None:
    flows = _flows(WGMMA + r"""
__device__ void wait_elsewhere();  // defined in another file
__device__ __forceinline__ void finish_there() { wait_elsewhere(); }
__global__ void k(float* out, uint64_t a, uint64_t b) {
  float acc[4];
  k_block(a, b, acc);
  finish_there();
  out[threadIdx.x] = acc[0];
}
""")
    flow = _flow(flows, "k")
    waits = frozenset({WG_WAIT})
    assert flow.opaque_between(flow.start, flow.end, waits) == ["wait_elsewhere"]


def test_steps_past_the_follow_depth_are_opaque_not_missing() -> None:
    chain = "".join(f"__device__ void level{k}() {{ level{k + 1}(); }}\n"
                    for k in range(1, FOLLOW_DEPTH + 1))
    last = f"__device__ void level{FOLLOW_DEPTH + 1}() "
    text = last + '{ asm volatile("cp.async.commit_group;" ::: "memory"); }\n' + chain + \
        "__global__ void k() { level1(); }\n"
    flows = _flows(text)
    assert "k" not in [f.name for f in flows.flows()]  # no step within reach
    flow = flows.function_at(text.encode().index(b"level1(); }\n"))
    assert flow is not None and flow.name == "k" and flow.steps == []
    assert flow.opaque_between(flow.start, flow.end, frozenset({COMMIT})) == [
        f"level{FOLLOW_DEPTH + 1}"]  # the call past the depth, made by the last followed


def test_a_member_call_is_not_a_free_helper_of_the_same_name() -> None:
    flows = _flows(r"""
__device__ __forceinline__ void load(float* smem, const float* g) {
  unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(s), "l"(g) : "memory");
}
struct vec { float x; __device__ void store(float* p) { asm volatile("cp.async.commit_group;"); } };
__global__ void k(const float* g, float* out, vec v) {
  __shared__ float tile[128];
  v.load(tile);   // vec's own load, not the cp.async helper
  load(tile, g);  // the helper
  v.store(out);   // the method
}
""")
    flow = _flow(flows, "k")
    assert [(s.kind, s.call.name) for s in flow.steps if s.call] == [
        (COPY, "load"), (COMMIT, "store")]
    assert [s.start for s in flow.steps][0] > flow.parsed.data.index(b"v.load(tile)")
    # the member call names no method ptxlint knows: it may take any step
    assert flow.opaque_between(flow.start, flow.end, frozenset({WAIT})) == ["load"]


def test_constants_follow_c_arithmetic_and_never_python_evaluation() -> None:
    flows = _flows(HELPERS + r"""
__global__ void k() {
  const int lanes = 32;
  const int half = lanes / 3;
  const int neg = -7;
  commit();
}
""")
    flow = _flow(flows, "k")
    assert flow.constant("lanes * 2 + sizeof(float4)") == 80
    assert flow.constant("half") == 10  # C's integer division, not 10.67
    assert flow.constant("-7 / 2") == -3  # truncated toward zero
    assert flow.constant("3-neg") == 10  # a negative local is not read as `3--7`
    assert flow.constant("010 + 0x10u") == 24  # octal and suffixed literals
    # a shift Python's unbounded integers would take gigabytes for: unknown at once
    assert flow.constant("1 << 99999999999") is None
    assert flow.constant("lanes + undeclared") is None
    assert flow.constant("__import__") is None
    # C++'s bool literals count as 1 and 0, and a name that only starts like one is a name
    assert flow.constant("((true) == 1) + !false") == 2
    assert flow.constant("true_value") is None


@pytest.mark.parametrize(("head", "result"), [
    ("__device__ __forceinline__ void copy(void* dst, const void* src)", ""),
    ("__device__ __forceinline__ int& copy(void* dst, const void* src)",
     "static int r;\n  return r;"),
    ("__device__ __forceinline__ void (*copy(void* dst, const void* src))(float)",
     "return nullptr;"),
], ids=["plain", "a reference", "a function pointer"])
def test_a_helper_has_its_own_name_and_parameters_whatever_it_returns(
    head: str, result: str
) -> None:
    # `void (*copy(void* dst, const void* src))(float)`: copy's parameters are dst and src,
    # not the returned pointer's `(float)`; its steps are placed at its call all the same
    flows = _flows(head + r""" {
  unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s), "l"(src) : "memory");
  """ + result + r"""
}
__global__ void k(const float4* g) {
  __shared__ float4 tile[128];
  copy(&tile[threadIdx.x], &g[threadIdx.x]);
  asm volatile("cp.async.commit_group;" ::: "memory");
}
""")
    helper = _flow(flows, "copy")
    assert helper.parameters == ("dst", "src")
    flow = _flow(flows, "k")
    assert [s.kind for s in flow.steps] == [COPY, COMMIT]
    copy = flow.steps[0]
    assert copy.call is not None and copy.call.name == "copy"
    assert flow.key(copy, copy.event.memory) == "tile"


_FIXTURES = sorted((Path(__file__).resolve().parent.parent / "fixtures" / "rules").glob("*.cu"))


@pytest.mark.parametrize("path", _FIXTURES, ids=lambda p: p.name)
def test_a_names_values_read_from_its_places_are_the_bodys(path: Path) -> None:
    """``values_of`` before the body is read (from the places that spell the name) answers
    what the walk of the body answers after."""
    flows = _flows(path.read_text())

    def shape(values: list | None) -> list[tuple[int, int]] | None:
        return None if values is None else sorted(
            (v.start_byte, v.end_byte) if v is not None else (-1, -1) for v in values)

    for flow in flows._index.functions:
        body = flow.node.child_by_field_name("body")
        names = {flow.text(n) for n in _identifiers_in(body)} if body is not None else set()
        spelled = {name: shape(flow.values_of(name)) for name in names}
        flows.structured(flow)
        assert spelled == {name: shape(flow.definitions.get(name)) for name in names}, flow.name


def _identifiers_in(node):  # noqa: ANN001, ANN202 (a test helper)
    if node.type == "identifier":
        yield node
    for child in node.children:
        yield from _identifiers_in(child)


def test_pointer_declarations_are_read_once_per_function(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wgmma names its accumulators one by one; whether each is a pointer is one walk of
    the function for all of them (a walk per name was 92 million node visits on CUTLASS's
    GMMA helpers)."""
    from ptxlint.analysis import flow_syntax, function_flow

    walks: list[int] = []
    real = flow_syntax.pointer_variables

    def counted(function, parsed):  # noqa: ANN001, ANN202 (a test double)
        walks.append(function.start_byte)
        return real(function, parsed)

    monkeypatch.setattr(function_flow, "pointer_variables", counted)
    flows = _flows(r"""
__device__ void f(float* out, float& a, int n) {
  float* p = out;
  float v[4];
  int* q = &n; int* r = q;
  asm volatile("mov.b32 %0, %0;" : "+f"(a));
}
""")
    [flow] = [f for f in flows.flows() if f.name == "f"]
    answers = {name: flow.declared_pointer(name)
               for name in ("out", "a", "n", "p", "v", "q", "r", "missing")}
    assert answers == {"out": True, "a": False, "n": False, "p": True, "v": False,
                       "q": True, "r": True, "missing": False}
    assert len(walks) == 1


# ---------------------------------------------------------------- regions of a raw buffer

_CARVED = r"""
__global__ void k(const float* g, float* out, int stage, bool flip) {
  extern __shared__ __align__(1024) char smem_raw[];
  int smem = (int)(unsigned long long)__cvta_generic_to_shared(smem_raw);
  float* s_a = reinterpret_cast<float*>(smem_raw + 0);
  float* s_state = reinterpret_cast<float*>(smem_raw + 4480);
  float* s_elem = (float*)smem_raw + 1120;
  float* twice = reinterpret_cast<float*>(smem_raw + 4480);
  if (flip) twice = s_a;
  const int s_state_addr = smem + 4480;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
               :: "r"(COPY), "l"(g + threadIdx.x * 4));
  asm volatile("cp.async.commit_group;");
  out[0] = s_state[threadIdx.x];
  out[1] = s_a[threadIdx.x];
  out[2] = s_elem[threadIdx.x];
  out[3] = twice[threadIdx.x];
  out[4] = s_a[1120 + threadIdx.x];
  out[5] = s_a[stage * 1120 + threadIdx.x];
}
"""


def _alias_reads(copy: str) -> set[str]:
    """The lines of ``_CARVED``'s reads (``out[n] = ...``) ``reads_of`` finds for the copy
    whose destination operand is ``copy``, by the ``out`` index they store to."""
    flows = _flows(_CARVED.replace("COPY", copy))
    flow = _flow(flows, "k")
    [step] = [s for s in flow.steps if s.kind == COPY]
    data = flow.parsed.data
    return {data[data.rindex(b"out[", 0, at) + 4:data.rindex(b"out[", 0, at) + 5].decode()
            for at, read in flow.reads_of(step, step.event.memory) if read is None}


def test_a_read_through_a_pointer_to_the_copied_region_of_a_raw_buffer_is_found() -> None:
    # out[2]: the same 4480 bytes, counted in floats (1120 of them); out[4]: a constant
    # subscript of the pointer to the buffer's start moves it there too
    assert _alias_reads("s_state_addr + (unsigned int)(threadIdx.x * 16)") == {"0", "2", "4"}
    assert _alias_reads("smem + 4480 + threadIdx.x * 16") == {"0", "2", "4"}


def test_a_region_at_another_constant_offset_is_not_the_copied_one() -> None:
    # out[1], out[5]: the region at 0, a subscript of run-time terms all an index into it;
    # out[4]: a constant subscript moves the read 1120 floats on, out of it
    assert _alias_reads("smem + 4096 + threadIdx.x * 16") == set()
    assert _alias_reads("smem + 0 + threadIdx.x * 16") == {"1", "5"}


def test_a_region_at_a_run_time_offset_is_no_region() -> None:
    """A pipeline's next stage (``smem + stage * BYTES + i``) is never taken for the one
    being read: where the base offset is not a constant, no C++ read through a pointer
    counts, as before regions were read."""
    assert _alias_reads("smem + stage * 4480 + threadIdx.x * 16") == set()
    assert _alias_reads("smem + 4480 + stage * 4480 + threadIdx.x * 16") == set()
    assert _alias_reads("smem + 4480 + (threadIdx.x * 16) + stage") == set()


def test_element_arithmetic_counts_only_where_the_element_size_is_certain() -> None:
    flows = _flows(r"""
template <typename T>
__global__ void k(const float* g, float* out) {
  extern __shared__ unsigned char raw[];
  T* typed = reinterpret_cast<T*>(raw);
  float* unknown = reinterpret_cast<float*>(typed + 1120);
  float* known = reinterpret_cast<float*>(reinterpret_cast<float4*>(raw) + 280);
  auto* first = typed;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
               :: "r"((unsigned)__cvta_generic_to_shared(raw) + 4480 + threadIdx.x * 16),
                  "l"(g));
}
""")
    from ptxlint.analysis.buffer_regions import copy_region, variable_region

    flow = _flow(flows, "k")
    assert variable_region(flow, "unknown") is None  # sizeof(T) is not known
    assert variable_region(flow, "known") == ("raw", 4480)  # 280 float4 of 16 bytes
    assert variable_region(flow, "first") == ("raw", 0)  # no arithmetic: no size needed
    assert copy_region(flow, "(unsigned)__cvta_generic_to_shared(raw) + 4480 + "
                             "threadIdx.x * 16") == ("raw", 4480)


def test_a_pointer_written_twice_is_no_alias() -> None:
    # `twice` is defined at 4480 and assigned again: out[3] is never the copy's region
    assert "3" not in _alias_reads("s_state_addr + (unsigned int)(threadIdx.x * 16)")
    flows = _flows(_CARVED.replace("COPY", "s_state_addr"))
    from ptxlint.analysis.buffer_regions import variable_region

    assert variable_region(_flow(flows, "k"), "twice") is None
    assert variable_region(_flow(flows, "k"), "s_state") == ("smem_raw", 4480)


def test_a_copy_through_a_helper_is_in_the_region_of_the_argument() -> None:
    """The helper passes its parameter's address on unchanged: the argument, in the caller,
    is the copy's address (``s_state + i``: an index into ``s_state``'s region). A helper
    that moves its parameter first copies elsewhere."""
    flows = _flows(HELPERS + r"""
__device__ __forceinline__ void moved16(void* dst, const void* src) {
  dst = (char*)dst + 16;
  cp_async16(dst, src);
}
__global__ void k(const float4* g, float* out) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  float* s_state = reinterpret_cast<float*>(smem_raw + 4480);
  float* again = (float*)(smem_raw + 4480);
  cp_async16(s_state + threadIdx.x * 4, g + threadIdx.x);
  moved16(s_state + threadIdx.x * 4, g + threadIdx.x);
  commit();
  out[0] = again[threadIdx.x];
}
""")
    flow = _flow(flows, "k")
    first, second = [s for s in flow.steps if s.kind == COPY]
    data = flow.parsed.data
    assert [data[at:at + 5] for at, read in flow.reads_of(first, first.event.memory)
            if read is None] == [b"again"]
    assert all(not data[at:].startswith(b"again")
               for at, _ in flow.reads_of(second, second.event.memory))


def test_a_buffer_of_wider_elements_counts_its_arithmetic_in_elements() -> None:
    flows = _flows(r"""
template <typename T>
__global__ void k(const float* g, float* out) {
  extern __shared__ float fbuf[];
  __shared__ T tbuf[256];
  float* q = fbuf + 1120;
  float* r = &fbuf[1120];
  T* t = tbuf + 8;
  T* t0 = tbuf;
  unsigned base = (unsigned)__cvta_generic_to_shared(fbuf);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
               :: "r"(base + 4480 + threadIdx.x * 16), "l"(g));
}
""")
    from ptxlint.analysis.buffer_regions import copy_region, variable_region

    flow = _flow(flows, "k")
    assert variable_region(flow, "q") == variable_region(flow, "r") == ("fbuf", 4480)
    assert copy_region(flow, "base + 4480 + threadIdx.x * 16") == ("fbuf", 4480)
    assert variable_region(flow, "t") is None  # sizeof(T) is not known
    assert variable_region(flow, "t0") == ("tbuf", 0)


@pytest.mark.parametrize(("address", "region"), [
    ("smem + 4480", ("smem_raw", 4480)),
    ("s_state_addr + (unsigned int)(threadIdx.x * 16)", ("smem_raw", 4480)),
    ("(unsigned)__cvta_generic_to_shared(s_state + threadIdx.x)", ("smem_raw", 4480)),
    ("(unsigned)__cvta_generic_to_shared(&smem_raw[4480])", ("smem_raw", 4480)),
    ("(unsigned)__cvta_generic_to_shared(&s_state[threadIdx.x])", ("smem_raw", 4480)),
    ("smem + OFFSET_B", None),  # a macro ptxlint cannot read: an offset, not an index
    ("smem + (flip ? 0 : 4480) + threadIdx.x * 16", None),
    ("(smem + 4480) | (threadIdx.x << 4)", None),
    ("smem + threadIdx.x * 16 + 4480", None),  # a run-time term inside the base
])
def test_the_region_of_an_address(address: str, region: tuple[str, int] | None) -> None:
    from ptxlint.analysis.buffer_regions import copy_region

    flow = _flow(_flows(_CARVED.replace("COPY", "smem")), "k")
    assert copy_region(flow, address) == region


def _reaching_matches(text: str) -> int:
    """Each own statement's steps, asked of fresh flows one at a time, are those every flow
    gives; the number of statements with steps."""
    every = _flows(text)
    asked = 0
    for statement in [s for s in _flows(text)._index.shapes._placed]:
        alone = _flows(text)
        [same] = [s for s in alone._index.shapes._placed if s.span == statement.span]
        mine = [(flow.name, flow.start, step.start, step.order, step.kind)
                for flow, step in alone.steps_reaching(same)]
        [theirs] = [s for s in every._index.shapes._placed if s.span == statement.span]
        assert mine == [(flow.name, flow.start, step.start, step.order, step.kind)
                        for flow, step in every.steps_of(theirs)], statement.span
        asked += bool(mine)
    return asked


def test_the_steps_reaching_a_statement_are_those_of_every_flow() -> None:
    """``steps_reaching`` builds only the flows around a statement and its callers; it must
    find what ``steps_of`` finds over all of them, in the PTX6xx rules' fixtures."""
    fixtures = sorted((Path(__file__).parent.parent / "fixtures" / "rules").glob("PTX6*.cu"))
    assert len(fixtures) >= 28
    assert sum(_reaching_matches(fixture.read_text()) for fixture in fixtures) >= 150


def test_the_steps_reaching_a_statement_climb_the_calls_the_flows_follow() -> None:
    """A caller ``FOLLOW_DEPTH`` calls up reaches the statement; one more call up does not,
    and an unrelated function is never built."""
    chain = [f"__device__ void f{i}() {{ f{i + 1}(); }}" for i in range(FOLLOW_DEPTH + 1)]
    text = (f"__device__ void f{FOLLOW_DEPTH + 1}() {{ asm volatile(\"cp.async.commit_group;\""
            " ::: \"memory\"); }\n" + "\n".join(reversed(chain)) +
            "\n__device__ void other() { asm volatile(\"cp.async.wait_all;\" ::: \"memory\"); }\n")
    assert _reaching_matches(text) == 2
    flows = _flows(text)
    [commit] = [s for s in flows._index.shapes._placed if "commit" in s.template.text]
    names = [flow.name for flow, _ in flows.steps_reaching(commit)]
    assert names == [f"f{i}" for i in range(FOLLOW_DEPTH + 1, 0, -1)]  # in file order
    assert "other" not in [flow.name for flow in flows._index.made()]
