"""Role ``if`` statements that no run takes both of, and what PTX603 makes of them: a wait in
another role's arm, or an mbarrier wait nothing has track the copy, covers no copy."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.analysis.function_flow import FileFlows
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from tests.conftest import FIXTURES, lint_text

# One warp copies its tile and commits; the wait that would cover it sits in the next role's
# `if`, which that warp never takes. ROLE_DECL, SECOND and BETWEEN vary per case.
ROLES = r"""
__device__ void note(int& role);  // defined in another file
__global__ void k(const int4* src, int* out) {
  __shared__ int4 tile[64];
  ROLE_DECL
  for (int it = 0; it < 8; ++it) {
    if (role == 0) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                   :: "r"((unsigned)__cvta_generic_to_shared(&tile[threadIdx.x % 32])),
                      "l"(src + it * 32 + threadIdx.x % 32) : "memory");
      asm volatile("cp.async.commit_group;" ::: "memory");
    }
    if (role == SECOND) {
      asm volatile("cp.async.wait_group 0;" ::: "memory");
    }
    BETWEEN
    asm volatile("bar.sync 1, 64;" ::: "memory");
    out[threadIdx.x] = tile[threadIdx.x % 32].x;
  }
}
"""


def _roles(decl: str = "const int role = threadIdx.x / 32;", second: str = "1",
           between: str = "") -> str:
    return ROLES.replace("ROLE_DECL", decl).replace("SECOND", second).replace(
        "BETWEEN", between)


@pytest.mark.parametrize("decl", [
    "const int role = threadIdx.x / 32;",
    "int role = threadIdx.x / 32;",  # never written after: one value all along
])
def test_a_wait_in_another_roles_arm_covers_no_copy(decl: str) -> None:
    findings = lint_text(_roles(decl), select=("PTX603",))
    assert [f.rule for f in findings] == ["PTX603"]
    assert "no cp.async wait in between" in findings[0].message


@pytest.mark.parametrize(("decl", "second", "between"), [
    # the same constant: both arms are taken together
    ("const int role = threadIdx.x / 32;", "0", ""),
    # the role changes: another value when the second `if` is reached
    ("int role = threadIdx.x / 32;", "1", "role = 1 - role;"),
    # passed by reference to a function that may change it
    ("int role = threadIdx.x / 32;", "1", "note(role);"),
    # not a constant: which arms a thread takes is not known
    ("const int role = threadIdx.x / 32;", "(int)out[0]", ""),
])
def test_arms_that_one_run_may_take_both_of_keep_the_wait(decl: str, second: str,
                                                          between: str) -> None:
    assert lint_text(_roles(decl, second, between), select=("PTX603",)) == []


def test_a_role_computed_again_in_each_turn_of_the_loop_keeps_the_wait() -> None:
    # `phase` is another value in the next turn: the turn that copies may wait in the next
    text = _roles("").replace("for (int it = 0; it < 8; ++it) {",
                              "for (int it = 0; it < 8; ++it) {\n    int role = it % 2;")
    assert lint_text(text, select=("PTX603",)) == []


MBARRIER = r"""
__global__ void k(const int4* src, int* out) {
  __shared__ int4 tile[32];
  __shared__ unsigned long long bar;
  unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
               :: "r"((unsigned)__cvta_generic_to_shared(&tile[threadIdx.x])),
                  "l"(src + threadIdx.x) : "memory");
  TRACK
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
               " @!p bra W;\n}" :: "r"(b) : "memory");
  out[threadIdx.x] = tile[threadIdx.x].x;
}
"""


def test_an_mbarrier_wait_covers_no_copy_that_nothing_has_it_track() -> None:
    findings = lint_text(MBARRIER.replace("TRACK", ""), select=("PTX603",))
    assert [f.rule for f in findings] == ["PTX603"]


def test_an_mbarrier_wait_covers_a_copy_it_tracks() -> None:
    track = 'asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" :: "r"(b));'
    assert lint_text(MBARRIER.replace("TRACK", track), select=("PTX603",)) == []


# Each role copies its own tile, commits and waits; role 0's commit is left out. Role 1's
# commit, which role 0 never takes, must not count as role 0's.
TWO_ROLES = r"""
__global__ void k(const int4* src, int* out) {
  __shared__ int4 a[32], b[32];
  const int role = threadIdx.x / 32;
  if (role == 0) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                 :: "r"((unsigned)__cvta_generic_to_shared(&a[threadIdx.x % 32])),
                    "l"(src + threadIdx.x % 32) : "memory");
    FIRST_COMMIT
    asm volatile("cp.async.wait_group 0;" ::: "memory");
  }
  if (role == 1) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                 :: "r"((unsigned)__cvta_generic_to_shared(&b[threadIdx.x % 32])),
                    "l"(src + 32 + threadIdx.x % 32) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
  }
  __syncthreads();
  out[threadIdx.x] = a[threadIdx.x % 32].x + b[threadIdx.x % 32].x;
}
"""


def test_a_commit_in_another_roles_arm_commits_no_copy() -> None:
    findings = lint_text(TWO_ROLES.replace("FIRST_COMMIT", ""), select=("PTX602",))
    assert [f.rule for f in findings] == ["PTX602"]
    assert "never committed" in findings[0].message


def test_each_role_committing_its_own_copy_is_clean() -> None:
    commit = 'asm volatile("cp.async.commit_group;" ::: "memory");'
    text = TWO_ROLES.replace("FIRST_COMMIT", commit)
    assert lint_text(text, select=("PTX602", "PTX603")) == []


# Two warp groups each run their own wgmma on their own accumulators; group 0 leaves out its
# wait, and reads its accumulators while group 1's wait, which it never takes, follows.
WG_ROLES = r"""
#include <cstdint>
__global__ void k(float* out, uint64_t a, uint64_t b) {
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  const int wg = threadIdx.x / 128;
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  if (wg == 0) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]) : "l"(a), "l"(b));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    FIRST_WAIT
  }
  if (wg == 1) {
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  }
  out[threadIdx.x] = acc[0];
}
"""


def test_a_wgmma_wait_in_another_groups_arm_is_not_its_wait() -> None:
    findings = lint_text(WG_ROLES.replace("FIRST_WAIT", ""), select=("PTX606",))
    assert [f.rule for f in findings] == ["PTX606"]


def test_a_wgmma_waited_in_its_own_arm_is_clean() -> None:
    wait = 'asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");'
    assert lint_text(WG_ROLES.replace("FIRST_WAIT", wait), select=("PTX606",)) == []

# the PTX608 fixture's helpers: expect_tx, bulk_load, bar_wait
_HELPERS = (Path(FIXTURES) / "rules" / "PTX608_bad.cu").read_text(encoding="utf-8").split(
    "__global__", 1)[0]


def _kernel(body: str) -> str:
    return (_HELPERS + "__global__ void k(const float* g) {\n"
            "  __shared__ alignas(128) float tile[1024];\n  __shared__ uint64_t bar;\n"
            "  const int warp = threadIdx.x / 32;\n" + body + "\n}\n")


def _exclusive(text: str, first: str, second: str) -> bool:
    extracted = extract_statements(SourceFile("k.cu", text))
    assert extracted.parsed is not None
    flows = FileFlows(extracted.parsed, tuple(extracted.statements))
    data = text.encode()
    a, b = data.index(first.encode()), data.index(second.encode())
    flow = flows.function_at(a)
    assert flow is not None
    return flow.exclusive(a, b)


def test_role_ifs_one_after_the_other_are_exclusive_and_a_point_never_with_itself() -> None:
    text = _kernel("  if (warp == 0) { bulk_load(tile, g, 64, &bar); }\n"
                   "  if (warp == 1) { bar_wait(&bar, 0); }")
    assert _exclusive(text, "bulk_load(tile", "bar_wait(&bar")
    assert not _exclusive(text, "bulk_load(tile", "bulk_load(tile")


def test_an_if_around_both_points_separates_nothing() -> None:
    """Nested role ifs, as tree-sitter reads ``#if``/``#else`` halves that each open one (a
    generated flashinfer kernel): PTX608 found the expect-tx exclusive with itself, lost it
    from its own phase and raised ValueError. The three steps share both ifs: one phase."""
    text = _kernel("  if (warp == 9) {\n  if (warp == 10) {\n"
                   "    expect_tx(&bar, 256);\n    bulk_load(tile, g, 128, &bar);\n"
                   "    bar_wait(&bar, 0);\n  }\n  }")
    assert not _exclusive(text, "expect_tx(&bar", "expect_tx(&bar")
    assert not _exclusive(text, "expect_tx(&bar", "bulk_load(tile")
    findings = lint_text(text, "k.cu", select=("PTX608",))
    assert [(f.rule, "expects 256 bytes" in f.message) for f in findings] == [("PTX608", True)]


def test_a_copy_in_an_arm_the_expect_tx_is_not_in_leaves_the_sum_unknown() -> None:
    """flashinfer's kda prefill expects more bytes where a later `if` on the same test adds a
    copy: each copy in that `if`'s arms is on one path only, so no sum is certain (PTX608's
    docs), and the rule is silent. It had counted both arms' copies: 4 false errors."""
    body = ("  bool more = g[0] > 0.f;\n"
            "  if (more) { expect_tx(&bar, 384); } else { expect_tx(&bar, 256); }\n"
            "  bulk_load(tile, g, 128, &bar);\n  bulk_load(tile + 32, g, 128, &bar);\n"
            "  if (more) { bulk_load(tile + 64, g, 128, &bar); }\n"
            "  else { bulk_load(tile + 96, g, 0, &bar); }\n"
            "  bar_wait(&bar, 0);")
    assert lint_text(_kernel(body), "k.cu", select=("PTX608",)) == []
    # the two unconditional copies alone under one expect-tx: 512 expected, 256 written
    plain = body.replace(
        "  if (more) { expect_tx(&bar, 384); } else { expect_tx(&bar, 256); }\n",
        "  expect_tx(&bar, 512);\n").replace("  if (more) { bulk_load(tile + 64, g, 128, &bar); }\n"
                                            "  else { bulk_load(tile + 96, g, 0, &bar); }\n", "")
    assert [f.rule for f in lint_text(_kernel(plain), "k.cu", select=("PTX608",))] == ["PTX608"]
