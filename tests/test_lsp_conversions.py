"""LSP positions: code points <-> UTF-16/UTF-8/UTF-32 code units, LSP line breaks, changes."""

from __future__ import annotations

import pytest

pytest.importorskip("lsprotocol", reason="the lsp extra (pygls, lsprotocol) is not installed")

from ptxlint.lsp.conversions import (  # noqa: E402
    UTF8,
    UTF16,
    UTF32,
    LineIndex,
    apply_change,
    sanitize,
    units,
)

EMOJI = "\U0001f680"  # astral plane: 1 code point, 2 UTF-16 units, 4 UTF-8 bytes


def test_ascii_offsets_are_characters() -> None:
    index = LineIndex("ab\ncd\n")
    assert index.position(0) == (0, 0)
    assert index.position(4) == (1, 1)
    assert index.offset(1, 1) == 4


def test_astral_character_counts_two_utf16_units() -> None:
    text = f'// {EMOJI} é\nasm("add.u32 %0, %1, %3;");\n'
    index = LineIndex(text)
    after_emoji = text.index(" é")
    assert index.position(after_emoji, UTF16) == (0, 5)  # "// " + 2 units
    assert index.position(after_emoji, UTF32) == (0, 4)
    assert index.position(after_emoji, UTF8) == (0, 7)
    e_acute = text.index("é")
    assert index.position(e_acute + 1, UTF16) == (0, 7)
    assert index.position(e_acute + 1, UTF8) == (0, 10)
    for offset in range(len(text) + 1):
        for encoding in (UTF8, UTF16, UTF32):
            line, character = index.position(offset, encoding)
            assert index.offset(line, character, encoding) == offset


def test_asm_after_an_emoji_on_the_same_line() -> None:
    text = f'/* {EMOJI}{EMOJI} */ asm("%3");'
    index = LineIndex(text)
    percent = text.index("%3")
    assert index.position(percent) == (0, len('/*  */ asm("') + 4)
    assert index.offset(*index.position(percent)) == percent


def test_position_inside_a_surrogate_pair_rounds_down() -> None:
    index = LineIndex(f"a{EMOJI}b")
    assert index.offset(0, 2, UTF16) == 1  # between the two halves: the emoji's start
    assert index.offset(0, 3, UTF16) == 2
    assert index.offset(0, 2, UTF8) == 1  # inside the 4-byte sequence


def test_lines_break_at_crlf_cr_and_lf_only() -> None:
    text = "a\r\nb\rc\nd\x0ce\u2028f"
    index = LineIndex(text)
    assert index.line_starts == [0, 3, 5, 7]
    assert index.position(text.index("e")) == (3, 2)  # form feed and U+2028 are not breaks
    assert index.position(text.index("f")) == (3, 4)


def test_offset_between_cr_and_lf_is_the_line_end() -> None:
    index = LineIndex("ab\r\ncd")
    assert index.position(3) == (0, 2)
    assert index.offset(0, 99) == 2  # past the end of the line: its end, before "\r\n"


def test_out_of_range_positions_are_clamped() -> None:
    index = LineIndex("ab\ncd")
    assert index.offset(7, 0) == 5
    assert index.offset(-1, 3) == 0
    assert index.offset(0, -4) == 0
    assert index.position(99) == (1, 2)
    assert LineIndex("").position(0) == (0, 0)


def test_units() -> None:
    assert units(f"x{EMOJI}", UTF16) == 3
    assert units(f"x{EMOJI}", UTF8) == 5
    assert units(f"x{EMOJI}", UTF32) == 2
    with pytest.raises(ValueError):
        units("é", "utf-7")


def test_apply_incremental_and_full_changes() -> None:
    text = f"{EMOJI}ab\ncd\n"
    assert apply_change(text, (0, 2), (0, 3), "X") == f"{EMOJI}Xb\ncd\n"
    assert apply_change(text, (0, 4), (1, 1), "") == f"{EMOJI}abd\n"
    assert apply_change(text, (2, 0), (2, 0), "tail") == f"{EMOJI}ab\ncd\ntail"
    assert apply_change(text, None, None, "new") == "new"
    # An inverted range is taken as an insertion at its start, never as a deletion.
    assert apply_change("abc", (0, 2), (0, 1), "X") == "abXc"


def test_sanitize_replaces_lone_surrogates_one_for_one() -> None:
    text = "a\udc80b" + EMOJI
    clean = sanitize(text)
    assert clean == "a\ufffdb" + EMOJI
    assert len(clean) == len(text)
    clean.encode("utf-8")
