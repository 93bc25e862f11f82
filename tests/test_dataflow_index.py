"""``ptxlint.analysis.operand_access`` answers where a template writes (from ``flow.template_writes``)
and reads each ``%N``, each made when first asked: either order, and either side alone, gives
what walking the template gives."""

from __future__ import annotations

import pytest

from ptxlint.analysis import operand_access as _dataflow
from ptxlint.engine import extract_statements
from ptxlint.model import AsmStatement, SourceFile
from ptxlint.ptx import flow
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


WRITERS = """
__device__ void w(int a, int b, float* f, int c) {
  asm("{ .reg .pred p; setp.ne.b32 p, %2, 0; @p mov.u32 %0, 1; @!p mov.u32 %0, 2;"
      " mov.u32 %1, %0; }" : "=r"(a), "=r"(b) : "r"(c));
  asm("mov.u32 %[out], %1; mov.u32 %0, %1;" : "=r"(a), [out] "=r"(b) : "r"(c));
  asm("call (%0), fn, (%1); mov.u32 %0, 3;" : "=r"(a) : "r"(c));
  asm("brx.idx %1, tbl; mov.u32 %0, 1;" : "=r"(a) : "r"(c));
  asm("{ .reg .pred p; setp.ne.b32 p, %43, 0; wgmma.mma_async.sync.aligned.m64n80k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19,"
      " %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37,"
      " %38, %39}, %40, %41, p, 1, 1, 0, 0; mov.b32 %7, 0; }"
      : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3]), "+f"(f[4]), "+f"(f[5]), "+f"(f[6]),
        "+f"(f[7]), "+f"(f[8]), "+f"(f[9]), "+f"(f[10]), "+f"(f[11]), "+f"(f[12]), "+f"(f[13]),
        "+f"(f[14]), "+f"(f[15]), "+f"(f[16]), "+f"(f[17]), "+f"(f[18]), "+f"(f[19]),
        "+f"(f[20]), "+f"(f[21]), "+f"(f[22]), "+f"(f[23]), "+f"(f[24]), "+f"(f[25]),
        "+f"(f[26]), "+f"(f[27]), "+f"(f[28]), "+f"(f[29]), "+f"(f[30]), "+f"(f[31]),
        "+f"(f[32]), "+f"(f[33]), "+f"(f[34]), "+f"(f[35]), "+f"(f[36]), "+f"(f[37]),
        "+f"(f[38]), "+f"(f[39])
      : "l"(a), "l"(b), "r"(c), "r"(c));
}
"""


@pytest.mark.parametrize("first", ["flow", "operands"])
def test_the_written_side_is_the_one_flow_reads(first: str) -> None:
    """The ``%N`` a template writes and where it writes each are found once per template
    (``flow.template_writes``): ``written_indices`` and ``writes_of`` answer from it, and flow's
    writers are the instructions of those writes, whichever is asked first. A named operand is
    written for the index (as None), not for flow; a template whose destinations are not all
    known (``call``) or whose branches are not (``brx``) has writes here and no flow."""
    _dataflow._INDEX._entries.clear()
    flow._MEMO._entries.clear()
    statements = extract_statements(SourceFile("w.cu", WRITERS)).statements
    assert len(statements) == 5
    followed = 0
    for statement in statements:
        writes, _ = _walked(statement)
        indices = range(len(statement.operands) + 1)
        if first == "flow":
            analysis = flow.analyze(statement.ptx, statement.template.text)
        template = flow.template_writes(statement.ptx)
        assert _dataflow.written_indices(statement) is template.refs
        assert {i for i in template.refs if i is not None} == set(writes)
        for i in indices:
            if i in template.refs:  # (an empty answer is a new list)
                assert _dataflow.writes_of(statement, i) is template.of(i)
            assert list(_dataflow.writes_of(statement, i)) == writes.get(i, [])
        if first != "flow":
            analysis = flow.analyze(statement.ptx, statement.template.text)
        assert analysis is flow.analyze(statement.ptx, statement.template.text)
        if analysis is None:
            continue
        followed += 1
        assert set(analysis.writes) == set(writes)
        for i in indices:
            expected = ([a.instruction for a in _dataflow.writes_of(statement, i)]
                        if i in writes else None)
            assert analysis.writes.get(i) == expected, i
    assert followed == 3
    assert None in _dataflow.written_indices(statements[1])
