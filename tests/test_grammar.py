"""The per-form instruction grammar (ptxlint/ptx/grammar.py) and the rules that read it."""

from __future__ import annotations

import pytest

from ptxlint.engine import extract_statements
from ptxlint.model import AsmStatement, PtxOperand, SourceFile
from ptxlint.ptx import grammar
from ptxlint.ptx.effects import written_refs
from ptxlint.ptx.grammar import Need, OperandClass
from ptxlint.ptx.instructions import form_of, requirement
from ptxlint.ptx.parser import parse_template
from ptxlint.rule import RuleContext
from tests.conftest import lint_text
from tests.grammar_probe import integer_immediate, judge, register_resolver


def _unknown(operand: PtxOperand) -> OperandClass:
    if operand.kind == "immediate":
        return OperandClass("imm", value=grammar.parse_immediate(operand.text))
    return OperandClass("unknown")


def verdict(text: str) -> grammar.Verdict:
    [instruction] = parse_template(text, True).instructions
    return grammar.check(instruction, _unknown)


def test_every_form_compiles_and_names_its_opcode() -> None:
    forms = grammar.forms()
    assert len(forms) > 300
    assert all(f.opcode and f.spec.startswith(f.opcode) for f in forms)
    with pytest.raises(ValueError):
        grammar.compile_form("add{.xorsign.abs}.f32 d:f32, a:f32, a:f32")  # one word per value


def test_no_form_is_written_twice() -> None:
    # a second copy of a form (mul.f32x2 was added twice, a 256-bit st's .global spaces and its
    # .global-only variant coincided) is matched and measured twice for nothing
    specs = [f.spec for f in grammar.forms()]
    assert sorted({s for s in specs if specs.count(s) > 1}) == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("add.sat.u32 %0, %1, %2;", "combination"),
        ("add.rn.s32 %0, %1, %2;", "combination"),
        ("add.sta.s32 %0, %1, %2;", "modifier"),
        ("cp.async.cg.shared.global [%0], [%1], 4;", "operand"),
        ("cp.async.wait_group (int64_t)2;", "operand"),
        # src-size above cp-size (ptxas: "Argument 3 ... value '8' out of range")
        ("cp.async.ca.shared.global [%0], [%1], 4, 8;", "operand"),
        ("cp.async.ca.shared.global.L2::cache_hint [%0], [%1], 8, 16, %2;", "operand"),
        ("bar.sync 16;", "operand"),
        ("mbarrier.arrive.release.cta.expect_tx.b64 %0, [%1], %2;", "combination"),
    ],
)
def test_errors_name_their_kind(text: str, kind: str) -> None:
    result = verdict(text)
    assert result.status == "error" and result.issues[0].kind == kind


@pytest.mark.parametrize(
    "text",
    [
        "add.sat.s32 %0, %1, %2;",
        "cp.async.ca.shared.global [%0], [%1], 4;",
        "cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;",
        "cp.async.ca.shared.global [%0], [%1], 8, 8;",  # src-size up to cp-size
        "cp.async.ca.shared.global [%0], [%1], 16, 0;",  # nothing read: zero fill
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], %1, %2;",
        "ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];",
        "mov.b64 {%0, %1}, %2;",
        "atom.global.add.noftz.bf16x2 %0, [%1], %2;",
    ],
)
def test_real_forms_are_ok(text: str) -> None:
    assert verdict(text).status == "ok"


def test_sub_families_not_written_down_abstain() -> None:
    # PTX ISA 9.2's ignore_oob is written down now, as ptxas 13.2's (an error for 13.0 that
    # names the version); a word no form has yet still abstains
    newer = verdict("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob "
                    "[%0], [%1], %2, %3, %4, [%5];")
    assert newer.status == "error" and newer.issues[0].toolkit == (13, 2)
    assert verdict("cvt.rn.f16x4.e2m1x4 {%0, %1}, %2;").status == "abstain"
    # st.async is written down now; a vector in a scalar's place stays unjudged there
    assert verdict("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], {%1, %2}, "
                   "[%3];").status == "abstain"
    # tex is written down for .1d/.2d/.3d; the mipmap modes still abstain
    assert verdict("tex.level.1d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5}], %6;").status == \
        "abstain"
    assert grammar.judged("ld", ("global", "v8", "f32")) is True
    # a combination of words (".v8" of 16-bit types) can abstain while each word is judged
    assert grammar.judged("ld", ("global", "v8", "b16")) is False
    assert grammar.judged("ld", ("global", "v4", "b16")) is True


