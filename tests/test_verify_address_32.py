"""--verify on a 32-bit register used as a 64-bit module's address: ptxas 13.0 warns "Program
uses 32-bit address on line N" and then aborts with a fatal error that names no line, for every
target it builds. That is the evidence for PTX206's 32-bit address claim and PTX301's error
case, never "another reason". Toolchain tests skip without nvcc/ptxas."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.cli import _configure, build_parser, run
from ptxlint.report.run_result import RunResult
from ptxlint.verify import VerifyOptions, verify
from ptxlint.verify.diagnostics import parse
from ptxlint.verify.recipes import ADDRESS_32_CLAIM
from tests.toolchain_cache import oracle_cache_root
from tests.toolchain_marks import needs_cuda

# a 32-bit integer as a generic address (PTX206) and a shared-window offset as a .global one
# (PTX301's error case)
SOURCE = """\
__global__ void k(unsigned a, unsigned* o) {
  unsigned v;
  asm volatile("ld.u32 %0, [%1];" : "=r"(v) : "r"(a));
  o[0] = v;
}
__global__ void k2(unsigned* o) {
  __shared__ unsigned s[32];
  unsigned a = (unsigned)__cvta_generic_to_shared(s);
  unsigned v;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "r"(a));
  o[0] = v;
}
"""


@pytest.fixture(autouse=True)
def cache_dir(monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())


def verified(path: Path, arch: str) -> RunResult:
    args = build_parser().parse_args(["check", str(path), "--isolated"])
    config, selector, rules, context = _configure(args)
    result = run(args.paths, config, selector, rules, context)
    return verify(result, VerifyOptions(files=(str(path),), arch=arch))


def test_the_lineless_fatal_of_sm_75_to_sm_89_escalates_the_warning_too():
    # ptxas 13.0 -arch=sm_80 on a module with .address_size 64 and ld.u32 [%r1]
    text = ("ptxas warning : Program uses 32-bit address on line '7' which is conflicting "
            "with .address_size 64\nptxas fatal   :  32-Bit compilation is no longer supported")
    [diag] = parse(text)
    assert (diag.severity, diag.line) == ("error", 7) and "32-bit address" in diag.message


@needs_cuda
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_a_32_bit_address_is_the_reason_ptxas_gives(tmp_path, arch):
    path = tmp_path / "k.cu"
    path.write_text(SOURCE)
    result = verified(path, arch)
    found = {(f.rule, result.sources[f.path].line_col(f.span.start).line): f
             for f in result.findings if f.rule in ("PTX206", "PTX301")}
    assert set(found) == {("PTX206", 3), ("PTX301", 10)}
    assert ADDRESS_32_CLAIM in found["PTX206", 3].message
    for finding in found.values():
        verdict = result.verdict(finding)
        assert verdict.status == "confirmed", verdict
        assert verdict.arch == arch and "32-bit address on line" in verdict.evidence
