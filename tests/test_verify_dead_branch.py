"""A finding in a branch no 64-bit build compiles (the #else of sppark's ``#if 1``) is in no
build the toolchain makes: the verifier probes no such statement, and its verdict says why,
where it said "no PTX probe: not planned" and quoted the failure of a .cu probe built from it
anyway. Toolchain tests skip without nvcc/ptxas."""

from __future__ import annotations

from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.verify.configuration import not_in_default_build
from tests.toolchain_cache import oracle_cache_root
from tests.toolchain_marks import needs_cuda
from tests.verify_runs import check_and_verify

SOURCE = """\
#if 1
__device__ unsigned f() { unsigned s; asm volatile("mov.u32 %0, %smid;" : "=r"(s)); return s; }
#else
__device__ unsigned g() { unsigned s; asm volatile("mov.u32 %0, %laneid;" : "=r"(s)); return s; }
#endif
"""


def test_the_false_guard_is_named():
    live, dead = extract_statements(SourceFile("k.cu", SOURCE)).statements
    assert not_in_default_build(live) == ""
    assert not_in_default_build(dead) == (
        "in no build the toolchain makes: its #if guard '!(1)' is false for a 64-bit build")


@needs_cuda
def test_the_dead_branchs_finding_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())
    path = tmp_path / "k.cu"
    path.write_text(SOURCE)
    result = check_and_verify(path, "PTX008")
    by_line = {result.sources[f.path].line_col(f.span.start).line: result.verdict(f)
               for f in result.findings}
    assert by_line[2].evidence.startswith("compiles cleanly"), by_line[2]
    assert by_line[4].status == "unverifiable"
    assert by_line[4].evidence.startswith("in no build the toolchain makes"), by_line[4]