@pytest.mark.parametrize(("text", "expected"), [
    ("mbarrier.arrive.shared::cta.b64 %0, [%1], 1;", "ok"),
    ("mbarrier.arrive.shared::cta.b64 %0, [%1], 4294967295;", "ok"),
    ("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%1];", "ok"),
    # a tx-count and an init count may be 0
    ("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], 0;", "ok"),
    ("mbarrier.init.shared::cta.b64 [%1], 0;", "ok"),
    # ptxas 13.0: "Argument 2 of instruction 'mbarrier.arrive' : value '0' expected to be a
    # non-zero positive"
    ("mbarrier.arrive.shared::cta.b64 %0, [%1], 0;", "error"),
    ("mbarrier.arrive.shared::cta.b64 %0, [%1], -1;", "error"),
    ("mbarrier.arrive_drop.release.cta.shared::cta.b64 %0, [%1], 0;", "error"),
    ("mbarrier.arrive.noComplete.shared::cta.b64 %0, [%1], 0;", "error"),
    ("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%1], 0;", "error"),
])
def test_an_arrival_count_is_at_least_one(text: str, expected: str) -> None:
    result = verdict(text)
    assert result.status == expected, result.issues
    if expected == "error":
        assert "expected at least 1" in result.issues[0].message


def test_targets_are_per_form() -> None:
    mma = verdict("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                  "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};")
    assert mma.need.sm == 80
    assert requirement("mma", ("sync", "aligned", "m16n8k8", "row", "col", "f32", "f16", "f16",
                               "f32")).sm == 75
    # an mbarrier.arrive with a count needs sm_90, without one sm_80
    assert verdict("mbarrier.arrive.shared.b64 %0, [%1];").need.sm == 80
    assert verdict("mbarrier.arrive.shared.b64 %0, [%1], %2;").need.sm == 90
    assert Need.parse("90a").admits(90, "a") and not Need.parse("90a").admits(100, "a")
    assert Need.parse("90").admits(90, "") and not Need.parse("90").admits(80, "")
    assert form_of("add", ("sat", "s32")) == "add.sat.s32 d:s32, a:s32, a:s32"


def test_written_operands_come_from_the_form() -> None:
    [shfl] = parse_template("shfl.sync.idx.b32 %0|%1, %2, 0, 31, -1;", True).instructions
    assert written_refs(shfl) == {0, 1}
    [arrive] = parse_template("mbarrier.arrive.shared::cta.b64 %0, [%1];", True).instructions
    assert written_refs(arrive) == {0}
    [red] = parse_template("red.global.add.u32 [%0], %1;", True).instructions
    assert written_refs(red) == set()


def test_float_letters_are_bits_from_sm_100_on() -> None:
    text = 'asm("add.u32 %0, %1, %2;" : "=r"(d) : "f"(x), "r"(b));'
    source = f"__device__ void k(unsigned d, float x, unsigned b) {{ {text} }}"
    ids = ("PTX206",)
    assert [f.rule for f in lint_text(source, select=ids, context=RuleContext(90, "a"))] == [
        "PTX206"]
    assert lint_text(source, select=ids, context=RuleContext(100, "a")) == []
    guarded = ("__device__ void k(unsigned d, float x, unsigned b) {\n#if __CUDA_ARCH__ >= 1000\n"
               f"{text}\n#endif\n}}")
    assert lint_text(guarded, select=ids) == []


def test_an_include_guard_named_like_an_arch_does_not_hide_the_guards_lower_bound() -> None:
    # read as every rule reads it (the analysis' lowest target, the include guard left out):
    # '__SM_100_HELPERS_H__' names no architecture, so the #if still says sm_100 and up
    body = ('__device__ void k(unsigned d, float x, unsigned b) {\n#if __CUDA_ARCH__ >= 1000\n'
            '  asm("add.u32 %0, %1, %2;" : "=r"(d) : "f"(x), "r"(b));\n#endif\n}\n')
    header = f"#ifndef __SM_100_HELPERS_H__\n#define __SM_100_HELPERS_H__\n{body}#endif\n"
    assert lint_text(header, "helpers.h", select=("PTX206",)) == []


