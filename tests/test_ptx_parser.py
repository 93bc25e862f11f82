"""Tests for ptxlint.ptx.parser.parse_template."""

from __future__ import annotations

import random

import pytest

from ptxlint.model import HOLE, PtxOperand, PtxTemplate
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text


def kinds(ops: tuple[PtxOperand, ...]) -> list[str]:
    return [o.kind for o in ops]


def percent_kinds(t: PtxTemplate) -> list[str]:
    return [p.kind for p in t.percents]


def walk(op: PtxOperand) -> list[PtxOperand]:
    out = [op]
    for part in op.parts:
        out.extend(walk(part))
    return out


def assert_in_bounds(t: PtxTemplate, text: str) -> None:
    n = len(text)

    def check(start: int, end: int) -> None:
        assert 0 <= start <= end <= n, (start, end, n, text)

    for ins in t.instructions:
        check(ins.start, ins.end)
        check(ins.opcode_start, ins.opcode_end)
        assert ins.start <= ins.opcode_start
        # a space may separate modifiers (`prmt .b32`), as ptxas allows
        assert "".join(text[ins.opcode_start : ins.opcode_end].split()) == ins.mnemonic
        if ins.predicate is not None:
            check(ins.predicate.start, ins.predicate.end)
            check(ins.predicate.register.start, ins.predicate.register.end)
        for top in ins.operands:
            for op in walk(top):
                check(op.start, op.end)
                assert text[op.start : op.end] == op.text
    for d in t.directives:
        check(d.start, d.end)
        assert text[d.start : d.end] == d.text
    for label in t.labels:
        check(label.start, label.end)
    for b in t.braces:
        check(b.offset, b.offset + 1)
        assert text[b.offset] == b.char
        assert b.depth >= 0
    for c in t.comments:
        check(*c)
    for p in t.percents:
        check(p.start, p.end)
        assert text[p.start] == "%"
    for pr in t.problems:
        check(pr.start, pr.end)
    starts = [p.start for p in t.percents]
    assert starts == sorted(starts)


# --------------------------------------------------------------------------- real examples


def test_scoped_predicate_block() -> None:
    text = "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %1, 0;\n\t@p mov.u32 %0, 1;\n}\n"
    t = parse_template(text, True)
    assert_in_bounds(t, text)
    assert [(b.char, b.depth) for b in t.braces] == [("{", 1), ("}", 1)]
    (d,) = t.directives
    assert (d.name, d.declared, d.depth, d.text) == (".reg", ("p",), 1, ".reg .pred p;")
    setp, mov = t.instructions
    assert setp.mnemonic == "setp.ne.b32" and setp.depth == 1 and setp.terminated
    assert kinds(setp.operands) == ["register", "ref", "immediate"]
    assert setp.operands[1].ref == 1
    assert mov.predicate is not None
    assert mov.predicate.register.text == "p" and not mov.predicate.negated
    assert text[mov.predicate.start : mov.predicate.end] == "@p"
    assert mov.start == mov.predicate.start
    assert text[mov.start : mov.end] == "@p mov.u32 %0, 1;"
    assert [o.ref for o in mov.operands] == [0, None]
    assert percent_kinds(t) == ["ref", "ref"]
    assert t.problems == ()


def test_clock_escape() -> None:
    text = "mov.u32 %0, %%clock;"
    t = parse_template(text, True)
    (ins,) = t.instructions
    assert kinds(ins.operands) == ["ref", "special"]
    assert ins.operands[1].text == "%%clock"
    assert percent_kinds(t) == ["ref", "escape"]
    assert (t.percents[1].start, t.percents[1].end) == (12, 14)
    assert ins.end == len(text)


def test_vector_load() -> None:
    text = "ld.global.nc.v4.f32 {%0,%1,%2,%3}, [%4];"
    t = parse_template(text, True)
    assert t.braces == ()  # vector braces are not scopes
    (ins,) = t.instructions
    assert ins.opcode == "ld" and ins.modifiers == ("global", "nc", "v4", "f32")
    vec, addr = ins.operands
    assert vec.kind == "vector" and [p.ref for p in vec.parts] == [0, 1, 2, 3]
    assert addr.kind == "address" and addr.text == "[%4]" and addr.parts[0].ref == 4
    assert_in_bounds(t, text)


def test_cp_async() -> None:
    text = "cp.async.cg.shared.global [%0], [%1], 16;\n"
    (ins,) = parse_template(text, True).instructions
    assert ins.modifiers == ("async", "cg", "shared", "global")
    assert kinds(ins.operands) == ["address", "address", "immediate"]


def test_mma() -> None:
    text = (
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};"
    )
    t = parse_template(text, True)
    (ins,) = t.instructions
    assert ins.modifiers[2] == "m16n8k16"
    assert kinds(ins.operands) == ["vector"] * 4
    assert [len(o.parts) for o in ins.operands] == [4, 4, 2, 4]
    assert ins.operands[3].parts[3].ref == 13
    assert len(t.percents) == 14 and t.braces == ()
    assert_in_bounds(t, text)


