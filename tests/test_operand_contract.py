"""PTX002/004/005/009/010: fixes, their safety, and the places the rules must stay silent."""

from __future__ import annotations

import subprocess
import sys

from ptxlint.constraints import operand_verdict
from ptxlint.model import CType
from tests.conftest import ROOT, lint_text

HEAD = "__device__ void f(const float* src, unsigned long long t, int n) {\n"


def _one(body: str, rule: str):
    findings = [f for f in lint_text(HEAD + body + "\n}\n", select=(rule,)) if f.rule == rule]
    assert len(findings) == 1, [f.message for f in findings]
    return findings[0]


def test_shared_pointer_with_r_gets_the_cvta_fix_marked_safe() -> None:
    body = (
        "  __shared__ float tile[2][64]; int buf = 0;\n"
        '  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;"'
        ' :: "r"(&tile[buf][threadIdx.x]), "l"(src));'
    )
    finding = _one(body, "PTX004")
    assert finding.fix is not None and finding.fix.safe
    (edit,) = finding.fix.edits
    assert edit.new_text == (
        "static_cast<unsigned>(__cvta_generic_to_shared(&tile[buf][threadIdx.x]))"
    )


def test_r_to_l_is_safe_for_a_64_bit_instruction() -> None:
    finding = _one('  asm("mov.u64 %0, %%globaltimer;" : "=r"(t));', "PTX004")
    assert finding.fix is not None and finding.fix.safe
    assert finding.fix.edits[0].new_text == "l"


def test_r_to_l_is_not_offered_when_the_template_uses_u32() -> None:
    # "l" would hand add.u32 a 64-bit register, which ptxas rejects: no letter fixes this
    finding = _one('  asm("add.u32 %0, %0, 1;" : "+r"(t));', "PTX004")
    assert finding.fix is None


def test_generic_pointer_with_r_gets_l_safely_for_a_generic_address() -> None:
    finding = _one('  float v; asm("ld.global.f32 %0, [%1];" : "=f"(v) : "r"(src));', "PTX004")
    assert finding.fix is not None and finding.fix.safe
    assert finding.fix.edits[0].new_text == "l"


def test_char_has_no_fix() -> None:
    finding = _one('  char c = 0; asm("mov.b32 %0, %0;" : "+r"(c));', "PTX004")
    assert finding.fix is None


def test_data_model_guard_silences_pointer_sizes() -> None:
    text = (
        "#if !defined(__LP64__)\n"
        "__device__ void g(const float* p) { unsigned r;"
        ' asm("cvta.to.global.u32 %0, %1;" : "=r"(r) : "r"(p)); }\n'
        "#endif\n"
    )
    assert lint_text(text, select=("PTX004",)) == []


def test_unknown_types_are_never_judged() -> None:
    assert operand_verdict(None, "r") is None
    assert operand_verdict(CType("long double", "floating", 16), "r") is None
    assert operand_verdict(CType("T", "integer", None), "r") is None


def test_enumerator_immediate_fix_is_a_value_preserving_cast() -> None:
    text = "enum K { kFour = 4 };\n" + HEAD + '  asm volatile("bar.sync %0;" :: "n"(kFour));\n}\n'
    (finding,) = lint_text(text, select=("PTX010",))
    assert finding.fix is not None and finding.fix.safe
    assert finding.fix.edits[0].new_text == "static_cast<long long>(kFour)"


def test_unused_operand_silent_for_register_pinning_idiom() -> None:
    assert (
        lint_text(HEAD + '  asm volatile("" : "+l"(t) :: "memory");\n}\n', select=("PTX009",)) == []
    )


def test_unused_operand_silent_for_a_copy_that_carries_a_dependency() -> None:
    """In LLVM syntax a template that only copies inputs into outputs exists for the values it
    ties together (Triton's consume_token returns a pointer ordered after a token); a template
    that computes, or leaves an output unwritten, still has its unnamed input reported, and so
    does C++ asm, which volatile and clobbers order (its `%1` may be a `%2` meant)."""
    token = (
        "import triton.language as tl\n\n\n"
        "def consume_token(token, ptr):\n"
        "    return tl.inline_asm_elementwise('mov.b64 $0, $1;', '=l,l,r', [ptr, token],\n"
        "                                     dtype=tl.uint64, is_pure=False, pack=1)\n"
    )
    assert lint_text(token, path="k.py", select=("PTX009",)) == []
    computes = token.replace("mov.b64 $0, $1;", "add.u64 $0, $1, $1;")
    assert [f.rule for f in lint_text(computes, path="k.py", select=("PTX009",))] == ["PTX009"]
    cxx = HEAD + '  asm volatile("mov.b32 %0, %1;" : "=r"(r) : "r"(a), "r"(b));\n}\n'
    assert [f.message.split(" (")[0] for f in lint_text(cxx, select=("PTX009",))] == [
        "input operand 2"]
    unwritten = HEAD + (
        '  asm volatile("mov.b32 %0, %2;" : "=r"(r), "=r"(s) : "r"(a), "r"(b));\n}\n'
    )
    assert sorted(f.message.split(" (")[0] for f in lint_text(unwritten, select=("PTX009",))) == [
        "input operand 3", "output operand 1"]


def test_rule_docs_are_printed() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ptxlint", "rule", "PTX004"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    assert "## Why is this bad?" in out and "__cvta_generic_to_shared" in out
