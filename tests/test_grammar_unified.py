"""ld's address attribute '.unified' (ptxlint/ptx/parser.py): 'ld.global.u32 d, [a].unified;'
is part of the address operand, checked against ptxas 13.0 (nvcc -arch=sm_80)."""

from __future__ import annotations

import pytest

from tests.test_grammar_classic import _rules


# ld's address attribute: ptxas 13.0 accepts 'ld.global.u32 d, [a].unified;' (blank before
# '.unified' or not, with a cache policy after it too); as an opcode word it answers
# "Parsing error near '.unified': syntax error"
@pytest.mark.parametrize("template", [
    "ld.global.u32 %0, [%1].unified;",
    "ld.global.u32 %0, [%1+4] .unified;",
    "ld.global.L2::cache_hint.u32 %0, [%1].unified, %2;",
    "ld.u32 %0, [%1].unified;",
])
def test_the_unified_address_attribute_is_accepted(template: str) -> None:
    assert _rules(template, ins='"l"(p), "l"(q)' if "%2" in template else '"l"(p)') == []


def test_unified_among_the_opcode_words_is_unknown() -> None:
    assert _rules("ld.global.L1::evict_last.unified.u32 %0, [%1];") == ["PTX204"]
