"""PTX205's scan for the places an instruction may start inside a word (``mma`` in ``wgmma``)
finds the ones a scan of every word-character run finds, digits before a letter included."""

from __future__ import annotations

import importlib
import re

import pytest

from tests.conftest import rule_fixture_statements

ptx205 = importlib.import_module("ptxlint_rules.ptx205_missing_instruction_separator")

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
    assert _starts(ptx205._OPCODE_TAIL, text) == _starts(_EVERY_RUN, text)


def test_the_scan_agrees_on_the_fixtures_templates() -> None:
    texts = [s.template.text for s in rule_fixture_statements()]
    assert any(_starts(_EVERY_RUN, t) for t in texts)
    for text in texts:
        assert _starts(ptx205._OPCODE_TAIL, text) == _starts(_EVERY_RUN, text)
