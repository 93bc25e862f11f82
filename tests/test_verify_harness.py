"""The function-level differential (verify/harness.py): the optimizer rules' evidence when the
file does not compile on its own. Toolchain tests skip without nvcc; compiles are cached by
content hash in the test cache (tests/toolchain_cache.py)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ptxlint.cli import _configure, build_parser, run
from ptxlint.report.run_result import RunResult
from ptxlint.verify import VerifyOptions, cu_probe, differential, discover, harness, verify
from tests.toolchain_cache import oracle_cache_root

toolchain = discover()
needs_nvcc = pytest.mark.skipif(
    toolchain.nvcc is None or shutil.which("g++") is None,
    reason="needs nvcc and a host compiler (CUDA Toolkit not found)",
)
# the file cannot compile on its own: the whole-file differential has nothing to say
BROKEN = '#include "ptxlint_no_such_header.h"\n'
LOAD = ('__device__ float f(const float* src) {\n'
        '  float v;\n'
        '  asm{volatile}("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(src));\n'
        '  return v;\n}\n')
CLOCK = ('__device__ unsigned f() {\n'
         '  unsigned a, b;\n'
         '  asm("mov.u32 %0, %%clock;" : "=r"(a));\n'
         '  asm("mov.u32 %0, %%clock;" : "=r"(b));\n'
         '  return b - a;\n}\n')


@pytest.fixture(autouse=True)
def cache_dir(monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())


def lint(path: Path, *extra: str) -> RunResult:
    args = build_parser().parse_args(["check", str(path), "--arch", "sm_90", *extra])
    config, selector, rules, context = _configure(args)
    return run(args.paths, config, selector, rules, context)


def finding(result: RunResult, rule: str):
    return next(f for f in result.findings if f.rule == rule)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "k.cu"
    path.write_text(text)
    return path


# --------------------------------------------------------------------------- no toolchain


def test_ptx102_unit_loads_the_word_around_the_asm_and_the_fix_adds_the_clobber(tmp_path):
    path = write(tmp_path, LOAD.replace("{volatile}", ""))
    result = lint(path, "--select", "PTX102")
    unit = harness.unit(finding(result, "PTX102"), result.sources[str(path)])
    for text in (unit.defective, unit.fixed):
        before, asm, after = (text.index(s) for s in (
            "ptxlint_before = *ptxlint_mem", "ld.global.f32", "ptxlint_after = *ptxlint_mem"))
        assert before < asm < after
        # operands are kernel parameters of their declared types: nothing folds to a constant
        assert re.search(r"\bfloat\s*\*\s*ptxlint_v1_in\b", text)
        # the load after the asm comes before any store that could alias the word
        assert after < text.index("ptxlint_keep(ptxlint_sink")
    assert '"memory"' in unit.fixed and '"memory"' not in unit.defective


def test_ptx101_unit_holds_the_asm_twice_and_the_fix_makes_it_volatile(tmp_path):
    path = write(tmp_path, CLOCK)
    result = lint(path, "--select", "PTX101")
    unit = harness.unit(finding(result, "PTX101"), result.sources[str(path)])
    assert unit.defective.count("mov.u32 %0, %%clock;") == 2
    assert unit.fixed.count("asm volatile(") == 2 and "asm volatile(" not in unit.defective


def test_a_finding_without_a_fix_the_unit_cannot_write_or_of_another_rule_has_no_unit(tmp_path):
    path = write(tmp_path, LOAD.replace("{volatile}", ""))
    result = lint(path, "--select", "PTX102")
    found = finding(result, "PTX102")
    source = result.sources[str(path)]
    unfixed = {**{s: getattr(found, s) for s in found.__slots__}, "fix": None}
    # PTX102's fix the unit writes itself (the clobber); which operand PTX105's would change
    # is the finding's to say, and its clobber is judged in the unit as written alone
    assert '"memory"' in harness.unit(found.__class__(**unfixed), source).fixed
    alone = harness.unit(found.__class__(**{**unfixed, "rule": "PTX105"}), source)
    assert not alone.compared and alone.fixed == alone.defective
    with pytest.raises(harness.NotProbeable):  # a rule the probe does not judge
        harness.unit(found.__class__(**{**unfixed, "rule": "PTX004"}), source)


def test_judge_needs_the_difference_the_rule_claims():
    asm = "\t// begin inline asm\n\tmov.u32 %r1, %clock;\n\t// end inline asm\n"
    once, twice = asm, asm + asm
    # PTX101: only fewer copies as written speak for it; other differences do not
    assert harness.judge("PTX101", once, twice, "mov.u32", "nvcc")[0]
    assert not harness.judge("PTX101", twice + "\tst.global.u32 [%rd1], %r1;\n", twice,
                             "mov.u32", "nvcc")[0]
    load = "\tld.global.u32 %r2, [%rd5];\n"
    param = "\tld.param.u64 %rd1, [p];\n"
    # PTX102: a C++ load the fix keeps and the asm as written lets nvcc reuse
    confirmed, evidence = harness.judge("PTX102", param + load + asm, param + load + asm + load,
                                        "mov.u32", "nvcc")
    assert confirmed and "1 C++ memory accesses around the asm as written and 2" in evidence
    # loads inside the asm, and kernel parameters, are not the C++ code's accesses
    assert not harness.judge("PTX102", param + asm, param + param + asm.replace(
        "mov.u32 %r1, %clock", "ld.global.u32 %r1, [%rd2]"), "mov.u32", "nvcc")[0]


# --------------------------------------------------------------------------- nvcc


def verified(path: Path, *extra: str) -> RunResult:
    return verify(lint(path, *extra), VerifyOptions(arch="sm_90", files=(str(path),)))


@needs_nvcc
def test_ptx102_in_a_file_that_does_not_compile_is_confirmed_by_the_function_probe(tmp_path):
    path = write(tmp_path, BROKEN + LOAD.replace("{volatile}", ""))
    result = verified(path, "--select", "PTX102")
    verdict = result.verdict(finding(result, "PTX102"))
    assert verdict.status == "confirmed", verdict.evidence
    assert verdict.method == harness.METHOD and "function-level probe" in verdict.evidence


@needs_nvcc
def test_volatile_asm_stays_unverifiable_with_both_reasons(tmp_path):
    # nvcc treats a volatile asm as a memory barrier: the probe shows nothing, and says so
    path = write(tmp_path, BROKEN + LOAD.replace("{volatile}", " volatile"))
    result = verified(path, "--select", "PTX102", "--show-info")
    verdict = result.verdict(finding(result, "PTX102"))
    assert verdict.status == "unverifiable"
    assert "does not compile on its own" in verdict.evidence
    assert "ptxlint_no_such_header.h" in verdict.evidence  # what stopped it, in the words
    assert "not exploited" in verdict.evidence and "function-level probe" in verdict.evidence


@needs_nvcc
def test_ptx101_in_a_file_that_does_not_compile_is_confirmed_by_the_function_probe(tmp_path):
    path = write(tmp_path, BROKEN + CLOCK)
    result = verified(path, "--select", "PTX101")
    verdicts = [result.verdict(f) for f in result.findings if f.rule == "PTX101"]
    assert verdicts and all(v.status == "confirmed" for v in verdicts), verdicts
    assert "1x as written and 2x with the fix" in verdicts[0].evidence


@needs_nvcc
def test_the_confirmation_is_plain_nvccs(tmp_path):
    """The unit's two texts, compiled with nothing but nvcc -O3 -ptx, show what the verdict
    says: one load of the word as written, two with the clobber."""
    path = write(tmp_path, LOAD.replace("{volatile}", ""))
    result = lint(path, "--select", "PTX102")
    unit = harness.unit(finding(result, "PTX102"), result.sources[str(path)])
    loads = []
    for name, text in (("a.cu", unit.defective), ("b.cu", unit.fixed)):
        (tmp_path / name).write_text(text)
        subprocess.run([toolchain.nvcc.path, "-arch=compute_90", "-O3", "-ptx", name, "-o",
                        name + ".ptx"], cwd=tmp_path, check=True, capture_output=True)
        ptx = (tmp_path / (name + ".ptx")).read_text()
        outside = re.sub(r"// begin inline asm\n.*?// end inline asm", "", ptx, flags=re.S)
        loads.append(len(re.findall(r"\bld\.global\.u32\b", outside)))
    assert loads == [1, 2]


UNUSED_OUTPUT = ('__device__ unsigned f(unsigned x) {\n'
                 '  unsigned r = x, s;\n'
                 '  asm("mov.u32 %1, %2;" : "=r"(r), "=r"(s) : "r"(x));\n'
                 '  return r + s;\n}\n')


def test_ptx009_compares_an_undefined_output_with_the_same_operand_read_write(tmp_path):
    path = write(tmp_path, UNUSED_OUTPUT)
    result = lint(path, "--select", "PTX009")
    found = finding(result, "PTX009")
    assert harness.undefined_output(found) is not None
    unit = harness.unit(found, result.sources[str(path)])
    assert '"=r"(ptxlint_v0)' in unit.defective and '"+r"(ptxlint_v0)' in unit.fixed


def test_ptx009_on_an_unused_input_stays_a_claim_about_intent(tmp_path):
    path = write(tmp_path, '__device__ unsigned f(unsigned x, unsigned y) { unsigned r;\n'
                           '  asm("mov.u32 %0, %1;" : "=r"(r) : "r"(x), "r"(y));\n'
                           '  return r;\n}\n')
    result = lint(path, "--select", "PTX009")
    found = finding(result, "PTX009")
    assert harness.undefined_output(found) is None
    with pytest.raises(harness.NotProbeable):
        harness.unit(found, result.sources[str(path)])


@needs_nvcc
def test_ptx009_undefined_output_is_confirmed_and_an_unused_input_is_not(tmp_path):
    path = write(tmp_path, UNUSED_OUTPUT)
    result = verified(path, "--select", "PTX009")
    verdict = result.verdict(finding(result, "PTX009"))
    assert verdict.status == "confirmed", verdict.evidence
    assert "the variable gets a register nothing set" in verdict.evidence
    path = write(tmp_path, '__device__ unsigned f(unsigned x, unsigned y) { unsigned r;\n'
                           '  asm("mov.u32 %0, %1;" : "=r"(r) : "r"(x), "r"(y));\n'
                           '  return r;\n}\n')
    result = verified(path, "--select", "PTX009")
    verdict = result.verdict(finding(result, "PTX009"))
    assert verdict.status == "unverifiable" and "intent" in verdict.evidence


INPUT_WRITTEN = ('__device__ unsigned long long f(unsigned x) {\n'
                 '  unsigned long long const d = 0;\n'
                 '  asm volatile("cvt.u64.u32 %0, %1;" :: "l"(d), "r"(x));\n'
                 '  return d;\n}\n')


def test_ptx105_names_the_clobbered_register_the_code_still_reads(tmp_path):
    path = write(tmp_path, INPUT_WRITTEN)
    result = lint(path, "--select", "PTX105")
    statement = finding(result, "PTX105").statement
    asm = "\t// begin inline asm\n\tcvt.u64.u32 %rd1, %r1;\n\t// end inline asm\n"
    load = "\tld.param.u64 %rd1, [p_param_2];\n"
    # as nvcc compiles CUTLASS's copy_sm90_desc.hpp: the input's register stored afterwards
    confirmed, evidence = harness.judge("PTX105", load + asm + "\tst.global.u64 [%rd3], %rd1;\n",
                                        "", "cvt.u64.u32", "nvcc", statement=statement)
    assert confirmed and "writes %rd1, the register nvcc gave input %0" in evidence
    # written again before any read: nothing the compiler keeps is clobbered
    assert not harness._clobbered(load + asm + "\tmov.u64 %rd1, 7;\n\tst.global.u64 [%rd3], "
                                  "%rd1;\n", statement)


def test_an_output_made_read_write_is_judged_by_the_value_it_passes_in():
    pair = harness.Unit(
        '__global__ void ptxlint_probe(unsigned int *ptxlint_mem, unsigned char *ptxlint_sink, '
        'unsigned int ptxlint_v0_in) {\n  asm("" : "=r"(ptxlint_v0));\n',
        '__global__ void ptxlint_probe(unsigned int *ptxlint_mem, unsigned char *ptxlint_sink, '
        'unsigned int ptxlint_v0_in) {\n  asm("" : "+r"(ptxlint_v0));\n')
    load = "\tld.param.u32 %r1, [_Z13ptxlint_probePjPhj_param_2];\n"
    confirmed, evidence = harness.judge("PTX106", "\tst.global.u32 [%rd1], %r2;\n",
                                        load + "\tst.global.u32 [%rd1], %r1;\n", "mov", "nvcc",
                                        pair)
    assert confirmed and "never loads the value operand %0 held before the asm" in evidence
    # loaded either way: PTX009 says nothing more
    assert not harness.judge("PTX009", load, load, "mov", "nvcc", pair)[0]


@needs_nvcc
def test_ptx105_in_a_file_that_does_not_compile_is_confirmed_by_the_clobber(tmp_path):
    path = write(tmp_path, BROKEN + INPUT_WRITTEN)
    result = verified(path, "--select", "PTX105")
    verdict = result.verdict(finding(result, "PTX105"))
    assert verdict.status == "confirmed", verdict.evidence
    assert "the register nvcc gave input %0" in verdict.evidence


# an input no constraint can make an output (not an lvalue; CUTLASS's copy_sm90_desc.hpp binds a
# `uint64_t const`): the finding offers no fix, so nothing to compare the file with
UNFIXABLE_INPUT = ('__device__ unsigned long long f(unsigned x, unsigned long long d) {\n'
                   '  asm volatile("cvt.u64.u32 %0, %1;" :: "l"(d + 1), "r"(x));\n'
                   '  return d;\n}\n')


@needs_nvcc
def test_ptx105_without_a_fix_is_confirmed_by_the_clobber_in_the_unit_as_written(tmp_path):
    path = write(tmp_path, UNFIXABLE_INPUT)
    result = verified(path, "--select", "PTX105")
    found = finding(result, "PTX105")
    assert found.fix is None
    verdict = result.verdict(found)
    assert verdict.status == "confirmed", verdict.evidence
    assert verdict.method == harness.METHOD
    assert "the register nvcc gave input %0" in verdict.evidence


def test_ptx105_without_a_fix_and_no_clobber_in_its_ptx_stays_unverifiable(tmp_path):
    path = write(tmp_path, UNFIXABLE_INPUT)
    found = finding(lint(path, "--select", "PTX105"), "PTX105")
    alone = harness.unit(found, found.statement.source)
    asm = "\t// begin inline asm\n\tcvt.u64.u32 %rd1, %r1;\n\t// end inline asm\n"
    # the register written again before any read: no clobber, and no fix to differ from
    ptx = asm + "\tmov.u64 %rd1, 7;\n\tst.global.u64 [%rd3], %rd1;\n"
    confirmed, evidence = harness.judge("PTX105", ptx, ptx, "cvt.u64.u32", "nvcc", alone,
                                        found.statement)
    assert not confirmed
    assert "offers no fix to compare with" in evidence


# CCCL's b128 atomic stores: the input pair unpacked from a register the template never wrote,
# and the pointer's type a template parameter the unit cannot declare
TEMPLATE_POINTER = ('template <class _Type>\n'
                    '__device__ void store(_Type* __ptr, unsigned long long x,'
                    ' unsigned long long y) {\n'
                    '  asm volatile(".reg .b128 _v;\\n\\tmov.b128 {%1, %2}, _v;\\n\\t'
                    'st.relaxed.gpu.b128 [%0], _v;" :: "l"(__ptr), "l"(x), "l"(y) : "memory");\n'
                    '}\n'
                    'template __device__ void store<int>(int*, unsigned long long,'
                    ' unsigned long long);\n')


@pytest.mark.parametrize(("spelling", "unit"), [
    ("_Type *", "void *"),
    ("const _Type *", "const void *"),
    ("MyStruct **", "void **"),
    ("const volatile cute::uint128_t *", "const volatile void *"),
    ("float *", "float *"),
    ("const unsigned int *", "const unsigned int *"),
    ("uint32_t *", "uint32_t *"),
    ("std::uint64_t *", "std::uint64_t *"),
    ("__half *", "__half *"),
])
def test_a_pointer_to_a_type_the_unit_cannot_name_is_a_pointer_to_void(spelling, unit):
    assert cu_probe._pointer_for(spelling) == unit


@needs_nvcc
def test_a_template_parameters_pointer_does_not_keep_the_probe_from_compiling(tmp_path):
    path = write(tmp_path, BROKEN + TEMPLATE_POINTER)
    result = verified(path, "--select", "PTX105")
    verdict = result.verdict(finding(result, "PTX105"))
    assert "does not compile" not in verdict.evidence, verdict.evidence
    assert verdict.status == "confirmed", verdict.evidence
    assert "the register nvcc gave input %1" in verdict.evidence


# a template spelled from the macro's argument: a fix would have to edit the macro for every
# expansion, so the finding offers none (as nvshmem's multimem reductions)
STRINGIZED = ('#define LOAD(T)                                                    \\\n'
              '  __device__ unsigned load_##T(const unsigned* p) {                 \\\n'
              '    unsigned v;                                                     \\\n'
              '    asm("ld.global." #T " %0, [%1];" : "=r"(v) : "l"(p));           \\\n'
              '    return v;                                                       \\\n'
              '  }\n'
              'LOAD(u32)\n')


def test_a_finding_without_a_fix_of_its_own_gets_the_rules_fix_in_the_unit(tmp_path):
    path = write(tmp_path, STRINGIZED)
    result = lint(path, "--select", "PTX102")
    found = finding(result, "PTX102")
    assert found.fix is None
    pair = harness.unit(found, result.sources[str(path)])
    assert '"memory"' in pair.fixed and '"memory"' not in pair.defective
    assert "ld.global.u32" in pair.defective and "ld.global.u32" in pair.fixed
    # the two units differ in the clobber alone
    assert pair.fixed.replace(' : "memory")', ")") == pair.defective


@needs_nvcc
def test_a_finding_without_a_fix_of_its_own_is_judged_by_the_function_probe(tmp_path):
    path = write(tmp_path, STRINGIZED)
    result = verified(path, "--select", "PTX102")
    verdict = result.verdict(finding(result, "PTX102"))
    assert verdict.status == "confirmed", verdict.evidence
    assert "function-level probe" in verdict.evidence


GUARDED_TEMPLATE = ('#include "feature.h"\n'
                    '#if HAS_WIDE_STORES()\n' + TEMPLATE_POINTER.split("template __device__")[0]
                    + '#endif\n')


@needs_nvcc
@pytest.mark.parametrize(("value", "status"), [("1", "confirmed"), ("0", "unverifiable")])
def test_a_template_under_a_guard_no_define_selects_is_judged_where_the_build_holds_it(
        tmp_path, value, status):
    # HAS_WIDE_STORES() is a header's function-like macro: no -D selects the branch, and the
    # uninstantiated template is in no PTX either way; the file's preprocessing says whether
    # the build holds it
    (tmp_path / "feature.h").write_text(f"#pragma once\n#define HAS_WIDE_STORES() {value}\n")
    path = write(tmp_path, GUARDED_TEMPLATE)
    result = verified(path, "--select", "PTX105")
    verdict = result.verdict(finding(result, "PTX105"))
    assert verdict.status == status, verdict.evidence
    assert "the register nvcc gave input %1" in verdict.evidence


def test_a_line_is_in_the_preprocessed_file_only_with_its_text():
    pre = ('# 1 "/tmp/x/ptxlint-source.cu"\n'
           'int a;\n'
           '\n'
           '  asm("add.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));\n'
           '# 1 "/usr/include/other.h" 1\n'
           '  asm("nop;");\n'
           '# 9 "/tmp/x/ptxlint-source.cu" 2\n'
           '  asm("nop;");\n')
    assert differential.holds_line(pre, "ptxlint-source.cu", 3, "asm")
    assert differential.holds_line(pre, "ptxlint-source.cu", 9, "asm")
    # a branch left out keeps its numbering with a blank line: no text, no statement
    assert not differential.holds_line(pre, "ptxlint-source.cu", 2, "asm")
    # line 1 of another file is not the file's
    assert not differential.holds_line(pre, "ptxlint-source.cu", 1, "asm")


def test_a_fix_that_rewrites_the_template_is_no_difference_the_optimizer_made():
    around = "\tld.u32 %r1, [%rd1];\n{asm}\tst.u32 [%rd1], %r1;\n"
    asm = "\t// begin inline asm\n\t{text}\n\t// end inline asm\n"
    written = around.format(asm=asm.format(text="mov.b128 _d, {%rd2, %rd3};"))
    fixed = around.format(asm=asm.format(text="mov.b128 {%rd2, %rd3}, _d;"))
    confirmed, evidence = differential.judge(written, fixed, "mov", "nvcc")
    assert not confirmed and "same code around the asm" in evidence
    # a store the fix keeps is
    assert differential.judge(written.replace("\tst.u32 [%rd1], %r1;\n", ""), fixed, "mov",
                              "nvcc")[0]


def test_an_n_operand_gets_the_files_own_value_not_a_stand_in(tmp_path):
    # a stand-in 1 as cp.async's size is a unit ptxas rejects, which would prove nothing
    path = write(tmp_path, 'constexpr int BYTES = 16;\n'
                           '__device__ void f(unsigned dst, const void* src, unsigned* flag) {\n'
                           '  unsigned v;\n'
                           '  asm("cp.async.cg.shared.global [%1], [%2], %3;\\n'
                           'ld.global.u32 %0, [%4];" : "=r"(v) : "r"(dst), "l"(src),'
                           ' "n"(BYTES), "l"(flag));\n'
                           '  *flag = v;\n}\n')
    result = lint(path, "--select", "PTX102")
    unit = harness.unit(finding(result, "PTX102"), result.sources[str(path)])
    assert '"n"(16)' in unit.defective and '"n"(16)' in unit.fixed


@pytest.mark.parametrize(("code", "register", "reads"), [
    ("add.s32 %r1, %r12, 1;", "%r1", False),  # writes %r1, reads %r12: another register
    ("add.s32 %r2, %r1, 1;", "%r1", True),
    ("mov.u32 %r1, %r10;", "%r1", False),
    ("st.global.u32 [%rd1], %r1;", "%r1", True),
    ("st.global.u32 [%rd1], %r13;", "%r1", False),
    ("ld.global.u32 %r1, [%rd12];", "%rd1", False),
    ("ld.global.u32 %r2, [%rd1+4];", "%rd1", True),
    ("@%p1 add.s32 %r3, %r1, %r4;", "%r1", True),
])
def test_a_read_is_of_the_register_itself_not_of_one_whose_name_it_begins(code, register, reads):
    # a clobber confirmed on %r1 because the next line read %r12 would be a false confirmation
    assert harness._reads(code, register) is reads
