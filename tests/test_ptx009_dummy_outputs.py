"""PTX009 in LLVM syntax: an output no ``$N`` names is a dummy result where the template exists
for a side effect, or where what it does is unknown; the effects are the shared analysis's."""

from __future__ import annotations

import pytest

from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.unreferenced_operands import _dummy_outputs
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from tests.conftest import lint_text


def _triton(template: str, constraints: str) -> list[str]:
    text = (
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
        "def kernel(X):\n"
        f'    tl.inline_asm_elementwise("{template}", "{constraints}", [X], dtype=tl.int32, '
        "is_pure=False, pack=1)\n"
    )
    return [f.message for f in lint_text(text, path="k.py", select=("PTX009",))]


@pytest.mark.parametrize("template, constraints", [
    ("bar.sync 0;", "=r"),  # a barrier
    ("red.global.add.u32 [$1], 1;", "=r,l"),  # an atomic
    ("bar.synk 0;", "=r"),  # misspelled (PTX204's finding): unknown until spelled right
    ("prefech.global.L2 [$1];", "=r,l"),  # no PTX family has the opcode (PTX204's): unknown
])
def test_the_result_of_a_template_that_may_exist_for_its_effect_is_a_dummy(
        template: str, constraints: str) -> None:
    assert _triton(template, constraints) == []


def test_the_result_of_a_template_that_computes_is_reported() -> None:
    (message,) = _triton("mov.u32 $1, 0;", "=r,r")  # writes the input, not the result
    assert message.startswith("output operand 0")


def test_a_spliced_mnemonic_whose_effects_stay_unknown_counts_as_unknown() -> None:
    """An operand spliced into the mnemonic makes the instruction opaque; where its possible
    spellings do not share their effects (``fence.%1.gpu``: the hole is the sub-instruction),
    the shared analysis knows none, and the template may exist for them."""
    text = ('__device__ void f(unsigned& x) {\n'
            '  asm volatile("fence.%1.gpu;" : "=r"(x) : "n"(0));\n}\n')
    (statement,) = extract_statements(SourceFile("s.cu", text)).statements
    analysis = analysis_of(statement)
    assert statement.ptx.instructions[0].opaque and not analysis.side_effects
    assert _dummy_outputs(statement, analysis, frozenset({1}))