def test_cvta_block() -> None:
    text = "{ .reg .b64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }"
    t = parse_template(text, True)
    assert [d.declared for d in t.directives] == [("t",)]
    assert [i.mnemonic for i in t.instructions] == ["cvta.to.shared.u64", "cvt.u32.u64"]
    assert all(i.depth == 1 for i in t.instructions)
    assert [(b.char, b.depth) for b in t.braces] == [("{", 1), ("}", 1)]


def test_unique_label_and_branch() -> None:
    text = "L%=: @!p bra L%=;"
    t = parse_template(text, True)
    (label,) = t.labels
    assert (label.name, label.start, label.end, label.depth) == ("L%=", 0, 4, 0)
    (ins,) = t.instructions
    assert ins.opcode == "bra" and ins.start == 5
    assert ins.predicate is not None and ins.predicate.negated
    assert ins.predicate.register.text == "p"
    assert kinds(ins.operands) == ["label"]
    assert ins.operands[0].text == "L%="
    assert percent_kinds(t) == ["unique", "unique"]


def test_shfl_immediates() -> None:
    text = "shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;"
    (ins,) = parse_template(text, True).instructions
    assert kinds(ins.operands) == ["ref", "ref", "ref", "immediate", "immediate"]
    assert [o.text for o in ins.operands[3:]] == ["0x1f", "0xffffffff"]


def test_predicate_pair() -> None:
    (ins,) = parse_template("setp.lt.u32 p|q, %1, 4;", True).instructions
    pair = ins.operands[0]
    assert pair.kind == "pair" and pair.text == "p|q"
    assert [p.text for p in pair.parts] == ["p", "q"]


def test_float_bit_pattern() -> None:
    (ins,) = parse_template("mov.b32 %0, 0f3F800000;", True).instructions
    assert ins.operands[1].kind == "immediate" and ins.operands[1].text == "0f3F800000"


def test_basic_membar() -> None:
    t = parse_template("membar.gl;", False)
    (ins,) = t.instructions
    assert (ins.opcode, ins.modifiers, ins.operands, ins.terminated) == (
        "membar",
        ("gl",),
        (),
        True,
    )
    assert t.percents == () and t.problems == ()


def test_extended_single_percent_special_is_bare() -> None:
    text = "mov.u32 %0, %clock;"
    t = parse_template(text, True)
    assert percent_kinds(t) == ["ref", "bare"]
    assert t.percents[1].name == "clock"
    assert text[t.percents[1].start : t.percents[1].end] == "%clock"
    assert t.instructions[0].operands[1].kind == "special"


def test_modifier_ref_alone() -> None:
    t = parse_template("%n1", True)
    (p,) = t.percents
    assert (p.kind, p.modifier, p.index, p.start, p.end) == ("ref", "n", 1, 0, 3)


def test_trailing_percent() -> None:
    text = "add.u32 %0, %1, %2; %"
    t = parse_template(text, True)
    assert percent_kinds(t) == ["ref", "ref", "ref", "trailing"]
    assert (t.percents[-1].start, t.percents[-1].end) == (20, 21)
    assert t.instructions[0].mnemonic == "add.u32"


# --------------------------------------------------------------------------- percent tokens


@pytest.mark.parametrize(
    ("text", "kind", "index", "modifier", "name"),
    [
        ("%0", "ref", 0, "", ""),
        ("%12", "ref", 12, "", ""),
        ("%c0", "ref", 0, "c", ""),
        ("%a2", "ref", 2, "a", ""),
        ("%x1", "ref", 1, "x", ""),
        ("%w0", "ref", 0, "w", ""),
        ("%P1", "ref", 1, "P", ""),
        ("%l0", "ref", 0, "l", ""),
        ("%r1", "ref", 1, "r", ""),  # one letter + digits: GCC reads a modifier
        ("%%", "escape", None, "", ""),
        ("%=", "unique", None, "", ""),
        ("%[val]", "named", None, "", "val"),
        ("%clock", "bare", None, "", "clock"),
        ("%laneid", "bare", None, "", "laneid"),
        ("%rd1", "bare", None, "", "rd1"),  # two letters: not a modifier
        ("%pm0", "bare", None, "", "pm0"),
    ],
)
def test_extended_percent_kinds(
    text: str, kind: str, index: int | None, modifier: str, name: str
) -> None:
    t = parse_template(f"mov.u32 {text}, 1;", True)
    (p,) = t.percents
    assert (p.kind, p.index, p.modifier, p.name) == (kind, index, modifier, name)
    assert (p.start, p.end) == (8, 8 + len(text))


def test_escape_then_register_names() -> None:
    text = "mov.u32 %0, %%tid.x; mov.u32 %1, %%r1; mov.u64 %2, %%clock64;"
    t = parse_template(text, True)
    assert percent_kinds(t) == ["ref", "escape", "ref", "escape", "ref", "escape"]
    ops = [i.operands[1] for i in t.instructions]
    assert kinds(tuple(ops)) == ["special", "register", "special"]
    assert [o.text for o in ops] == ["%%tid.x", "%%r1", "%%clock64"]