def test_undocumented_form_is_a_warning() -> None:
    source = ('__device__ void k(unsigned short a) { unsigned short d; '
              'asm("fma.rz.bf16 %0, %1, %1, %1;" : "=h"(d) : "h"(a)); }')
    [finding] = lint_text(source, select=("PTX204",))
    assert finding.severity.value == "warning" and "does not document" in finding.message


# --------------------------------------------------------------------------- forms met in the corpora


# benchmark-style register names: %h b16, %r b32, %rd b64, %f f32, %c b8
_registers = register_resolver(
    {"%rd": "b64", "%r": "b32", "%h": "b16", "%f": "f32", "%c": "b8"}, integer_immediate
)


def typed(text: str) -> grammar.Verdict:
    return judge(text, _registers)


@pytest.mark.parametrize(
    ("text", "status"),
    [
        # cvt reads its first type as the result's, the other modifiers in any order
        ("cvt.sat.u8.s64 %h1, %rd2;", "ok"),
        ("cvt.sat.s64.u8 %rd1, %h2;", "error"),  # .sat cannot saturate u8 -> s64
        ("cvt.f32.f64.rn %f1, %rd2;", "ok"),
        ("cvt.rn.f32.s32 %f1, %r2;", "ok"),
        ("cvt.f32.s32 %f1, %r2;", "error"),  # integer -> float needs a rounding
        ("cvt.rn.s32.f32 %r1, %f2;", "error"),  # float -> integer takes .rni...
        ("cvt.rn.f16.u16 %h1, %r2;", "ok"),  # .f16 takes a wider register
        ("cvt.rn.bf16.u16 %h1, %r2;", "error"),  # .bf16 conversions do not
        ("cvt.rzi.s8.bf16 %c1, %h2;", "ok"),  # cuda_bf16.hpp's .b8 register
        ("cvt.rzi.s8.bf16 %h1, %h2;", "error"),
        ("cvt.rn.satfinite.e4m3x2.f32 %h1, %f2, %f3;", "ok"),
        ("cvt.rn.satfinite.e4m3x2.f32 %r1, %f2, %f3;", "error"),  # exactly 16 bits
        ("cvt.rn.e4m3x2.f32 %h1, %f2, %f3;", "error"),  # .satfinite is required
        ("cvt.rna.tf32.f32 %f1, %f2;", "error"),  # tf32 in a bit register
        # tensor addresses: one coordinate per dimension
        ("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
         "[%r1], [%rd2, {%r3, %r4}], [%r5];", "ok"),
        ("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
         "[%r1], [%rd2, {%r3, %r4}], [%r5];", "error"),
        ("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
         "[%r1], [%rd2], [%r5];", "error"),
        # the destination's space first: global.shared::cta is the store, with bulk_group
        ("cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r2], %r3;", "ok"),
        ("cp.async.bulk.shared::cta.global.bulk_group [%rd1], [%r2], %r3;", "error"),
        # multimem: .f16/.bf16 only as vectors, min/max of floats only for 16-bit types
        ("multimem.ld_reduce.relaxed.sys.global.add.v2.f16 {%h1, %h2}, [%rd3];", "ok"),
        ("multimem.ld_reduce.relaxed.sys.global.add.f16 %h1, [%rd3];", "error"),
        ("multimem.ld_reduce.relaxed.sys.global.min.f32 %f1, [%rd3];", "error"),
        ("multimem.ld_reduce.sys.global.add.f32 %f1, [%rd3];", "error"),  # scope without order
        ("multimem.red.relaxed.sys.global.add.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};", "ok"),
        # 128-bit and 256-bit accesses
        ("ld.acquire.gpu.global.v4.b64 {%rd1, %rd2, %rd3, %rd4}, [%rd5];", "ok"),
        ("ld.shared.v8.b32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%r9];", "error"),
        ("atom.global.v4.f32.add {%f1, %f2, %f3, %f4}, [%rd1], {%f5, %f6, %f7, %f8};", "ok"),
        ("st.bulk.weak.shared::cta [%r1], %rd2, 0;", "ok"),
        ("st.bulk.weak.shared::cta [%r1], %r2, 0;", "error"),  # DeepEP's 32-bit size
        ("ld.global.v8.b16 {%h1, %h2, %h3, %h4, %h5, %h6, %h7, %h8}, [%rd1];", "abstain"),
    ],
)
def test_issue_16b_forms(text: str, status: str) -> None:
    assert typed(text).status == status


