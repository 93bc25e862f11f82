"""A method is found by its name and the class a call names it in (``analysis.call_classes``):
the object's declared class, through aliases, ``auto`` and temporaries; a qualified call's
scope. The protocol flows pick that class's method, a library summary's method applies only
where the class is the summary's, and a step of a method about ``this`` is about the object
the caller calls it on."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.analysis.call_classes import CallClasses
from ptxlint.analysis.flow_syntax import call_form, function_definitions, scope_name
from ptxlint.analysis.function_flow import FileFlows
from ptxlint.engine import extract_statements
from ptxlint.frontends.syntax_tree import nodes_of_kinds, parse
from ptxlint.model import SourceFile
from ptxlint.ptx.protocols import MBAR_ARRIVE, MBAR_INIT, WG_COMMIT, WG_WAIT
from tests.conftest import lint_text

KERNEL = r"""
__global__ void k(cutlass::arch::ClusterBarrier& param, Unknown* other, int s) {
  using Barrier = cutlass::arch::ClusterTransactionBarrier;
  typedef cute::SM90_TMA_STORE_2D Store;
  Barrier* full[4];
  Store store;
  auto& first = *full[0];
  auto got = make_barrier();
  CALLS
}
"""


def _classes(calls: str) -> list[str]:
    parsed = parse("k.cu", KERNEL.replace("CALLS", calls))
    [function] = function_definitions(parsed.tree.root_node)
    classes = CallClasses(parsed, function, "")
    found = sorted(nodes_of_kinds(function, frozenset({"call_expression"}))
                   .get("call_expression", ()), key=lambda n: n.start_byte)
    return [classes.of_call(call.start_byte, call.end_byte, call_form(call))
            for call in found if call.parent is not None
            and call.parent.type == "expression_statement"]


@pytest.mark.parametrize(("call", "klass"), [
    ("full[s]->wait(0);", "ClusterTransactionBarrier"),  # an element, through the alias
    ("(*full[s]).arrive();", "ClusterTransactionBarrier"),
    ("first.arrive();", "ClusterTransactionBarrier"),  # auto&: its initializer's class
    ("param.wait(1);", "ClusterBarrier"),
    ("store.copy(0, 0, 0, 0);", "SM90_TMA_STORE_2D"),  # through the typedef
    ("cutlass::arch::NamedBarrier(128).sync();", "NamedBarrier"),  # a temporary
    ("cutlass::arch::NamedBarrier::sync(128, 0);", "NamedBarrier"),
    ("cute::SM90_TMA_STORE_2D::copy(0, 0, 0, 0);", "SM90_TMA_STORE_2D"),
    ("Store::copy(0, 0, 0, 0);", "SM90_TMA_STORE_2D"),  # a qualifier through the typedef
    ("Barrier::init(full[0], 1);", "ClusterTransactionBarrier"),
    ("other->arrive();", "Unknown"),  # a class no definition is found in: asked, not found
    # a call's result is read as a temporary of a class of the callee's name: none is
    ("got.arrive();", "make_barrier"),
    ("wait(1);", ""),  # a plain call names no class
    ("s.x.wait(1);", ""),  # a data member's type is not read
])
def test_the_class_a_call_names_its_method_in(call: str, klass: str) -> None:
    assert _classes(call) == [klass]


def test_a_name_declared_twice_in_the_function_has_no_class() -> None:
    assert _classes("{ Other full; full.wait(0); }") == [""]


def test_an_alias_declared_in_two_blocks_names_each_blocks_class_there() -> None:
    # the two arms of an `if constexpr` alias one name to two classes, each in its own block
    # ([basic.scope.block]): a use sees its block's (DeepGEMM's epilogues pick their TMA
    # store class so); after both blocks, neither
    assert _classes("if constexpr (true) { using Bar = cutlass::arch::NamedBarrier; "
                    "Bar::arrive(128, 1); } else { using Bar = cutlass::arch::ClusterBarrier; "
                    "Bar::arrive(full[0]); } Bar::arrive(1);") == [
                        "NamedBarrier", "ClusterBarrier", "Bar"]


def test_an_inner_blocks_alias_hides_the_outer_ones() -> None:
    assert _classes("using Bar = cutlass::arch::NamedBarrier; Bar::arrive(128, 1); "
                    "{ using Bar = cutlass::arch::ClusterBarrier; Bar::arrive(full[0]); } "
                    "Bar::sync(128, 1);") == ["NamedBarrier", "ClusterBarrier", "NamedBarrier"]


@pytest.mark.parametrize(("spelled", "scope"), [
    ("cute::SM90_TMA_STORE_2D::copy", "SM90_TMA_STORE_2D"),
    ("S<ns::T, 2>::fma", "S"),
    ("wait", ""),
])
def test_a_qualified_names_scope(spelled: str, scope: str) -> None:
    assert scope_name(spelled) == scope


def _kernel_steps(text: str, path: str = "k.cu") -> list[str]:
    extracted = extract_statements(SourceFile(path, text))
    assert extracted.parsed is not None
    flows = FileFlows(extracted.parsed, tuple(extracted.statements), path)
    [flow] = [f for f in flows.flows() if f.name == "k"]
    return [s.kind for s in flow.steps]


TWO_CLASSES = r"""
struct Group { __device__ void wait() { asm volatile("wgmma.wait_group.sync.aligned 0;"); } };
struct Batch { __device__ void wait() { asm volatile("wgmma.commit_group.sync.aligned;"); } };
__global__ void k(Group* g) {
  Batch b;
  CALL
}
"""


@pytest.mark.parametrize(("call", "kinds"), [
    ("g->wait();", [WG_WAIT]),
    ("b.wait();", [WG_COMMIT]),
    ("Batch().wait();", [WG_COMMIT]),
])
def test_of_two_classes_methods_the_objects_is_followed(call: str, kinds: list[str]) -> None:
    # by name alone the two differ in the step they take, and neither was followed
    assert _kernel_steps(TWO_CLASSES.replace("CALL", call)) == kinds


# CUTLASS's barrier classes, their header not in the tree: the library summaries
BARRIER_KERNEL = r"""#include <cutlass/arch/barrier.h>
__device__ void mma(float& d0, float& d1, uint64_t a, uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1}, %2, %3, 1, 1, 1, 0, 0;"
               : "+f"(d0), "+f"(d1) : "l"(a), "l"(b));
}
__global__ void k(float* out, uint64_t a, uint64_t b) {
  using Barrier = cutlass::arch::ClusterTransactionBarrier;
  __shared__ alignas(8) uint64_t raw[2];
  Barrier* empty = reinterpret_cast<Barrier*>(raw);
  float acc[2] = {0, 0};
  cute::warpgroup_arrive();
  mma(acc[0], acc[1], a, b);
  cute::warpgroup_commit_batch();
  cute::warpgroup_wait<0>();
  empty->arrive();
  out[threadIdx.x] = acc[0];
}
"""


def test_a_barrier_method_is_a_step_where_the_object_is_a_cutlass_barrier(
        tmp_path: Path) -> None:
    path = str(tmp_path / "k.cu")
    assert _kernel_steps(BARRIER_KERNEL, path)[-1] == MBAR_ARRIVE
    assert lint_text(BARRIER_KERNEL, path, select=("PTX606",)) == []
    # the wait left out: the barrier's arrive takes no wgmma wait, so the read is reported
    no_wait = BARRIER_KERNEL.replace("  cute::warpgroup_wait<0>();\n", "")
    assert [f.rule for f in lint_text(no_wait, path, select=("PTX606",))] == ["PTX606"]
    # an object of a class no summary is of: its arrive may be anything, silent
    other = no_wait.replace("using Barrier = cutlass::arch::ClusterTransactionBarrier;",
                            "using Barrier = project::Semaphore;")
    assert lint_text(other, path, select=("PTX606",)) == []
    assert MBAR_ARRIVE not in _kernel_steps(other, path)


INIT_KERNEL = r"""#include <cutlass/arch/barrier.h>
__global__ void k(float* out) {
  asm volatile("prefetch.global.L2 [%0];" :: "l"(out));
  using Barrier = cutlass::arch::ClusterTransactionBarrier;
  __shared__ alignas(8) uint64_t raw[2];
  Barrier* full = reinterpret_cast<Barrier*>(raw);
  if (threadIdx.x == 0) full->init(1);
  __syncthreads();
  full->wait(0);
  out[threadIdx.x] = 1.0f;
}
"""


def test_a_methods_step_on_this_is_about_the_object_it_is_called_on(tmp_path: Path) -> None:
    path = str(tmp_path / "k.cu")
    assert _kernel_steps(INIT_KERNEL, path) == [MBAR_INIT, "mbarrier.wait"]
    assert lint_text(INIT_KERNEL, path, select=("PTX610",)) == []
    unsynced = INIT_KERNEL.replace("  __syncthreads();\n", "")
    findings = lint_text(unsynced, path, select=("PTX610",))
    assert [f.rule for f in findings] == ["PTX610"]
    assert "line 7 (through init())" in findings[0].message
    # another object's wait: not the barrier the init initialised
    other = unsynced.replace("full->wait(0);", "(full + 1)->wait(0);")
    assert lint_text(other, path, select=("PTX610",)) == []


MEMBERS = r"""
struct Pair {
  uint64_t a_, b_;
  __device__ void init_a() { asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(&this->a_)); }
  __device__ void wait_b() {
    asm volatile("{.reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;}"
                 :: "r"(&this->b_) : "memory");
  }
  __device__ void wait_a() {
    asm volatile("{.reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;}"
                 :: "r"(&this->a_) : "memory");
  }
};
__global__ void k() {
  __shared__ Pair pair;
  if (threadIdx.x == 0) pair.init_a();
  pair.WAIT();
}
"""


def test_two_members_of_one_object_are_two_places() -> None:
    assert [f.rule for f in lint_text(MEMBERS.replace("WAIT", "wait_a"),
                                      select=("PTX610",))] == ["PTX610"]
    assert lint_text(MEMBERS.replace("WAIT", "wait_b"), select=("PTX610",)) == []


STORE_KERNEL = r"""#include <cute/arch/copy_sm90_tma.hpp>
__global__ void k(const CUtensorMap* desc, float v) {
  __shared__ alignas(128) float tile[256];
  tile[threadIdx.x] = v;
  FENCE
  __syncthreads();
  if (threadIdx.x == 0) cute::SM90_TMA_STORE_2D::copy(desc, tile, 0, 0);
}
"""


def test_a_cute_tma_store_reads_the_tile_it_is_passed(tmp_path: Path) -> None:
    path = str(tmp_path / "k.cu")
    assert lint_text(STORE_KERNEL.replace("FENCE", "cute::tma_store_fence();"), path,
                     select=("PTX605",)) == []
    findings = lint_text(STORE_KERNEL.replace("FENCE", ""), path, select=("PTX605",))
    assert [f.rule for f in findings] == ["PTX605"]