def test_tid_dot_x_bare_name() -> None:
    t = parse_template("mov.u32 %0, %tid.x;", True)
    assert t.percents[1].name == "tid"
    assert t.instructions[0].operands[1].kind == "special"


def test_named_operand_reference() -> None:
    t = parse_template("mov.b32 %[out], %[in];", True)
    assert [(p.kind, p.name) for p in t.percents] == [("named", "out"), ("named", "in")]
    (ins,) = t.instructions
    assert kinds(ins.operands) == ["ref", "ref"] and ins.operands[0].ref is None


def test_unterminated_named_reference() -> None:
    t = parse_template("mov.b32 %0, %[in", True)
    assert t.percents[-1].kind == "named"
    assert any("%[" in p.message for p in t.problems)


def test_lone_percent_mid_template_is_bare_without_name() -> None:
    t = parse_template("mov.u32 %0, % 1;", True)
    assert [(p.kind, p.name) for p in t.percents] == [("ref", ""), ("bare", "")]


def test_basic_asm_percents() -> None:
    text = "mov.u32 %r1, %clock; mov.u32 %0, %%r2;"
    t = parse_template(text, False)
    # %clock and %r1 are ordinary PTX in basic asm; %0 is no operand; %% is flagged as escape.
    assert [(p.kind, p.name) for p in t.percents] == [("bare", "0"), ("escape", "")]
    first, second = t.instructions
    assert kinds(first.operands) == ["register", "special"]
    assert second.operands[0].kind == "register" and second.operands[0].ref is None


def test_percents_everywhere_but_comments() -> None:
    text = ".reg .b32 r_%=; // %5 {\n/* %6 } */ @%0 bra L%=;"
    t = parse_template(text, True)
    assert [p.kind for p in t.percents] == ["unique", "ref", "unique"]
    assert t.braces == ()
    assert len(t.comments) == 2
    (ins,) = t.instructions
    assert ins.predicate is not None and ins.predicate.register.ref == 0


# --------------------------------------------------------------------------- structure


def test_comments_hide_everything() -> None:
    text = "mov.u32 %0, 1; // { add ; }\n/* } ; ld */ st.u32 [%1], %0;"
    t = parse_template(text, True)
    assert t.comments == ((15, 27), (28, 40))
    assert t.braces == ()
    assert [i.opcode for i in t.instructions] == ["mov", "st"]


def test_comment_inside_instruction() -> None:
    text = "add.u32 %0, /* why */ %1, 2;"
    (ins,) = parse_template(text, True).instructions
    assert kinds(ins.operands) == ["ref", "ref", "immediate"]


def test_unterminated_block_comment() -> None:
    text = "mov.u32 %0, 1; /* {"
    t = parse_template(text, True)
    assert t.comments == ((15, len(text)),)
    assert t.braces == ()
    assert [p.message for p in t.problems] == ["unterminated '/*' comment"]


def test_hash_lines_are_read_as_comments_and_are_problems() -> None:
    # PTX has no '#' comment (ptxas 13.0: "Parsing error near '#'"): a '#' where a statement
    # starts runs to the end of its line, so what follows parses as written
    text = "{\n  # load %0\n  ld.global.u32 %0, [%1]; # then add\n  add.u32 %0, %0, 1;\n}"
    t = parse_template(text, True)
    first, second = text.index("# load"), text.index("# then")
    assert t.comments == ((first, text.index("\n", first)), (second, text.index("\n", second)))
    assert [i.opcode for i in t.instructions] == ["ld", "add"]
    assert [(p.kind, p.start) for p in t.problems] == [
        ("hash-comment", first), ("hash-comment", second)]
    assert [p.index for p in t.percents] == [0, 1, 0, 0]  # not the %0 of "# load %0"


def test_hash_inside_an_instruction_is_no_comment() -> None:
    # only where a statement would start: elsewhere it stays in the text
    t = parse_template("mov.u32 %0, 1 # 2;", True)
    assert t.comments == ()
    assert not [p for p in t.problems if p.kind == "hash-comment"]


def test_comments_of_both_kinds_in_order() -> None:
    text = "# a\nmov.u32 %0, 1; // b\n# c\n"
    t = parse_template(text, True)
    assert [text[s:e] for s, e in t.comments] == ["# a", "// b", "# c"]


def test_brace_depths_and_balance_problems() -> None:
    t = parse_template("{ { mov.u32 %0, 1; } }", True)
    assert [(b.char, b.depth) for b in t.braces] == [("{", 1), ("{", 2), ("}", 2), ("}", 1)]
    assert t.instructions[0].depth == 2
    t = parse_template("} {", True)
    assert [(b.char, b.depth) for b in t.braces] == [("}", 0), ("{", 1)]
    assert sorted(p.message for p in t.problems) == ["unclosed '{'", "unmatched '}'"]


def test_missing_semicolon_before_brace_and_end() -> None:
    text = "{ mov.u32 %0, 1 }\nadd.u32 %0, %0, 1"
    t = parse_template(text, True)
    first, second = t.instructions
    assert not first.terminated and text[first.start : first.end] == "mov.u32 %0, 1"
    assert not second.terminated and second.end == len(text)
    assert second.depth == 0


