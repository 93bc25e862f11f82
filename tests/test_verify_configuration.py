"""--verify compiles the configuration a finding holds in: the target the statement's own
``#if __CUDA_ARCH__`` guards admit, the defines that select its ``#if`` branch, the values its
``"n"`` operands take in the file, each branch of an ``#if`` inside a template on its own.
The unit tests need no toolchain; the end-to-end ones skip without nvcc, ptxas and g++."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ptxlint.cli import _configure, build_parser, run
from ptxlint.engine import extract_statements
from ptxlint.model import AsmStatement, SourceFile
from ptxlint.report.run_result import RunResult
from ptxlint.verify import VerifyOptions, discover, ptx_probe, verify
from ptxlint.verify.configuration import (
    configuration,
    defines_for,
    in_default_build,
    older_than_guards,
    target_for,
)
from ptxlint.verify.diagnostics import Diagnostic
from ptxlint.verify.identity import key_of
from ptxlint.verify.immediates import evaluate, values
from ptxlint.verify.stand_ins import STAND_INS, same_in_every_probe, value_sets

ROOT = Path(__file__).resolve().parent.parent
IF_IN_STATEMENT = ROOT / "fixtures" / "extract" / "if_in_statement_bad.cu"


def statements(text: str, path: str = "t.cu") -> list[AsmStatement]:
    return list(extract_statements(SourceFile(path, text)).statements)


def only(text: str) -> AsmStatement:
    [statement] = statements(text)
    return statement


# --------------------------------------------------------------------------- targets


GUARDED = """
__device__ void f(unsigned a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
  asm volatile("mov.b32 %0, %0;" : "+r"(a));
#endif
}
"""


def test_a_target_the_guards_exclude_is_replaced_by_the_nearest_they_admit():
    statement = only(GUARDED)
    assert target_for(statement, "sm_90a") == "sm_100a"
    assert target_for(statement, "sm_90") == "sm_100"
    assert target_for(statement, "sm_120") == "sm_120"


def test_an_upper_bound_picks_the_newest_target_below_it():
    statement = only(GUARDED.replace(">= 1000", "< 800"))
    assert target_for(statement, "sm_90") == "sm_75"


def test_unguarded_statements_keep_the_requested_target():
    statement = only(GUARDED.replace("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000\n", "")
                     .replace("#endif\n", ""))
    assert target_for(statement, "sm_80") == "sm_80"


def test_guards_no_target_meets_leave_no_configuration():
    statement = only(GUARDED.replace(">= 1000", ">= 1000 && __CUDA_ARCH__ < 900"))
    config = configuration(statement, "sm_90a")
    assert config.arch is None
    assert "no target compiles" in config.why


BODY = """
__device__ void f(unsigned a) {
  asm volatile("mov.b32 %0, %0;" : "+r"(a));
}
"""


def test_the_targets_a_file_errors_for_are_never_chosen():
    # the rules' targets (PTX401's): the file stops with #error below sm_90, so its sm_80
    # branch is sm_90 code
    text = ("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900\n#error needs sm_90\n#endif\n"
            "#if __CUDA_ARCH__ >= 800" + BODY + "#endif\n")
    assert target_for(only(text), "sm_80") == "sm_90"
    assert target_for(only(text), "sm_100a") == "sm_100a"


def test_an_unguarded_statement_is_not_compiled_for_the_targets_the_file_errors_for():
    text = "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900\n#error needs sm_90\n#endif\n" + BODY
    assert target_for(only(text), "sm_80") == "sm_90"
    assert target_for(only(text), "sm_90a") == "sm_90a"


def test_a_file_that_errors_for_every_target_leaves_no_configuration():
    text = "#ifdef __CUDA_ARCH__\n#error host code only\n#endif\n" + BODY
    config = configuration(only(text), "sm_90")
    assert config.arch is None
    assert "#error" in config.why


def test_nested_guards_choose_together():
    text = ("#if __CUDA_ARCH__ >= 800\n" + "int filler;\n" * 400 + "#if __CUDA_ARCH__ >= 900\n"
            "#else" + BODY + "#endif\n#endif\n")
    statement = only(text)
    assert target_for(statement, "sm_70") == "sm_80"
    assert target_for(statement, "sm_86") == "sm_86"
    assert target_for(statement, "sm_90a") == "sm_89"  # no sm_8Xa: the highest below


def test_an_include_guard_named_like_an_arch_macro_binds_nothing():
    text = ("#ifndef __CUDA_ARCH_HELPERS_H__\n#define __CUDA_ARCH_HELPERS_H__\n"
            "#if __CUDA_ARCH__ >= 900" + BODY + "#endif\n#endif\n")
    assert target_for(only(text), "sm_80") == "sm_90"


def test_a_file_wide_arch_guard_still_chooses_the_target():
    # the rules leave the target unknown (no local guard chooses one); the compile must still
    # be for a target that builds the statement
    text = "#if __CUDA_ARCH__ >= 900\n" + "int filler;\n" * 400 + BODY + "#endif\n"
    assert target_for(only(text), "sm_80") == "sm_90"


def test_a_project_arch_macro_beside_the_guard_is_left_to_a_define():
    text = ("#if defined(CUTLASS_ARCH_MMA_SM90_ENABLED)\n#if __CUDA_ARCH__ >= 900"
            + BODY + "#endif\n#endif\n")
    statement = only(text)
    assert target_for(statement, "sm_80") == "sm_90"
    assert defines_for(statement) == ("-DCUTLASS_ARCH_MMA_SM90_ENABLED",)


# --------------------------------------------------------------------------- defines


BRANCHED = """
__device__ unsigned f(unsigned a) {
  unsigned out;
#ifdef LEFT
  asm("shl.b32 %0, %1, 1;" : "=r"(out) : "r"(a));
#else
  asm("shr.b32 %0, %1, 1;" : "=r"(out) : "r"(a));
#endif
#if defined(A) && !defined(B)
  asm("mov.b32 %0, %1;" : "=r"(out) : "r"(a));
#endif
#if defined(A) || defined(B)
  asm("mov.b32 %0, %1;" : "=r"(out) : "r"(a));
#endif
  return out;
}
"""


def test_defines_select_the_statements_branch():
    left, right, both, either = statements(BRANCHED)
    assert defines_for(left) == ("-DLEFT",)
    assert defines_for(right) == ("-ULEFT",)
    assert defines_for(both) == ("-DA", "-UB")
    assert defines_for(either) is None  # which of the two: a -D would guess


def test_target_macros_are_never_defined_by_hand():
    statement = only(GUARDED)
    assert defines_for(statement) == ()


def test_the_include_guard_selects_no_define():
    text = "#ifndef T_H\n#define T_H\n" + BRANCHED + "#endif\n"
    assert [defines_for(s) for s in statements(text)] == [
        ("-DLEFT",), ("-ULEFT",), ("-DA", "-UB"), None]


# --------------------------------------------------------------------------- "n" values


def test_constant_expressions_are_evaluated_without_running_anything():
    assert evaluate("N * 4 + (1 << 3)", {"N": 2}) == 16
    assert evaluate("0x10u", {}) == 16
    assert evaluate("__import__('os').getcwd()", {}) is None
    assert evaluate("N", {}) is None


TEMPLATED = """
template <int BYTES, int UNUSED = 3>
__device__ void copy(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], %2;" :: "r"(dst), "l"(src), "n"(BYTES));
}
__global__ void k(unsigned d, const float* s) { copy<16>(d, s); copy<8, 1>(d, s); }
"""


def test_template_arguments_at_calls_give_the_values():
    statement = only(TEMPLATED)
    assert values(statement, statement.operands[2]) == (16, 8)
    sets, exact = value_sets(statement)
    assert exact and sets == [{2: 16}, {2: 8}]


def test_a_default_gives_the_value_when_no_call_does():
    statement = only(TEMPLATED.replace("int BYTES,", "int BYTES = 16,")
                     .replace("copy<16>(d, s); copy<8, 1>(d, s);", ""))
    assert values(statement, statement.operands[2]) == (16,)


def test_static_assert_and_constexpr_give_values():
    text = TEMPLATED.replace("copy<16>(d, s); copy<8, 1>(d, s);", "")
    text = text.replace("{\n  asm", "{\n  static_assert(BYTES == 4, \"\");\n  asm")
    assert values(only(text), only(text).operands[2]) == (4,)
    constant = TEMPLATED.replace('"n"(BYTES)', '"n"(kBytes * 2)').replace(
        "template", "constexpr int kBytes = 8;\ntemplate")
    assert values(only(constant), only(constant).operands[2]) == (16,)


def test_an_unknown_value_gets_a_stand_in_that_is_marked_as_such():
    text = TEMPLATED.replace("copy<16>(d, s); copy<8, 1>(d, s);", "")
    statement = only(text)
    assert values(statement, statement.operands[2]) == ()
    sets, exact = value_sets(statement)
    assert not exact
    with pytest.raises(ptx_probe.NotProbeable):
        ptx_probe.build([statement], "sm_90", "8.8")  # never a silent stand-in
    probe = ptx_probe.build([statement], "sm_90", "8.8", values=(sets[0],))
    lines = probe.text.split("\n")
    assert probe.chosen_lines
    assert all("cp.async" in lines[n - 1] for n in probe.chosen_lines)


def test_each_branch_of_an_if_inside_a_statement_is_its_own_statement():
    found = statements(IF_IN_STATEMENT.read_text(), str(IF_IN_STATEMENT))
    shifts = [s for s in found if "sh" in s.template.text]
    assert len(shifts) == 2
    assert shifts[0].span == shifts[1].span
    assert key_of(shifts[0]) != key_of(shifts[1])


# --------------------------------------------------------------------------- end to end

toolchain = discover()
needs_toolchain = pytest.mark.skipif(
    toolchain.ptxas is None or toolchain.nvcc is None or shutil.which("g++") is None,
    reason="needs nvcc, ptxas and a host compiler (CUDA Toolkit not found)",
)


@pytest.fixture
def test_cache(monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", os.environ.get(
        "PTXLINT_TEST_CACHE", os.path.expanduser("~/.cache/ptxlint-tests")))


def verified(path: Path, *extra: str, arch: str | None = "sm_90a") -> RunResult:
    args = build_parser().parse_args(["check", str(path), *extra])
    config, selector, rules, context = _configure(args)
    result = run(args.paths, config, selector, rules, context)
    return verify(result, VerifyOptions(arch=arch, files=(str(path),)))


@needs_toolchain
def test_the_second_branch_of_a_template_is_compiled_as_itself(test_cache):
    result = verified(IF_IN_STATEMENT)
    [bad] = [f for f in result.findings if f.rule == "PTX204"]
    verdict = result.verdict(bad)
    assert verdict.status == "confirmed"
    assert ".u23" in verdict.evidence


@needs_toolchain
def test_a_bad_first_branch_lends_nothing_to_the_second(tmp_path, test_cache):
    source = tmp_path / "branches.cu"
    source.write_text("""
