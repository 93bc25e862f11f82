"""A SIMD video instruction that merges (``vmax4.s32.s32.s32 d, a, b, c``, no ``.add``) takes
each element of ``d`` from its result where ``d``'s mask selects it and from ``c`` where it does
not (PTX ISA: ``d |= mask[i] ? t[i] : Vc[i]``): under the full mask, the default, nothing of
``c`` reaches ``d`` and ``c`` is not read. A partial mask, and ``.add``, read it."""

from __future__ import annotations

import pytest

from ptxlint.ptx.operand_roles import sources
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text


def _read(instruction: str) -> list[str]:
    (parsed,) = parse_template(instruction, False).instructions
    found = sources(parsed)
    assert found is not None
    return [operand.text for operand in found]


@pytest.mark.parametrize(("instruction", "read"), [
    ("vmax4.s32.s32.s32 r1, r2, r3, r4;", ["r2", "r3"]),
    ("vmax4.s32.s32.s32 r1.b3210, r2, r3, r4;", ["r2", "r3"]),
    ("vset2.u32.u32.ne r1.h10, r2, r3, r4;", ["r2", "r3"]),
    # the elements the mask leaves out come from c
    ("vmax4.s32.s32.s32 r1.b10, r2, r3, r4;", ["r2", "r3", "r4"]),
    ("vmin2.u32.u32.u32 r1.h0, r2, r3, r4;", ["r2", "r3", "r4"]),
    # .add accumulates into c
    ("vabsdiff4.u32.u32.u32.add r1, r2, r3, r4;", ["r2", "r3", "r4"]),
    # the scalar video instructions' c is read (vmax's secondary operation, or its merge)
    ("vmax.s32.s32.s32.max r1, r2, r3, r4;", ["r2", "r3", "r4"]),
])
def test_c_is_read_where_an_element_of_d_takes_it(instruction: str, read: list[str]) -> None:
    assert _read(instruction) == read


def _ptx106(template: str) -> list[str]:
    text = (
        "__device__ unsigned f(unsigned m, unsigned x) {\n"
        f'  asm volatile("{template}" : "=r"(m) : "r"(m), "r"(x));\n'
        "  return m;\n"
        "}\n"
    )
    return [f.rule for f in lint_text(text, select=("PTX106",))]


def test_an_output_merged_over_everywhere_is_not_read_before_it_is_written() -> None:
    # Anakin's pooling: the running maximum passed as c, but '=r' and the full mask
    assert _ptx106("vmax4.s32.s32.s32 %0, %1, %2, %0;") == []
    # a partial mask keeps c's other bytes: the '=' output's undefined value reaches d
    assert _ptx106("vmax4.s32.s32.s32 %0.b10, %1, %2, %0;") == ["PTX106"]
    assert _ptx106("vadd4.u32.u32.u32.add %0, %1, %2, %0;") == ["PTX106"]
