"""PTX009 on an input that passes the template the very value another input passes and the
template names: the template reads that value, so no ``$N`` numbering can have lost it. An
input whose twin is not named, whose expression may evaluate to something else the second
time, or that another register class carries, is reported as before."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text


def _ptx009(text: str, path: str) -> list[str]:
    return [f.message for f in lint_text(text, path=path, select=("PTX009",))]


def _triton(template: str, constraints: str, args: str) -> str:
    return (
        "import triton\nimport triton.language as tl\n\n"
        "@triton.jit\n"
        "def decode(sel, lo, hi):\n"
        f"    return tl.inline_asm_elementwise({template!r}, {constraints!r},\n"
        f"        args=[{args}], dtype=tl.uint32, is_pure=True, pack=1)\n"
    )


def _cuda(template: str, inputs: str) -> str:
    return (
        "__device__ unsigned decode(unsigned sel, unsigned lo, unsigned hi) {\n"
        "  unsigned d;\n"
        f'  asm("{template}" : "=r"(d) : {inputs});\n'
        "  return d;\n"
        "}\n"
    )


@pytest.mark.parametrize(("text", "path"), [
    pytest.param(_triton("prmt.b32 $0, $2, $3, $4;", "=r,r,r,r,r", "sel, lo, hi, sel"),
                 "k.py", id="triton-argument-passed-twice"),
    pytest.param(_cuda("prmt.b32 %0, %2, %3, %4;", '"r"(sel), "r"(lo), "r"(hi), "r"(sel)'),
                 "k.cu", id="cuda-variable-passed-twice"),
])
def test_an_input_whose_twin_the_template_names_is_not_reported(text: str, path: str) -> None:
    assert _ptx009(text, path) == []


@pytest.mark.parametrize(("text", "path"), [
    pytest.param(_triton("prmt.b32 $0, $2, $3, $3;", "=r,r,r,r,r", "sel, lo, hi, sel"),
                 "k.py", id="triton-no-twin-named"),
    pytest.param(_cuda("prmt.b32 %0, %2, %3, %4;", '"r"(sel), "r"(lo), "r"(hi), "r"(sel + 1)'),
                 "k.cu", id="cuda-another-value"),
    pytest.param(_cuda("prmt.b32 %0, %2, %3, %4;",
                       '"r"(next(sel)), "r"(lo), "r"(hi), "r"(next(sel))'),
                 "k.cu", id="cuda-a-call-may-differ"),
    pytest.param(_cuda("prmt.b32 %0, %2, %3, %4;", '"l"(sel), "r"(lo), "r"(hi), "r"(sel)'),
                 "k.cu", id="cuda-another-register-class"),
])
def test_an_input_without_a_named_twin_is_reported(text: str, path: str) -> None:
    messages = _ptx009(text, path)
    assert any(m.startswith("input operand 1 (") for m in messages), messages