__device__ unsigned f(unsigned a) {
  unsigned out;
  asm("{\\n\\t"
#ifdef FIRST
      "shr.u23 %0, %1, 1;\\n\\t"
#else
      "shr.u32 %0, %1, 1;\\n\\t"
#endif
      "}" : "=r"(out) : "r"(a));
  return out;
}
""")
    result = verified(source, "--select", "PTX204")
    [first] = [f for f in result.findings if f.rule == "PTX204"]
    assert first.statement is not None and first.statement.context.branch == ("defined(FIRST)",)
    assert result.verdict(first).status == "confirmed"
    # the clean second branch: no finding, and no toolchain error borrowed from the first
    assert [f.rule for f in result.findings] == ["PTX204"]


@needs_toolchain
def test_the_probe_runs_for_the_target_the_guards_admit(tmp_path, test_cache):
    source = tmp_path / "guarded.cu"
    source.write_text("""
__device__ unsigned f(unsigned a) {
  unsigned out;
#if __CUDA_ARCH__ >= 1000
  asm("shr.u23 %0, %1, 1;" : "=r"(out) : "r"(a));
#endif
  return out;
}
""")
    result = verified(source, "--select", "PTX204")
    [bad] = result.findings
    verdict = result.verdict(bad)
    assert verdict.status == "confirmed"
    assert verdict.arch == "sm_100a"


@needs_toolchain
def test_words_every_stand_in_gets_confirm_and_say_so(tmp_path, test_cache):
    source = tmp_path / "stand_in.cu"
    # the file never says what BYTES is; ptxas rejects '.globl' with 1 and with 16 in the same
    # words, so the words are not about the value
    source.write_text("""