def test_statement_spans_lines() -> None:
    text = "add.u32 %0,\n        %1,\n        %2;"
    (ins,) = parse_template(text, True).instructions
    assert [o.ref for o in ins.operands] == [0, 1, 2] and ins.terminated


def test_labels() -> None:
    text = "$L__BB0_1: L2:\nmov.u32 %0, 1;\n{ Lx_%=: ret; }"
    t = parse_template(text, True)
    assert [(lb.name, lb.depth) for lb in t.labels] == [("$L__BB0_1", 0), ("L2", 0), ("Lx_%=", 1)]
    assert [i.opcode for i in t.instructions] == ["mov", "ret"]


def test_label_before_scope_brace() -> None:
    t = parse_template("L1: {\n mov.b64 {%0,%1}, %2;\n}", True)
    assert [lb.name for lb in t.labels] == ["L1"]
    assert [(b.char, b.depth) for b in t.braces] == [("{", 1), ("}", 1)]
    assert t.instructions[0].operands[0].kind == "vector"


def test_double_colon_is_not_a_label() -> None:
    text = "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"  # noqa: E501
    t = parse_template(text, True)
    assert t.labels == ()
    (ins,) = t.instructions
    assert ins.opcode == "cp"
    assert ins.modifiers == (
        "async",
        "bulk",
        "tensor",
        "3d",
        "shared::cluster",
        "global",
        "mbarrier::complete_tx::bytes",
    )
    assert text[ins.opcode_start : ins.opcode_end] == ins.mnemonic
    addr = ins.operands[1]
    assert addr.kind == "address"
    assert kinds(addr.parts) == ["ref", "vector"]
    assert [p.ref for p in addr.parts[1].parts] == [2, 3, 4]


def test_digit_leading_modifiers() -> None:
    text = "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
    (ins,) = parse_template(text, True).instructions
    assert ins.modifiers == ("sync", "aligned", "m8n8", "x4", "shared", "b16")
    (ins,) = parse_template("add.rn.f16x2 %0, %1, %2;", True).instructions
    assert ins.modifiers == ("rn", "f16x2")


def test_directives() -> None:
    text = (
        ".reg .b32 r<4>;\n.reg .pred p, q;\n.pred z;\n"
        ".shared .align 16 .b8 buf[128];\n.local .u32 loc;\n.param .b64 prm;\n"
        '.pragma "nounroll";'
    )
    t = parse_template(text, False)
    assert [(d.name, d.declared) for d in t.directives] == [
        (".reg", ("r<4>",)),
        (".reg", ("p", "q")),
        (".pred", ("z",)),
        (".shared", ("buf",)),
        (".local", ("loc",)),
        (".param", ("prm",)),
        (".pragma", ()),
    ]
    assert t.instructions == ()
    assert_in_bounds(t, text)


def test_directive_initializer_braces_are_not_scopes() -> None:
    t = parse_template(".global .u32 tab[2] = {1, 2};", False)
    assert t.braces == () and t.directives[0].declared == ("tab",)


# --------------------------------------------------------------------------- operands


def test_address_forms() -> None:
    (ins,) = parse_template("ld.shared.u32 %0, [%1+16]; ", True).instructions
    addr = ins.operands[1]
    assert [(p.kind, p.text) for p in addr.parts] == [("ref", "%1"), ("immediate", "16")]
    (ins,) = parse_template("ld.shared.u32 %0, [%1 + -4];", True).instructions
    assert [p.text for p in ins.operands[1].parts] == ["%1", "-4"]
    (ins,) = parse_template("ld.shared.u32 %0, [buf];", True).instructions
    assert ins.operands[1].parts[0].kind == "register"


def test_immediates() -> None:
    text = "foo %0, -1, 0x1F, 0f3F800000, 0d3FF0000000000000, 1.0, 1.5e-3, 16U, 7;"
    (ins,) = parse_template(text, True).instructions
    assert kinds(ins.operands) == ["ref"] + ["immediate"] * 8
    assert ins.operands[1].text == "-1"


def test_negation_sink_and_other() -> None:
    text = "foo !p, _, {_, %0}, a.b, 12abc;"
    (ins,) = parse_template(text, True).instructions
    neg, sink, vec, dotted, junk = ins.operands
    assert neg.negated and neg.kind == "register" and neg.text == "!p"
    assert sink.kind == "other"
    assert kinds(vec.parts) == ["other", "ref"]
    assert dotted.kind == "other" and junk.kind == "other"


