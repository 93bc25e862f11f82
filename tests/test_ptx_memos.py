"""The PTX layer's memos by text and by spelling give what the unmemoised paths give.

``parser._REGIONS`` keeps an operand list by its text and moves it to where a later template
spells it; ``percent_tokens._RUNS`` and ``_REF_TOKENS``, ``parser._WORDS`` and ``_LEAVES`` share
a run of ``%N`` tokens, a ``%N`` token or a leaf operand between the templates that have it at
the same offset; ``grammar._written_by_spelling`` answers ``written_positions`` from the instruction's
spelling alone when every form that spells it writes the same operands.
"""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Any

import pytest

from ptxlint.engine import extract_statements
from ptxlint.model import HOLE, PercentToken, PtxInstruction, PtxOperand, SourceFile
from ptxlint.ptx import flow, grammar, operand_check, parser, percent_tokens
from ptxlint.ptx.effects import _unknown_operand
from ptxlint.ptx.grammar import OperandClass, check, written_positions
from ptxlint.ptx.judge import judge
from ptxlint.ptx.operand_roles import destinations
from ptxlint.ptx.parser import parse_template


class _Forgetful(dict):  # type: ignore[type-arg]
    """A memo that keeps nothing: every operand list is read."""

    def __setitem__(self, key: object, value: object) -> None:
        pass


# The same operand lists at different offsets, in different syntaxes, after `bra` and after
# other opcodes, with comments, holes and problems inside, nested aggregates and signs.
_LISTS = [
    "%0, %1, %2",
    "{%0, %1, %2, %3}, [%4+16], %5, p",
    "[%0], [%1, {%2, %3}], [%4]",
    "L1",
    "%0|%1, %2, 0, 31, -1",
    "%0, -%1, !p, 0f3F800000, 1.5, 0x10U",
    "%0, /* c */ %1",
    "{%0, /* c */ %1}",  # the vector's text holds the comment; the masked text is blanks
    "{%0,         %1}",
    f"%0, {HOLE}, %1",
    "%0,, %1",
    "{%0, %1",
    "[%0+%1-4], (a, b), _",
    "%%r1, %%clock64, %rd1, %[name], %x3",
    "$0, ${1}, ${2:x}",
]
_PREFIXES = ["", "{\n .reg .pred p;\n ", "// lead\n", "@p ", "L0: "]
_OPCODES = ["mov.u32", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "bra", "bra.uni",
            "ld.global.v4.u32"]


def _templates() -> list[tuple[str, bool, str]]:
    out = []
    for operands in _LISTS:
        for prefix in _PREFIXES:
            for opcode in _OPCODES:
                text = f"{prefix}{opcode} {operands};\n{opcode} {operands}"
                for extended, syntax in ((True, "gnu"), (False, "gnu"), (True, "llvm")):
                    out.append((text, extended, syntax))
    random.Random(7).shuffle(out)
    return out


def test_operand_lists_from_the_memo_are_the_ones_read(monkeypatch: pytest.MonkeyPatch) -> None:
    templates = _templates()
    parser._REGIONS.clear()
    cold = [parse_template(*t) for t in templates]
    warm = [parse_template(*t) for t in templates]  # every list from the memo, moved
    monkeypatch.setattr(parser, "_REGIONS", _Forgetful())
    read = [parse_template(*t) for t in templates]
    assert cold == read
    assert warm == read


def test_shared_tokens_and_leaves_are_the_ones_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """``%N`` tokens, leaf operands and whole statements come from tables shared between
    templates: what a template gets from them equals what it makes without them."""
    templates = _templates()
    for table in (percent_tokens._RUNS, percent_tokens._REF_TOKENS, parser._WORDS,
                  parser._LEAVES, parser._STATEMENTS):
        table.clear()
    cold = [parse_template(*t) for t in templates]
    warm = [parse_template(*t) for t in templates]  # tokens and leaves from the tables
    for name in ("_RUNS", "_REF_TOKENS"):
        monkeypatch.setattr(percent_tokens, name, _Forgetful())
    for name in ("_WORDS", "_LEAVES", "_REGIONS", "_STATEMENTS"):
        monkeypatch.setattr(parser, name, _Forgetful())
    made = [parse_template(*t) for t in templates]
    assert cold == made
    assert warm == made


def test_one_instruction_at_one_place_is_one_object_judged_per_template() -> None:
    """Templates that spell the same instruction at the same place share its object; its
    verdict still follows each template's own register declarations."""
    code = """
__device__ unsigned f(unsigned x) {
  unsigned y;
  asm("{.reg .f32 r; add.u32 %0, r, %1;}" : "=r"(y) : "r"(x));
  asm("{.reg .u32 r; add.u32 %0, r, %1;}" : "=r"(y) : "r"(x));
  return y;
}
"""
    first, second = extract_statements(SourceFile("t.cu", code)).statements
    a, b = first.ptx.instructions[-1], second.ptx.instructions[-1]
    assert a is b and first.ptx.directives[0] is not second.ptx.directives[0]
    assert judge(first, a).status == "error" and judge(second, b).status == "ok"
    assert judge(first, a).status == "error"  # the second verdict took no other's place