template <int BYTES>
__device__ void copy(unsigned dst, const float* src) {
  asm volatile("cp.async.cg.shared.globl [%0], [%1], %2;\\n" :: "r"(dst), "l"(src), "n"(BYTES));
}
""")
    result = verified(source, "--select", "PTX204")
    [bad] = result.findings
    verdict = result.verdict(bad)
    assert verdict.status == "confirmed"
    assert "'.globl'" in verdict.evidence
    assert "the same with 'BYTES' = 1 and = 16" in verdict.evidence
    assert not [f for f in result.findings if f.rule == "toolchain-error"]


def _said(line: int, words: str) -> Diagnostic:
    return Diagnostic("ptxas", "probe.ptx", line, "error", words)


def test_only_the_words_every_stand_in_gets_are_value_free():
    one = [_said(9, "Unknown modifier '.globl'"), _said(9, "Unexpected value '1'")]
    sixteen = [_said(9, "Unknown modifier '.globl'"), _said(9, "Unexpected value '16'")]
    assert same_in_every_probe([one, sixteen]) == {(9, "Unknown modifier '.globl'")}
    # the same words on another line are another error
    assert same_in_every_probe([one, [_said(10, "Unknown modifier '.globl'")]]) == set()
    # one value alone shows nothing of what its words depend on
    assert same_in_every_probe([one]) == set()
    assert same_in_every_probe([]) == set()


def test_each_stand_in_is_a_configuration_of_its_own():
    text = TEMPLATED.replace("copy<16>(d, s); copy<8, 1>(d, s);", "")
    sets, exact = value_sets(only(text))
    assert not exact
    assert sets == [{2: value} for value in STAND_INS] and len(set(STAND_INS)) >= 2


NEWER_TOOLKIT = """
__device__ unsigned f(unsigned a) {
  unsigned out;
#if CUDA_VERSION >= 13010
  asm("shr.u23 %0, %1, 1;" : "=r"(out) : "r"(a));
#else
  out = a >> 1;
#endif
  return out;
}
"""


def test_a_toolchain_older_than_the_guards_admit_builds_nothing_of_the_statement():
    statement = only(NEWER_TOOLKIT)
    why = older_than_guards(statement, [("nvcc", "13.0.88"), ("ptxas", "13.0.88")])
    assert "only with CUDA 13.1 or newer" in why and "13.0.88:" in why
    # the older of the two decides: a --ptxas older than nvcc
    assert "ptxas 12.8.93" in older_than_guards(statement, [("nvcc", "13.1.80"),
                                                            ("ptxas", "12.8.93")])
    assert older_than_guards(statement, [("nvcc", "13.1.80"), ("ptxas", "13.1.80")]) == ""
    assert older_than_guards(statement, [("ptxas", "")]) == ""  # a version it did not say
    # guards that say nothing of the toolkit, or admit older ones too
    assert older_than_guards(only(NEWER_TOOLKIT.replace("CUDA_VERSION >= 13010", "1")),
                             [("ptxas", "13.0.88")]) == ""
    assert older_than_guards(only(NEWER_TOOLKIT.replace("13010", "12040")),
                             [("ptxas", "13.0.88")]) == ""


@needs_toolchain
def test_no_verdict_comes_from_a_toolchain_the_guards_keep_out(tmp_path, test_cache):
    source = tmp_path / "newer.cu"
    source.write_text(NEWER_TOOLKIT)
    result = verified(source, "--select", "PTX204")
    [bad] = result.findings
    verdict = result.verdict(bad)
    if toolchain.version.startswith("13.0."):
        assert verdict.status == "unverifiable"
        assert "only with CUDA 13.1 or newer" in verdict.evidence
    else:  # a newer toolchain builds it: its own words judge it
        assert verdict.status == "confirmed"


# A CuTe DSL call under a test of the DSL's CUDA version (flashinfer's spelling): the Python
# front end's guards, which the verifier reads as it reads #if CUDA_VERSION.
GATED_DSL = (
    "import cutlass\nfrom cutlass._mlir.dialects import llvm\nfrom cutlass.cutlass_dsl import T\n\n"
    "def widen(x):\n"
    "    if cutlass.CUDA_VERSION.major > 13 or (\n"
    "            cutlass.CUDA_VERSION.major == 13 and cutlass.CUDA_VERSION.minor >= 2):\n"
    "        return llvm.inline_asm(T.i32(), [x], \"TEMPLATE\", \"=r,h\",\n"
    "                               has_side_effects=False, asm_dialect=llvm.AsmDialect.AD_ATT)\n"
    "    return x\n"
)


@needs_toolchain
def test_a_dsl_version_test_keeps_an_older_toolchain_from_judging(tmp_path, test_cache):
    older = toolchain.version.startswith(("13.0.", "13.1."))
    # a form new in ptxas 13.2: no finding, and no probe failure from a toolchain that never
    # builds the branch
    source = tmp_path / "gated.py"
    source.write_text(GATED_DSL.replace("TEMPLATE", "cvt.rn.bf16x2.e4m3x2 $0, $1;"))
    result = verified(source, "--select", "PTX204")
    assert result.findings == [] and result.verify_probe_failures == []
    # a real error there is judged only by a toolchain the test admits
    source.write_text(GATED_DSL.replace("TEMPLATE", "cvt.rn.bf16x2.e4m3x3 $0, $1;"))
    result = verified(source, "--select", "PTX204")
    [bad] = result.findings
    verdict = result.verdict(bad)
    if older:
        assert verdict.status == "unverifiable"
        assert "only with CUDA 13.2 or newer" in verdict.evidence
    else:
        assert verdict.status == "confirmed"


@needs_toolchain
def test_values_from_instantiations_are_compiled(tmp_path, test_cache):
    source = tmp_path / "instantiated.cu"
    source.write_text("""
