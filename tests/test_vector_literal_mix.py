"""PTX207 on a vector that holds an integer literal beside a float register. ptxas 13.0 refuses
such a vector whatever the instruction's type ("Vector with elements of different types are
not allowed in mov/st/tex.grad instruction", measured on sm_90a), and takes an integer literal
beside a bit or integer register, and a float bit pattern beside a float one. tex has no forms
in the grammar: its vectors are judged alone (a tex.grad whose last gradient element lost its
'%' and reads the integer 16)."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

TEX_GRAD = """\
__device__ float4 grad3d(unsigned long long t, float px, float py, float pz, float dxx,
                         float dxy, float dxz, float dyx, float dyy, float dyz) {
  float4 v;
  asm("tex.grad.3d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %8}], "
      "{%9, %10, %11, %12}, {%13, %14, %15, GRAD_LAST};"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "l"(t), "f"(px), "f"(py), "f"(pz), "f"(0.f),
        "f"(dxx), "f"(dxy), "f"(dxz), "f"(0.f),
        "f"(dyx), "f"(dyy), "f"(dyz), "f"(0.f));
  return v;
}
"""


def _one(template: str, constraint: str, ctype: str) -> str:
    return (f"__device__ void f({ctype} *p, {ctype} x) {{\n"
            f'  asm volatile("{template}" :: "l"(p), "{constraint}"(x) : "memory");\n}}\n')


def _ptx207(text: str) -> list[str]:
    return [f.message for f in lint_text(text, select=("PTX207",))]


def test_tex_grad_gradient_with_an_integer_element() -> None:
    [message] = _ptx207(TEX_GRAD.replace("GRAD_LAST", "16"))
    assert "'{%13, %14, %15, 16}'" in message
    assert "integer literal beside a .f32 register" in message


def test_tex_grad_of_registers_only_is_quiet() -> None:
    assert _ptx207(TEX_GRAD.replace("GRAD_LAST", "%16")) == []


@pytest.mark.parametrize(("template", "constraint", "ctype", "float_type"), [
    ("st.global.v2.b32 [%0], {%1, 16};", "f", "float", "f32"),
    ("st.global.v2.b32 [%0], {%1, 0x10};", "f", "float", "f32"),
    ("st.global.v2.b32 [%0], {%1, -1};", "f", "float", "f32"),
    ("st.global.v2.b64 [%0], {%1, 16};", "d", "double", "f64"),
])
def test_integer_literal_beside_a_float_register(
    template: str, constraint: str, ctype: str, float_type: str,
) -> None:
    [message] = _ptx207(_one(template, constraint, ctype))
    assert f"integer literal beside a .{float_type} register" in message


def test_mov_pack_of_a_float_and_an_integer() -> None:
    text = ('__device__ unsigned long long f(float x) {\n  unsigned long long r;\n'
            '  asm("mov.b64 %0, {%1, 16};" : "=l"(r) : "f"(x));\n  return r;\n}\n')
    [message] = _ptx207(text)
    assert "integer literal beside a .f32 register" in message


@pytest.mark.parametrize(("template", "constraint", "ctype"), [
    ("st.global.v2.b32 [%0], {%1, 16};", "r", "unsigned"),  # a bit register takes it
    ("st.global.v2.b16 [%0], {%1, 16};", "h", "unsigned short"),
    ("st.global.v2.f32 [%0], {%1, 0f41800000};", "f", "float"),  # a float bit pattern
])
def test_what_ptxas_takes_is_quiet(template: str, constraint: str, ctype: str) -> None:
    assert _ptx207(_one(template, constraint, ctype)) == []


def test_a_float_vector_reports_the_element_once() -> None:
    # .f32 data: the literal itself is the wrong class (one finding, on the element)
    [message] = _ptx207(_one("st.global.v2.f32 [%0], {%1, 16};", "f", "float"))
    assert message.startswith("'16' is an integer literal")


def _guarded(body: str, guard: str) -> str:
    return (f"__device__ unsigned long long f(float x) {{\n  unsigned long long r = 0;\n"
            f"#if {guard}\n  {body}\n#endif\n  return r;\n}}\n")


def test_from_sm_100_on_an_f_register_is_untyped() -> None:
    # nvcc 13.0 declares "f" operands .b32 for sm_100a, and ptxas takes 'mov.b64 %rd1, {%f1,
    # 16}' there; below sm_100 they are .f32 and it does not
    pack = 'asm("mov.b64 %0, {%1, 16};" : "=l"(r) : "f"(x));'
    assert _ptx207(_guarded(pack, "__CUDA_ARCH__ >= 1000")) == []
    [message] = _ptx207(_guarded(pack, "__CUDA_ARCH__ >= 900"))
    assert "beside a .f32 register" in message


def test_from_sm_100_on_a_declared_float_register_still_counts() -> None:
    declared = ('asm("{.reg .f32 t; mov.b32 t, %1; mov.b64 %0, {t, 16};}" : "=l"(r) : "r"(0u));')
    [message] = _ptx207(_guarded(declared, "__CUDA_ARCH__ >= 1000"))
    assert "beside a .f32 register" in message



def test_a_bare_number_that_names_an_unreferenced_operand_is_one_defect() -> None:
    """'{%13, %14, %15, 16}' beside the "f" input 16 that no %N names: the '%' was dropped.
    One finding, PTX207's, names the operand and offers '%16' (unsafe); PTX009 is silent on
    it. nvcc 13.0 (sm_90a, the statement in a kernel): the original stops in ptxas ("Vector
    with elements of different types are not allowed in tex.grad instruction"), the fixed
    text compiles."""
    found = lint_text(TEX_GRAD.replace("GRAD_LAST", "16"), select=("PTX207", "PTX009"))
    assert [f.rule for f in found] == ["PTX207"]
    (finding,) = found
    assert "operand 16 (0.f) is named by no %N: '16' was likely meant as '%16'" in \
        finding.message
    assert finding.fix is not None and not finding.fix.safe
    assert [e.new_text for e in finding.fix.edits] == ["%16"]


def test_a_bare_number_of_another_letter_or_of_no_operand_stays_two_findings() -> None:
    # operand 16 is an "r" input: not what the float vector's element was meant to be
    text = TEX_GRAD.replace("GRAD_LAST", "16").replace('"f"(0.f));', '"r"(0));')
    found = lint_text(text, select=("PTX207", "PTX009"))
    assert sorted(f.rule for f in found) == ["PTX009", "PTX207"]
    assert all("was likely meant" not in f.message for f in found)
    # the number names no operand: PTX207 without the hint, PTX009 on operand 16
    found = lint_text(TEX_GRAD.replace("GRAD_LAST", "99"), select=("PTX207", "PTX009"))
    assert sorted(f.rule for f in found) == ["PTX009", "PTX207"]
    assert all("was likely meant" not in f.message and f.fix is None for f in found)
