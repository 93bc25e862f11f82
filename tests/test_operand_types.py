"""Operand types worked out when first read (ptxlint.frontends.cxx.operand_types): the same
answers as typing each operand at extraction, one resolver call per statement, nothing of the
file's tree kept by an operand whose type was read, and a read through every way an operand is
copied or pickled."""

from __future__ import annotations

import dataclasses
import gc
import glob
import os
import pickle
import signal
import weakref
from pathlib import Path

import pytest

from ptxlint import file_memos
from ptxlint.engine import extract_statements, parse_template, type_lookup
from ptxlint.frontends.cxx.extract import extract
from ptxlint.frontends.cxx.types import TypeResolver
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.model import CType, Operand, SourceFile, Span, operand_types, types_read
from tests.conftest import FIXTURES

_TEXT = """
struct Pair { int a, b; };
__device__ void f(unsigned long long p, float x, Pair s, int *q) {
  unsigned r;
  asm volatile("mov.b32 %0, %1;" : "=r"(r) : "r"(x));
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(r) : "l"(p), "r"(s), "l"(q + 1), "n"(N));
}
"""


class _Counting:
    """A file's resolver that counts the calls extraction's operands make of it."""

    def __init__(self, parsed: ParsedSource) -> None:
        self.resolver = type_lookup(parsed)
        self.batches = 0
        self.singles = 0

    def __call__(self, *args: object) -> CType | None:
        self.singles += 1
        return self.resolver(*args)  # type: ignore[arg-type]

    def resolve_operands(self, *args: object) -> list[CType | None]:
        self.batches += 1
        return self.resolver.resolve_operands(*args)  # type: ignore[arg-type]


def _extract_counting(text: str) -> tuple[list[_Counting], list[list[Operand]]]:
    made: list[_Counting] = []

    def lookup(parsed: ParsedSource) -> _Counting:
        made.append(_Counting(parsed))
        return made[-1]

    result = extract(SourceFile("k.cu", text), parse_template, lookup)
    return made, [list(s.operands) for s in result.statements]


def test_extraction_types_nothing_until_a_type_is_read() -> None:
    (counting,), statements = _extract_counting(_TEXT)
    assert len(statements) == 2
    assert (counting.batches, counting.singles) == (0, 0)
    assert not any(types_read(ops) for ops in statements)
    assert statements[1][1].ctype == CType("unsigned long long", "integer", 8)
    assert counting.batches == 1  # the whole statement at once
    assert types_read(statements[1]) and not types_read(statements[0])
    assert [o.ctype.spelling if o.ctype else None for o in statements[1]] == [
        "unsigned int", "unsigned long long", "Pair", "int *", None  # N: declared nowhere
    ]
    assert counting.batches == 1 and counting.singles == 0  # the others read its answers


def test_operand_types_reads_each_type_working_out_what_is_still_to_be() -> None:
    (counting,), statements = _extract_counting(_TEXT)
    pending = operand_types(statements[1])  # none worked out yet: the first read does it
    assert [c.spelling if c else None for c in pending] == [
        "unsigned int", "unsigned long long", "Pair", "int *", None  # N: declared nowhere
    ]
    assert counting.batches == 1
    assert operand_types(statements[1]) == pending == tuple(o.ctype for o in statements[1])
    assert counting.batches == 1 and operand_types(()) == ()


def _eager(path: str, text: str) -> list[list[CType | None]]:
    """Each operand typed on its own by a fresh call of the file's resolver, as extraction
    typed them before types were left to be read."""
    result = extract_statements(SourceFile(path, text))
    if result.parsed is None:
        return []
    resolver = TypeResolver(result.parsed.text, result.parsed.tree, result.parsed.data)
    return [
        [
            resolver(o.expression, o.expression_span.start) if o.expression else None
            for o in s.operands
        ]
        for s in result.statements
        if s.context.expansion is None and s.context.macro is None
    ]


def test_types_read_later_are_those_typing_each_operand_gives() -> None:
    paths = sorted(glob.glob(os.path.join(FIXTURES, "rules", "PTX00[45]*.cu")))
    assert paths
    compared = 0
    for path in paths:
        text = Path(path).read_text(encoding="utf-8")
        lazy = [
            [o.ctype for o in s.operands]
            for s in extract_statements(SourceFile(path, text)).statements
            if s.context.expansion is None and s.context.macro is None
        ]
        assert lazy == _eager(path, text), path
        compared += sum(len(ops) for ops in lazy)
    assert compared > 50


def _extract_watched(text: str) -> tuple[list[list[Operand]], weakref.ref[TypeResolver]]:
    """The statements' operands, and a weak reference to the file's resolver (which holds
    its tree). The resolver is also the file's one for the rules' C++ facts
    (``types.file_resolver``), kept until the run lets go of the file (``file_memos``):
    this lets go of it first, as a batch run does after each file: what holds it after
    that is the statements' operands."""
    made: list[weakref.ref[TypeResolver]] = []

    def lookup(parsed: ParsedSource) -> TypeResolver:
        resolver = type_lookup(parsed)
        made.append(weakref.ref(resolver))
        return resolver

    result = extract(SourceFile("k.cu", text), parse_template, lookup)
    file_memos.release()
    return [list(s.operands) for s in result.statements], made[0]


