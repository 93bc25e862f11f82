"""PTX606 honours the N of ``wgmma.wait_group N``: the wait leaves the N most recent
wgmma-groups pending, so a read of the accumulators of a wgmma whose group is among them races
(PTX ISA 9.7.15.7); the count is the shared one of cp.async-groups (analysis/group_counts.py)."""

from __future__ import annotations

from tests.conftest import lint_text

HELPERS = r"""
#include <cstdint>
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory"); }
__device__ __forceinline__ void mma(float* d, uint64_t a, uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(a), "l"(b));
}
extern __device__ void unknown();
__device__ void maybe_commit(bool c) { if (c) commit(); }
"""

KERNEL = HELPERS + r"""
__global__ void k(float* out, uint64_t a, uint64_t b, bool c) {
  float s[4] = {0.f, 0.f, 0.f, 0.f};
  float o[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  BODY
}
"""


def _ptx606(body: str) -> list[str]:
    return [f.message for f in lint_text(KERNEL.replace("BODY", body), "k.cu",
                                         select=("PTX606",))]


def test_a_wait_that_leaves_the_wgmmas_own_group_pending_is_flagged() -> None:
    found = _ptx606('mma(s, a, b); commit();\n'
                    'asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");\n'
                    'out[threadIdx.x] = s[0];')
    assert len(found) == 1
    assert "`wgmma.wait_group 1`" in found[0] and "only 0 was committed" in found[0]


def test_a_template_count_is_read_through_the_helper() -> None:
    assert len(_ptx606("mma(s, a, b); commit(); wait<1>(); out[threadIdx.x] = s[0];")) == 1


def test_wait_zero_and_a_count_the_younger_groups_cover_are_clean() -> None:
    assert _ptx606("mma(s, a, b); commit(); wait<0>(); out[threadIdx.x] = s[0];") == []
    # the older group's accumulators after wait_group 1: one group committed after it
    older = "mma(s, a, b); commit(); mma(o, a, b); commit(); wait<1>(); out[threadIdx.x] = s[0];"
    assert _ptx606(older) == []


def test_the_younger_groups_accumulators_after_wait_one_are_flagged() -> None:
    found = _ptx606("mma(s, a, b); commit(); mma(o, a, b); commit(); wait<1>();\n"
                    "out[threadIdx.x] = o[0];")
    assert len(found) == 1 and "`o`" in found[0]


def test_an_uncounted_commit_or_count_is_silent() -> None:
    # a call ptxlint cannot read, a commit in a helper's if arm, commits in a loop the wgmma
    # is not in (a turn's commits count for the next wait)
    for between in ("unknown();", "maybe_commit(c);",
                    "for (int i = 0; i < 4; ++i) { mma(o, a, b); commit(); }"):
        body = f"mma(s, a, b); commit(); {between} wait<1>(); out[threadIdx.x] = s[0];"
        assert _ptx606(body) == [], between
    template = HELPERS + r"""
template <int N>
__device__ void k(float* out, uint64_t a, uint64_t b) {
  float s[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  mma(s, a, b); commit(); wait<N>(); out[threadIdx.x] = s[0];
}
"""
    assert lint_text(template, "k.cu", select=("PTX606",)) == []


SCALARS = r"""
#include <cstdint>
__device__ __forceinline__ void mma4(float& d0, float& d1, float& d2, float& d3, uint64_t a, uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(a), "l"(b));
}
__global__ void k(float* out, const uint64_t* a, uint64_t b, int n) {
  float d0 = 0.f, d1 = 0.f, d2 = 0.f, d3 = 0.f;
  for (int i = 0; i < n; ++i) {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    mma4(d0, d1, d2, d3, a[i], b);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    out[i] = d0;
  }
}
"""


def test_a_scalar_accumulator_read_in_the_wgmmas_own_turn_is_flagged() -> None:
    # the registers are the variable itself: the turn's wgmma, pending, is their writer
    findings = lint_text(SCALARS, "k.cu", select=("PTX606",))
    assert [f.rule for f in findings] == ["PTX606"]
    assert "`d0`" in findings[0].message


def test_an_element_an_older_group_may_have_filled_is_silent() -> None:
    # double buffering across turns: acc[(i + 1) % 2] is the previous turn's, completed
    turns = ("for (int i = 0; i < 4; ++i) { mma(acc[i % 2], a, b); commit(); wait<1>();\n"
             "  out[i] = acc[(i + 1) % 2][0]; }")
    # two groups on one array: wait_group 1 completes acc[0]'s
    both = "mma(acc[0], a, b); commit(); mma(acc[1], a, b); commit(); wait<1>(); out[0] = acc[0][0];"
    for body in (turns, both):
        text = KERNEL.replace("BODY", "float acc[2][4] = {};\n" + body)
        assert lint_text(text, "k.cu", select=("PTX606",)) == [], body


A_FRAGMENT = r"""
#include <cstdint>
__global__ void k(float* out, uint64_t b, unsigned x) {
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  unsigned p[8];
  for (int j = 0; j < 8; ++j) p[j] = x + j;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, {%4,%5,%6,%7}, %8, 1, 1, 1, 1;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(p[0]), "r"(p[1]), "r"(p[(0) + 2]), "r"(p[3]), "l"(b));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  ACCESS
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  out[threadIdx.x] = d[0];
}
"""


def test_a_constant_element_the_wgmma_does_not_bind_is_another_register() -> None:
    """Generated flashinfer kernels fill the next wgmma's A fragment (``p[4..7]``) while this
    one, on ``p[0..3]``, runs: 264 PTX606 errors, none a register it reads."""
    def messages(access: str) -> list[str]:
        return [f.message for f in lint_text(A_FRAGMENT.replace("ACCESS", access), "k.cu",
                                             select=("PTX606",))]

    assert messages("p[4] = x;") == []
    assert messages('asm("mov.b32 %0, 1;" : "=r"(p[5]));') == []
    for access in ("p[2] = x;", 'asm("mov.b32 %0, 1;" : "=r"(p[1]));', "p[x & 3] = x;"):
        found = messages(access)
        assert len(found) == 1 and "`p`" in found[0], access
