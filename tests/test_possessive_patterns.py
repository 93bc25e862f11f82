"""The parser's patterns whose repeats are possessive (``*+``, ``++``: no backtracking into
them, which the regex engine runs faster) read exactly what the same patterns with backtracking
repeats read, on real templates and on random PTX-like text: nothing after such a repeat can
match a character that the repeat gave back."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

from ptxlint.model import HOLE
from ptxlint.ptx import parser, percent_tokens

FIXTURES = Path(__file__).parent.parent / "fixtures"

# Pieces that the patterns' alternatives start, end or fail on: registers, references, vector
# braces, labels, `::`, guards, the hole, spaces and line breaks.
PIECES = [
    "%", "%%", "%0", "%12", "%r1", "%[a]", "%[", "%=", "{", "}", "[", "]", ",", ";", ":", "::",
    " ", "\t", "\n", ".", "@", "!", "-", "+", "|", "$", "a", "L1", "_x", "r<4>", "<", ">", "0x1f",
    "16", "ld", "wgmma.mma_async", ".f32", "shared::cta", "(", ")", HOLE, "é",
]

# (pattern, how it is used)
PATTERNS = [
    (percent_tokens.PCT_EXTENDED, "finditer"),
    (parser._OPERAND_TOKEN_EXTENDED, "finditer"),
    (parser._MNEMONIC(), "match"),
    (parser._MNEMONIC_TAIL(), "match"),
    (parser._MNEMONIC_ONLY(), "fullmatch"),
    (parser._ONE_MNEMONIC, "match"),
    (parser._ONE_OPERANDS, "fullmatch"),
    (parser._PREDICATE_EXTENDED(), "match"),
    (parser._LABEL(), "match"),
    (parser._IDENT(), "fullmatch"),
    (parser._DECLARATOR(), "match"),
]


def _backtracking(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` with its possessive repeats spelled as ordinary (backtracking) ones."""
    spelled = pattern.pattern.replace("*+", "*").replace("++", "+")
    assert spelled != pattern.pattern
    return re.compile(spelled, pattern.flags)


def _reading(pattern: re.Pattern[str], use: str, text: str) -> object:
    if use == "finditer":
        return [(m.span(), m.lastgroup, m.groups()) for m in pattern.finditer(text)]
    found = [getattr(pattern, use)(text, i) for i in range(len(text) + 1)]
    return [(m.span(), m.groups()) if m is not None else None for m in found]


def _texts() -> list[str]:
    rng = random.Random(36)
    texts = ["".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 24))) for _ in range(3000)]
    texts += ["{%0, %1,\n %2 , %3}, [%4], %5;", "{ %0 ,%1 }, p;", "{%0, %1", "%0, %1 ,{%2}"]
    for path in sorted(FIXTURES.rglob("*.cu"))[:40]:
        texts.extend(path.read_text(encoding="utf-8", errors="replace").splitlines())
    return texts


@pytest.mark.skipif(
    sys.version_info < (3, 11),
    reason="Python 3.10's re has no possessive repeats: there the patterns are spelled greedy",
)
@pytest.mark.parametrize(("pattern", "use"), PATTERNS, ids=lambda p: getattr(p, "pattern", p)[:30])
def test_possessive_patterns_read_what_backtracking_ones_read(
    pattern: re.Pattern[str], use: str
) -> None:
    slow = _backtracking(pattern)
    for text in _texts():
        assert _reading(pattern, use, text) == _reading(slow, use, text), text