def test_an_operand_whose_type_was_read_keeps_nothing_of_the_file() -> None:
    statements, resolver = _extract_watched(_TEXT)
    gc.collect()
    assert resolver() is not None  # types not read yet: they are worked out from the tree
    assert statements[0][1].ctype == CType("float", "floating", 4)
    gc.collect()
    assert resolver() is not None  # the other statement's are still to be read
    _ = statements[1][0].ctype
    gc.collect()
    assert resolver() is None
    assert statements[1][1].ctype == CType("unsigned long long", "integer", 8)


def test_copies_and_pickles_carry_the_type() -> None:
    operands = extract_statements(SourceFile("k.cu", _TEXT)).statements[1].operands
    pickled = pickle.loads(pickle.dumps(operands[1]))  # never read before: read on the way
    assert pickled.ctype == CType("unsigned long long", "integer", 8)
    moved = dataclasses.replace(operands[3], span=Span(0, 1))
    assert moved.ctype is not None and moved.ctype.kind == "pointer"
    assert operands[4].ctype is None  # N: declared nowhere
    assert pickle.loads(pickle.dumps(operands[4])).ctype is None
    assert operands[3] == dataclasses.replace(operands[3])
    assert "ctype=CType(" in repr(operands[1])


def test_a_look_up_that_raises_leaves_the_type_unknown() -> None:
    def broken(parsed: ParsedSource) -> object:
        def lookup(*args: object) -> CType | None:
            raise RuntimeError("boom")

        return lookup

    result = extract(SourceFile("k.cu", _TEXT), parse_template, broken)  # type: ignore[arg-type]
    assert [o.ctype for s in result.statements for o in s.operands] == [None] * 7


def test_statements_whose_types_nobody_read_go_with_their_file() -> None:
    statements, resolver = _extract_watched(_TEXT)
    assert not any(types_read(ops) for ops in statements)
    del statements
    gc.collect()
    assert resolver() is None


def test_ties_and_undefined_reads_are_found_without_typing_the_statement() -> None:
    from ptxlint.analysis.statement import analysis_of

    text = (
        "__device__ void f(unsigned a, unsigned &b, unsigned &c) {\n"
        '  asm("add.u32 %0, %0, %2; mov.u32 %1, %2;" : "=r"(b), "=r"(c) : "r"(a), "0"(a));\n'
        "}\n"
    )
    statement = extract_statements(SourceFile("k.cu", text)).statements[0]
    facts = analysis_of(statement)
    assert facts.tied_input(0) is not None and facts.tied(3)
    assert list(facts.undefined_reads) == []  # %0's value comes in through the tie
    assert not types_read(statement.operands)


def test_an_undefined_read_of_an_operand_nvcc_rejects_is_left_to_its_root() -> None:
    from ptxlint.analysis.statement import analysis_of

    text = (
        "struct P { int x; };\n"
        "__device__ void f(P &p, unsigned &q) {\n"
        '  asm("add.u32 %0, %0, 1; add.u32 %1, %1, 1;" : "=r"(p), "=r"(q));\n'
        "}\n"
    )
    statement = extract_statements(SourceFile("k.cu", text)).statements[0]
    assert list(analysis_of(statement).undefined_reads) == [1]  # %0 is PTX005's


def test_a_read_while_another_thread_works_the_statement_out_waits_for_its_answers() -> None:
    import threading
    import time

    started = threading.Event()

    class Slow(_Counting):
        def resolve_operands(self, *args: object) -> list[CType | None]:
            started.set()
            time.sleep(0.05)  # the other thread reads meanwhile
            return super().resolve_operands(*args)

    made: list[Slow] = []

    def lookup(parsed: ParsedSource) -> Slow:
        made.append(Slow(parsed))
        return made[-1]

    operands = extract(SourceFile("k.cu", _TEXT), parse_template, lookup).statements[1].operands
    first = threading.Thread(target=lambda: operands[0].ctype)
    first.start()
    assert started.wait(5)
    assert operands[1].ctype == CType("unsigned long long", "integer", 8)
    first.join()
    assert made[0].batches == 1  # one resolver, worked by one thread at a time


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_forked_while_another_thread_types_a_statement_can_type_its_own() -> None:
    import threading

    from ptxlint.frontends.cxx import operand_types

    operands = extract_statements(SourceFile("k.cu", _TEXT)).statements[1].operands
    held, release = threading.Event(), threading.Event()

    def hold() -> None:  # as a thread in the middle of ``settle`` holds it
        with operand_types._SETTLING:
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(5)
        pid = os.fork()
        if pid == 0:  # the child: no thread there will ever release the parent's lock
            signal.alarm(5)  # a child that waits for it forever ends with SIGALRM
            ok = operands[1].ctype == CType("unsigned long long", "integer", 8)
            os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
    finally:
        release.set()
        holder.join()
    assert os.waitstatus_to_exitcode(status) == 0
