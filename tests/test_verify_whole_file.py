"""The whole-file evidence of --verify (nvcc -ptx over the real file, then ptxas) and PTX301's
error case. Toolchain tests skip without nvcc/ptxas; compiles are cached by content hash under
in the test cache (tests/toolchain_cache.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.cli import _configure, build_parser, run
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.report.run_result import RunResult
from ptxlint.verify import TOOLCHAIN_ERROR, VerifyOptions, runner, verify, whole_file
from ptxlint.verify.diagnostics import parse
from tests.toolchain_cache import oracle_cache_root
from tests.toolchain_marks import needs_cuda, toolchain

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "rules"


@pytest.fixture(autouse=True)
def cache_dir(monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())


def lint(paths: list[str], *extra: str) -> RunResult:
    args = build_parser().parse_args(["check", *paths, *extra])
    config, selector, rules, context = _configure(args)
    return run(args.paths, config, selector, rules, context)


def verified(path: Path, **options) -> RunResult:
    return verify(lint([str(path)]), VerifyOptions(files=(str(path),), **options))


def by_line(result: RunResult, rule: str) -> dict[int, object]:
    return {result.sources[f.path].line_col(f.span.start).line: result.verdict(f)
            for f in result.findings if f.rule == rule}


# --------------------------------------------------------------------------- no toolchain


def test_32_bit_address_warning_is_the_error_when_ptxas_aborts_for_it():
    text = ("ptxas warning : Program uses 32-bit address on line '35' which is conflicting "
            "with .address_size 64\nptxas fatal   :  32-Bit ABI (--machine 32 or 32-Bit "
            "addressing) is not supported on sm_90 or higher architectures.")
    [diag] = parse(text)
    assert (diag.severity, diag.line) == ("error", 35) and "32-bit address" in diag.message
    # alone (an older target that only warns) it stays a warning
    [warning] = parse(text.splitlines()[0])
    assert warning.severity == "warning" and warning.line == 35


def test_template_pattern_matches_nvcc_splicing_and_finds_the_block():
    code = ('__device__ void f(unsigned a) { unsigned d;\n'
            '  asm volatile("{\\n\\t.reg .b32 t%=;\\n\\tadd.u32 %0, %1, 4;\\n}" '
            ': "=r"(d) : "r"(a));\n'
            '  asm volatile("mov.u32 %0, %%laneid;" : "=r"(d)); }\n')
    first, second = extract_statements(SourceFile("k.cu", code)).statements
    ptx = ("\t// begin inline asm\n\t{\n\t.reg .b32 t12;\n\tadd.u32 %r1, %r2, 4;\n\t}\n"
           "\t// end inline asm\n\tnop;\n\t// begin inline asm\n\tmov.u32 %r3, %laneid;\n"
           "\t// end inline asm\n")
    matcher = whole_file.Matcher([first, second], ptx)
    assert [b.first for b in matcher.blocks] == [2, 9]
    block = whole_file.block_at(matcher.blocks, 4)
    assert block is not None and matcher.statements_of(block) == (first,)
    assert matcher.statements_of(matcher.blocks[1]) == (second,)
    assert whole_file.block_at(matcher.blocks, 7) is None
    assert matcher.present(first) and matcher.present(second)


# --------------------------------------------------------------------------- nvcc + ptxas


@needs_cuda
@pytest.mark.parametrize("rule,lines", [("PTX010", range(5, 13)), ("PTX005", (8, 9, 10))])
def test_whole_file_confirms_what_no_probe_can_judge(rule, lines):
    verdicts = by_line(verified(FIXTURES / f"{rule}_bad.cu"), rule)
    for line in lines:
        verdict = verdicts[line]
        assert verdict.status == "confirmed", (line, verdict)
        assert verdict.method == "whole-file" and verdict.tool.startswith("nvcc")
    if rule == "PTX005":
        assert "must have scalar type" in verdicts[8].evidence  # __half2


@needs_cuda
def test_an_unrelated_error_elsewhere_leaves_the_finding_unverifiable(tmp_path):
    path = tmp_path / "k.cu"
    path.write_text("enum Stages { kStages = 4 };\n"
                    "__device__ int g() { return not_declared_anywhere; }\n"
                    "__device__ void f() {\n"
                    '  asm volatile("cp.async.wait_group %0;" :: "n"(kStages));\n'
                    "}\n")
    verdict = by_line(verified(path), "PTX010")[4]
    assert verdict.status == "unverifiable", verdict
    assert "does not compile for another reason" in verdict.evidence
    assert "k.cu:2" in verdict.evidence and "not_declared_anywhere" in verdict.evidence
    # the same statement in a file that compiles apart from it is confirmed
    path.write_text(path.read_text().replace("not_declared_anywhere", "1"))
    assert by_line(verified(path), "PTX010")[4].status == "confirmed"


@needs_cuda
def test_ptxas_errors_in_the_whole_file_map_to_their_statement(tmp_path):
    """A .reg outside braces is a duplicate only once the function is inlined twice; an
    invalid instruction sits among valid ones. Both come back to the right statement."""
    code = ("__device__ __forceinline__ unsigned lane() {\n"
            "  unsigned d;\n"
            '  asm volatile("mov.u32 %0, %%laneid;" : "=r"(d));\n'
            "  return d;\n}\n"
            "__device__ __forceinline__ unsigned twice(unsigned a) {\n"
            "  unsigned d;\n"
            '  asm volatile(".reg .b32 t;\\n\\tadd.u32 t, %1, %1;\\n\\tmov.u32 %0, t;"\n'
            '               : "=r"(d) : "r"(a));\n'
            "  return d;\n}\n"
            "__global__ void k(unsigned* out) {\n"
            "  unsigned d;\n"
            '  asm volatile("mov.u32 %0, %1, 7;" : "=r"(d) : "r"(out[1]));\n'
            "  out[0] = twice(lane()) + twice(d);\n}\n")
    path = tmp_path / "k.cu"
    path.write_text(code)
    source = SourceFile(str(path), code)
    statements = extract_statements(source).statements
    assert toolchain.nvcc and toolchain.ptxas
    job = whole_file.compile_job(toolchain.nvcc.path, toolchain.ptxas.path, "sm_90", str(path),
                                 code, "sm_90", ())
    outcome = runner.run(job, f"{toolchain.nvcc.version}+{toolchain.ptxas.version}")
    report = whole_file.read(outcome, str(path), statements)
    assert not report.compiled and not report.failure
    on = {}
    for error in report.errors:
        assert len(error.statements) == 1, error
        on.setdefault(error.statements[0].line, []).append(error.diagnostic.message)
    assert set(on) == {8, 14}, on
    assert any("Duplicate definition of variable 't'" in m for m in on[8])
    assert any("Arguments mismatch for instruction 'mov'" in m for m in on[14])
    # the span points into the template line ptxas named
    mov = next(e for e in report.errors if "mov" in e.diagnostic.message)
    assert mov.span is not None and code[mov.span.start:].startswith("mov.u32 %0, %1, 7")


@needs_cuda
def test_whole_file_errors_nobody_predicted_become_toolchain_errors(tmp_path):
    # PTX010 asks for the whole file; there nvcc also rejects a statement no rule flags (an
    # operand of a struct derived from a qualified base, which the typer does not follow, so
    # PTX005 leaves it alone): a toolchain-error on it
    path = tmp_path / "k.cu"
    path.write_text("namespace ns { struct Base { unsigned v; }; }\nstruct Derived : ns::Base {};\n"
                    "__device__ void f(Derived dv) {\n  unsigned w;\n"
                    '  asm volatile("bar.sync %0;" :: "n"(threadIdx.x));\n'
                    '  asm("mov.b32 %0, %1;" : "=r"(w) : "r"(dv));\n'
                    "}\n")
    result = verified(path, arch="sm_90")
    assert set(by_line(result, "PTX010")) == {5}
    errors = [f for f in result.findings if f.rule == TOOLCHAIN_ERROR]
    assert [result.sources[f.path].line_col(f.span.start).line for f in errors] == [6]
    assert "must have scalar type" in errors[0].message
    assert result.verdict(errors[0]).method == "whole-file"


@needs_cuda
def test_ptx301_error_case_confirmed_by_ptxas_and_warnings_stay_unverifiable():
    result = verified(FIXTURES / "PTX301_bad.cu")
    verdicts = by_line(result, "PTX301")
    # a 32-bit shared-window offset in ld.global: ptxas refuses the 32-bit address for sm_90
    assert verdicts[17].status == "confirmed", verdicts[17]
    assert "32-bit address" in verdicts[17].evidence and verdicts[17].method == "ptx-probe"
    # a 64-bit offset as a generic address assembles: a run-time fault, never "refuted"
    assert verdicts[19].status == "unverifiable"
    assert "only at run time" in verdicts[19].evidence
    for line in (8, 9, 10, 11, 12, 14):
        assert verdicts[line].status == "unverifiable"
        assert "generic address in a .shared access" in verdicts[line].evidence