def test_a_list_met_again_at_an_offset_is_the_one_moved_there() -> None:
    """A list moved to an offset is kept there: the next template that spells it at that
    offset shares it, and it is what reading it there gives."""
    parser._REGIONS.clear()
    parse_template("mov.u32 {%0, %1}, [%2+4];", True)
    moved = parse_template("cvt.rn.f32 {%0, %1}, [%2+4];", True).instructions[0].operands
    again = parse_template("add.rn.f32 {%0, %1}, [%2+4];", True).instructions[0].operands
    assert moved[0].start == len("cvt.rn.f32 ") and again is moved
    parser._REGIONS.clear()
    assert parse_template("add.rn.f32 {%0, %1}, [%2+4];", True).instructions[0].operands == moved


def test_the_kept_lists_are_bounded_at_all_their_offsets(monkeypatch: pytest.MonkeyPatch) -> None:
    """``_REGIONS`` holds at most ``_REGIONS_MAX`` lists, counting each offset a list is kept
    at, and what it gives after being cleared is what reading gives."""
    monkeypatch.setattr(parser, "_REGIONS_MAX", 5)
    parser._REGIONS.clear()
    parser._PLACES[0] = 0
    texts = [f"{'x' * k}mov.u32 {{%0, %{n}}}, %2;" for n in range(3) for k in range(4)]
    kept = [parse_template(text, True) for text in texts]
    assert sum(len(placed) for placed in parser._REGIONS.values()) <= 5
    monkeypatch.setattr(parser, "_REGIONS", _Forgetful())
    assert kept == [parse_template(text, True) for text in texts]


def test_one_reference_at_one_offset_is_one_object() -> None:
    """Two templates that spell the same ``%N`` (or the same register) at the same offset share
    its token and operand; each keeps its own where the offset differs."""
    first = parse_template("mov.u32 %0, r1;", True)
    second = parse_template("mov.b32 %0, r1;", True)
    third = parse_template("mov.b32  %0, r1;", True)
    assert first.percents[0] is second.percents[0]
    assert first.instructions[0].operands[0] is second.instructions[0].operands[0]
    assert first.instructions[0].operands[1] is second.instructions[0].operands[1]
    assert third.percents[0] is not second.percents[0]
    assert third.percents[0].start == second.percents[0].start + 1
    assert third.instructions[0].operands[1].start == second.instructions[0].operands[1].start + 1


def test_a_list_moved_from_the_memo_keeps_its_offsets() -> None:
    parser._REGIONS.clear()
    first = parse_template("mov.u32 {%0, %1}, [%2+4];", True)
    second = parse_template("wgmma.fence {%0, %1}, [%2+4];", True)
    assert len(parser._REGIONS) == 1  # the second list came from the memo
    [a], [b] = first.instructions, second.instructions
    delta = b.opcode_end - a.opcode_end

    def spans(operand: PtxOperand) -> list[tuple[str, int, int]]:
        return [(operand.text, operand.start, operand.end),
                *(s for part in operand.parts for s in spans(part))]

    for x, y in zip(a.operands, b.operands, strict=True):
        assert [(t, s + delta, e + delta) for t, s, e in spans(x)] == spans(y)
    text = "wgmma.fence {%0, %1}, [%2+4];"
    for operand in b.operands:
        assert text[operand.start : operand.end] == operand.text


# --------------------------------------------------------------------------- runs read whole

# The percent tokens as read one match per token (the reading before runs), for comparison.
_ONE_TOKEN = re.compile(
    r"%(?:(?P<esc>%)|(?P<uniq>=)|\[(?P<named>[\w$]*)(?P<close>\])?"
    r"|(?P<mod>[A-Za-z]?)(?P<idx>[0-9]+)|(?P<bare>[A-Za-z_$][\w$]*))?",
    re.ASCII,
)


def _token_by_token(masked: str) -> list[PercentToken]:
    out = []
    for m in _ONE_TOKEN.finditer(masked):
        group, (start, end) = m.lastgroup, m.span()
        if group == "idx":
            out.append(PercentToken("ref", start, end, int(m["idx"]), m["mod"]))
        elif group == "esc":
            out.append(PercentToken("escape", start, end))
        elif group == "uniq":
            out.append(PercentToken("unique", start, end))
        elif group in ("named", "close"):
            out.append(PercentToken("named", start, end, name=m["named"]))
        elif group == "bare":
            out.append(PercentToken("bare", start, end, name=m["bare"]))
        else:
            out.append(PercentToken("trailing" if end == len(masked) else "bare", start, end))
    return out


