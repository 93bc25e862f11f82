"""A call through a type alias reaches the method of the class the alias names
(``analysis.call_classes``): a function's, its class's or its namespace's alias, a member type
of a class template instance (``typename Selector<N>::type``, ``decltype`` of a member
function that constructs the class), ``conditional_t``. Where the alias may name several
classes (a primary template and its specializations, the two sides of ``conditional_t``), the
call is followed only where every class's method takes the same steps; a call that spells
``template`` before its name (``T::template f<N>()``, ``x.template f<N>()``) is a call."""

from __future__ import annotations

import pytest

from ptxlint.analysis.function_flow import FileFlows
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.ptx.protocols import WG_COMMIT, WG_FENCE, WG_MMA, WG_WAIT
from tests.conftest import lint_text

# DeepGEMM's shape (deep_gemm/mma/sm90.cuh): a selector class template whose member type is
# the class whose static `wgmma` issues the instruction
SELECTOR = r"""
__device__ void mma(float& d0, float& d1, uint64_t a, uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1}, %2, %3, 1, 1, 1, 0, 0;"
               : "+f"(d0), "+f"(d1) : "l"(a), "l"(b));
}
__device__ void arrive() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ void wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
template <int N_> struct BF16MMA {
  __device__ static void wgmma(uint64_t a, uint64_t b, float* d) { mma(d[0], d[1], a, b); }
};
template <int N_> struct FP8MMA {
  __device__ static void wgmma(uint64_t a, uint64_t b, float* d) { mma(d[0], d[1], a, b); }
};
struct NoMMA { __device__ static void wgmma(uint64_t a, uint64_t b, float* d) {} };
template <int N> struct Selector {
  static constexpr auto select_type() { return BF16MMA<N>(); }
  using type = decltype(select_type());
};
template <> struct Selector<8> { using type = SPECIALIZED; };
"""

KERNEL = r"""
__global__ void k(float* out, uint64_t a, uint64_t b) {
  using WGMMA = typename Selector<16>::type;
  float acc[2] = {0, 0};
  FENCE
  WGMMA::wgmma(a, b, acc);
  commit();
  wait0();
  out[threadIdx.x] = acc[0];
}
"""


def _text(specialized: str = "FP8MMA<8>", fence: str = "") -> str:
    return SELECTOR.replace("SPECIALIZED", specialized) + KERNEL.replace("FENCE", fence)


def _steps(text: str) -> list[str]:
    extracted = extract_statements(SourceFile("k.cu", text))
    assert extracted.parsed is not None
    flows = FileFlows(extracted.parsed, tuple(extracted.statements), "k.cu")
    [flow] = [f for f in flows.flows() if f.name == "k"]
    return [s.kind for s in flow.steps]


def test_a_wgmma_called_through_a_selectors_member_type_without_a_fence_is_reported() -> None:
    findings = lint_text(_text(), select=("PTX607",))
    assert [f.rule for f in findings] == ["PTX607"]
    assert "no wgmma.fence" in findings[0].message


def test_the_same_call_after_a_fence_is_silent() -> None:
    assert _steps(_text(fence="arrive();")) == [WG_FENCE, WG_MMA, WG_COMMIT, WG_WAIT]
    assert lint_text(_text(fence="arrive();"), select=("PTX607",)) == []


def test_a_specialization_whose_class_takes_other_steps_leaves_the_call_opaque() -> None:
    # Selector<8>::type has a `wgmma` that takes no step: which one Selector<16> is, the
    # flows do not decide, and the rules stay silent
    assert _steps(_text("NoMMA")) == [WG_COMMIT, WG_WAIT]
    assert lint_text(_text("NoMMA"), select=("PTX607",)) == []


def test_a_specialization_whose_class_has_no_such_method_leaves_the_call_opaque() -> None:
    assert _steps(_text("int")) == [WG_COMMIT, WG_WAIT]
    assert _steps(_text("Unknown<8>")) == [WG_COMMIT, WG_WAIT]


CHOICES = SELECTOR.replace("SPECIALIZED", "FP8MMA<8>") + r"""
struct Holder {
  using Member = BF16MMA<8>;
  __device__ void run(float* out, uint64_t a, uint64_t b);
};
using Global = FP8MMA<8>;
__global__ void k(float* out, uint64_t a, uint64_t b) {
  CHOICE
  float acc[2] = {0, 0};
  CALL
}
"""


@pytest.mark.parametrize(("choice", "call", "kinds"), [
    ("using M = cute::conditional_t<N == 1, BF16MMA<8>, FP8MMA<8>>;", "M::wgmma(a, b, acc);",
     [WG_MMA]),
    ("using M = std::conditional_t<N == 1, BF16MMA<8>, NoMMA>;", "M::wgmma(a, b, acc);", []),
    ("typedef typename std::conditional<true, FP8MMA<8>, BF16MMA<8>>::type M;",
     "M::wgmma(a, b, acc);", [WG_MMA]),
    ("", "Global::wgmma(a, b, acc);", [WG_MMA]),  # a namespace-scope alias
    ("using M = BF16MMA<8>; using W = M;", "W::wgmma(a, b, acc);", [WG_MMA]),  # a chain
    ("using M = std::conditional_t<N == 1, BF16MMA<8>, NoMMA>; M m;", "m.wgmma(a, b, acc);",
     []),
    ("using M = std::conditional_t<N == 1, BF16MMA<8>, FP8MMA<8>>; M m;",
     "m.wgmma(a, b, acc);", [WG_MMA]),
])
def test_an_alias_that_may_name_several_classes_is_followed_where_they_agree(
        choice: str, call: str, kinds: list[str]) -> None:
    assert _steps(CHOICES.replace("CHOICE", choice).replace("CALL", call)) == kinds


