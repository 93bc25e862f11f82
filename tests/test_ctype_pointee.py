"""The C++ front end tells a rule an integer operand's signedness and what a pointer operand
points to (``CType.unsigned``, ``CType.pointee``), so that no rule reads them again from the
type's spelling."""

from __future__ import annotations

from ptxlint.engine import extract_statements
from ptxlint.model import CType, SourceFile

TEXT = """#include <cstdint>
__device__ void f(long long *a, unsigned b, int64_t *c, int **d, float *e, void *g) {
  asm volatile("" :: "l"(a), "r"(b), "l"(c), "l"(d), "l"(e), "l"(g));
}
"""


def _types() -> list[CType | None]:
    [statement] = extract_statements(SourceFile("k.cu", TEXT)).statements
    return [operand.ctype for operand in statement.operands]


def test_integers_carry_their_signedness_and_pointers_their_pointee() -> None:
    a, b, c, d, e, g = _types()
    assert a is not None and a.pointee is not None
    assert (a.pointee.spelling, a.pointee.unsigned) == ("long long", False)
    assert b is not None and b.unsigned is True and b.pointee is None
    assert c is not None and c.pointee is not None and c.pointee.unsigned is False
    assert c.pointee.size == 8
    assert d is not None and d.pointee is not None and d.pointee.kind == "pointer"
    assert d.pointee.pointee is not None and d.pointee.pointee.spelling == "int"
    assert e is not None and e.pointee is not None and e.pointee.unsigned is None
    assert g is not None and g.kind == "pointer"
    assert g.pointee is None or g.pointee.kind != "integer"
