"""PTX009: an input bound twice with one side-effect-free expression and one constraint, the
template naming one of the two numbers, made of ``%N`` tokens only and naming no operand twice,
holds the value the template reads; no numbering slip between the twins can change what it
computes, so the unnamed twin is not reported. A template naming an operand twice, or holding a
literal or a register, may hold the slip that lost the unnamed one."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text


def _cxx(template: str, inputs: str) -> list[str]:
    text = (
        "__device__ unsigned f(unsigned x, unsigned y, unsigned* p,"
        " unsigned (*g)()) {\n"
        "  unsigned d;\n"
        f'  asm("{template}" : "=r"(d) : {inputs});\n'
        "  return d;\n}\n"
    )
    return [f.message for f in lint_text(text, path="k.cu", select=("PTX009",))]


def _triton(template: str, constraints: str, args: str) -> list[str]:
    text = (
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def kernel(X, Y):\n"
        f'    tl.inline_asm_elementwise("{template}", "{constraints}", [{args}], '
        "dtype=tl.uint32, is_pure=True, pack=1)\n"
    )
    return [f.message for f in lint_text(text, path="k.py", select=("PTX009",))]


def test_a_triton_selector_passed_first_and_last_is_one_value() -> None:
    # prmt's selector bound as $1 and as $4, the template naming $4 (its last source)
    assert _triton("prmt.b32 $0, $2, $3, $4;", "=r,r,r,r,r", "X, Y, Y, X") == []


@pytest.mark.parametrize("inputs", [
    '"r"(x), "r"(y), "r"(x)',
    '"r"(p[1]), "r"(y), "r"( p [1] )',  # whitespace aside, one expression
])
def test_a_cxx_input_bound_twice_is_one_value(inputs: str) -> None:
    assert _cxx("add.u32 %0, %2, %3;", inputs) == []


@pytest.mark.parametrize("inputs", [
    '"r"(x), "r"(y), "r"(y)',  # x is another value: the %1 slip is a defect
    '"r"(*p++), "r"(y), "r"(*p++)',  # each evaluation reads another element
    '"r"(g()), "r"(y), "r"(g())',  # two calls, two values
    '"r"(x = y), "r"(y), "r"(x = y)',  # an assignment
])
def test_inputs_that_are_not_one_value_are_reported(inputs: str) -> None:
    (message,) = _cxx("add.u32 %0, %2, %3;", inputs)
    assert message.startswith("input operand 1")


def test_a_template_naming_an_operand_twice_is_reported() -> None:
    # `%2, %2`: the second may be the slip that lost %1 (x + y meant, y + y computed); that
    # %3 is x too does not say the template reads %1's value
    (message,) = _cxx("add.u32 %0, %2, %2; add.u32 %0, %0, %3;", '"r"(x), "r"(y), "r"(x)')
    assert message.startswith("input operand 1")


@pytest.mark.parametrize("template", [
    "add.u32 %0, %2, 1; add.u32 %0, %0, %3;",  # the `1` may be where %1 was meant
    "add.u32 %0, %2, %%tid.x; add.u32 %0, %0, %3;",  # so may `%tid.x`
    "ld.global.u32 %0, [%3+4]; add.u32 %0, %0, %2;",  # or the address offset
])
def test_a_template_with_room_for_another_slip_is_reported(template: str) -> None:
    (message,) = _cxx(template, '"r"(x), "r"(y), "r"(x)')
    assert message.startswith("input operand 1")


def test_a_twin_of_another_constraint_is_another_register() -> None:
    text = (
        "__device__ unsigned f(unsigned long long x) {\n  unsigned d;\n"
        '  asm("cvt.u32.u64 %0, %2;" : "=r"(d) : "r"((unsigned)x), "l"(x));\n'
        "  return d;\n}\n"
        "__device__ unsigned g(unsigned x) {\n  unsigned d;\n"
        '  asm("mov.b32 %0, %2;" : "=r"(d) : "f"(x), "r"(x));\n'
        "  return d;\n}\n"
    )
    messages = [f.message for f in lint_text(text, path="k.cu", select=("PTX009",))]
    assert [m.split(" (")[0] for m in messages] == ["input operand 1", "input operand 1"]


def test_both_twins_unnamed_are_both_reported() -> None:
    messages = _cxx("mov.u32 %0, %2;", '"r"(x), "r"(y), "r"(x)')
    assert [m.split(" (")[0] for m in messages] == ["input operand 1", "input operand 3"]