def test_special_registers() -> None:
    names = [
        "%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi", "%tid.x",
        "%ntid.y", "%ctaid.z", "%nctaid.x", "%laneid", "%warpid", "%nwarpid", "%smid",
        "%nsmid", "%gridid", "%lanemask_eq", "%lanemask_lt", "%pm0", "%pm7", "%pm3_64",
        "%envreg0", "%envreg31", "%dynamic_smem_size", "%total_smem_size",
        "%aggr_smem_size", "%reserved_smem_offset_begin", "%cluster_ctarank",
        "%is_explicit_cluster", "%current_graph_exec", "%nclusterid.x",
    ]  # fmt: skip
    for name in names:
        (ins,) = parse_template(f"mov.u32 %0, %{name};", True).instructions
        assert ins.operands[1].kind == "special", name
        (ins,) = parse_template(f"mov.u32 r, {name};", False).instructions
        assert ins.operands[1].kind == "special", name
    for name in ["%envreg32", "%pm8", "%tidx", "%r1"]:
        (ins,) = parse_template(f"mov.u32 r, {name};", False).instructions
        assert ins.operands[1].kind == "register", name


def test_hole_makes_instruction_opaque() -> None:
    text = f"ld.global.{HOLE} %0, [%1];\nmov.u32 %0, {HOLE};\nadd.u32 %0, %1, 2;"
    t = parse_template(text, True)
    ld, mov, add = t.instructions
    assert ld.opaque and ld.modifiers == ("global", HOLE)
    assert mov.opaque and mov.operands[1].kind == "opaque"
    assert not add.opaque
    assert_in_bounds(t, text)


def test_whole_instruction_hole() -> None:
    t = parse_template(HOLE, True)
    assert t.instructions[0].opaque and t.problems == ()


def test_splice_in_mnemonic_is_opaque() -> None:
    (ins,) = parse_template("ld.global.%2 %0, [%1];", True).instructions
    assert ins.opaque


def test_unterminated_brackets() -> None:
    t = parse_template("ld.global.u32 %0, [%1;", True)
    assert t.instructions[0].terminated
    assert [p.message for p in t.problems] == ["unterminated '['"]
    t = parse_template("mov.b64 {%0, %1;", True)
    assert t.instructions[0].operands[0].kind == "vector"
    assert [p.message for p in t.problems] == ["unterminated '{'"]
    assert t.braces == ()


def test_mismatched_closers() -> None:
    t = parse_template("ld.u32 %0, [%1, {%2];", True)
    assert "unterminated '{'" in [p.message for p in t.problems]
    assert t.instructions[0].operands[1].kind == "address"


def test_empty_and_blank() -> None:
    for text in ["", "   \n\t ", ";;;", "\n;\n"]:
        assert parse_template(text, True) == PtxTemplate()
        assert parse_template(text, False) == PtxTemplate()


def test_garbage_is_a_problem_not_an_instruction() -> None:
    t = parse_template("123 456;", True)
    assert t.instructions == ()
    assert len(t.problems) == 1


def test_big_template() -> None:
    block = (
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %1, 0;\n\t@p mov.u32 %0, 1;\n}\n"
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13}; // note\n"
    )
    text = block * 60
    t = parse_template(text, True)
    assert len(text) > 10_000
    assert len(t.instructions) == 180 and len(t.directives) == 60 and len(t.comments) == 60
    assert t.problems == ()
    assert_in_bounds(t, text)


# --------------------------------------------------------------------------- fuzz

_ALPHABET = [
    *'%{}[]();,.:@!|+-_=<> \n\t/*"0123456789abcfxLpr',
    HOLE,
    "%%",
    "%0",
    "%n1",
    "%=",
    "%[a]",
    "mov.u32 ",
    "//",
    "/*",
    "*/",
    "0x1f",
    "0f3F800000",
    ".reg .b32 ",
    "L1:",
    "::",
    "\u00e9",
]


def test_fuzz_never_raises_and_stays_in_bounds() -> None:
    rng = random.Random(20240611)
    for i in range(3000):
        text = "".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(0, 40)))
        extended = bool(i & 1)
        t = parse_template(text, extended)
        assert_in_bounds(t, text)
        depth = 0
        for b in t.braces:
            if b.char == "{":
                depth += 1
                assert b.depth == depth
            elif depth:
                assert b.depth == depth
                depth -= 1
            else:
                assert b.depth == 0


@pytest.mark.parametrize(
    "text",
    [
        "[" * 3000,
        "{" * 3000,
        "mov " + "{" * 3000,
        "mov " + "[{(" * 1000,
        "%" * 5000,
        "!" * 5000 + "p",
        "mov " + "-" * 5000,
        "mov {a}," * 1000,
        "a|" * 3000,
        "/*" * 3000,
        "@" * 3000,
        "}" * 3000,
    ],
)
def test_pathological_inputs(text: str) -> None:
    for extended in (True, False):
        assert_in_bounds(parse_template(text, extended), text)


def test_modifiers_after_a_space_belong_to_the_mnemonic() -> None:
    # ptxas accepts `prmt .b32 ...`; CUTLASS's mixed_input_utils.hpp writes it so.
    (inst,) = parse_template("prmt .b32 %0, %1, %2, 0x5410;", True).instructions
    assert (inst.opcode, inst.modifiers) == ("prmt", ("b32",))
    assert [o.text for o in inst.operands] == ["%0", "%1", "%2", "0x5410"]


