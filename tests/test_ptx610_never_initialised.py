"""PTX610 flags the first use of an mbarrier that nothing in its function may initialise: a
``__shared__`` variable of the function's own, or any barrier of a kernel (shared memory keeps
nothing from an earlier launch, so whoever initialises a kernel's barrier does so in it). A
``mbarrier.init`` of it (in the function or a helper it calls), a call ptxlint cannot see into,
or an unreadable asm statement keeps it silent; so does a barrier the function is handed."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

HELPERS = r"""
#include <cstdint>
__device__ void init_elsewhere(uint64_t *b, int n);
__device__ __forceinline__ void init_bar(uint64_t *b, int n) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;"
               :: "r"((uint32_t)__cvta_generic_to_shared(b)), "r"(n));
}
__device__ __forceinline__ void wait_bar(uint64_t *b) {
  asm volatile("{ .reg .pred P1; W%=: mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1; "
               "@!P1 bra.uni W%=; }"
               :: "r"((uint32_t)__cvta_generic_to_shared(b)), "r"(0) : "memory");
}
"""

FLAGGED = {
    "zeroed-variable": ("__global__ void k() { __shared__ uint64_t bar; "
                        "if (threadIdx.x == 0) bar = 0; __syncthreads(); wait_bar(&bar); }"),
    "device-function": "__device__ void f() { __shared__ uint64_t bar; wait_bar(&bar); }",
    # a kernel's barrier in dynamic shared memory, or one it is handed: still its own to init
    "kernel-dynamic": ("__global__ void k() { extern __shared__ char smem[]; "
                       "wait_bar(reinterpret_cast<uint64_t *>(smem + 64)); }"),
    "kernel-parameter": "__global__ void k(uint64_t *bar) { wait_bar(bar); }",
}
SILENT = {
    "initialised": ("__global__ void k() { __shared__ uint64_t bar; if (threadIdx.x == 0) "
                    "init_bar(&bar, 1); __syncthreads(); wait_bar(&bar); }"),
    "initialised-in-a-loop": (
        "__global__ void k() { __shared__ uint64_t bars[4]; if (threadIdx.x == 0) "
        "for (int i = 0; i < 4; ++i) init_bar(&bars[i], 1); __syncthreads(); "
        "wait_bar(&bars[threadIdx.x % 4]); }"),
    "unseen-call": ("__global__ void k() { __shared__ uint64_t bar; if (threadIdx.x == 0) "
                    "init_elsewhere(&bar, 1); __syncthreads(); wait_bar(&bar); }"),
    "unseen-call-for-another": (
        "__global__ void k(uint64_t *other) { init_elsewhere(other, 1); "
        "extern __shared__ char smem[]; wait_bar(reinterpret_cast<uint64_t *>(smem)); }"),
    "handed-to-a-helper": "__device__ void f(uint64_t *bar) { wait_bar(bar); }",
    "unreadable-asm": ("__global__ void k() { __shared__ uint64_t bar; asm volatile(INIT); "
                       "wait_bar(&bar); }"),
}


def _messages(body: str) -> list[str]:
    return [f.message for f in lint_text(HELPERS + body + "\n", select=("PTX610",))]


@pytest.mark.parametrize("case", sorted(FLAGGED))
def test_a_barrier_nothing_initialises_is_flagged_at_its_first_use(case: str) -> None:
    [message] = _messages(FLAGGED[case])
    assert "with `mbarrier.init`" in message and "undefined" in message


def test_the_message_names_the_variable_or_the_kernel() -> None:
    [variable] = _messages(FLAGGED["zeroed-variable"])
    assert "the mbarrier 'bar', a __shared__ variable of k()" in variable
    [kernel] = _messages(FLAGGED["kernel-parameter"])
    assert "nothing in the kernel k() initialises one" in kernel


@pytest.mark.parametrize("case", sorted(SILENT))
def test_a_barrier_something_may_initialise_is_not(case: str) -> None:
    assert _messages(SILENT[case]) == []


def test_each_barrier_is_reported_once() -> None:
    body = ("__global__ void k() { __shared__ uint64_t bar; wait_bar(&bar); wait_bar(&bar); "
            "__shared__ uint64_t other; wait_bar(&other); }")
    assert len(_messages(body)) == 2


def test_an_init_through_another_name_for_the_buffer_keeps_it_silent() -> None:
    """flashinfer's generated kernels initialise through an integer shared address made from
    the buffer (``int smem = __cvta_generic_to_shared(smem_raw)``) and use it through the
    buffer itself: the two names may be one object."""
    body = (
        "__device__ __forceinline__ void init_at(int a, int n) {\n"
        '  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(a), "r"(n)); }\n'
        "__global__ void k() {\n"
        "  extern __shared__ char smem_raw[];\n"
        "  int smem = (int)(unsigned long long)__cvta_generic_to_shared(smem_raw);\n"
        "  if (threadIdx.x == 0) init_at(smem + 1024, 1);\n"
        "  __syncthreads();\n"
        "  wait_bar(reinterpret_cast<uint64_t *>(smem_raw + 1024));\n}")
    assert _messages(body) == []
    # another __shared__ variable is another object: its init is no init of this one
    other = ("__global__ void k() { __shared__ uint64_t a; __shared__ uint64_t b; "
             "if (threadIdx.x == 0) init_bar(&a, 1); __syncthreads(); wait_bar(&b); }")
    assert len(_messages(other)) == 1