template <int BYTES>
__device__ void copy(unsigned dst, const float* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], %2;\\n" :: "r"(dst), "l"(src), "n"(BYTES));
}
__global__ void k(unsigned d, const float* s) { copy<16>(d, s); copy<4>(d, s); }
""")
    result = verified(source)
    # copy<4> is in the file: the probe with BYTES=4 shows the error, and the file's own
    # compile, which instantiates copy<4>, reproduces it
    [error] = [f for f in result.findings if f.rule == "toolchain-error"]
    verdict = result.verdict(error)
    assert verdict.status == "confirmed" and verdict.method == "whole-file"
    assert "unexpected value '4'" in verdict.evidence
    assert not result.verify_probe_failures


@needs_toolchain
def test_an_error_only_the_probe_shows_is_a_note_not_a_finding(tmp_path, test_cache):
    source = tmp_path / "never_instantiated.cu"
    # the template is never instantiated: the file's compile holds no copy of it, so ptxas's
    # word on the probe (BYTES from the default) is not the file's
    source.write_text("""
template <int BYTES = 4>
__device__ void copy(unsigned dst, const float* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], %2;\\n" :: "r"(dst), "l"(src), "n"(BYTES));
}
""")
    result = verified(source, "--select", "PTX101")  # no rule to predict it
    assert not [f for f in result.findings if f.rule == "toolchain-error"]
    [(path, line, what)] = result.verify_probe_failures
    assert path == str(source) and line == 4
    assert "not reported" in what


@needs_toolchain
def test_a_branch_the_flags_leave_out_is_never_called_same_ptx(tmp_path, test_cache):
    source = tmp_path / "inactive.cu"
    # `||`: no -D can say which of the two, so the file is compiled as it comes, without it
    source.write_text("""
