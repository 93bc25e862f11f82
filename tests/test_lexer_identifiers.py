"""``lexer.identifiers``: the identifier tokens the lexer gives, read without a token each."""

from __future__ import annotations

import random

import pytest

from ptxlint.frontends.cxx.lexer import identifiers, tokens

# Pieces that make identifiers, numbers (hex, exponents with signs, a leading '.', line
# continuations inside), punctuation that holds '.', blanks and non-ASCII characters; quotes
# and '/' (literals and comments, read by the lexer itself) come in the second alphabet.
_PLAIN = [*"aZ_$09.eEpPxX+-*&|<>=!#,;:()[]{} \t\n\r\\@é", "\\\n", "...", "1e+5", "0x1p-3", ".5",
          "::", "->", "1.2.3abc", "12$ab"]  # fmt: skip
_LITERALS = [*_PLAIN, '"', "'", "/", "//", "/*", "*/", 'R"(', ')"', "u8", "L"]


def _lexed(text: str) -> list[str]:
    return [t.text for t in tokens(text) if t.kind == "ident"]


@pytest.mark.parametrize("alphabet", [_PLAIN, _LITERALS], ids=["plain", "with-literals"])
def test_identifiers_are_the_lexers_identifier_tokens(alphabet: list[str]) -> None:
    rng = random.Random(36)
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
        assert identifiers(text) == _lexed(text), text


def test_numbers_keep_their_letters_and_a_dollar_ends_them() -> None:
    text = "x + 0x1Fu * 1e+5f - .5e-3L ... 12$ab \\\n y2 0b1011 1.2.3abc"
    assert identifiers(text) == _lexed(text) == ["x", "$ab", "y2"]
