"""Advice that compiles: PTX207 offers `.ca` (unsafe) for a 4- or 8-byte `cp.async.cg`, never
a 16-byte copy of a 4-byte source; PTX004 offers no constraint letter that leaves the
instruction at another width (ptxas's "Arguments mismatch"). tests/test_fixes_compile.py
compiles the fixes; these pin what is offered."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.fix import apply_edits

ROOT = Path(__file__).resolve().parent.parent


def copy(size: str, variant: str = "cg") -> str:
    return ("__device__ void f(unsigned s, const float* g) {\n"
            f'  asm volatile("cp.async.{variant}.shared.global [%0], [%1], %2;" :: '
            f'"r"(s), "l"(g), "n"({size}));\n}}\n')


@pytest.mark.parametrize("size", ["4", "8", "(8)"])
def test_a_short_cg_copy_gets_the_ca_fix_unsafely(lint, size):
    text = copy(size)
    [finding] = lint(text, select=("PTX207",))
    assert "'.ca' copies 4, 8 or 16" in finding.message
    assert finding.fix is not None and not finding.fix.safe
    fixed, applied = apply_edits(text, [finding.fix])
    assert applied == 1
    assert "cp.async.ca.shared.global" in fixed
    assert lint(fixed, select=("PTX207",)) == []


@pytest.mark.parametrize("size", ["2", "32"])
def test_sizes_ca_refuses_too_get_no_ca_fix(lint, size):
    [finding] = lint(copy(size), select=("PTX207",))
    assert finding.fix is None
    assert ".ca" not in finding.message


def test_the_seed_gets_the_ca_fix(lint):
    path = ROOT / "tests" / "data" / "blog_pipeline.cu"
    [finding] = lint(path.read_text(), str(path), select=("PTX207",))
    assert finding.fix is not None and not finding.fix.safe


def cxx(letter: str, ctype: str, template: str) -> str:
    return (f"__device__ void f() {{\n  {ctype} v = 0;\n"
            f'  asm("{template}" : "+{letter}"(v));\n}}\n')


@pytest.mark.parametrize(("ctype", "letter", "template"), [
    ("short", "r", "mov.b32 %0, %0;"),  # 'h' would be a .b16 register in mov.b32
    ("int", "l", "mov.b64 %0, %0;"),  # 'r' would be a .b32 register in mov.b64
])
def test_no_letter_is_offered_where_the_instruction_has_another_width(lint, ctype, letter,
                                                                      template):
    [finding] = lint(cxx(letter, ctype, template), select=("PTX004",))
    assert finding.fix is None


def test_a_letter_of_the_instructions_width_is_still_offered(lint):
    # "+f" in mov.b32: nvcc 13 and ptxas take it (an .f32 register in a .b32 move)
    [finding] = lint(cxx("r", "float", "mov.b32 %0, %0;"), select=("PTX004",))
    assert finding.fix is not None and not finding.fix.safe
    assert finding.fix.description == "Use constraint letter 'f'"


def triton(template: str, constraints: str, arg: str, dtype: str) -> str:
    return ("import triton.language as tl\n\ndef kernel(x):\n"
            f'    return tl.inline_asm_elementwise("{template}", "{constraints}", [{arg}],\n'
            f"                                     dtype={dtype}, is_pure=True, pack=1)\n")


def test_triton_advice_names_the_instruction_when_a_letter_alone_would_not_do(lint):
    text = triton("mov.b32 $0, $1;", "=r,l", "x.to(tl.int64)", "tl.int64")
    [finding] = lint(text, "k.py", select=("PTX004",))
    assert not finding.message.endswith("; use 'l'")
    assert "'mov.b32' works on another width" in finding.message
    assert "dtype=" in finding.message  # an output: the call's type, not a .to()


def test_triton_advice_is_a_letter_where_the_instruction_takes_it(lint):
    text = triton("cvt.f64.f32 $0, $1;", "=r,r", "x.to(tl.float32)", "tl.float64")
    [finding] = lint(text, "k.py", select=("PTX004",))
    assert finding.message.endswith("; use 'l'")


def written_input(declaration: str) -> str:
    return ("__global__ void k(unsigned* out) {\n"
            f"  {declaration} = 3u;\n"
            '  asm volatile("add.u32 %0, %0, 1;" :: "r"(c));\n'
            "  out[0] = c;\n}\n")


def test_a_written_const_input_is_not_offered_as_an_output(lint):
    # "+r"(c) on a const variable: nvcc says "expression must be a modifiable lvalue"
    [finding] = lint(written_input("const unsigned c"), select=("PTX105",))
    assert finding.fix is None


def test_a_written_input_that_is_not_const_is_offered_as_an_output(lint):
    text = written_input("unsigned c")
    [finding] = lint(text, select=("PTX105",))
    assert finding.fix is not None and not finding.fix.safe
    fixed, applied = apply_edits(text, [finding.fix])
    assert applied == 1 and '"+r"(c)' in fixed


def written_input_expression(parameters: str, expression: str) -> str:
    return (f"__device__ unsigned k({parameters}) {{\n"
            f'  asm volatile("add.u32 %0, %0, 1;" :: "r"({expression}));\n'
            "  return 0u;\n}\n")


@pytest.mark.parametrize(
    ("parameters", "expression"),
    [
        # nvcc 13.0 accepts each as an output only with warning #137 "expression must be a
        # modifiable lvalue": the fix would trade PTX105 for PTX013
        ("unsigned a", "threadIdx.x"),
        ("const unsigned* p", "p[0]"),
        ("const unsigned& r", "r"),
        # no lvalue at all: nvcc rejects it as an output
        ("unsigned a", "a + 1u"),
    ],
)
def test_a_written_input_that_cannot_be_written_gets_no_output_fix(lint, parameters, expression):
    [finding] = lint(written_input_expression(parameters, expression), select=("PTX105",))
    assert finding.fix is None


@pytest.mark.parametrize(
    ("parameters", "expression"),
    [("unsigned* p, int i", "p[i + 1]"), ("unsigned x", "(x)"), ("const unsigned* p", "p")],
)
def test_a_written_modifiable_lvalue_input_gets_an_output_fix(lint, parameters, expression):
    text = written_input_expression(parameters, expression)
    [finding] = lint(text, select=("PTX105",))
    assert finding.fix is not None
    fixed, applied = apply_edits(text, [finding.fix])
    assert applied == 1 and f'"+r"({expression})' in fixed
