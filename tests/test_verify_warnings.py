"""A PTX probe that ptxas accepts with a warning on the statement is no clean compile: the
verdict quotes the warning instead of saying "compiles cleanly" (ptxas 13.0 warns "Vector Type
not specified properly" for ld.global.u64.v2, PTX204's warning form). Toolchain tests skip
without nvcc/ptxas."""

from __future__ import annotations

from ptxlint.cli import _configure, build_parser, run
from ptxlint.verify import VerifyOptions, verify
from tests.toolchain_cache import oracle_cache_root
from tests.toolchain_marks import needs_cuda

SOURCE = """\
__global__ void k(const unsigned long long* p, unsigned long long* o) {
  unsigned long long a, b;
  asm volatile("ld.global.u64.v2 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p));
  o[0] = a; o[1] = b;
  unsigned c;
  asm volatile("mov.u32 %0, %laneid;" : "=r"(c));
  o[2] = c;
}
"""


@needs_cuda
def test_a_warning_on_the_statement_is_quoted(tmp_path, monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())
    path = tmp_path / "k.cu"
    path.write_text(SOURCE)
    args = build_parser().parse_args(
        ["check", str(path), "--isolated", "--preview", "--select", "PTX204,PTX008"])
    config, selector, rules, context = _configure(args)
    result = verify(run(args.paths, config, selector, rules, context),
                    VerifyOptions(files=(str(path),), arch="sm_90"))
    verdicts = {f.rule: result.verdict(f) for f in result.findings}
    assert set(verdicts) == {"PTX204", "PTX008"}
    warned = verdicts["PTX204"]
    assert warned.status == "unverifiable", warned
    assert "compiles cleanly" not in warned.evidence
    assert "compiles with a warning (ptxas: Vector Type not specified properly)" in \
        warned.evidence
    # the other statement's probe is clean: its words stay
    assert verdicts["PTX008"].evidence.startswith("compiles cleanly")