def test_constant_expressions_are_one_operand() -> None:
    # ptxas 13.0 takes `(0xf0 & 0xcc) ^ 0xaa` as lop3's immediate (JAX's fragmented_array.py)
    for text, operand in (
        ("lop3.b32 $0, $1, 0x0F, 0x43, (0xf0 & 0xcc) ^ 0xaa;", "(0xf0 & 0xcc) ^ 0xaa"),
        ("add.u32 $0, $1, 1 << 4;", "1 << 4"),
        ("add.u32 $0, $1, 2*3;", "2*3"),
    ):
        parsed = parse_template(text, True, "llvm")
        assert parsed.problems == ()
        assert parsed.instructions[0].operands[-1].text == operand


def test_a_product_inside_a_sum_is_one_term_of_it() -> None:
    # uDeviceX's `ld.shared.f32 scan9, [array + 9*8 + 4]` (ptxas 13.0 takes it): the sum goes
    # on after the product, wherever the product stands
    for text, parts in (
        ("ld.shared.f32 %0, [a + 9*8 + 4];", ["a", "9*8", "4"]),
        ("ld.shared.f32 %0, [9*8 + a];", ["9*8", "a"]),
        ("ld.shared.f32 %0, [a + 4 + 2*4*2];", ["a", "4", "2*4*2"]),
    ):
        parsed = parse_template(text, True)
        assert parsed.problems == (), text
        assert [p.text for p in parsed.instructions[0].operands[-1].parts] == parts
    assert [p.message for p in parse_template("add.u32 %0, a b;", True).problems] == [
        "missing ',' between operands"]


def test_a_dangling_constant_operator_is_a_problem() -> None:
    parsed = parse_template("add.u32 $0, $1, 2 ^;", True, "llvm")
    assert [p.message for p in parsed.problems] == ["missing operand after '^'"]


@pytest.mark.parametrize("text, word", [
    ("mov.b32 %0, %1\nabs.s %0", "abs.s"),  # the last '.' of the statement, one letter after it
    ("mov.b32 %0, %1\n@p cvt.u32.u64 %0, %1;", "cvt.u32.u64"),
    ('mov.b32 %0, %1' 'cvt.u32.u64 %0, %1;', "cvt.u32.u64"),  # glued by adjacent string pieces
])
def test_an_opcode_after_a_missing_semicolon_is_found_up_to_the_last_dot(text: str,
                                                                         word: str) -> None:
    t = parse_template(text, True)
    assert [p.message for p in t.problems if "missing ';'" in p.message] == [
        f"missing ';' before '{word}' "
        + ("right after it" if "%1cvt" in text else "on the next line")]
    assert len(t.instructions) == 2


def test_a_vector_after_a_missing_semicolon_is_the_next_instructions_operand() -> None:
    """The brace is read as it is with the ';': a vector operand, not a scope that leaves the
    instruction without operands (PTX207 would echo PTX205's one defect)."""
    text = "{.reg .pred q;\nsetp.ne.u32 q, %1, 0\n@q st.global.v2.u32 [%0], {%1, %2};}"
    t = parse_template(text, True)
    assert [p.kind for p in t.problems] == ["separator"]
    store = t.instructions[-1]
    assert store.opcode == "st" and [o.kind for o in store.operands] == ["address", "vector"]
    assert len(t.braces) == 2  # the template's own scope only
    # a brace alone on the line after an unterminated instruction still opens a scope
    scoped = parse_template("bar.sync 0\n{\n.reg .u32 t;\nmov.u32 t, 1;\n}", True)
    assert len(scoped.braces) == 2


def test_a_missing_semicolon_before_a_vector_is_one_finding_outside_device_code() -> None:
    """DeepGEMM's predicated 256-bit load with the setp's ';' deleted, in a function whose
    specifier macro is unknown: the template is still PTX (``%0`` starts no instruction of any
    assembler), and the missing ';' is PTX205's alone."""
    code = (
        "MACRO_DEVICE void f(long long* p, int c, long long& a, long long& b) {\n"
        '  asm volatile("{\\n .reg .pred p;\\n setp.ge.s32 p, %3, 0\\n"\n'
        '      " @p ld.global.v2.s64 {%0, %1}, [%2];\\n}"\n'
        '      : "+l"(a), "+l"(b) : "l"(p), "r"(c) : "memory");\n}\n'
    )
    assert [f.rule for f in lint_text(code, path="f.cuh")] == ["PTX205"]


def test_an_instruction_running_into_the_next_piece_is_one_finding() -> None:
    """CUB's strong store with the cvt's ';' deleted: the later piece starts with a blank, so
    ptxas reads `cvt.u8.u16 datum, %1 st.release.gpu.u8 [%0], datum` as one instruction. Its
    operand count (PTX207) is the missing ';' (PTX205), and the message shows the blank."""
    code = (
        "__device__ void f(unsigned char* ptr, unsigned char val) {\n"
        '  asm volatile("{" " .reg .u8 datum;" " cvt.u8.u16 datum, %1"\n'
        '               " st.release.gpu.u8 [%0], datum;" "}"\n'
        '               : : "l"(ptr), "h"((unsigned short) val) : "memory");\n}\n'
    )
    [finding] = lint_text(code)
    assert finding.rule == "PTX205" and "runs into it ('%1 st')" in finding.message


