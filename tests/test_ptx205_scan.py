"""PTX205's scan (``ptxlint.analysis.glued_pieces``) for the places an instruction may start
inside a word (``mma`` in ``wgmma``) finds the ones a scan of every word-character run finds,
digits before a letter included."""

from __future__ import annotations

import importlib
import re

import pytest

from tests.conftest import rule_fixture_statements

ptx205 = importlib.import_module("ptxlint.analysis.glued_pieces")

# every run of word characters that ends before '.', a blank, ';' or the end (the scan the
# rule made before it skipped the digits that lead a run)
_EVERY_RUN = re.compile(r"@|[A-Za-z0-9_]+(?=[.\s;]|$)", re.ASCII)


def _starts(pattern: re.Pattern[str], text: str) -> set[int]:
    found: set[int] = set()
    for m in pattern.finditer(text):
        word = m.group()
        tails = (0,) if word == "@" else ptx205._opcode_tails(word)
        found.update(m.start() + k for k in tails)
    return found


@pytest.mark.parametrize("text", [
    "wgmma.fence.sync.aligned;",
    "{%0, %1, %2} 12mma.sync 3wgmma.x",
    "mov.u32 %0, %1\nadd.u32 %0, %0, 1",
    "x2add ;9_mov\t@p bra L1; 0abs. 00 a1b2mov",
    "abc+mov.u32 ret",
])
def test_the_scan_finds_every_place_an_opcode_ends_a_word(text: str) -> None:
    assert _starts(ptx205._OPCODE_TAIL(), text) == _starts(_EVERY_RUN, text)


def test_the_scan_agrees_on_the_fixtures_templates() -> None:
    texts = [s.template.text for s in rule_fixture_statements()]
    assert any(_starts(_EVERY_RUN, t) for t in texts)
    for text in texts:
        assert _starts(ptx205._OPCODE_TAIL(), text) == _starts(_EVERY_RUN, text)


def _runs_together_every_word(ptx: object, text: str) -> bool:
    """The run-together gate reading every word of the template (the rule before it read
    only the words of the instructions' operands and the blanks after them)."""
    from bisect import bisect_right
    from itertools import accumulate

    ranges = [(i.opcode_end, i.end) for i in ptx.instructions]  # type: ignore[attr-defined]
    ranges += [(p.start + 1, p.end + 1) for p in ptx.problems  # type: ignore[attr-defined]
               if p.kind == "separator"]
    if not ranges:
        return False
    ranges.sort()
    lows = [low for low, _ in ranges]
    reach = list(accumulate((high for _, high in ranges), max))
    for m in ptx205._OPCODE_TAIL().finditer(text):
        word = m.group()
        tails = (0,) if word == "@" else ptx205._opcode_tails(word)
        for k in tails:
            begin = first = m.start() + k
            while first > 0 and text[first - 1] in ptx205.BLANK:
                first -= 1
            below = bisect_right(lows, begin)
            if below and reach[below - 1] > first:
                return True
    return False


@pytest.mark.parametrize("text", [
    "mov.u32 %0, %1\nadd.u32 %0, %0, 1;",  # a missing ';' the parser notes
    "mov.u32 %0, %1add.u32 %0, %0, 1;",
    "setp.ne.b32 p, %4, 0;\nwgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1}, %2, %3, p;",
    "{ .reg .pred p; @p bra L1; L1: mov.u32 %0, 1; }",
    "mov.u32 %0, %1;   \t  abs.s32 %0, %0;",
    "ld.global.u32 %0, [%1];x2add.u32 %0,%0,1;",
    "mov.b32 %0, 1 mov.b32 %1, 2;",
    "cvt.u32.u64 %0, %1 cvt.u32.u64 %2, %3",
    "bar.sync 0;exit;",
    "",
])
def test_the_gate_reading_the_operands_words_answers_as_reading_every_word(text: str) -> None:
    from ptxlint.ptx.parser import parse_template

    ptx = parse_template(text, True)
    assert ptx205._runs_together(ptx, text) == _runs_together_every_word(ptx, text)


def test_the_gate_answers_the_fixtures_as_reading_every_word() -> None:
    statements = rule_fixture_statements()
    answers = [
        (ptx205._runs_together(s.ptx, s.template.text),
         _runs_together_every_word(s.ptx, s.template.text))
        for s in statements
    ]
    assert any(mine for mine, _ in answers) and not all(mine for mine, _ in answers)
    assert all(mine == every for mine, every in answers)