def test_family_needs_carry_where_the_family_target_suffices() -> None:
    need = typed("setmaxnreg.inc.sync.aligned.u32 240;").need
    assert need.admits(90, "a") and need.admits(100, "f") and not need.admits(90, "")
    cvt = typed("cvt.rn.satfinite.e2m3x2.f32 %h1, %f2, %f3;").need
    assert cvt.admits(100, "f") and cvt.admits(120, "a") and not cvt.admits(100, "")
    rs = typed("cvt.rs.satfinite.e4m3x4.f32 %r1, {%f1, %f2, %f3, %f4}, %r5;").need
    assert rs.admits(100, "a") and not rs.admits(100, "f")


def test_a_vector_variable_stands_for_the_vector() -> None:
    """flash-attention's CuTe copy_utils: `.reg .v4 .f32 abcd;` then `red.global.add.v4.f32
    [$0], abcd;` assembles (ptxas 13.0); a .v2 variable there is "Argument vector size
    mismatch"."""
    four = ('asm volatile("{ .reg .v4 .f32 abcd; mov.f32 abcd.x, %1; '
            'red.global.add.v4.f32 [%0], abcd; }" :: "l"(p), "f"(a));')
    two = four.replace(".v4 .f32 abcd", ".v2 .f32 abcd")
    kernel = "__device__ void f(float *p, float a) {{ {} }}"
    assert lint_text(kernel.format(four), select=("PTX207",)) == []
    [finding] = lint_text(kernel.format(two), select=("PTX207",))
    assert "vector of 2" in finding.message


# ptxas 13.0 (sm_90) on each: `.cta` first, then the sub-instruction, then any order; a few
# orders ptxas takes that the ISA does not write are warnings ("undocumented")
@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("barrier.red.or.pred.aligned p, 0, q;", "ok"),
        ("barrier.red.or.aligned.pred p, 0, q;", "ok"),
        ("barrier.red.pred.or p, 0, q;", "ok"),
        ("barrier.red.u32.popc %r1, 0, q;", "ok"),
        ("barrier.cta.red.u32.aligned.popc %r1, 0, q;", "ok"),
        ("barrier.cta.red.aligned.or.pred p, 0, q;", "ok"),
        ("barrier.sync.aligned 0;", "ok"),
        ("bar.cta.red.pred.or p, 0, q;", "ok"),
        ("barrier.aligned.sync 0;", "undocumented"),
        ("barrier.cta.aligned.sync 0;", "undocumented"),
        ("barrier.sync.cta 0;", "error"),  # Illegal modifier '.cta'
        ("bar.sync.cta 0;", "error"),
        ("barrier.red.cta.or.pred p, 0, q;", "error"),
        ("barrier.aligned.cta.sync 0;", "error"),
        ("barrier.pred.red.or p, 0, q;", "error"),  # Unknown modifier '.red'
        ("barrier.aligned.red.popc.u32 %r1, 0, q;", "error"),
        ("barrier.aligned.arrive 0, 32;", "error"),  # Unknown modifier '.arrive'
        ("barrier.cta.aligned.arrive 0, 32;", "error"),
    ],
)
def test_barrier_modifier_order_is_ptxas_order(text: str, status: str) -> None:
    result = typed(text)
    if status == "undocumented":
        assert result.status == "ok" and result.form is not None and result.form.undocumented
    else:
        assert result.status == status, result


def test_forms_spelling_a_slot_or_operand_alike_share_it() -> None:
    """A slot or operand spelled the same in two forms is compiled once and shared (its word
    table built once), and is what compiling that form alone gives."""
    load = grammar.compile_form("ld.<S?:.global|.shared>.<T:.b32|.b64> d:T, [A]")
    store = grammar.compile_form("st.<S?:.global|.shared>.<T:.b32|.b64> [A], r:T")
    assert load.slots[0] is store.slots[0] and load.slots[1] is store.slots[1]
    assert load.operands[1] is store.operands[0]
    assert load.slots[0].find("shared") is store.slots[0].find("shared")
    assert load.slots[0].optional and load.slots[0].var == "S"
    assert [v.word for v in load.slots[1].values] == ["b32", "b64"]
    assert load.operands[0].written and not store.operands[1].written


