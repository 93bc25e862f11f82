"""The Python front end's fast scans find exactly what the plain ones they replace find: the
callee and import regexes tried only where their words occur, string literals decoded a run
of ordinary characters at a time. Each is compared with the plain form on seeded random text
made of the pieces that matter (word characters of several scripts around the words, line
breaks, blanks, backslashes, braces)."""

from __future__ import annotations

import random
import re
import unicodedata

import pytest

from ptxlint.frontends import llvm_constraints as constraints
from ptxlint.frontends.python import apis, frontend, pystrings
from ptxlint.model import HOLE, ConstraintEntry, Span, Template, TemplatePiece

_WORDS = [
    "inline_asm_elementwise",
    "elementwise_inline_asm",
    "inline_asm",
    "InlineAsm",
    "RawKernel",
    "RawModule",
    "ElementwiseKernel",
    "ReductionKernel",
    "Program",
    "from",
    "import",
]
# Word characters that are not ASCII (a letter, a digit of another script, a combining mark that
# is no word character, a number), and separators.
_AROUND = ["_", "x", "9", "é", "٣", "ǅ", "\u0301", "²"]
_AROUND += [" ", "\t", "\n", "\r", ".", "(", "\x0c", "\u2028"]


def _text(rng: random.Random) -> str:
    return "".join(
        rng.choice(_WORDS) if rng.random() < 0.4 else rng.choice(_AROUND)
        for _ in range(rng.randint(0, 40))
    )


@pytest.mark.parametrize("seed", range(20))
def test_callee_matches_are_those_of_the_plain_regex(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        text = _text(rng)
        fast = [(m.start(), m.end(), m.group(1)) for m in frontend._callee_matches(text)]
        plain = [(m.start(), m.end(), m.group(1)) for m in frontend._CALLEE.finditer(text)]
        assert fast == plain, repr(text)


@pytest.mark.parametrize("seed", range(20))
def test_import_matches_end_where_the_plain_regex_ends(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        text = _text(rng)
        fast = [m.end() for m in frontend._import_matches(text)]
        plain = [m.end() for m in frontend._IMPORT_LINE.finditer(text)]
        assert fast == plain, repr(text)


@pytest.mark.parametrize("seed", range(20))
def test_llvm_call_test_is_the_plain_search(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        text = _text(rng)
        assert apis._llvm_call(text) == (apis._LLVM_CALL.search(text) is not None), repr(text)


def _decode_plain(
    text: str, lo: int, hi: int, raw: bool, fstring: bool
) -> tuple[str, list[int], list[int]]:
    """``pystrings._decode_content`` as it was, one character at a time: the reference."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    i = lo
    while i < hi:
        c = text[i]
        if fstring and c in "{}" and i + 1 < hi and text[i + 1] == c:
            chars.append(c)
            starts.append(i)
            ends.append(i + 2)
            i += 2
            continue
        if c != "\\" or i + 1 >= hi:
            chars.append(c)
            starts.append(i)
            ends.append(i + 1)
            i += 1
            continue
        if raw:
            chars.extend((c, text[i + 1]))
            starts.extend((i, i + 1))
            ends.extend((i + 1, i + 2))
            i += 2
            continue
        n = text[i + 1]
        if n == "\n":
            i += 2
            continue
        if n == "\r":
            i += 3 if text[i + 2 : i + 3] == "\n" else 2
            continue
        value: str | None = None
        stop = i + 2
        if n in pystrings._SIMPLE:
            value = pystrings._SIMPLE[n]
        elif (m := re.compile(r"[0-7]{1,3}").match(text, i + 1, min(hi, i + 4))) is not None:
            value = chr(int(m.group(), 8))
            stop = m.end()
        elif n in pystrings._HEX:
            width = pystrings._HEX[n]
            digits = text[i + 2 : i + 2 + width]
            if len(digits) == width and all(d in "0123456789abcdefABCDEF" for d in digits):
                value = chr(min(int(digits, 16), 0x10FFFF))
                stop = i + 2 + width
        elif n == "N" and (m := re.compile(r"N\{([^}]*)\}").match(text, i + 1, hi)) is not None:
            try:
                value = unicodedata.lookup(m.group(1))
                stop = m.end()
            except KeyError:
                value = None
        if value is None:
            chars.append(c)
            starts.append(i)
            ends.append(i + 1)
            i += 1
            continue
        chars.append(value)
        starts.append(i)
        ends.append(stop)
        i = stop
    return "".join(chars), starts, ends


_LITERAL_PIECES = [
    "mov.b32 $0, $1;",
    "\\",
    "\\\\",
    "\\n",
    "\\t",
    "\\\n",
    "\\\r\n",
    "\\\r",
    "\\x4",
    "\\x41",
    "\\u00e9",
    "\\U0001F600",
    "\\101",
    "\\7",
    "\\N{LATIN SMALL LETTER E WITH ACUTE}",
    "\\N{NO SUCH NAME}",
    "\\q",
    "{",
    "}",
    "{{",
    "}}",
    "é",
    "'",
    '"',
    "\n",
]


@pytest.mark.parametrize("seed", range(20))
def test_decoding_in_runs_is_decoding_character_by_character(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        text = "".join(rng.choice(_LITERAL_PIECES) for _ in range(rng.randint(0, 12)))
        lo = rng.randint(0, len(text))
        hi = rng.randint(lo, len(text))
        for raw in (False, True):
            for fstring in (False, True):
                assert pystrings._decode_content(text, lo, hi, raw, fstring) == _decode_plain(
                    text, lo, hi, raw, fstring
                ), (text, lo, hi, raw, fstring)


def _split_plain(template: Template) -> tuple[ConstraintEntry, ...]:
    """``constraints.split_constraints`` as it was, a step per character: the reference."""
    text = template.text
    entries: list[ConstraintEntry] = []
    start = 0
    depth = 0
    for i in range(len(text) + 1):
        c = text[i] if i < len(text) else ","
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif c == "," and depth == 0:
            entries.append(constraints._entry(template, start, i, len(entries)))
            start = i + 1
    if len(entries) == 1 and not entries[0].text and not entries[0].opaque:
        return ()
    return tuple(entries)


_CONSTRAINT_PIECES = ["=r", "r", ",", " ", "{", "}", "~{memory}", "=&l", "+f", HOLE, "\u2003", "é"]


@pytest.mark.parametrize("seed", range(20))
def test_constraint_split_is_the_split_a_character_at_a_time(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        text = "".join(rng.choice(_CONSTRAINT_PIECES) for _ in range(rng.randint(0, 10)))
        piece = TemplatePiece("pystring", Span(7, 7 + len(text) + 2), 0, len(text))
        template = Template(
            text, range(8, 8 + len(text)), range(9, 9 + len(text)), (piece,) if text else ()
        )
        assert constraints.split_constraints(template) == _split_plain(template), repr(text)


def test_modifier_and_letter_patterns_are_the_character_tests() -> None:
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    assert "".join(frontend._MODIFIER.findall(every)) == "".join(c for c in every if c in "=+&")
    assert frontend._NOT_LETTER.sub("", every) == "".join(
        c for c in every if c not in "=+&" and not c.isspace()
    )
