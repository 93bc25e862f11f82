"""PTX610 counts the declaration of an object between an mbarrier's init and its first use as
something that may make the init visible where its class's constructor may synchronise (a
``__syncthreads()``, a barrier or fence in its asm, a call ptxlint cannot see into, an object
of such a class it declares in turn), as the other protocol rules count a constructor that may
take their step (``function_shapes.constructions``). A class whose constructor does none of that,
or whose constructor is not found, orders nothing."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

KERNEL = r"""
#include <cstdint>
__device__ void init_bar(uint64_t* bar, uint32_t n) {
  uint32_t b = (uint32_t)__cvta_generic_to_shared(bar);
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(b), "r"(n) : "memory");
}
__device__ void arrive(uint64_t* bar) {
  uint32_t b = (uint32_t)__cvta_generic_to_shared(bar);
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(b) : "memory");
}
struct Synced { __device__ Synced() { __syncthreads(); } };
struct Fenced { __device__ Fenced() { asm volatile("bar.sync 0;" ::: "memory"); } };
struct Outer { __device__ Outer() { Synced s; (void)s; } };
struct SelfMade { int x; __device__ SelfMade() : x(0) { if (x) { SelfMade m; (void)m; } } };
struct Plain { int x; __device__ Plain() : x(threadIdx.x) {} };
__global__ void k() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) init_bar(&bar, blockDim.x);
  BETWEEN
  arrive(&bar);
}
"""


def _ptx610(between: str) -> int:
    return len(lint_text(KERNEL.replace("BETWEEN", between), select=("PTX610",)))


def test_nothing_between_is_reported() -> None:
    assert _ptx610("") == 1


@pytest.mark.parametrize("declaration", ["Synced s;", "Fenced f{};", "Outer o;"])
def test_a_constructor_that_may_synchronise_silences_it(declaration: str) -> None:
    assert _ptx610(declaration) == 0


@pytest.mark.parametrize("declaration", [
    "Plain p;",  # a constructor that orders nothing
    "SelfMade m;",  # one that declares an object of its own class: asked once
    "Synced* s = nullptr; (void)s;",  # a pointer: no constructor runs
    "Unknown u;",  # no constructor found: a library's class ptxlint does not read
])
def test_a_declaration_that_runs_no_synchronising_constructor_does_not(declaration: str) -> None:
    assert _ptx610(declaration) == 1
