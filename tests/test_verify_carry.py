"""PTX107's evidence under --verify: where nvcc placed a carry consumer. A consumer PTX107 only
warns about (volatile keeps the split pair in order) is a consumer all the same: its verdict is
the compile's, not the producer warning's "the consumer's finding carries the evidence"; and a
consumer whose nearest producer is one nvcc emitted for the C++ code between (a 128-bit
addition's add.cc/addc.cc) reads the compiler's carry. Toolchain tests skip without nvcc."""

from __future__ import annotations

from ptxlint.cli import _configure, build_parser, run
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.verify import VerifyOptions, differential, verify
from tests.toolchain_cache import oracle_cache_root
from tests.toolchain_marks import needs_nvcc_host

# tests/test_optimizer_evidence.py's CARRY_VOLATILE: nvcc 13.0 -O3 puts the 128-bit addition's
# add.cc.s64/addc.cc.s64 between the two volatile statements
SOURCE = """\
__global__ void k(const unsigned *b, unsigned __int128 *w, unsigned *out, int n) {
  unsigned a = out[0], total = 0;
  unsigned __int128 acc = w[0];
  for (int i = 0; i < n; ++i) {
    unsigned c;
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(a) : "r"(b[i]));
    acc += w[i + 1];
    asm volatile("addc.u32 %0, 0, 0;" : "=r"(c));
    total += c;
  }
  out[0] = a;
  out[1] = total;
  w[0] = acc;
}
"""


def _ptx(between: str) -> str:
    return "\n".join([
        ".visible .entry _Z1kPKjPoPji(", ")", "{",
        "\t// begin inline asm", "\tadd.cc.u32 %r59, %r59, %r34;", "\t// end inline asm",
        between,
        "\t// begin inline asm", "\taddc.u32 %r36, 0, 0;", "\t// end inline asm",
        "\tret;", "}", ""])


def test_a_carry_nvcc_set_for_its_own_code_is_the_one_the_consumer_reads():
    consumer = extract_statements(SourceFile("k.cu", SOURCE)).statements[1]
    ptx = _ptx("\tadd.cc.s64 \t%rd44, %rd80, %rd40;\n\taddc.cc.s64 \t%rd45, %rd81, %rd41;")
    confirmed, evidence = differential.carry_judge(ptx, consumer, "addc.u32", "nvcc 13.0.88")
    assert confirmed, evidence
    assert "`addc.cc.s64 \t%rd45, %rd81, %rd41;` sets, which nvcc emitted" in evidence
    # the asm's own producer right before it: the flag arrives as written
    confirmed, evidence = differential.carry_judge(
        _ptx("\tadd.s32 \t%r1, %r1, 1;"), consumer, "addc.u32", "nvcc 13.0.88")
    assert not confirmed and "follows a '.cc' producer" in evidence


@needs_nvcc_host
def test_the_volatile_consumer_warning_is_judged_by_the_compile(tmp_path, monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())
    path = tmp_path / "k.cu"
    path.write_text(SOURCE)
    args = build_parser().parse_args(["check", str(path), "--isolated", "--select", "PTX107"])
    config, selector, rules, context = _configure(args)
    result = verify(run(args.paths, config, selector, rules, context),
                    VerifyOptions(files=(str(path),), arch="sm_90"))
    by_line = {result.sources[f.path].line_col(f.span.start).line: (f, result.verdict(f))
               for f in result.findings}
    (producer, said), (consumer, verdict) = by_line[6], by_line[8]
    assert (producer.severity.value, consumer.severity.value) == ("warning", "warning")
    assert said.status == "unverifiable" and "nothing in the statement reads" in said.evidence
    assert said.tool == ""  # nothing was compiled for the producer warning
    assert verdict.status == "confirmed", verdict
    assert verdict.method == "carry-placement" and "which nvcc emitted" in verdict.evidence


@needs_nvcc_host
def test_a_file_that_does_not_compile_is_quoted(tmp_path, monkeypatch):
    # the consumer's verdict says why the file does not compile (a header not found), as the
    # other verdicts that need the file compiled do
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())
    path = tmp_path / "k.cu"
    path.write_text('#include "ptxlint_no_such_header.h"\n' + SOURCE)
    args = build_parser().parse_args(["check", str(path), "--isolated", "--select", "PTX107"])
    config, selector, rules, context = _configure(args)
    result = verify(run(args.paths, config, selector, rules, context),
                    VerifyOptions(files=(str(path),), arch="sm_90"))
    verdicts = [result.verdict(f) for f in result.findings if "reads the carry flag" in f.message]
    assert verdicts and all(v.status == "unverifiable" for v in verdicts)
    assert all("does not compile on its own (" in v.evidence
               and "ptxlint_no_such_header.h" in v.evidence for v in verdicts), verdicts