__global__ void k(unsigned* out) {
  unsigned t;
#if defined(FAST_PATH) || defined(OTHER_PATH)
  asm("mov.u32 %0, %%clock;" : "=r"(t));
#endif
  out[0] = 1;
}
""")
    result = verified(source, "--select", "PTX101")
    [finding] = result.findings
    verdict = result.verdict(finding)
    assert verdict.status == "unverifiable"
    assert "never compiled" in verdict.evidence
    assert "same PTX" not in verdict.evidence


@needs_toolchain
def test_a_branch_a_define_selects_is_compiled_with_it(tmp_path, test_cache):
    source = tmp_path / "selected.cu"
    source.write_text("""
__global__ void k(unsigned* out) {
  unsigned t;
#ifdef FAST_PATH
  asm("mov.u32 %0, %%clock;" : "=r"(t));
#endif
  out[0] = 1;
}
""")
    result = verified(source, "--select", "PTX101")
    [finding] = result.findings
    verdict = result.verdict(finding)
    # compiled with -DFAST_PATH: the unused non-volatile read is deleted by -O3
    assert verdict.status == "confirmed", verdict
    assert "deleted" in verdict.evidence


@needs_toolchain
def test_a_header_macro_the_compile_lacks_is_no_toolchain_error(test_cache):
    # PTX401_bad.cu uses NV_IF_TARGET without <nv/target>: nvcc's "expected an expression"
    # on that asm line is about the missing header, not the asm
    path = ROOT / "fixtures" / "rules" / "PTX401_bad.cu"
    result = verified(path)
    errors = [f for f in result.findings if f.rule == "toolchain-error"]
    assert not [f for f in errors if "expected an expression" in f.message]


def test_a_type_the_file_defines_itself_is_not_taken_from_cuda_headers():
    from ptxlint.verify import cu_probe

    text = ("struct __half { unsigned short u; };\n"
            "__device__ short f(const __half h) {\n  short i;\n"
            '  asm("mov.b16 %0, %1;" : "=h"(i) : "h"(h));\n  return i;\n}\n')
    statement = only(text)
    if statement.operands[1].ctype is None or "half" not in statement.operands[1].ctype.spelling:
        pytest.skip("the operand's type is not read as __half here")
    with pytest.raises(cu_probe.NotProbeable, match="defines its own '__half'"):
        cu_probe.build(statement)


@needs_toolchain
def test_a_target_the_toolchain_cannot_build_leaves_the_finding_unverifiable(tmp_path,
                                                                            test_cache):
    if toolchain.supports("sm_62"):
        pytest.skip(f"{toolchain.label('ptxas')} still builds sm_62")
    source = tmp_path / "old.cu"
    source.write_text("""