@pytest.mark.parametrize("text, word", [
    ("membar.sys st.volatile.global.u64 [%0], %1;", "st.volatile.global.u64"),
    ("cvta.to.shared.u64 p1, %1 cvt.u32.u64 %0, p1;", "cvt.u32.u64"),
    ("mov.u32 %0, %1 @p add.u32 %0, %0, 1;", "add.u32"),
])
def test_an_opcode_after_an_operand_and_a_blank_starts_another_instruction(
        text: str, word: str) -> None:
    t = parse_template(text, True)
    assert [p.message for p in t.problems] == [f"missing ';' before '{word}' on the same line"]
    assert len(t.instructions) == 2


def test_a_guarded_bare_branch_on_the_next_line_starts_another_instruction() -> None:
    """A spin-wait whose wait lost its ';': `@!P bra L` has no '.' after its word, so the
    search that stops at the last '.' does not reach it; the word at a line's start says it
    starts one."""
    text = "{\n.reg .pred P;\nL:\nmbarrier.try_wait.parity.shared.b64 P, [%0], %1\n@!P bra L;\n}"
    t = parse_template(text, True)
    assert [p.message for p in t.problems] == ["missing ';' before 'bra' on the next line"]
    assert [i.opcode for i in t.instructions] == ["mbarrier", "bra"]
    assert parse_template(text.replace("%1\n", "%1;\n"), True).problems == ()
    # unguarded too; a label named like one (`exit:`) and an unguarded call start none
    assert [p.message for p in parse_template("mov.u32 %0, %1\nret;", True).problems] == [
        "missing ';' before 'ret' on the next line"]
    assert parse_template("@p bra exit;\nmov.u32 %0, 1;\nexit:\n", True).problems == ()
    assert not any(p.kind == "separator" for p in
                   parse_template("call (%0), f,\n(%1);", True).problems)


def test_a_label_on_the_next_line_starts_another_statement() -> None:
    """A compare-and-swap loop whose load lost its ';' before the label: `retry:` starts a
    statement, so the load ends at its line and the label is the loop's (PTX205's one
    finding, not a load with a stray word, PTX207)."""
    text = ("{\n.reg .pred p;\nld.f32 e, [%1]\nretry:\natom.global.cas.b32 %0, [%1], e, %2;\n"
            "setp.ne.b32 p, %0, e;\n@p bra retry;\n}")
    t = parse_template(text, True)
    assert [p.message for p in t.problems] == ["missing ';' before 'retry' on the next line"]
    assert [i.opcode for i in t.instructions] == ["ld", "atom", "setp", "bra"]
    assert [label.name for label in t.labels] == ["retry"]
    assert parse_template(text.replace("[%1]\n", "[%1];\n"), True).problems == ()
    # `::` is a state space's, no label's
    assert parse_template("cvta.to.shared\n::cta.u64 %0, %1;", True).problems == ()


@pytest.mark.parametrize("text", [
    "@p bra.uni L1;", "@%p1 mov.u32 %0, %tid.x;", "prmt .b32 %0, %1, %2, 0x3210;",
    "add.f32 %0, %1, 0f3F800000;", "tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [tex, {%4, %5}];",
])
def test_a_guard_a_special_register_or_a_spaced_type_starts_none(text: str) -> None:
    t = parse_template(text, True)
    assert t.problems == () and len(t.instructions) == 1


def test_operand_lines_without_a_dotted_word_hold_no_missing_semicolon() -> None:
    text = "wgmma.fence.sync.aligned {%0,\n %1}, desc\n, p, 1\n, %2;"
    assert not any("missing ';'" in p.message for p in parse_template(text, True).problems)


def test_guard_after_a_branch_is_a_predicate_register_whatever_was_parsed_before() -> None:
    """The guard of an instruction that follows a ``bra`` is a register, not a label, whether
    the ``bra``'s operands were read here or taken from an earlier template's reading."""
    from ptxlint.ptx import parser

    text = "@p bra L1;\n@q bra L2;\n@!r add.u32 %0, %0, 1;"
    fresh = parse_template(text, True)
    parse_template("@p bra L1;", True)  # the first operand list is now known
    parser._STATEMENTS.clear()
    again = parse_template(text, True)
    for template in (fresh, again):
        guards = [i.predicate for i in template.instructions]
        assert [g.register.kind for g in guards if g is not None] == ["register"] * 3
        assert [o.kind for o in template.instructions[1].operands] == ["label"]


