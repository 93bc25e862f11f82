"""--verify pieces that need no toolchain: probes, message parsing, the differential's judge,
toolchain discovery with stand-in binaries, --arch native, doctor."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.program_search import Distrusted
from ptxlint.report import json_format
from ptxlint.report.run_result import RunResult
from ptxlint.verify import cu_probe, differential, ptx_probe, toolchain
from ptxlint.verify.diagnostics import parse
from ptxlint.verify.verdict import Verdict


def statements(code: str, path: str = "k.cu"):
    return extract_statements(SourceFile(path, code)).statements


def test_ptx_probe_substitutes_operands_escapes_and_unique_ids_per_copy():
    [s] = statements('__device__ void f(unsigned a, float b) { unsigned d;\n'
                     '  asm("L%=: add.u32 %0, %1, 4; mov.u32 %0, %%clock; mov.b32 %0, %2;"'
                     ' : "=r"(d) : "r"(a), "f"(b)); }')
    probe = ptx_probe.build([s], "sm_90", "9.0")
    assert ("L0: add.u32 %plr0, %plr1, 4; mov.u32 %plr0, %clock; mov.b32 %plr0, %plf2;"
            in probe.text)
    assert "L1: add.u32" in probe.text  # the second copy gets its own %=
    assert ".reg .f32 %plf2;" in probe.text and ".target sm_90" in probe.text


def test_ptx_probe_maps_ptx_lines_back_to_template_lines():
    code = ('__device__ void f(unsigned a) { unsigned d;\n  asm("{\\n\\t"\n'
            '      "add.u32 %0, %1, 1;\\n\\t"\n      "}" : "=r"(d) : "r"(a)); }')
    [s] = statements(code)
    probe = ptx_probe.build([s], "sm_90", "9.0")
    line = next(n for n, text in enumerate(probe.text.splitlines(), 1) if "add.u32" in text)
    statement, span = probe.source_span(line)
    assert statement is s
    assert SourceFile("k.cu", code).line_col(span.start).line == 3


def test_chosen_lines_are_those_naming_a_given_operand_by_number_or_by_name():
    code = ('__device__ void f(unsigned v) {\n  asm volatile("{\\n\\t"\n'
            '      "mov.b32 %0, %[k];\\n\\t"\n'
            '      "add.u32 %0, %0, %2;\\n\\t"\n'
            '      "shl.b32 %0, %0, %2;\\n\\t"\n'
            '      "}" : "+r"(v) : [k] "n"(4), "n"(5)); }')
    [s] = statements(code)

    def chosen(values: dict[int, int]) -> list[str]:
        probe = ptx_probe.build([s], "sm_90", "9.0", copies=1, values=(values,))
        lines = probe.text.split("\n")
        return sorted(lines[n - 1].strip() for n in probe.chosen_lines)

    assert chosen({1: 9}) == ["mov.b32 %plr0, 9;"]  # %[k] is operand 1
    assert chosen({2: 7}) == ["add.u32 %plr0, %plr0, 7;", "shl.b32 %plr0, %plr0, 7;"]
    assert len(chosen({1: 9, 2: 7})) == 3
    assert chosen({}) == [] and chosen({3: 1}) == []  # no operand 3: nothing chosen


def test_basic_asm_reaches_ptxas_verbatim():
    [s] = statements('__device__ void f() { asm volatile("mov.u32 %%r1, %%clock;"); }')
    assert "mov.u32 %%r1, %%clock;" in ptx_probe.build([s], "sm_90", "9.0").text


def test_probe_refuses_macro_holes_and_operand_modifiers():
    # OP comes from a header ptxlint cannot see (a macro defined here would be expanded)
    [s] = statements('__device__ void f(unsigned a) { unsigned d;\n'
                     '  asm(OP(add) ".u32 %0, %1, 1;" : "=r"(d) : "r"(a)); }')
    with pytest.raises(ptx_probe.NotProbeable):
        ptx_probe.build([s], "sm_90", "9.0")
    [s] = statements('__device__ void f(unsigned a) { unsigned d;\n'
                     '  asm("mov.u32 %w0, %1;" : "=r"(d) : "r"(a)); }')
    with pytest.raises(ptx_probe.NotProbeable):
        ptx_probe.build([s], "sm_90", "9.0")


def test_split_scope_of_volatile_statements_is_one_probe_unit():
    found = statements('__device__ void f(unsigned long long a) {\n'
                       '  asm volatile("{\\n\\t.reg .b128 q;");\n'
                       '  asm volatile("mov.b128 q, {%0, %0};" :: "l"(a));\n'
                       '  asm volatile("}");\n'
                       '  asm("{ mov.u32 %0, 1;" : "=r"(*(unsigned*)0));\n'
                       '  asm("}"); }')
    assert [len(g) for g in ptx_probe.groups(found)] == [3, 1, 1]


def test_cu_probe_declares_operands_with_their_resolved_types_and_keeps_the_line():
    code = ('__global__ void k(const float* in) {\n  __shared__ float tile[128];\n'
            '  asm volatile("cp.async.cg.shared.global [%0], [%1], 4;\\n" :: '
            '"r"(&tile[threadIdx.x]), "l"(&in[threadIdx.x]));\n}')
    [s] = statements(code, "dir/seed.cu")
    text = cu_probe.build(s)
    assert "float * ptxlint_v0{};" in text
    assert '#line 3 "dir/seed.cu"' in text
    assert '"r"(ptxlint_v0), "l"(ptxlint_v1)' in text


def test_parse_reads_ptxas_and_front_end_messages():
    out = parse("ptxas probe.ptx, line 12; error   : Duplicate definition of variable 't'\n"
                "ptxas fatal   : Ptx assembly aborted due to errors\n"
                "k.cu(4): error: asm operand type size(8) does not match type/size implied by "
                "constraint 'r'\n"
                "k.cu(7): warning #549-D: variable \"b\" is used before its value is set\n")
    assert [(d.tool, d.line, d.severity) for d in out] == [
        ("ptxas", 12, "error"), ("nvcc", 4, "error"), ("nvcc", 7, "warning")]


def test_differential_judge_counts_copies_and_ignores_renumbering():
    one = "// begin inline asm\nmov.u32 %r1, %clock;\n// end inline asm\nst.u32 [%rd1], %r1;\n"
    two = one + one.replace("%r1", "%r2")
    assert differential.judge(one, two, "mov.u32", "nvcc 13.0")[0]
    same = differential.judge(one, one.replace("%r1", "%r7"), "mov.u32", "nvcc 13.0")
    assert same[0] is False and "not exploited" in same[1]


def _fake_tool(folder: Path, name: str, script: str) -> str:
    path = folder / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_discovery_prefers_explicit_paths_and_reads_versions(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    ptxas = _fake_tool(tmp_path, "ptxas", "echo 'Cuda compilation tools, release 13.0, V13.0.88'"
                       "\necho \"Allowed values: 'sm_80','sm_90a'\"\n")
    found = toolchain._discover.__wrapped__(None, ptxas, Distrusted.here())
    assert found.ptxas is not None and found.ptxas.version == "13.0.88"
    assert found.ptxas.found_by == "--ptxas" and found.archs == ("sm_80", "sm_90a")
    assert found.ptx_isa == "9.0"


def test_no_toolchain_is_a_clear_error_not_a_traceback(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(toolchain, "WHEEL_BIN_DIRS", ())
    found = toolchain._discover.__wrapped__(None, None, Distrusted.here())
    with pytest.raises(toolchain.ToolchainError, match="no CUDA toolchain found") as caught:
        toolchain.require(found)
    report = toolchain.doctor_report(found)
    assert "not found" in report
    # both say how to point at a toolkit that is installed but not found
    for said in (str(caught.value), report):
        assert "CUDA_HOME=/usr/local/cuda" in said and "--nvcc PATH" in said


def test_arch_native_reads_nvidia_smi_or_says_why_not(tmp_path):
    smi = _fake_tool(tmp_path, "nvidia-smi", "echo 9.0\n")
    assert toolchain.resolve_arch("native", smi) == "sm_90"
    assert toolchain.resolve_arch("sm_80", smi) == "sm_80"
    broken = _fake_tool(tmp_path, "smi2", "echo 'NVIDIA-SMI has failed' >&2; exit 9\n")
    with pytest.raises(toolchain.ToolchainError, match="found no GPU"):
        toolchain.native_arch(broken)
    if not any(os.access(os.path.join(p, "nvidia-smi"), os.X_OK)
               for p in os.environ.get("PATH", "").split(os.pathsep)):
        with pytest.raises(toolchain.ToolchainError, match="nvidia-smi is not on PATH"):
            toolchain.native_arch()


def test_json_carries_the_verdict_only_when_verifying():
    [s] = statements('__device__ void f() { asm volatile("membar.gl;"); }')
    from ptxlint.model import Finding, Severity
    finding = Finding("PTX999", "x", Severity.ERROR, "k.cu", s.span, "m", statement=s)
    result = RunResult(findings=[finding], sources={"k.cu": s.source})
    assert "verification" not in json_format.finding_dict(finding, result)
    result.verifications[id(finding)] = Verdict("confirmed", "ptxas 13.0", "sm_90", "ptxas: x")
    assert json_format.finding_dict(finding, result)["verification"] == {
        "status": "confirmed", "tool": "ptxas 13.0", "arch": "sm_90", "evidence": "ptxas: x"}


def test_a_statement_in_a_define_body_goes_in_the_kernel_not_before_it():
    # flashinfer's PROFILER_INIT: the macro is used inside functions; before the kernel the
    # instruction is a syntax error ptxas gives and no use of the macro does
    [s] = statements('#define INIT(x) \\\n'
                     '  unsigned x; \\\n'
                     '  asm volatile("mov.u32 %0, %smid;" : "=r"(x));\n')
    text = ptx_probe.build([s], "sm_90", "9.0").text
    assert text.index(".entry ptxlint_probe") < text.index("mov.u32")
    # a macro expanded at file scope into functions (CUB's _CUB_LOAD_ALL): the same
    *_, e = statements('#define LOAD(T, m) \\\n'
                     '  __device__ T load_##m(const T* p) { T v; \\\n'
                     '    asm volatile("ld." #m ".u32 %0, [%1];" : "=r"(v) : "l"(p)); return v; }\n'
                     'LOAD(unsigned, global)\n')
    text = ptx_probe.build([e], "sm_90", "9.0").text
    assert text.index(".entry ptxlint_probe") < text.index("ld.global.u32")
    # a file-scope directive stays before it
    [g] = statements('asm(".global .u32 ptxlint_counter;");\n')
    text = ptx_probe.build([g], "sm_90", "9.0").text
    assert text.index(".global .u32 ptxlint_counter") < text.index(".entry ptxlint_probe")


def test_the_carry_pattern_reads_a_unique_label_as_the_number_nvcc_writes():
    # nvcc 13 -ptx of this statement: t%= becomes t0 (a number per asm instance)
    code = ('__global__ void k(unsigned* o, unsigned a, unsigned b) { unsigned d;\n'
            '  asm volatile("{\\n\\t.reg .b32 t%=;\\n\\tadd.cc.u32 t%=, %1, %2;\\n\\t'
            'addc.u32 %0, 0, 0;\\n}" : "=r"(d) : "r"(a), "r"(b));\n  o[0] = d; }\n')
    [statement] = extract_statements(SourceFile("k.cu", code)).statements
    block = "\t{\n\t.reg .b32 t0;\n\tadd.cc.u32 t0, %r2, %r3;\n\taddc.u32 %r1, 0, 0;\n}\n"
    pattern = differential.template_pattern(statement)
    assert pattern is not None and pattern.fullmatch(block)
    assert not pattern.fullmatch(block.replace("t0", "t%="))


def test_an_error_another_finding_confirmed_is_named_as_that_findings():
    from types import SimpleNamespace

    from ptxlint.verify.verdict import (
        ANOTHER_REASON,
        CONFIRMED,
        Verdict,
        name_the_other_findings,
        unverifiable,
    )

    words = "ptxas: Arguments mismatch for instruction 'cvt'"
    width = SimpleNamespace(rule="PTX206", at="cvt")
    target = SimpleNamespace(rule="PTX401", at="cvt")
    elsewhere = SimpleNamespace(rule="PTX401", at="mov")  # the same words, another statement
    verdicts = {
        id(width): Verdict(CONFIRMED, "ptxas 13.0.88", "sm_100", words),
        id(target): unverifiable(ANOTHER_REASON + words, "sm_100"),
        id(elsewhere): unverifiable(ANOTHER_REASON + words, "sm_100"),
    }
    # a probe the same error keeps from compiling, and a confirmation that names its values
    blocked = SimpleNamespace(rule="PTX106", at="cvt")
    verdicts[id(blocked)] = unverifiable(
        f"the function-level probe does not compile as written ({words})", "sm_100")
    valued = SimpleNamespace(rule="PTX204", at="cvt.rs")
    verdicts[id(valued)] = Verdict(CONFIRMED, "ptxas 13.0.88", "sm_100",
                                   f"{words} (the same with 'N' = 1 and = 16)")
    typo = SimpleNamespace(rule="PTX401", at="cvt.rs")
    verdicts[id(typo)] = unverifiable(ANOTHER_REASON + words, "sm_100")
    name_the_other_findings([width, target, elsewhere, blocked, valued, typo], verdicts,
                            lambda f: f.at)
    assert verdicts[id(blocked)].evidence.endswith("PTX206 reports on this statement, which "
                                                   "comes first")
    assert "PTX204 reports" in verdicts[id(typo)].evidence
    assert verdicts[id(target)].evidence.endswith(
        f"{words}: the error PTX206 reports on this statement, which comes first")
    assert verdicts[id(target)].status == "unverifiable"
    assert verdicts[id(elsewhere)].evidence == ANOTHER_REASON + words
    assert verdicts[id(width)].evidence == words