def test_a_class_member_alias_names_the_class_in_its_methods() -> None:
    text = CHOICES.replace("CHOICE", "").replace("CALL", "") + r"""
__device__ void Holder::run(float* out, uint64_t a, uint64_t b) {}
struct Inline {
  using Member = BF16MMA<8>;
  __device__ void k(float* acc, uint64_t a, uint64_t b) { Member::wgmma(a, b, acc); }
};
"""
    extracted = extract_statements(SourceFile("k.cu", text))
    assert extracted.parsed is not None
    flows = FileFlows(extracted.parsed, tuple(extracted.statements), "k.cu")
    [flow] = [f for f in flows.flows() if f.name == "k" and f.member]
    assert [s.kind for s in flow.steps] == [WG_MMA]


TEMPLATE_KEYWORD = r"""
struct Group {
  template <int N> __device__ static void wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory");
  }
  template <int N> __device__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;"); }
};
template <class G>
__global__ void k(G g) {
  CALL
}
"""


@pytest.mark.parametrize(("call", "kinds"), [
    ("Group::template wait<1>();", [WG_WAIT]),
    ("Group g2; g2.template commit<1>();", [WG_COMMIT]),
])
def test_a_call_that_spells_template_before_its_name_is_followed(
        call: str, kinds: list[str]) -> None:
    assert _steps(TEMPLATE_KEYWORD.replace("CALL", call)) == kinds


def test_a_template_keyword_call_that_is_not_found_is_opaque() -> None:
    extracted = extract_statements(SourceFile("k.cu", TEMPLATE_KEYWORD.replace(
        "CALL", "g.template commit<1>(); G::template fence<0>();")))
    assert extracted.parsed is not None
    flows = FileFlows(extracted.parsed, tuple(extracted.statements), "k.cu")
    [flow] = [f for f in flows.flows() if f.name == "k"]
    assert flow.opaque_between(flow.start, flow.end, frozenset({WG_FENCE})) == ["fence"]


def test_a_member_type_defined_through_itself_names_no_class() -> None:
    # R<N>::type is R<N - 1>::type: which class it ends in is not read; by name alone the
    # three `wgmma`s differ, and the call stays opaque
    text = CHOICES.replace("CHOICE", "using M = typename R<3>::type;").replace(
        "CALL", "M::wgmma(a, b, acc);").replace("struct Holder", r"""
template <int N> struct R { using type = typename R<N - 1>::type; };
template <> struct R<0> { using type = BF16MMA<8>; };
struct Holder""")
    assert _steps(text) == []


# DeepGEMM's SM100 kernels (deep_gemm/impls/sm100_bf16_gemm.cuh) allocate Tensor Memory with
# CuTe's allocator classes, picked by a conditional_t; CuTe's header is not in the tree
TMEM = r"""#include <cute/arch/tmem_allocator_sm100.hpp>
__device__ void fence() { asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory"); }
template <int kNumMulticast>
__global__ void k(uint32_t* tmem_ptr_in_smem) {
  using Allocator = cute::conditional_t<kNumMulticast == 1, cute::TMEM::Allocator1Sm,
                                        cute::TMEM::Allocator2Sm>;
  BODY
}
"""


def test_cutes_tensor_memory_allocators_are_read_through_a_conditional_alias() -> None:
    from ptxlint.ptx.protocols import TC_ALLOC, TC_DEALLOC, TC_RELINQUISH

    body = ("Allocator().allocate(128, tmem_ptr_in_smem); Allocator().release_allocation_lock();"
            " cute::TMEM::Allocator2Sm().free(0, 128);")
    assert _steps(TMEM.replace("BODY", body)) == [TC_ALLOC, TC_RELINQUISH, TC_DEALLOC]


def test_an_allocation_after_the_permit_is_relinquished_is_reported_through_the_alias() -> None:
    body = ("Allocator().release_allocation_lock(); Allocator().allocate(128, tmem_ptr_in_smem);"
            " Allocator().free(0, 128);")
    findings = lint_text(TMEM.replace("BODY", body), select=("PTX609",))
    assert [f.rule for f in findings] == ["PTX609"]
    assert lint_text(TMEM.replace("BODY", "Allocator().allocate(128, tmem_ptr_in_smem); "
                                  "Allocator().release_allocation_lock(); "
                                  "Allocator().free(0, 128);"), select=("PTX609",)) == []


@pytest.mark.parametrize("call", ["Group::template wait<2>();", "Group g2; g2.wait<2>();",
                                  "Group g2; g2.template wait<2>();"])
def test_a_member_template_calls_arguments_bind_the_helpers_template_parameters(
        call: str) -> None:
    extracted = extract_statements(SourceFile("k.cu", TEMPLATE_KEYWORD.replace("CALL", call)))
    assert extracted.parsed is not None
    flows = FileFlows(extracted.parsed, tuple(extracted.statements), "k.cu")
    [flow] = [f for f in flows.flows() if f.name == "k"]
    [step] = flow.steps
    assert step.kind == WG_WAIT and flow.count(step) == 2