@pytest.mark.parametrize(
    ("text", "problems"),
    [
        ("mov.u32 %0, %[a {add.u32 %0, %0, 1;}", ["unterminated '%['"]),
        ("mov.u32 %[v], [%[a]] {add.u32 %0, %0, 1;}", []),
        ("mov.u32 %0, %%r1 {add.u32 %0, %0, 1;}", []),
        ("mov.u32 %0, [%1] {add.u32 %0, %0, 1;}", []),
    ],
)
def test_scan_skips_named_and_escaped_percents_whole(text: str, problems: list[str]) -> None:
    """The statement scan skips a ``%[name]`` (even unterminated) or ``%%`` whole: its ``[``
    opens no address, so a ``{`` after it, not in operand position, opens a scope, as it does
    after ``%N`` operands."""
    t = parse_template(text, True)
    assert [i.opcode for i in t.instructions] == ["mov", "add"]
    assert [(b.char, b.depth) for b in t.braces] == [("{", 1), ("}", 1)]
    assert [p.message for p in t.problems] == problems


def test_the_scan_meets_each_structure_character_in_text_order() -> None:
    """The statement scan meets the braces, semicolons and brackets found one character kind
    at a time (``str.find``) in text order, exactly where one pattern of them all matches;
    in extended asm that spells ``%%`` or ``%[name]``, those tokens are skipped whole, a
    bracket of theirs included. Random texts of mostly structure characters and percents."""
    import re

    from ptxlint.ptx import parser

    rng = random.Random(23)
    alphabet = ["{", "}", ";", "[", "]", "%", "%%", "%[a]", "%[", "]", "a", " ", "\n", "%0"]
    for _ in range(3000):
        masked = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 30)))
        assert parser._structure(masked) == [m.start() for m in re.finditer(r"[{};\[\]]",
                                                                            masked)], masked
        expected, pos = [], 0
        while (m := re.compile(r"[{};\[\]]|%(?:%|\[[\w$]*\]?)").search(masked, pos)):
            if masked[m.start()] != "%":
                expected.append(m.start())
            pos = m.end()
        assert parser._percent_scan(masked) == expected, masked


def test_one_instruction_reads_as_the_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    """A template that is one instruction and its ';' is read by one match
    (``_one_instruction``) exactly as the statement scan reads it: random one-instruction-like
    texts (labels, guards, a mnemonic going on after a space, two instructions missing their
    ';' on one line or two, holes, splices, comments, vectors and scope braces) parsed both
    ways, from cold tables."""
    from ptxlint.ptx import parser

    pieces = ["%0", "%12", "%r1", "%[a]", "%%", "%=", "[", "]", ",", ":", " ", "\t", "\n", ".",
              "@p ", "!", "-", "+", "|", "0x1f", "16", HOLE, "]cvt.u32", "1mov.b32", "//",
              "\ncvt.rn.f32", " .b32", "L1:", "{", "}", "{%1, %2}", ", {", "= {", ";", "2",
              "x2"]
    mnemonics = ["ld.global.b32", "cvt.rn.f16x2.f32", "bra.uni", "st.global.v2.f32", "a.",
                 "ld%=.x", "ld.%1", "x.y" + HOLE, "prmt", "L.x", "mov"]
    rng = random.Random(36)
    texts = []
    for _ in range(4000):
        body = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 8)))
        texts.append((rng.choice(["", " ", "\n\t"]) + rng.choice(mnemonics)
                      + rng.choice(["", " ", "  "]) + body + rng.choice([";", "; ", ";\n", ""]),
                      rng.random() < 0.8))

    def cold() -> None:
        for table in (parser._STATEMENTS, parser._REGIONS, parser._WORDS, parser._LEAVES):
            table.clear()
        parser._PLACES[0] = 0

    cold()
    fast = [parse_template(text, extended) for text, extended in texts]
    assert sum(len(t.instructions) == 1 for t in fast) > 1000
    monkeypatch.setattr(parser._Parser, "_one_instruction", lambda self: False)
    cold()
    for (text, extended), got in zip(texts, fast, strict=True):
        assert parse_template(text, extended) == got, text


def test_long_blank_runs_stay_linear() -> None:
    """Blanks after a mnemonic and before a ';' cost linear time: the one-instruction reading's
    two patterns give nothing back to try again (Python 3.10 has no possessive repeats), and
    an operand list's last blanks are no place a token starts (each start tried every blank to
    the end: 100,000 took a minute)."""
    import time

    for text in ("ld.global.b32" + " " * 200_000 + "a;;",
                 "ld.x" + " " * 100_000 + "{a}" + " " * 100_000 + ";;",
                 "ld." + "a.b" * 50_000 + " x;;"):
        began = time.process_time()
        parsed = parse_template(text, True)
        assert time.process_time() - began < 5, text[:20]
        assert parsed.instructions


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("add.u32 %0, %0, 1\nmov.u32 %1, %0;", "separator"),
        ("add.u32 %0, , 1;", "operand-list"),
        ("ld.u32 %0, [%1] [%2];", "operand-list"),
        ("add.u32 %0, %1,;", "operand-list"),
        ("add.u32 %0, %1, 1; /* open", "syntax"),
        ("{ add.u32 %0, %1, 1;", "syntax"),
    ],
)
def test_each_problem_says_its_kind(text: str, kind: str) -> None:
    # PTX205 reads the "separator" problems and PTX207 the "operand-list" ones, by this field
    problems = parse_template(text, True).problems
    assert problems and {p.kind for p in problems} == {kind}
