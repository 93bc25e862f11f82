"""PTX208 follows only the predicates declared inside the template's braces: which of them an
instruction writes last, whether from immediates only, and whether any instruction reads them
(a guard, a source, a part of a vector or a pair)."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text


def _reported(body: str) -> list[str]:
    text = (
        "__device__ void f(unsigned a, unsigned b) {\n"
        "  unsigned r;\n"
        f'  asm volatile({body} : "=r"(r) : "r"(a), "r"(b));\n'
        "}\n"
    )
    return [f.message.split("'")[1] for f in lint_text(text, select=("PTX208",))]


@pytest.mark.parametrize(("body", "reported"), [
    # written from immediates only: a generator's placeholder, not a lost result
    ('"{ .reg .pred p; setp.ne.b32 p, 1, 0; mov.u32 %0, %1; }"', []),
    # the last write is from an input: its value is lost
    ('"{ .reg .pred p; setp.ne.b32 p, 1, 0; setp.ne.b32 p, %1, 0; mov.u32 %0, %1; }"', ["p"]),
    # the last write is from immediates, after one from an input
    ('"{ .reg .pred p; setp.ne.b32 p, %1, 0; setp.ne.b32 p, 1, 0; mov.u32 %0, %1; }"', []),
    # read by a guard, negated or not
    ('"{ .reg .pred p; setp.ne.b32 p, %1, 0; @!p mov.u32 %0, %2; }"', []),
    # read as a source; the other one is not
    ('"{ .reg .pred p, q; setp.lt.u32 p, %1, %2; setp.gt.u32 q, %1, %2; '
     'selp.u32 %0, %1, %2, p; }"', ["q"]),
    # read negated as a source
    ('"{ .reg .pred p; setp.ne.b32 p, %1, 0; selp.u32 %0, 1, 0, !p; }"', []),
    # both halves of a pair destination are written; one comparison's result is read, the
    # other half is a by-product of the form (the sink `_` would name it), not a lost result
    ('"{ .reg .pred p, q; setp.lt.u32 p|q, %1, %2; selp.u32 %0, 1, 0, q; }"', []),
    ('"{ .reg .pred lo, hi; setp.ltu.f16x2 lo|hi, %1, %2; selp.b32 %0, 0, 1, lo; }"', []),
    # neither half is read: both are lost
    ('"{ .reg .pred p, q; setp.lt.u32 p|q, %1, %2; mov.u32 %0, %1; }"', ["p", "q"]),
    # the read half took a later value: the pair's result is not what is read
    ('"{ .reg .pred p, q; setp.lt.u32 p|q, %1, %2; setp.gt.u32 q, %1, %2; '
     'selp.u32 %0, 1, 0, q; }"', ["p"]),
    # a register declared beside it and written is no predicate
    ('"{ .reg .pred p; .reg .b32 t; setp.ne.b32 p, %1, 0; mov.b32 t, %2; '
     '@p mov.u32 %0, %2; }"', []),
    # at the top level another statement may read it
    ('".reg .pred p; setp.ne.b32 p, %1, 0; mov.u32 %0, %1;"', []),
])
def test_the_rule_reports_the_declared_predicates_whose_last_value_is_lost(
    body: str, reported: list[str]
) -> None:
    assert _reported(body) == reported


def test_a_predicate_read_inside_a_vector_operand_counts_as_read() -> None:
    body = ('"{ .reg .pred p; .reg .b32 x; setp.ne.b32 p, %1, 0; '
            'mov.b64 {x, p}, %2; mov.u32 %0, x; }"')
    # mov.b64 writes {x, p}: the vector is its destination, so p is written again, not read
    assert _reported(body) == ["p"]
    body = ('"{ .reg .pred p; .reg .b64 y; setp.ne.b32 p, %1, 0; '
            'mov.b64 y, {%1, p}; mov.u32 %0, %1; }"')
    assert _reported(body) == []


def _writers(body: str) -> list[str]:
    text = (
        "__device__ void f(unsigned a, unsigned b) {\n"
        "  unsigned r;\n"
        f'  asm volatile({body} : "=r"(r) : "r"(a), "r"(b));\n'
        "}\n"
    )
    return [f.message.split("'")[3] for f in lint_text(text, select=("PTX208",))]


def test_an_instruction_whose_destinations_are_unknown_reads_every_operand() -> None:
    # an opcode no table knows: which operand it writes is not known, so p counts as read
    assert _reported('"{ .reg .pred p; setp.ne.b32 p, %1, 0; frob.b32 p, %1; '
                     'mov.u32 %0, %1; }"') == []


def test_the_destinations_are_the_data_flow_rules_own() -> None:
    # the elements of a vector destination are written one by one (as PTX103-PTX107 see
    # them), so the vector's write is the last one of p
    assert _writers('"{ .reg .pred p; .reg .b32 x; setp.ne.b32 p, %1, 0; '
                    'mov.b64 {x, p}, %2; mov.u32 %0, x; }"') == ["mov.b64"]
    # both halves of a pair from an instruction that is no function of its sources
    assert _writers('"{ .reg .pred p; .reg .b32 t; elect.sync t|p, 0xffffffff; '
                    'mov.u32 %0, t; }"') == ["elect.sync"]


def test_a_destination_that_is_no_declared_predicate_is_still_no_source() -> None:
    # p<2> declares p0 and p1, which the rule does not follow; the pair is written from
    # immediates all the same (p0 is a destination, not a register read), so p is a placeholder
    assert _reported('"{ .reg .pred p; .reg .pred r<2>; setp.ne.b32 p|r0, 1, 0; '
                     'mov.u32 %0, %1; }"') == []
    assert _reported('"{ .reg .pred p; .reg .pred r<2>; setp.ne.b32 p|r0, %1, 0; '
                     'mov.u32 %0, %1; }"') == ["p"]


def test_a_predicate_read_beside_many_destinations_counts_as_read() -> None:
    # a wgmma writes its 64 accumulators and reads the scale predicate: p is read, and
    # written only by the setp
    outputs = ", ".join(f"%{i}" for i in range(64))
    constraints = ", ".join(f'"+f"(d[{i}])' for i in range(64))
    text = (
        "__device__ void f(float *d, unsigned long long a, unsigned long long b, int s) {\n"
        '  asm volatile("{ .reg .pred p; setp.ne.b32 p, %66, 0; '
        f"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{{outputs}}}, %64, %65, p, "
        f'1, 1, 0, 0; }}" : {constraints} : "l"(a), "l"(b), "r"(s));\n'
        "}\n"
    )
    assert lint_text(text, select=("PTX208",)) == []
    unread = text.replace("%65, p,", "%65, 1,")
    assert [f.rule for f in lint_text(unread, select=("PTX208",))] == ["PTX208"]