def test_a_statement_without_float_operands_has_one_verdict_for_both_float_declarations() -> None:
    """nvcc declares "f"/"d" operands as .f32/.f64 below sm_100 and as bits from it on; a
    statement with neither letter is declared alike for both, so it is judged once."""
    from ptxlint.ptx.judge import judge as judge_statement

    ints = extract_statements(SourceFile(
        "t.cu", '__device__ void k(unsigned *p, unsigned v) { asm("add.u32 %0, %1, 1;" : "=r"(v) : "r"(v)); }'
    )).statements[0]
    [add] = ints.ptx.instructions
    assert judge_statement(ints, add, False) is judge_statement(ints, add, True)
    # with an "f" operand the declarations differ, and so may the verdicts
    floats = extract_statements(SourceFile(
        "t.cu", '__device__ void k(float v) { asm("add.u32 %0, %1, 1;" : "=f"(v) : "f"(v)); }'
    )).statements[0]
    [add] = floats.ptx.instructions
    assert judge_statement(floats, add, True).status == "error"  # an .f32 register in add.u32
    assert judge_statement(floats, add, False).status == "ok"


@pytest.mark.parametrize("typed", [True, False])
def test_a_reference_is_classed_as_its_asm_operand_is(typed: bool) -> None:
    """The class the verdict gives ``%N`` (from one pass over the asm operands) is
    ``operand_class``'s for that reference: each letter, an immediate's value, a constraint of
    several letters."""
    from ptxlint.ptx import judge as judging

    statement = extract_statements(SourceFile("t.cu", (
        "__device__ void k(float f, double d, unsigned r, int *p) {\n"
        '  asm("mov.b32 %0, %1;" : "=f"(f), "+d"(d) : "r"(r), "l"(p), "n"(0x10), "n"(N),'
        ' "rn"(r), "h"(r), "q"(r));\n}\n'
    ))).statements[0]
    refs = judging._ref_classes(statement)
    classes = refs.typed if typed else refs.bits()
    assert len(classes) == len(statement.operands) == 9
    for index in range(len(statement.operands)):
        ref = PtxOperand("ref", f"%{index}", 0, 2, ref=index)
        assert classes[index] == judging.operand_class(statement, ref, typed), index
    assert classes[4].value == 16 and classes[5].value is None
    assert (classes[0].type, classes[1].type) == (("f32", "f64") if typed else ("b32", "b64"))
    assert refs.floats


def test_a_statement_without_float_operands_reads_the_same_either_way() -> None:
    """Only "f"/"d" operands are declared differently from sm_100 on: without one the classes
    (and so the verdicts' memo entry) are those of the typed reading."""
    from ptxlint.ptx import judge as judging

    statement = extract_statements(SourceFile("t.cu", (
        "__device__ void k(unsigned r, int *p) {\n"
        '  asm("mov.b32 %0, %1;" : "=r"(r) : "l"(p), "n"(3));\n}\n'
    ))).statements[0]
    refs = judging._ref_classes(statement)
    assert not refs.floats
    assert refs.bits() == refs.typed
    assert [c.kind for c in refs.typed] == ["reg", "reg", "imm"] and refs.typed[2].value == 3


