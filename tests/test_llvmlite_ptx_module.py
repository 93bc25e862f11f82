"""llvmlite's ``ir.InlineAsm`` builds asm for any LLVM target (Numba's CPU targets too), so a
template is taken as PTX by its own words: every opcode a PTX one. In a module whose other
llvmlite templates are PTX (Numba's CUDA target), one whose opcode ptxlint does not know is a
PTX typo (``exp2`` for ``ex2``, numba-cuda c476ae61), not another assembler's: PTX204 reports
it. A module with no PTX template, or an x86 one, keeps its other templates unread."""

from __future__ import annotations

from ptxlint.frontends.python import extract_python
from ptxlint.model import SourceFile
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text

HEAD = "from llvmlite import ir\nfnty = None\n"
TYPO = 'a = ir.InlineAsm(fnty, "exp2.approx.ftz.f32 $0, $1;", "=f,f")\n'
PTX = 'b = ir.InlineAsm(fnty, "ex2.approx.ftz.f32 $0, $1;", "=f,f")\n'
X86 = 'c = ir.InlineAsm(fnty, "rdtsc", "={eax},~{edx}")\n'


def _found(text: str) -> list[tuple[str, str]]:
    return [(f.rule, f.message) for f in lint_text(text, path="k.py", select=("PTX204",))]


def test_an_unknown_opcode_beside_ptx_templates_is_a_ptx_typo() -> None:
    text = HEAD + TYPO + PTX
    [(rule, message)] = _found(text)
    assert rule == "PTX204" and "'exp2' is not a PTX instruction" in message
    reasons = [s.context.dialect_reason for s in
               extract_python(SourceFile("k.py", text), parse_template).statements]
    assert any("other asm templates are PTX" in r for r in reasons)


def test_with_no_ptx_template_in_the_module_it_stays_unread() -> None:
    assert _found(HEAD + TYPO) == []
    assert extract_python(SourceFile("k.py", HEAD + TYPO), parse_template).statements == []


def test_another_isas_template_stays_anothers() -> None:
    result = extract_python(SourceFile("k.py", HEAD + TYPO + PTX + X86), parse_template)
    assert [s.template.text for s in result.statements] == [
        "exp2.approx.ftz.f32 $0, $1;", "ex2.approx.ftz.f32 $0, $1;"]
    assert any("x86" in reason for _, reason in result.skipped)
