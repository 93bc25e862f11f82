"""``ptxlint.analysis.operand_access`` builds each side of a template's index (writes, reads) when first asked:
either order, and either side alone, gives what walking the template gives."""

from __future__ import annotations

import pytest

from ptxlint.analysis import operand_access as _dataflow
from ptxlint.engine import extract_statements
from ptxlint.model import AsmStatement, SourceFile
from ptxlint.ptx.operand_roles import destinations, sources

SOURCE = """
__device__ void k(int a, int b, int c) {
  asm("{ .reg .pred p; setp.ne.b32 p, %2, 0; @p mov.u32 %0, %1; add.u32 %1, %1, %0;"
      " ld.global.u32 %2, [%3+4]; st.global.u32 [%3], %0; }"
      : "=r"(a), "+r"(b), "=r"(c) : "l"(&a));
  asm("mov.b32 {%0, %1}, %2;" : "=h"(a), "=h"(b) : "r"(c));
}
"""


def _walked(statement: AsmStatement) -> tuple[dict[int, list[object]], dict[int, list[object]]]:
    writes: dict[int, list[object]] = {}
    reads: dict[int, list[object]] = {}
    for position, instruction in enumerate(statement.ptx.instructions):
        for found, into in ((destinations(instruction), writes), (sources(instruction), reads)):
            for operand in found or ():
                if operand.kind == "ref" and operand.ref is not None:
                    into.setdefault(operand.ref, []).append((position, instruction, operand))
    return writes, reads


@pytest.mark.parametrize("order", ["writes", "reads", "both", "reversed"])
def test_each_side_of_the_index_is_the_walk(order: str) -> None:
    _dataflow._INDEX._entries.clear()
    statements = extract_statements(SourceFile("k.cu", SOURCE)).statements
    assert len(statements) == 2
    for statement in statements:
        writes, reads = _walked(statement)
        indices = range(len(statement.operands) + 1)
        if order in ("writes", "both"):
            assert {i: list(_dataflow.writes_of(statement, i)) for i in indices} == {
                i: writes.get(i, []) for i in indices}
        if order in ("reads", "both", "reversed"):
            assert {i: list(_dataflow.reads_of(statement, i)) for i in indices} == {
                i: reads.get(i, []) for i in indices}
        if order == "reversed":
            assert {i: list(_dataflow.writes_of(statement, i)) for i in indices} == {
                i: writes.get(i, []) for i in indices}
        assert all(isinstance(a, _dataflow.Access) for i in indices
                   for a in _dataflow.writes_of(statement, i))


def test_written_indices_are_the_operands_some_instruction_writes() -> None:
    """``written_indices`` (what PTX105 asks once per statement) holds exactly the operands
    ``writes_of`` finds a write of, whichever side of the index was built first."""
    _dataflow._INDEX._entries.clear()
    for statement in extract_statements(SourceFile("k.cu", SOURCE)).statements:
        writes, _ = _walked(statement)
        indices = range(len(statement.operands) + 1)
        assert {i for i in indices if i in _dataflow.written_indices(statement)} == set(writes)
        assert {i for i in indices if _dataflow.writes_of(statement, i)} == set(writes)
