"""The whole-file differential's count of the PTX lines that differ (verify.differential.
changed_lines): the count a line diff gives, made without difflib.ndiff's comparison of the
characters of every replaced line with every other, which ran for over fifteen minutes on
torchcomms' TransferBench.hpp (921,158 PTX lines per variant)."""

from __future__ import annotations

import difflib
import time

from ptxlint.verify.differential import changed_lines, judge


def _ndiff_count(a: list[str], b: list[str]) -> int:
    return sum(1 for line in difflib.ndiff(a, b) if line[:1] in "+-")


def test_the_count_is_the_line_diffs():
    a = ["ld.global.u32 %R, [%R];", "add.s32 %R, %R, 1;", "st.global.u32 [%R], %R;", "ret;"]
    for b in (a, a[:1] + a[2:], a[:2] + ["ld.global.u32 %R, [%R];"] + a[2:],
              ["mov.u32 %R, 0;"] + a[1:], list(reversed(a))):
        assert changed_lines(a, b) == _ndiff_count(a, b)


def test_a_large_difference_is_counted_at_once():
    # every line replaced by a similar one: ndiff compares each with each, character by
    # character; the count is every line removed and every line added
    a = [f"add.s32 %R, %R, {n};" for n in range(3000)]
    b = [f"sub.s32 %R, %R, {n};" for n in range(3000)]
    start = time.perf_counter()
    assert changed_lines(a, b) == 6000
    assert time.perf_counter() - start < 5


def test_judge_on_a_million_lines_answers_at_once():
    body = "".join(f"\tadd.s32 \t%r{n}, %r{n}, {n};\n" for n in range(500_000))
    head = ".visible .entry k()\n{\n"
    defective = head + "\tld.global.u32 \t%r1, [%rd1];\n" + body + "\tret;\n}\n"
    fixed = head + "\tst.global.u32 \t[%rd1], %r1;\n" + body.replace(", 7;", ", 8;") \
        + "\tret;\n}\n"
    start = time.perf_counter()
    confirmed, evidence = judge(defective, fixed, "mov", "nvcc 13.0.88")
    assert confirmed and "PTX lines differ" in evidence, evidence
    assert time.perf_counter() - start < 30
