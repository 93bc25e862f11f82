"""The whole-file differential's count of the PTX lines that differ (verify.differential.
changed_lines): the count a line diff gives, made without difflib.ndiff's comparison of the
characters of every replaced line with every other, which ran for over fifteen minutes on
torchcomms' TransferBench.hpp (921,158 PTX lines per variant)."""

from __future__ import annotations

import difflib

from ptxlint.verify import differential
from ptxlint.verify.differential import changed_lines, judge


def _ndiff_count(a: list[str], b: list[str]) -> int:
    return sum(1 for line in difflib.ndiff(a, b) if line[:1] in "+-")


def test_the_count_is_the_line_diffs():
    a = ["ld.global.u32 %R, [%R];", "add.s32 %R, %R, 1;", "st.global.u32 [%R], %R;", "ret;"]
    for b in (a, a[:1] + a[2:], a[:2] + ["ld.global.u32 %R, [%R];"] + a[2:],
              ["mov.u32 %R, 0;"] + a[1:], list(reversed(a))):
        assert changed_lines(a, b) == _ndiff_count(a, b)


def _no_line_diff(*args: object, **kwargs: object) -> None:
    raise AssertionError("a line diff ran past the limit")


def test_a_large_difference_is_counted_at_once():
    # every line replaced by a similar one: ndiff compares each with each, character by
    # character; the count is every line removed and every line added
    a = [f"add.s32 %R, %R, {n};" for n in range(3000)]
    b = [f"sub.s32 %R, %R, {n};" for n in range(3000)]
    assert changed_lines(a, b) == 6000


def test_past_the_limit_no_line_diff_runs(monkeypatch):
    # how the count stays linear: past _DIFF_LIMIT lines it is a multiset count, no matcher
    monkeypatch.setattr(differential.difflib, "SequenceMatcher", _no_line_diff)
    n = differential._DIFF_LIMIT
    a = [f"add.s32 %R, %R, {i};" for i in range(n)]
    b = a[:10] + [f"sub.s32 %R, %R, {i};" for i in range(10, n - 10)] + a[-10:]
    assert changed_lines(a, b) == 2 * (n - 20)
    assert changed_lines(a, list(reversed(a))) > 0  # the same lines out of place


def test_judge_on_a_million_lines_answers_at_once():
    body = "".join(f"\tadd.s32 \t%r{n}, %r{n}, {n};\n" for n in range(500_000))
    head = ".visible .entry k()\n{\n"
    defective = head + "\tld.global.u32 \t%r1, [%rd1];\n" + body + "\tret;\n}\n"
    fixed = head + "\tst.global.u32 \t[%rd1], %r1;\n" + body.replace(", 7;", ", 8;") \
        + "\tret;\n}\n"
    confirmed, evidence = judge(defective, fixed, "mov", "nvcc 13.0.88")
    assert confirmed and "PTX lines differ" in evidence, evidence
