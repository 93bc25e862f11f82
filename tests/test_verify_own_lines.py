"""ptxas's words confirm a finding only where they name the finding's own lines: in a
statement ptxas rejects on one line, a finding on another line was never read (after a parse
error ptxas stops) or is another instruction's (Triton-distributed's get_dynamic_smem_pointer:
'.extern .shared' inside a function is a syntax error, and the 'cvta.shared.to.generic.u64' on
the next line was 'confirmed' by it). Claims ptxas notices later (PTX205's missing ';' at the
next instruction) keep the statement's words. Toolchain tests skip without nvcc/ptxas."""

from __future__ import annotations

from ptxlint.cli import _configure, build_parser, run
from ptxlint.engine import extract_statements
from ptxlint.model import Finding, Severity, SourceFile, Span
from ptxlint.verify import VerifyOptions, verify
from ptxlint.verify.diagnostics import Diagnostic
from ptxlint.verify.probe_errors import Mapped, finding_lines, on_lines
from tests.toolchain_cache import oracle_cache_root
from tests.toolchain_marks import needs_cuda

SOURCE = """\
__device__ unsigned long long f() {
  unsigned long long p;
  asm volatile("{\\n\\t.extern .shared .align 128 .b8 dynamic_smem[];\\n\\t"
               "cvta.shared.to.generic.u64 %0, dynamic_smem;\\n\\t}" : "=l"(p));
  return p;
}
"""


def test_a_finding_is_about_the_lines_of_its_instruction():
    [statement] = extract_statements(SourceFile("k.cu", SOURCE)).statements
    text = statement.template.text
    at = SOURCE.index("generic")
    finding = Finding("PTX204", "unknown-modifier", Severity.ERROR, "k.cu", Span(at, at + 7), "",
                      statement=statement)
    start, end = finding_lines(finding)
    assert text[start:end].strip() == "cvta.shared.to.generic.u64 %0, dynamic_smem;"
    diag = Diagnostic("ptxas", "probe.ptx", 7, "error", "Parsing error near '.shared'")
    extern_line = text.index(".extern")
    assert not on_lines(Mapped(statement, statement.span, diag, extern_line), (start, end))
    assert on_lines(Mapped(statement, statement.span, diag, start + 1), (start, end))
    assert on_lines(Mapped(statement, statement.span, diag), (start, end))  # the module's


@needs_cuda
def test_the_next_lines_finding_is_not_confirmed_by_the_parse_error(tmp_path, monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())
    path = tmp_path / "k.cu"
    path.write_text(SOURCE)
    args = build_parser().parse_args(["check", str(path), "--isolated", "--select", "PTX204"])
    config, selector, rules, context = _configure(args)
    result = verify(run(args.paths, config, selector, rules, context),
                    VerifyOptions(files=(str(path),), arch="sm_90"))
    by_line = {result.sources[f.path].line_col(f.span.start).line: result.verdict(f)
               for f in result.findings}
    assert set(by_line) == {3, 4}
    assert by_line[3].status == "confirmed" and "near '.shared'" in by_line[3].evidence
    assert by_line[4].status == "unverifiable", by_line[4]
    assert "another reason: ptxas: Parsing error near '.shared'" in by_line[4].evidence
    assert "the error PTX204 reports on this statement, which comes first" in \
        by_line[4].evidence


# NVIDIA/cudnn-frontend's grouped_gemm_dswiglu_quant.py (cvt_f32_to_f8_to_f32): each line of the
# template takes its instruction from a variable set in a branch above it
PYTHON_SOURCE = """\
from cutlass._mlir.dialects import llvm


def cvt(src, e4m3):
    down = ""
    up = ""
    if e4m3:
        down = "cvt.rn.satfinite.e4m3x2.f32"
        up = "cvt.rn.bf16x2.e4m3x2"
    else:
        return
    tmpl = "{\\n" "  .reg .b16 lo;\\n" f"  {down} lo, 0f00000000, $1;\\n" f"  {up}  $0, lo;\\n" "}"
    return llvm.inline_asm(T.i32(), [src], tmpl, "=r,f", has_side_effects=True)
"""


def test_a_finding_on_a_value_set_elsewhere_is_about_the_line_it_makes():
    # the first line's source span runs from 'down = ...' to the template, past 'up = ...',
    # where the finding on the second line starts: ptxas's "Unexpected instruction types" on
    # the second line is the finding's own
    [statement] = extract_statements(SourceFile("k.py", PYTHON_SOURCE)).statements
    text = statement.template.text
    at = PYTHON_SOURCE.index("cvt.rn.bf16x2.e4m3x2")
    finding = Finding("PTX204", "unknown-modifier", Severity.ERROR, "k.py", Span(at, at + 20), "",
                      statement=statement)
    start, end = finding_lines(finding)
    assert text[start:end].strip() == "cvt.rn.bf16x2.e4m3x2  $0, lo;"
