"""Outputs listed one ':' too late: one defect, PTX006's.

nvcc 13.0 answers ``asm("..." : : "=r"(a), "=r"(b) : "r", "r")`` with "an asm input operand may
not have the '=' or '+' modifiers" once per operand; the constraints in the clobber list are the
input list the stray ':' pushed on, and the template's ``%N`` past the operands name them."""

from __future__ import annotations

from tests.conftest import lint_text

_SHIFTED = (
    "__device__ void f(unsigned (&o)[2], unsigned x, unsigned y) {\n"
    '  asm volatile("mov.b32 %0, %2;\\n\\tmov.b32 %1, %3;"\n'
    "               :\n"
    '               : "=r"(o[0]), "=r"(o[1])\n'
    '               : "r", "r");\n'
    "}\n"
)


def _found(code: str) -> list[tuple[str, int]]:
    return sorted((f.rule, code.count("\n", 0, f.span.start) + 1) for f in lint_text(code))


def test_a_shifted_statement_is_one_ptx006_finding() -> None:
    found = _found(_SHIFTED)
    assert found == [("PTX006", 4)]
    (finding,) = lint_text(_SHIFTED)
    assert "one ':' too late" in finding.message and '"r", "r"' in finding.message


def test_a_percent_past_the_pushed_inputs_is_still_ptx001() -> None:
    code = _SHIFTED.replace("%3;", "%4;")
    assert ("PTX001", 2) in _found(code)


def test_a_real_clobber_and_an_output_in_place_are_still_reported() -> None:
    # an input with '=' beside an input without: no shift, each operand its own finding
    code = (
        "__device__ void f(unsigned a, unsigned b, unsigned c) {\n"
        '  asm volatile("add.u32 %0, %1, %2;" : "=r"(a) : "=r"(b), "r"(c) : "r");\n'
        "}\n"
    )
    found = _found(code)
    assert found.count(("PTX006", 2)) == 1
    assert ("PTX002", 2) in found
    # the shift with a register-name clobber: the clobber is still PTX002's
    assert ("PTX002", 5) in _found(_SHIFTED.replace('"r", "r");', '"r1");'))
