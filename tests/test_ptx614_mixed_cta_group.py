"""PTX614: the tcgen05 instructions one function compiles must name one .cta_group; ptxas 13.0 and
later reject a function that names both (measured: the ptxas test at the end)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import lint_text

ALLOC1 = ('asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;"'
          ' :: "r"(a) : "memory");')
MMA2 = ('asm volatile("tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, 1;"'
        ' :: "r"(a), "l"(x), "l"(y), "r"(a) : "memory");')
COMMIT1 = ('asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64'
           ' [%0];" :: "r"(a) : "memory");')
COMMIT2 = COMMIT1.replace("cta_group::1", "cta_group::2")
HEAD = "#include <cstdint>\n"
PARAMS = "(uint32_t a, uint64_t x, uint64_t y, int n)"


def _found(text: str) -> list[str]:
    return [f.message for f in lint_text(HEAD + text, select=("PTX614",))]


def _kernel(body: str, before: str = "") -> list[str]:
    return _found(before + f"__global__ void k{PARAMS} {{\n{body}\n}}\n")


def test_two_granularities_in_one_kernel() -> None:
    found = _kernel(f"  {ALLOC1}\n  {MMA2}")
    assert len(found) == 1
    assert found[0].startswith("`tcgen05.mma.cta_group::2.kind::f16` names .cta_group::2, but "
                               "the `tcgen05.alloc.cta_group::1")
    assert "at line 3 of the same kernel k()" in found[0] and "ptxas 13.0" in found[0]


def test_run_time_branches_do_not_separate_them() -> None:
    """ptxas judges the code it is given: each arm of a branch on the thread's index, a warp
    helper, a kernel parameter or a local made of those is there in every instantiation."""
    assert len(_kernel(f"  if (threadIdx.x / 32 == 0) {{ {ALLOC1} }}\n"
                       f"  else {{ {MMA2} }}")) == 1
    assert len(_kernel(f"  const int warp = threadIdx.x / 32;\n  if (warp == 0) {ALLOC1}\n"
                       f"  if (warp == 1) {MMA2}")) == 1
    assert len(_kernel(f"  if (n > 4) {ALLOC1}\n  {MMA2}")) == 1
    assert len(_kernel(f"  switch (threadIdx.x % 32) {{ case 0: {ALLOC1} break;\n"
                       f"  default: {MMA2} }}")) == 1


def test_arms_the_compiler_may_drop_separate_them() -> None:
    """An arm decided by a template parameter, ``if constexpr``, a helper's parameter (a
    caller's constant once inlined) or a mix with one is another instantiation's."""
    template = "template <int G>\n__global__ void k" + PARAMS + " {\n"
    assert _found(template + f"  if constexpr (G == 1) {{ {ALLOC1} }} else {{ {MMA2} }}\n}}\n") \
        == []
    assert _found(template + f"  if (G == 1) {ALLOC1}\n  if (G == 2) {MMA2}\n}}\n") == []
    assert _found(template + f"  if (G == 2 && threadIdx.x < 32) {MMA2}\n  {COMMIT1}\n}}\n") == []
    assert _found(template + f"  switch (G) {{ case 1: {COMMIT1} break; default: {COMMIT2} }}\n"
                  "}\n") == []
    assert _found(f"__device__ void f{PARAMS} {{\n  if (n) {COMMIT2} else {COMMIT1}\n}}\n") == []


def test_a_call_that_binds_the_choice_decides_the_arm() -> None:
    """Where the call binds the helper's template parameter or flag to a constant, the arm it
    takes is the instantiation's code and the other arm is not."""
    helper = ("template <int G>\n__device__ void alloc(uint32_t a) {\n"
              f"  if constexpr (G == 1) {{ {ALLOC1} }}\n"
              f"  else {{ {ALLOC1.replace('cta_group::1', 'cta_group::2')} }}\n}}\n"
              "__device__ void commit(uint32_t a, bool pair) {\n"
              f"  if (pair) {{ {COMMIT2} }} else {{ {COMMIT1} }}\n}}\n")
    found = _found(helper + f"__global__ void k{PARAMS} {{\n  alloc<2>(a);\n  {COMMIT1}\n}}\n")
    assert len(found) == 1 and found[0].startswith("`tcgen05.commit.cta_group::1")
    assert "(through alloc())" in found[0]
    assert _found(helper + f"__global__ void k{PARAMS} {{\n  alloc<1>(a);\n  {COMMIT1}\n}}\n") \
        == []
    assert len(_found(helper + f"__global__ void k{PARAMS} {{\n  alloc<1>(a);\n"
                      "  commit(a, true);\n}\n")) == 1
    assert _found(helper + f"__global__ void k{PARAMS} {{\n  alloc<1>(a);\n"
                  "  commit(a, false);\n}\n") == []
    # a call that binds the condition to no constant leaves both arms unknown: a template
    # parameter of its own, or a run-time value (the rule does not follow it into the helper)
    assert _found(helper + "template <int H>\n__global__ void k" + PARAMS
                  + f" {{\n  alloc<H>(a);\n  {COMMIT1}\n}}\n") == []
    assert _found(helper + f"__global__ void k{PARAMS} {{\n  commit(a, n > 0);\n  {MMA2}\n}}\n") \
        == []


