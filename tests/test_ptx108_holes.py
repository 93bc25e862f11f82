"""PTX108 on a template with a part ptxlint cannot read (a hole): an output written on every
path before the first hole, with an input of its class read nowhere else, is read after the
write if at all (``early_clobber._before_hole``)."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text

# CuTe DSL: outputs zeroed, then a body joined from a list appended in a loop (a hole)
CUTE = '''from cutlass._mlir.dialects import llvm
from cutlass.cutlass_dsl import T


def decode(a, b, bits):
    blocks = []
    for index in range(8):
        source = "$3" if index < 4 else "$2"
        blocks.append(f"shr.u32 w, {{source}}, {{index * bits}}; or.b32 $0, $0, w;")
    asm = """{{
        .reg .b32 w;
        {head}
    """ + "\\n".join(blocks) + "\\n}}"
    return llvm.inline_asm(llvm.StructType.get_literal([T.i32(), T.i32()]), [a, b], asm,
                           "{constraints}", has_side_effects=False)
'''
ZEROED = "mov.b32 $0, 0;\n        mov.b32 $1, 0;"


def _lint(head: str = ZEROED, constraints: str = "=r,=r,r,r") -> list[str]:
    text = CUTE.format(head=head, constraints=constraints)
    return [f.rule for f in lint_text(text, path="k.py", select=("PTX108",))]


def test_outputs_written_before_the_hole_are_flagged() -> None:
    found = lint_text(CUTE.format(head=ZEROED, constraints="=r,=r,r,r"), path="k.py",
                      select=("PTX108",))
    assert [f.rule for f in found] == ["PTX108"]
    assert "which ptxlint cannot read, the only place input $2 ('r') can be read" \
        in found[0].message
    assert "output $1 too" in found[0].message


@pytest.mark.parametrize("head", [
    "@!p mov.b32 $0, 0;\n        @!p mov.b32 $1, 0;",  # guarded: may not run
    "bra.uni L1;\n        mov.b32 $0, 0;\n        L1: mov.b32 $1, 0;",  # a branch before it
    # each input read in the text before the writes: what the hole reads again is not guessed
    "add.u32 w, $2, $3;\n        mov.b32 $0, w;\n        mov.b32 $1, w;",
])
def test_no_certain_write_before_the_hole_is_silent(head: str) -> None:
    assert _lint(head) == []


def test_early_clobber_outputs_are_silent() -> None:
    assert _lint(constraints="=&r,=&r,r,r") == []


def test_an_input_of_another_class_is_silent() -> None:
    assert _lint(constraints="=r,=r,l,l") == []


def test_a_cxx_macro_the_reader_cannot_expand_is_a_hole_too() -> None:
    text = ('#include "body.h"\n__device__ unsigned f(unsigned x) {\n  unsigned y;\n'
            '  asm("mov.u32 %0, 0;\\n\\t" BODY : "=r"(y) : "r"(x));\n  return y;\n}\n')
    found = lint_text(text, select=("PTX108",))
    assert [f.rule for f in found] == ["PTX108"]
    assert found[0].fix is not None


def test_a_write_after_the_hole_is_silent() -> None:
    text = ('#include "body.h"\n__device__ unsigned f(unsigned x) {\n  unsigned y;\n'
            '  asm(BODY "\\n\\tmov.u32 %0, 0;" : "=r"(y) : "r"(x));\n  return y;\n}\n')
    assert lint_text(text, select=("PTX108",)) == []


def test_a_reference_past_the_last_operand_is_the_one_finding() -> None:
    # '$7' of four operands: the numbering is off (PTX001), so is every order read from it
    assert _lint("mov.b32 $0, 0;\n        mov.b32 $1, $7;") == []