def test_statements_that_spell_the_same_constraints_share_their_classes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The classes are a function of the constraint key (letters, an immediate's expression,
    opaque or not), made once per key; the table of them is bounded."""
    from ptxlint.ptx import judge as judging

    def statement(immediate: str) -> AsmStatement:
        return extract_statements(SourceFile("t.cu", (
            "__device__ void k(unsigned r, unsigned s) {\n"
            f'  asm("add.u32 %0, %1, %2;" : "=r"(r) : "r"(s), "n"({immediate}));\n}}\n'
        ))).statements[0]

    four, again, five = statement("4"), statement("4"), statement("5")
    assert judging._ref_classes(four) is judging._ref_classes(again)
    assert judging._ref_classes(five) is not judging._ref_classes(four)
    assert judging._ref_classes(five).typed[2].value == 5
    monkeypatch.setattr(judging, "_BY_KEY", {})
    monkeypatch.setattr(judging, "_BY_KEY_MAX", 1)
    judging._ref_classes(four)
    judging._ref_classes(five)
    assert list(judging._BY_KEY) == [judging._ref_classes(five).key]


def test_forms_that_spell_the_same_operands_and_keys_share_them() -> None:
    """A form's operand list and its keys are compiled once per spelling: forms that spell them
    alike share the objects, and each form still checks its own head and keys."""
    a = grammar.compile_form("add.u32 d:u32, a:u32, a:u32; sm=90a")
    b = grammar.compile_form("sub.u32 d:u32, a:u32, a:u32; sm=90a")
    assert a.operands is b.operands and a.need is b.need
    assert (a.need.sm, a.need.suffix, a.need.only) == (90, "a", (90,))
    assert grammar.compile_form("add.u32 d:u32, ?a:u32").required_operands == 1
    with pytest.raises(ValueError, match="head=1"):
        grammar.compile_form("add{.sat}.u32 d:u32, a:u32; head=1")
    assert grammar.compile_form("add.sat.u32 d:u32, a:u32; head=1").head == 1
    with pytest.raises(ValueError, match="bad key"):
        grammar.compile_form("add.u32 d:u32; nonsense")


def test_a_forms_written_positions_are_its_written_operands() -> None:
    form = grammar.compile_form("cvt.<T:.f32|.f64>.f16 d:T, r:f16")
    assert form.written_positions == (0,) and form.written_positions is form.written_positions
    pair = grammar.compile_form("elect.sync d_:b32|p!, r:b32")
    assert pair.written_positions == (0,) and pair.required_operands == 2
    store = grammar.compile_form("st.global.<T:.b32|.b64> [A], r:T")
    assert store.written_positions == ()


def test_instruction_requirement_follows_the_form_the_operands_select() -> None:
    """One spelling whose operands select forms of different needs: each statement gets its
    own form's requirement, whichever is asked first (the requirement is kept per need)."""
    from ptxlint.ptx.instructions import instruction_requirement

    def requirement_of(template: str) -> tuple[int, str]:
        source = ('__device__ void k(unsigned long long* s, unsigned long long b, unsigned c) '
                  f'{{ asm volatile("{template}" : "=l"(b) : "r"(c), "r"(c)); }}')
        [statement] = extract_statements(SourceFile("k.cu", source)).statements
        [instruction] = statement.ptx.instructions
        need = instruction_requirement(statement, instruction)
        return need.sm, need.feature

    counted = "mbarrier.arrive.shared.b64 %0, [%1], %2;"
    plain = "mbarrier.arrive.shared.b64 %0, [%1];"
    first = [requirement_of(t) for t in (counted, plain, counted)]
    second = [requirement_of(t) for t in (plain, counted, plain)]
    mnemonic = "mbarrier.arrive.shared.b64"
    assert first == [(90, mnemonic), (80, mnemonic), (90, mnemonic)]
    assert second == [first[1], first[0], first[1]]


def test_an_unknown_modifier_names_its_word_for_the_rules():
    # PTX204 offers a near spelling from the issue's word, not from its message
    [issue] = verdict("st.global.relase.u32 [%0], %1;").issues
    assert issue.kind == "modifier" and issue.word == "relase"
    assert issue.message.startswith("unknown modifier '.relase' in 'st.global.relase.u32'")


def test_an_empty_modifier_reads_as_one():
    [issue] = verdict("st.global..u32 [%0], %1;").issues
    assert issue.kind == "modifier" and issue.word == ""
    assert issue.message == "empty modifier ('..') in 'st.global..u32': no form of 'st' has one"


@pytest.mark.parametrize("text", [
    "ldmatrix.sync.aligned.m8n8.x1.shared.b16 %0, [%1];",
    "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], %1;",
    "tcgen05.ld.sync.aligned.32x32b.x1.b32 %0, [%1];",
])
def test_a_lone_register_for_a_vector_of_one_is_marked_for_braces(text):
    # ptxas 13.0: "Vector of size 1 is expected" / "Vector expected"; '{%0}' assembles
    [issue] = verdict(text).issues
    assert issue.one_element_vector and "should be a vector of one" in issue.message


def test_a_lone_register_for_a_longer_vector_is_not_marked():
    [issue] = verdict("ldmatrix.sync.aligned.m8n8.x2.shared.b16 %0, [%1];").issues
    assert not issue.one_element_vector


