"""Where a .cu probe fails outside the statement's own lines, the verdict names the tool that
said so: the ptxas nvcc runs ("ptxas: Parsing error near ''"), not "nvcc:" for every message.
sppark's mont_t.cuh opens a brace and a '.reg .pred %flag' in one asm statement and uses the
flag in the next; each statement compiled alone fails in ptxas. Toolchain tests skip without
nvcc/ptxas."""

from __future__ import annotations

from tests.toolchain_cache import oracle_cache_root
from tests.toolchain_marks import needs_cuda
from tests.verify_runs import check_and_verify

SOURCE = """\
__device__ void f(unsigned x) {
  asm volatile("{ .reg.pred %flag; setp.ne.u32 %flag, %0, 0;" :: "r"(x));
  asm volatile("@%flag setp.ne.u32 %flag, %0, 0;" :: "r"(x));
  asm volatile("}");
}
"""


@needs_cuda
def test_the_probe_failure_names_ptxas(tmp_path, monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())
    path = tmp_path / "k.cu"
    path.write_text(SOURCE)
    result = check_and_verify(path, "PTX008")
    verdicts = [result.verdict(f) for f in result.findings]
    assert len(verdicts) == 2
    for verdict in verdicts:
        assert verdict.status == "unverifiable", verdict
        assert "the probe itself failed: ptxas: " in verdict.evidence, verdict