def test_builds_that_never_meet_separate_them() -> None:
    assert _kernel(f"#if defined(TWO_SM)\n  {MMA2}\n#else\n  {COMMIT1}\n#endif") == []
    assert _kernel(f"#ifdef TWO_SM\n  {MMA2}\n#endif\n#ifndef TWO_SM\n  {COMMIT1}\n#endif") == []
    # one build holds both: an #if around one of them only
    assert len(_kernel(f"#if __CUDA_ARCH__ >= 1000\n  {MMA2}\n#endif\n  {COMMIT1}")) == 1


def test_one_granularity_is_clean() -> None:
    assert _kernel(f"  {MMA2}\n  {COMMIT2}") == []
    assert _kernel(f"  {ALLOC1}\n  {COMMIT1}") == []


def test_through_helpers_one_finding_where_both_meet() -> None:
    helpers = (f"__device__ void alloc1(uint32_t a) {{ {ALLOC1} }}\n"
               f"__device__ void mma2{PARAMS} {{ {MMA2} }}\n")
    found = _found(helpers + f"__global__ void k{PARAMS} {{\n  if (threadIdx.x < 32) alloc1(a);\n"
                   "  mma2(a, x, y, n);\n}\n")
    assert len(found) == 1 and "(through alloc1())" in found[0]
    # a helper that holds both is the helper's finding, not each caller's as well
    both = f"__device__ void both{PARAMS} {{\n  {ALLOC1}\n  {MMA2}\n}}\n"
    found = _found(both + f"__global__ void k{PARAMS} {{ both(a, x, y, n); }}\n"
                   f"__global__ void k2{PARAMS} {{ both(a, x, y, n); }}\n")
    assert len(found) == 1 and "same function both()" in found[0]


def test_project_header_helpers_beside_the_files_own_asm(tmp_path: Path) -> None:
    (tmp_path / "tmem.cuh").write_text(
        HEAD + "struct Allocator1Sm {\n  __device__ void allocate(uint32_t a) {\n"
        f"    {ALLOC1}\n  }}\n}};\n"
        f"template <int M> struct Mma2Sm {{\n  __device__ static void fma{PARAMS} {{\n"
        f"    {MMA2}\n  }}\n}};\n")
    text = ('#include "tmem.cuh"\n__global__ void k' + PARAMS + " {\n  Allocator1Sm alloc;\n"
            "  if (threadIdx.x / 32 == 0) alloc.allocate(a);\n  Mma2Sm<128>::fma(a, x, y, n);\n}\n")
    kernel = tmp_path / "k.cu"
    kernel.write_text(text)
    # a kernel file without tcgen05 asm of its own is not read for it (a default run's cost)
    assert lint_text(text, path=str(kernel), select=("PTX614",)) == []
    # with a .cta_group of its own, both helpers are followed; the finding is the file's
    own = text.replace("  Allocator1Sm alloc;\n", f"  {COMMIT2}\n  Allocator1Sm alloc;\n")
    kernel.write_text(own)
    found = lint_text(own, path=str(kernel), select=("PTX614",))
    assert [(f.rule, f.span.start) for f in found] == [
        ("PTX614", own.index("tcgen05.commit"))], [f.message for f in found]
    assert "but the `tcgen05.alloc.cta_group::1" in found[0].message
    assert "(through allocate())" in found[0].message


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="needs ptxas")
def test_ptxas_rejects_what_the_rule_flags(tmp_path: Path) -> None:
    """The evidence: one entry whose two arms of a run-time branch name the two granularities
    (ptxas 13.0 and later: an error; 12.8 and 12.9 took it), beside one that names one."""
    version = subprocess.run(["ptxas", "--version"], capture_output=True, text=True).stdout
    if "release 12." in version:
        pytest.skip("ptxas 12.x accepts both granularities in one function")
    body = ".reg .b32 r<2>; .reg .pred p; mov.u32 r1, %tid.x; setp.eq.u32 p, r1, 0; @p bra L;\n" \
           " tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned; bra E;\n" \
           "L: tcgen05.relinquish_alloc_permit.cta_group::GROUP.sync.aligned;\nE: ret;"
    for group, fails in (("2", True), ("1", False)):
        ptx = tmp_path / f"g{group}.ptx"
        ptx.write_text(".version 8.6\n.target sm_100a\n.address_size 64\n"
                       f".visible .entry k() {{\n{body.replace('GROUP', group)}\n}}\n")
        run = subprocess.run(["ptxas", "-arch=sm_100a", str(ptx), "-o", str(tmp_path / "o")],
                             capture_output=True, text=True)
        assert (run.returncode != 0) == fails, run.stderr
        if fails:
            assert "single CTA(.cta_group::1) and CTA pair granularity(.cta_group::2)" \
                in run.stderr