@pytest.mark.parametrize("text", [
    # ptxas 13.0 (sm_90a) reads a one-element vector as the scalar in these
    "ld.global.u32 {%0}, [%1];",
    "ldu.global.u32 {%0}, [%1];",
    "st.global.u32 [%0], {%1};",
    "mov.b32 {%0}, %1;",
    "mov.b64 %0, {%1};",
    "multimem.ld_reduce.relaxed.sys.global.add.f16x2 {%0}, [%1];",
    "multimem.st.relaxed.sys.global.bf16x2 [%0], {%1};",
])
def test_a_one_element_vector_stands_for_the_scalar_where_ptxas_reads_it(text):
    assert verdict(text).status == "ok"


@pytest.mark.parametrize(("text", "operand"), [
    # ptxas 13.0 (sm_90a): "Vector is not expected for argument 1 of instruction 'red'"
    ("red.relaxed.gpu.global.add.u32 [%0], {%1};", "operand 2"),
    ("multimem.red.relaxed.sys.global.add.f32 [%0], {%1};", "operand 2"),  # mscclpp's
    ("atom.global.exch.b32 %0, [%1], {%2};", "operand 3"),
    # "Vector operand is not allowed for instruction ..."
    ("add.u32 %0, {%1}, %2;", "operand 2"),
    ("shfl.sync.idx.b32 %0, {%1}, 0, 31, -1;", "operand 2"),
    ("cvta.to.shared.u64 {%0}, %1;", "operand 1"),
    ("multimem.ld_reduce.relaxed.sys.global.min.u32 {%0}, [%1];", "operand 1"),
    # "Argument vector size mismatch for instruction 'mov'": only .bN packs and unpacks
    ("mov.u32 %0, {%1};", "operand 2"),
    # "Arguments mismatch": ld's cache policy is no data
    ("ld.global.L2::cache_hint.u32 %0, [%1], {%2};", "operand 3"),
])
def test_a_one_element_vector_where_ptxas_takes_no_vector_is_an_error(text, operand):
    result = verdict(text)
    assert result.status == "error"
    [issue] = result.issues
    assert f"is a vector, but {operand} of" in issue.message


@pytest.mark.parametrize(("text", "nearest"), [
    # lmdeploy's turbomind mma.h: bf16 mma accumulates in f32 (ptxas: "Unexpected instruction
    # types specified for 'mma'")
    ("mma.sync.aligned.m16n8k8.row.col.bf16.bf16.bf16.bf16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};",
     "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32"),
    ("ldmatrix.sync.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];",
     "ldmatrix.sync.aligned.m8n8.x4.shared.b16"),
    ("cp.async.arrive.shared.b64 [%0];", "cp.async.mbarrier.arrive.shared.b64"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16 {%0,%1}, %2, %3, 1, 1, 1, 0, 0;",
     "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"),
])
def test_a_combination_error_names_the_one_nearest_form(text, nearest):
    # each nearest form assembles with ptxas 13.0 (sm_90a)
    [issue] = verdict(text).issues
    assert issue.kind == "combination"
    assert issue.message.endswith(f"(the nearest form: '{nearest}')")


@pytest.mark.parametrize("text", [
    "st.relaxed.global.u32 [%0], %1;",  # which scope? the message lists them
    "red.global.add.f16 [%0], %1;",  # .noftz, or another type?
    "cvt.rn.f32.f32 %0, %1;",  # .rni, or another source type?
    # d or c: f32.f16.f16.f32 and f16.f16.f16.f16 are both a word away
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, "
    "{%8,%9,%10,%11};",
])
def test_a_combination_error_names_no_form_where_several_are_as_near(text):
    [issue] = verdict(text).issues
    assert issue.kind == "combination" and "nearest form" not in issue.message


@pytest.mark.parametrize("text", [
    "st.relaxed.global.u32 [%0], %1;",
    "ld.acquire.global.u32 %0, [%1];",
])
def test_an_ordering_without_its_scope_reads_as_a_missing_scope(text):
    # ptxas 13.0: "Modifier '.relaxed' requires scope with 'st' instruction". Of the forms
    # one word away (the weak store without '.relaxed', the relaxed one without a scope), the
    # one that reads every word written is named
    [issue] = verdict(text).issues
    assert issue.kind == "combination"
    assert "lacks one of '.cta', '.cluster', '.gpu', '.sys'" in issue.message