def _percent_soup(rng: random.Random) -> str:
    """Runs of ``%N`` broken, joined and ended by every other ``%`` token and separator."""
    pieces = ["%0", "%1", "%12", "%127", "%x1", "%H0", "%%", "%%r1", "%=", "%[a]", "%[b",
              "%clock", "%rd1", "%", " ", ", ", ",", "{", "}", "[", "]", "\n", "+", ";", ".",
              "r", "7", "/* %3, %4 */", "// %5\n", "mov.u32 "]
    return "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 40)))


def test_a_run_of_references_reads_as_each_reference_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run of plain ``%N`` is one match of the percent pattern and one entry of the run
    table: its tokens are the ones a match per token makes, in every neighbourhood, with the
    tables kept, cleared or keeping nothing."""
    rng = random.Random(13)
    texts = [_percent_soup(rng) for _ in range(3000)]
    texts += ["{" + ", ".join(f"%{i}" for i in range(n)) + "}, [%128], %129" for n in (1, 64, 128)]

    def expected(text: str) -> list[PercentToken]:
        masked = list(text)
        for start, end in parse_template(text, True).comments:
            masked[start:end] = " " * (end - start)
        return _token_by_token("".join(masked))

    wanted = [expected(text) for text in texts]
    assert sum(len(w) for w in wanted) > 10000
    for _ in range(2):  # the tables filled, then read
        assert [list(parse_template(t, True).percents) for t in texts] == wanted
    monkeypatch.setattr(percent_tokens, "_RUNS", _Forgetful())
    monkeypatch.setattr(percent_tokens, "_REF_TOKENS", _Forgetful())
    assert [list(parse_template(t, True).percents) for t in texts] == wanted


def test_the_run_table_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(percent_tokens, "_RUNS_MAX", 3)
    percent_tokens._RUNS.clear()
    texts = [f"{' ' * k}mov.u32 %0, %{n};" for k in range(3) for n in range(3)]
    made = [parse_template(text, True).percents for text in texts]
    assert len(percent_tokens._RUNS) <= 3
    percent_tokens._RUNS.clear()
    assert made == [parse_template(text, True).percents for text in texts]


# The operand tokens without the one for a whole vector of `%N`: a vector read brace by brace.
_BRACE_BY_BRACE = re.compile(
    rf"\s*(?:(?P<num>{parser._NUMBER})|(?P<word>{parser._WORD_EXTENDED})|(?P<punct>\S))",
    re.ASCII,
)


def test_a_vector_of_references_is_the_one_its_braces_and_words_make(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``{%0, ..., %N}`` is one operand token (``_ref_vector``): the vector, its elements, the
    problems and the operands around it are what reading its braces and words one by one
    gives, wherever it sits (addresses, pairs, sums, negations, nesting past the limit)."""
    rng = random.Random(17)
    vectors = ["{%0}", "{%0, %1}", "{ %0 ,%1 }", "{%0,\n %1, %2, %3}", "{%0, /* c */ %1}",
               "{%0,}", "{%0 %1}", "{%x0, %1}", "{" + ", ".join(f"%{i}" for i in range(128)) + "}"]
    around = ["{v}", "[{v}]", "[%5+{v}]", "!{v}", "-{v}", "{v}|{v}", "{v}+4", "{v}x", "{v} * 2",
              "{{v}, %3}", "[" * 33 + "{v}" + "]" * 33, "{v}, %4, p"]
    opcodes = ["mov.b32", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", "bra", "@p st"]
    texts = []
    for _ in range(400):
        operands = ", ".join(rng.choice(around).replace("{v}", rng.choice(vectors))
                             for _ in range(rng.randrange(1, 4)))
        texts.append(f"{rng.choice(opcodes)} {operands};")
    read_whole = []
    real = parser._Parser._ref_vector

    def counting(self: Any, start: int, end: int, depth: int) -> PtxOperand:
        read_whole.append(start)
        return real(self, start, end, depth)

    for name in ("_REGIONS", "_STATEMENTS", "_WORDS", "_LEAVES"):
        monkeypatch.setattr(parser, name, _Forgetful())
    monkeypatch.setattr(parser._Parser, "_ref_vector", counting)
    syntaxes = [(True, "gnu"), (False, "gnu"), (True, "llvm")]
    whole = [parse_template(text, *syntax) for text in texts for syntax in syntaxes]
    assert len(read_whole) > 200
    monkeypatch.setattr(parser, "_OPERAND_TOKEN_EXTENDED", _BRACE_BY_BRACE)
    assert whole == [parse_template(text, *syntax) for text in texts for syntax in syntaxes]


# --------------------------------------------------------------------------- written positions


def _spellings() -> list[str]:
    """A random spelling of every form (some slots left out, some words out of the form), with
    operands of every kind."""
    rng = random.Random(3)
    operands = ["%0", "{%0, %1, %2, %3}", "[%0]", "%0|%1", "_", "p", "1", "%0, %1", ""]
    out = []
    for form in grammar.forms():
        for _ in range(3):
            words = [rng.choice(s.values).word for s in form.slots
                     if not s.optional or rng.random() < 0.5]
            if rng.random() < 0.2:
                words.append(rng.choice(["u32", "f16", "sync", "shared"]))
            count = len(form.operands) + rng.choice([0, 0, 0, -1, 1])
            listed = ", ".join(rng.choice(operands) for _ in range(max(count, 0)))
            out.append(f"{form.opcode}{''.join('.' + w for w in words)} {listed};")
    return out


def _by_check(instruction: PtxInstruction, resolve: grammar.Resolver) -> tuple[int, ...] | None:
    verdict = check(instruction, resolve)
    return None if verdict.form is None else verdict.written


def _register(operand: PtxOperand) -> OperandClass:
    return OperandClass("reg", "b32") if operand.kind == "ref" else OperandClass("unknown")


def test_written_positions_by_spelling_are_the_checked_ones() -> None:
    for text in _spellings():
        for instruction in parse_template(text, True).instructions:
            for resolve in (_unknown_operand, _register):
                assert written_positions(instruction, resolve) == _by_check(
                    instruction, resolve), text


def test_forms_that_disagree_fall_back_to_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """No spelling in the grammar has forms that write different operands today; where one
    does, the operands decide, as ``check`` does."""
    monkeypatch.setattr(grammar, "_written_by_spelling", lambda opcode, modifiers: (False, None))
    for text in _spellings()[::7]:
        for instruction in parse_template(text, True).instructions:
            assert written_positions(instruction, _unknown_operand) == _by_check(
                instruction, _unknown_operand), text


def test_an_accepted_spelling_has_one_verdict() -> None:
    """Instructions that spell the same modifiers and whose operands fit get one verdict
    object, made once per match; it is the verdict a fresh match gives."""
    first = parse_template("add.u32 %0, %1, %2;", True).instructions[0]
    second = parse_template("add.u32 %3, %4, 7;", True).instructions[0]
    one, two = check(first, _register), check(second, _register)
    assert one.status == "ok" and one is two
    _, exact, _ = grammar._modifier_matches("add", ("u32",))
    fresh = grammar._Match(exact[0].form, dict(exact[0].binding), exact[0].need)
    assert grammar._accept(fresh) == one and grammar._accept(fresh) is fresh.accepted


def test_forms_found_by_word_masks_are_the_filtered_ones() -> None:
    """``_modifier_matches`` takes the forms that have every word from ``_word_masks``: the
    same forms, in the same order, as comparing the words with every form."""
    rng = random.Random(5)
    for form in grammar.forms():
        vocabulary = sorted(grammar.family_vocabulary(form.opcode))
        for _ in range(10):
            words = [rng.choice(s.values).word for s in form.slots
                     if not s.optional or rng.random() < 0.5]
            if rng.random() < 0.3 and vocabulary:  # (exit, trap: no modifier at all)
                words.append(rng.choice(vocabulary))
            if rng.random() < 0.3:
                rng.shuffle(words)
            modifiers = tuple(words)
            unknown, exact, _ = grammar._modifier_matches(form.opcode, modifiers)
            assert unknown is None
            every = frozenset(modifiers)
            filtered = [grammar._match_modifiers(f, modifiers) for f in grammar.forms(form.opcode)
                        if f.required_words <= every <= f.words]
            assert [m.form for m in exact] == [m.form for m in filtered if m.cost == 0]


def test_word_masks_read_slot_by_slot_are_each_forms_words() -> None:
    """``word_masks``, read off each distinct slot once, sets a form's bit on exactly the
    words that form has (``Form.words``), for every family."""
    from ptxlint.ptx import forms

    for opcode in forms._specs():
        expected: dict[str, int] = {}
        for i, form in enumerate(forms.forms(opcode)):
            for word in form.words:
                expected[word] = expected.get(word, 0) | 1 << i
        assert forms.word_masks(opcode) == expected, opcode


# --------------------------------------------------------------------------- flow


def _fixpoint(
    instructions: tuple[PtxInstruction, ...],
    written: list[list[tuple[int | None, str]]],
    successors: list[list[int]],
) -> tuple[frozenset[int] | None, tuple[frozenset[object] | None, ...]]:
    """``flow._definitely_written`` as it was: passes until nothing changes."""
    n = len(instructions)
    predecessors: list[list[int]] = [[] for _ in range(n + 1)]
    for i, succ in enumerate(successors):
        for j in succ:
            predecessors[j].append(i)
    out: list[frozenset[object] | None] = [None] * n

    def entry(j: int) -> frozenset[object] | None:
        known = [s for s in (out[p] for p in predecessors[j]) if s is not None]
        if j == 0:
            known.append(frozenset())
        if not known:
            return None
        result = known[0]
        for s in known[1:]:
            result &= s
        return result

    changed = True
    while changed:
        changed = False
        for i in range(n):
            state = entry(i)
            if state is not None:
                new = flow._transfer(state, instructions[i], written[i])  # type: ignore[arg-type]
                if new != out[i]:
                    out[i] = new
                    changed = True
    end = entry(n)
    entries = tuple(entry(i) for i in range(n))
    return (None if end is None else frozenset(f for f in end if isinstance(f, int))), entries


_FLOWS = [
    "@p mov.u32 %0, 1; @!p mov.u32 %0, 2; mov.u32 %1, %0;",
    "setp.ne.b32 p, %2, 0; @p bra L1; mov.u32 %0, 1; bra L2; L1: mov.u32 %0, 2; L2: ret;",
    "L0: add.u32 %0, %0, 1; setp.lt.u32 p, %0, 10; @p bra L0; mov.u32 %1, %0;",
    "mov.u32 %1, 0; L0: @q mov.u32 %0, 1; setp.ne.u32 q, %1, 1; @q bra L0; @!q mov.u32 %0, 3;",
    "@p bra L1; mov.u32 %0, 1; L1: @p exit; mov.u32 %1, 2;",
    "L1: @p bra L2; mov.u32 %0, 1; bra L1; L2: mov.u32 %1, %0;",
    # the loop writes q after its first instruction: the guarded write before the loop holds
    # at that instruction only on the first way in, which only a second pass sees
    "@q mov.u32 %0, 1; L0: mov.u32 %1, 2; setp.ne.u32 q, %1, 1; @q bra L0; @!q mov.u32 %0, 3;",
]


def test_one_pass_without_loops_is_the_fixpoint() -> None:
    for text in _FLOWS:
        ptx = parse_template(text, True)
        written = [[(o.ref if o.kind == "ref" else None, o.text) for o in destinations(i) or []]
                   for i in ptx.instructions]
        successors = flow._successors(ptx)
        assert successors is not None, text
        assert flow._definitely_written(ptx.instructions, written, successors) == _fixpoint(
            ptx.instructions, written, successors), text


def test_a_templates_paths_are_followed_when_first_asked_about(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``flow.analyze`` gives which instructions write each ``%N`` at once; the paths (what is
    written on every path, and on entry to each instruction) only when first read, and then
    they are what following them gives."""
    real = flow._definitely_written
    followed: list[object] = []

    def counting(*args: Any) -> Any:
        followed.append(args)
        return real(*args)

    monkeypatch.setattr(flow, "_definitely_written", counting)
    for text in _FLOWS:
        followed.clear()
        ptx = parse_template(text, True)
        analysis = flow._analyze(ptx, text)
        assert analysis is not None, text
        assert set(analysis.writes) <= {0, 1} and followed == []
        definite, entry = analysis.definite, analysis.entry
        analysis.written_before(0, 0, None)
        assert len(followed) == 1
        written = [[(o.ref if o.kind == "ref" else None, o.text) for o in destinations(i) or []]
                   for i in ptx.instructions]
        successors = flow._successors(ptx)
        assert successors is not None
        end, entries = real(ptx.instructions, written, successors)
        assert definite == (frozenset(analysis.writes) if end is None else end), text
        assert entry == entries, text


_WRITERS = [
    *_FLOWS,
    # a wgmma's accumulator: a vector of destinations, each %N written by one instruction
    "{ .reg .pred p; setp.ne.b32 p, %6, 0; wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
    "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0; }",
    # one %N written by several instructions, a register and a named operand among them
    "mov.u32 %0, 1; @p mov.u32 %0, 2; mov.u32 r, 3; mov.u32 %[out], 4; mov.u32 %1, %0;",
    # more destinations than flow makes a dictionary of at once: 40 accumulators, one of them
    # written again
    "{ .reg .pred p; setp.ne.b32 p, %43, 0; wgmma.mma_async.sync.aligned.m64n80k16.f32.f16.f16 "
    "{" + ", ".join(f"%{i}" for i in range(40)) + "}, %40, %41, p, 1, 1, 0, 0; "
    "mov.b32 %7, 0; }",
]


def test_the_writers_of_each_operand_are_the_destinations_in_text_order() -> None:
    """``WriteAnalysis.writes`` maps each ``%N`` to the instructions whose destinations name it,
    in text order; asking whether one is written makes no list of writers."""
    for text in _WRITERS:
        ptx = parse_template(text, True)
        analysis = flow._analyze(ptx, text)
        assert analysis is not None, text
        expected: dict[int, list[PtxInstruction]] = {}
        for instruction in ptx.instructions:
            for o in destinations(instruction) or ():
                if o.kind == "ref" and o.ref is not None:
                    expected.setdefault(o.ref, []).append(instruction)
        writes = analysis.writes
        lazy = len(expected) > flow._FEW_DESTINATIONS
        assert isinstance(writes, dict) != lazy, text
        for index in range(-1, 50):
            assert (index in writes) == (index in expected), (text, index)
        assert getattr(writes, "_lists", None) is None, text
        assert len(writes) == len(expected), text
        for index in range(50):
            assert writes.get(index) == expected.get(index), (text, index)
        assert dict(writes) == expected and list(writes) == list(expected), text
        if lazy:
            assert writes[7] == expected[7] and len(writes[7]) == 2, text
    assert any(len(parse_template(t, True).instructions) and
               not isinstance(getattr(flow._analyze(parse_template(t, True), t), "writes", {}),
                              dict) for t in _WRITERS)


# --------------------------------------------------------------------------- operand checks


_CLASSES = [OperandClass("reg", "f32"), OperandClass("reg", "b32"), OperandClass("reg", "b64"),
            OperandClass("reg", "b16"), OperandClass("unknown"), OperandClass("imm", "int", 1),
            OperandClass("imm", "int", None)]
_GMMA = [
    # the register-A form after the descriptor one, an accumulator of 4, 8 or 16
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
    "%8, p, 1, 1, 1;",
    "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7}, "
    "%8, %9, p, 1, -1, 0, 0;",
    "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, %6, p, 1, 1, "
    "1;",
    # elements that are no %N: a register, an immediate, the sink, a %N past the operands
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, r, 1, _}, %4, %5, p, 1, 1, 0, 0;",
    "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %99}, {%4, %5, %6, %7}, "
    "%8, p, 1, 1, 1;",
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
    "{%8, %9}, {%10, %11, %12, %13};",
]


def _class_lists() -> list[list[OperandClass]]:
    """Classes for %0..%15: all f32 (a float accumulator), all b32, and random ones."""
    rng = random.Random(11)
    return [[_CLASSES[0]] * 16, [_CLASSES[1]] * 16,
            *([rng.choice(_CLASSES) for _ in range(16)] for _ in range(4))]


def _instructions() -> list[PtxInstruction]:
    return [instruction for text in [*_GMMA, *_spellings()[::3]]
            for instruction in parse_template(text, True).instructions]


def test_a_vector_of_refs_is_judged_as_resolving_each_element_gives() -> None:
    """The checker reads a vector's ``%N`` elements from a ``RefClasses`` list in its own loop;
    the verdict is the one a resolver asked element by element gives."""
    for classes in _class_lists():
        listed = grammar.RefClasses(classes, _register)

        def one_by_one(operand: PtxOperand, listed: grammar.RefClasses = listed) -> OperandClass:
            return listed(operand)

        for instruction in _instructions():
            assert check(instruction, listed) == check(instruction, one_by_one), \
                instruction.mnemonic


def _dispatched(instruction: PtxInstruction, form: grammar.Form, binding: dict[str, str],
                resolve: grammar.Resolver, relaxed: bool) -> tuple[list[Any], bool]:
    """``check_operands`` for an operand list of the form's length, every operand through
    ``_check_one``'s dispatch."""
    issues: list[Any] = []
    for position, (operand, spec) in enumerate(zip(instruction.operands, form.operands,
                                                   strict=False)):
        found = operand_check._check_one(instruction, operand, spec, binding, resolve, relaxed,
                                         position)
        if found is None:
            return [], True
        issues.extend(found)
    return issues, False


def test_a_register_or_immediate_operand_is_checked_as_the_dispatch_checks_it() -> None:
    """``check_operands`` checks a register or immediate operand under a register or immediate
    spec without ``_check_one``'s dispatch (a ``%N``'s class read from a ``RefClasses`` list):
    its issues are the dispatch's, for every exact form of every spelling, relaxed or not, the
    classes listed or resolved one by one."""
    compared = 0
    for classes in _class_lists()[::2]:
        listed = grammar.RefClasses(classes, _register)

        def one_by_one(operand: PtxOperand, listed: grammar.RefClasses = listed) -> OperandClass:
            return listed(operand)

        for instruction in _instructions():
            operands = instruction.operands
            if instruction.opaque or any(o.kind in ("opaque", "other") for o in operands):
                continue  # answered before any operand is checked
            _, exact, _ = grammar._modifier_matches(instruction.opcode, instruction.modifiers)
            for m in exact:
                if (m.form.lax_vectors
                        or not m.form.required_operands <= len(operands) <= len(m.form.operands)):
                    continue  # answered before any operand is checked
                for resolve in (listed, one_by_one):
                    for relaxed in (False, True):
                        assert operand_check.check_operands(
                            instruction, m.form, m.binding, resolve, relaxed) == _dispatched(
                            instruction, m.form, m.binding, resolve, relaxed), instruction
                        compared += 1
    assert compared > 1000


def _vector_count_by_pattern(count: str, binding: dict[str, str]) -> int | None:
    """``vector_count`` as three patterns read it for each vector."""
    if count.isdigit():
        return int(count)
    m = re.match(r"([A-Za-z_]\w*)(?:([*/])([0-9]+))?\Z", count)
    if m is None:
        return None
    word = binding.get(m.group(1), "")
    size = (re.fullmatch(r"[vx]([0-9]+)", word) or re.fullmatch(r"m[0-9]+n([0-9]+)k[0-9]+", word)
            or re.fullmatch(r"([0-9])d", word))
    if size is None:
        return None
    base = int(size.group(1))
    if not m.group(2):
        return base
    factor = int(m.group(3))
    if m.group(2) == "*":
        return base * factor
    return base // factor if base % factor == 0 else None


def test_a_vectors_length_is_what_its_bound_word_says() -> None:
    """``vector_count`` keeps the length a count and a bound word give: for every vector of
    every form, each word its count's variable may be bound to (and an unbound or foreign
    one), the length the count's patterns read."""
    counts = {each.count for form in grammar.forms() for spec in form.operands
              for each in (spec, spec.element) if each is not None and each.count}
    words = {value.word for form in grammar.forms() for slot in form.slots if slot.var
             for value in slot.values} | {"", "v3", "x16", "m64n7k8", "4d", "u32"}
    assert any("/" in c for c in counts) and any("*" in c for c in counts)
    for count in sorted(counts) + ["S*3", "N/3", "7", "", "2S"]:
        variable = re.match(r"[A-Za-z_]\w*", count)
        for word in sorted(words):
            binding = {variable.group(): word} if variable else {}
            assert grammar.vector_count(count, binding) == _vector_count_by_pattern(
                count, binding), (count, word)


def test_forms_tried_in_turn_share_an_operands_answer_only_where_the_question_is_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``check`` tries a spelling's forms in turn and asks an operand's answer once for the
    forms that ask it the same way (spec, binding, relaxedness); the verdicts are those of
    checking each form on its own, and a wgmma's accumulator is checked once for its two
    forms."""
    verdicts = []
    instructions = _instructions()
    lists = _class_lists()
    for classes in lists:
        listed = grammar.RefClasses(classes, _register)
        verdicts.append([check(instruction, listed) for instruction in instructions])
    real = grammar.check_operands
    monkeypatch.setattr(grammar, "check_operands",
                        lambda instruction, form, binding, resolve, relaxed, checked=None:
                        real(instruction, form, binding, resolve, relaxed))
    for classes, shared in zip(lists, verdicts, strict=True):
        listed = grammar.RefClasses(classes, _register)
        alone = [check(instruction, listed) for instruction in instructions]
        assert alone == shared
    monkeypatch.setattr(grammar, "check_operands", real)
    asked: list[PtxOperand] = []
    real_one = operand_check._check_one

    def noting(instruction: PtxInstruction, operand: PtxOperand, *args: Any,
               **kwargs: Any) -> Any:
        asked.append(operand)
        return real_one(instruction, operand, *args, **kwargs)

    monkeypatch.setattr(operand_check, "_check_one", noting)
    register_a = parse_template(_GMMA[0], True).instructions[0]
    fitting = [_CLASSES[0]] * 4 + [_CLASSES[1]] * 4 + [_CLASSES[2]]
    verdict = check(register_a, grammar.RefClasses(fitting, _register))
    assert verdict.status == "ok" and verdict.form is not None and "{r:" in verdict.form.spec
    assert sum(1 for o in asked if o is register_a.operands[0]) == 1


def test_forms_of_one_mnemonic_are_matched_once_with_the_same_outcome() -> None:
    """The forms that spell one mnemonic share their slots, and ``_modifier_matches`` matches a
    spelling once for them: each form's match is the one matching it alone gives."""
    by_mnemonic: dict[str, list[grammar.Form]] = {}
    for form in grammar.forms():
        by_mnemonic.setdefault(form.spec.split(" ")[0].split(";")[0], []).append(form)
    assert any(len(group) > 1 for group in by_mnemonic.values())
    for group in by_mnemonic.values():
        assert all(form.slots is group[0].slots for form in group)

    def fields(m: grammar._Match) -> tuple[object, ...]:
        return m.form, m.binding, m.need, m.unused, m.missing, m.misordered

    shared = 0
    for text in _spellings():
        for instruction in parse_template(text, True).instructions:
            if instruction.opaque or not grammar.covered(instruction.opcode):
                continue
            _, exact, _ = grammar._modifier_matches.__wrapped__(
                instruction.opcode, instruction.modifiers)
            alone = [grammar._match_modifiers(m.form, instruction.modifiers) for m in exact]
            assert [fields(m) for m in exact] == [fields(m) for m in alone], text
            shared += sum(1 for a, b in zip(exact, exact[1:], strict=False)
                          if a.binding is b.binding)
    assert shared  # some spelling's forms were matched once


def test_scope_braces_are_shared_values() -> None:
    """A scope brace at one place is one object for every template that has it there, equal
    to the one its constructor makes; the template made slot by slot equals the constructor's."""
    from ptxlint.model import PtxBrace, PtxTemplate

    one = parse_template("{ .reg .pred p; setp.ne.b32 p, %0, 0; }", True)
    two = parse_template("{ .reg .pred p; setp.eq.b32 p, %1, 1; }", True)
    assert [b.offset for b in one.braces] == [0, len("{ .reg .pred p; setp.ne.b32 p, %0, 0; ")]
    assert all(a is b for a, b in zip(one.braces, two.braces, strict=True))
    assert one.braces == (PtxBrace("{", 0, 1), PtxBrace("}", one.braces[1].offset, 1))
    fields = {name: getattr(one, name) for name in PtxTemplate.__dataclass_fields__}
    assert PtxTemplate(**fields) == one
    deeper = parse_template("{ { mov.u32 %0, 1; } }", True)
    assert [(b.char, b.depth) for b in deeper.braces] == [("{", 1), ("{", 2), ("}", 2), ("}", 1)]


def test_a_spelling_read_once_is_what_its_parts_say() -> None:
    """``grammar._spelling`` (what ``check`` and ``written_positions`` read of a spelling, in
    one look-up) holds what the grammar's own questions answer: whether it is judged, the
    unknown modifier, the exact matches split by toolkit, the closest form, the written
    positions where every exact form agrees."""
    from ptxlint.ptx.forms import _judged, covered

    seen = set()
    gated_seen = False
    for text in _spellings():
        for instruction in parse_template(text, True).instructions:
            key = (instruction.opcode, instruction.modifiers)
            if instruction.opaque or key in seen:
                continue
            seen.add(key)
            judges, unknown, exact, ungated, gated, closest, decided, positions = (
                grammar._spelling(*key))
            assert judges == (covered(key[0]) and _judged(*key)), text
            if not judges:
                assert (exact, gated, decided, positions) == ((), (), True, None), text
                continue
            assert (unknown, exact, closest) == grammar._modifier_matches(*key), text
            assert ungated == tuple(m for m in exact if m.form.toolkit is None), text
            assert gated == tuple(m for m in exact if m.form.toolkit is not None), text
            gated_seen = gated_seen or bool(gated)
            written = {m.form.written_positions for m in exact}
            assert decided == (len(written) <= 1 or unknown is not None), text
            if decided and exact and unknown is None:
                assert positions == next(iter(written)), text
            elif decided:
                assert positions is None, text
    assert gated_seen  # some spelling has forms only a newer ptxas takes


def _slots_take(form: grammar.Form, modifiers: tuple[str, ...]) -> tuple[object, ...]:
    """How ``form``'s slots take ``modifiers``, slot by slot: the head slots the first words in
    order; each other slot the first word not taken that it lists (not before the last one
    taken, in an ordered form) whose targets meet those of the words taken before it; then the words no slot took, the required slots left empty and,
    in a positional form, the words out of order within their kind. Where the head words are
    not the first ones in order (`mul.u32.lo`), every slot takes its word anywhere, and a head
    word taken elsewhere than its place is out of order, before the others."""
    binding: dict[str, str] = {}
    need = form.need
    in_place = 0
    while (in_place < form.head and in_place < len(modifiers)
           and modifiers[in_place] == form.slots[in_place].values[0].word):
        in_place += 1
    start = form.head if in_place == form.head else 0
    taken = [k < start for k in range(len(modifiers))]
    last = start - 1
    missing, took, moved = [], [], []
    for j, slot in enumerate(form.slots[start:], start):
        for i, word in enumerate(modifiers):
            if taken[i] or (form.ordered and i < last) or word not in slot.by_word:
                continue
            needed = slot.by_word[word].need
            if needed is not None and not need.meets(needed):
                continue  # no target has both: the word is none of this form's
            taken[i], last = True, i
            if in_place <= j < form.head:
                moved.append(i)
            took.append((i, word))
            if slot.var:
                binding[slot.var] = word
            value = slot.by_word[word]
            if value.need is not None:
                need = need.join(value.need)
            break
        else:
            if not slot.optional:
                missing.append(slot)
    misordered = moved
    if form.positional:
        for kind in grammar._POSITIONAL_KINDS:
            highest = -1
            for i, word in took:
                if word in kind:
                    if i < highest:
                        misordered.append(i)
                    highest = max(highest, i)
    return binding, need, [i for i, t in enumerate(taken) if not t], missing, misordered


def test_a_forms_slots_take_the_modifiers_as_spelled_out() -> None:
    """``_match_modifiers`` (worked out in locals, the positional order in one pass) is the
    slot-by-slot reading, for random spellings of every form (words left out, added,
    shuffled) against the forms of its family and against the form read in order."""
    rng = random.Random(17)
    compared = 0
    for form in grammar.forms():
        for shuffled in (False, True):
            words = [rng.choice(s.values).word for s in form.slots
                     if not s.optional or rng.random() < 0.5]
            if shuffled:
                rng.shuffle(words)
            if rng.random() < 0.3:
                words.insert(rng.randrange(len(words) + 1),
                             rng.choice(["u32", "f16", "sync", "shared", "row", "global", "and"]))
            modifiers = tuple(words)
            # (no form of the grammar reads its modifiers in order today: one that would)
            for other in [*grammar.forms(form.opcode)[:16], dataclasses.replace(form, ordered=True)]:
                m = grammar._match_modifiers(other, modifiers)
                assert (m.binding, m.need, m.unused, m.missing, m.misordered) == _slots_take(
                    other, modifiers), (other.spec, modifiers)
                compared += 1
    assert compared > 5_000