__device__ unsigned long long f(unsigned long long* p) {
  unsigned long long v;
#if __CUDA_ARCH__ >= 700
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
#else
  asm volatile("ld.volatile.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
#endif
  return v;
}
""")
    result = verified(source, "--select", "PTX204,PTX207")
    # ptxas 13 says ".volatile cannot be combined with .sys" of the #else branch only when
    # made to assemble it for sm_75: not the sm_6x build the branch is for
    assert not [f for f in result.findings if f.rule == "toolchain-error"]
    for finding in result.findings:
        verdict = result.verdict(finding)
        assert verdict.status == "unverifiable", verdict
        assert "cannot build" in verdict.evidence


@needs_toolchain
def test_code_for_another_target_absent_from_this_ones_ptx_is_no_probe_failure(tmp_path,
                                                                                 test_cache):
    # CUTLASS's LOAD.256 copy: ptxas rejects it for sm_90a probed alone, and the file's sm_90a
    # build leaves it out (an inline member nothing calls): code for sm_100, as it should be
    source = tmp_path / "wide.cu"
    source.write_text("""
struct Copy {
  __device__ static void copy(const float* p, unsigned& d0, unsigned& d1, unsigned& d2,
                              unsigned& d3, unsigned& d4, unsigned& d5, unsigned& d6,
                              unsigned& d7) {
#if defined(LOAD256_ENABLED)
    asm volatile("ld.global.L1::no_allocate.v8.f32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                 : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3), "=r"(d4), "=r"(d5), "=r"(d6),
                   "=r"(d7) : "l"(p));
#endif
  }
};
""")
    result = verified(source)
    assert not [f for f in result.findings if f.rule == "toolchain-error"]
    assert not result.verify_probe_failures


def test_the_default_build_leaves_out_only_branches_its_guards_exclude():
    asm = '__device__ void f() { asm volatile("membar.gl;"); }\n'
    assert in_default_build(only(asm))
    assert in_default_build(only(f"#ifdef SOME_OPTION\n{asm}#endif\n"))  # unknown: may hold
    assert not in_default_build(only(f"#if !defined(__LP64__)\n{asm}#endif\n"))
    assert not in_default_build(only(f"#ifdef __LP64__\n#else\n{asm}#endif\n"))
    macro = "#define NARROW (!defined(__LP64__))\n"
    assert not in_default_build(only(f"{macro}#if NARROW\n{asm}#endif\n"))  # read through it
