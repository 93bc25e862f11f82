"""--verify's configuration of a statement whose #if joins an architecture test to a project's
macro with '&&' (NvCloth's ``#if defined(__CUDA_ARCH__) && defined(PX_PROFILE)``): -arch
selects the arch test and a -D the macro. Read whole, the guard is undecided for every target
and named an architecture, so it excluded them all and the finding was called "not compiled in
any configuration the toolchain can build". Toolchain tests skip without nvcc/ptxas."""

from __future__ import annotations

import pytest

from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.ptx.targets import Target, arch_targets
from ptxlint.verify.configuration import defines_for, target_for
from tests.toolchain_cache import oracle_cache_root
from tests.toolchain_marks import needs_cuda
from tests.verify_runs import check_and_verify

SOURCE = """\
#if defined(__CUDA_ARCH__) && defined(PX_PROFILE)
__device__ unsigned f() { unsigned s; asm volatile("mov.u32 %0, %smid;" : "=r"(s)); return s; }
#endif
#if __CUDA_ARCH__ >= 900 && !defined(NO_SMID) && (defined(A) || defined(B))
__device__ unsigned g() { unsigned s; asm volatile("mov.u32 %0, %smid;" : "=r"(s)); return s; }
#endif
"""


def test_the_arch_terms_of_a_conjunction_choose_the_targets():
    assert arch_targets(("defined(__CUDA_ARCH__) && defined(PX_PROFILE)",)) is None
    chosen = arch_targets(("__CUDA_ARCH__ >= 900 && defined(CUTLASS_ARCH_MMA_SM90_ENABLED)",))
    assert chosen and Target(90) in chosen and Target(80) not in chosen
    # an '||' is not split: undecided, it still excludes
    assert arch_targets(("defined(__CUDA_ARCH__) || defined(PX_PROFILE)",)) is None


def test_the_project_macro_beside_the_arch_test_is_a_define():
    first, second = extract_statements(SourceFile("k.cu", SOURCE)).statements
    assert target_for(first, "sm_90") == "sm_90"
    assert defines_for(first) == ("-DPX_PROFILE",)
    assert target_for(second, "sm_80") == "sm_90"
    assert defines_for(second) == ("-UNO_SMID",)


@pytest.fixture
def cache_dir(monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())


@needs_cuda
def test_the_finding_is_compiled(tmp_path, cache_dir):
    path = tmp_path / "k.cu"
    path.write_text(SOURCE)
    result = check_and_verify(path, "PTX008")
    verdicts = [result.verdict(f) for f in result.findings]
    assert len(verdicts) == 2
    for verdict in verdicts:
        assert "not compiled in any configuration" not in verdict.evidence, verdict
        assert verdict.arch == "sm_90" and "compiles cleanly" in verdict.evidence, verdict
