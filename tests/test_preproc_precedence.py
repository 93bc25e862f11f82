"""``#if`` arithmetic follows C's operator precedence and left-to-right grouping, with three
values (an unknown name keeps what it touches unknown, unless ``||``/``&&`` decide anyway)."""

from __future__ import annotations

import pytest

from ptxlint.frontends.cxx.preproc import MAX_DEPTH, evaluate, integer_value


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("10 - 2 - 3", 5),  # left to right, not 10 - (2 - 3)
        ("64 / 4 / 2", 8),
        ("17 % 5 * 3", 6),
        ("1 + 2 * 3", 7),
        ("2 * 3 + 1", 7),
        ("1 << 2 + 1", 8),  # + binds tighter than <<
        ("1 << 2 < 5", 1),  # << tighter than <
        ("3 < 2 == 0", 1),  # < tighter than ==
        ("6 & 3 == 3", 0),  # == tighter than &: 6 & 1
        ("1 | 2 ^ 3", 1),  # ^ tighter than |: 1 | 1
        ("4 ^ 6 & 3", 6),  # & tighter than ^: 4 ^ 2
        ("1 || 0 && 0", 1),  # && tighter than ||
        ("(1 || 0) && 0", 0),
        ("-2 * -3 - -1", 7),
        ("!0 + ~0", 0),
        ("(((1 + 2)) * ((3)))", 9),
    ],
)
def test_operators_group_as_in_c(expression: str, value: int) -> None:
    assert integer_value(expression) == value


def test_an_unknown_name_is_unknown_unless_a_logical_operator_decides() -> None:
    assert evaluate("UNKNOWN + 1 > 0", {}) is None
    assert evaluate("UNKNOWN || 1", {}) is True
    assert evaluate("0 && UNKNOWN", {}) is False
    assert evaluate("UNKNOWN && 1 || 1", {}) is True
    assert evaluate("1 + 2 * N == 7 && M", {"N": 3, "M": 1}) is True
    assert evaluate("1 + 2 * N == 7 && M", {"N": 3}) is None


def test_operators_spelt_as_words_are_the_operators() -> None:
    # C++'s alternative tokens: `and` is `&&` in a #if, never a name to look up
    assert evaluate("defined(X) and (X >= 1000)", {"X": 1000}) is True
    assert evaluate("defined(X) and (X >= 1000)", {"X": 900}) is False
    assert evaluate("not defined(X) or X < 2", {"X": 1}) is True
    assert evaluate("(6 bitand 3) == (1 xor 3) and compl 0 == -1", {}) is True
    assert evaluate("(4 bitor 1) not_eq 5", {}) is False
    assert evaluate("and_x == 1", {"and_x": 1}) is True  # a name that only begins with one
    assert evaluate("X and 1", {}) is None  # an unknown name keeps it unknown, as with `&&`


def test_what_the_grammar_does_not_know_is_unknown() -> None:
    assert integer_value("1 ? 2 : 3") is None  # the ternary
    assert integer_value("1 + ") is None
    assert integer_value("(1 + 2") == 3  # an unclosed parenthesis, as before
    assert integer_value("1 2") is None


def test_nesting_is_bounded_exactly_at_max_depth() -> None:
    # each `!` is one level and so is the operand under the last one
    assert integer_value("!" * (MAX_DEPTH - 1) + "1") == (MAX_DEPTH - 1) % 2 ^ 1
    assert integer_value("!" * MAX_DEPTH + "1") is None
    assert integer_value("(" * (MAX_DEPTH - 1) + "1" + ")" * (MAX_DEPTH - 1)) == 1
    assert integer_value("(" * MAX_DEPTH + "1" + ")" * MAX_DEPTH) is None


def test_true_and_false_are_one_and_zero_as_in_cpp() -> None:
    # [cpp.cond]: true and false are the keywords' values, never names replaced by 0
    assert evaluate("true", {}) is True
    assert evaluate("false", {}) is False
    assert evaluate("defined(X) && false", {}) is False
    assert evaluate("UNKNOWN || true", {}) is True
    assert integer_value("true + true") == 2
    assert evaluate("truer", {}) is None  # a name that only begins with one
