"""One finding per defect: the explicit precedence between rules that report one span."""

from __future__ import annotations

from ptxlint.dedupe import PRECEDENCE
from tests.conftest import lint_text

SWAPPED = (
    "__device__ void f(unsigned *p, unsigned &v) {\n"
    '  asm volatile("st.global.u32 [%1], %0;" : "=r"(v) : "l"(p) : "memory");\n'
    "}\n"
)


def test_the_specific_rule_replaces_the_general_one_on_the_same_span() -> None:
    rules = {f.rule for f in lint_text(SWAPPED)}
    assert "PTX106" in rules and "PTX104" not in rules


def test_the_general_rule_comes_back_when_the_specific_one_is_not_selected() -> None:
    assert [f.rule for f in lint_text(SWAPPED, select=("PTX104",))] == ["PTX104"]


def test_suppressing_the_specific_rule_brings_the_general_one_back() -> None:
    text = SWAPPED.replace('"memory");', '"memory");  // ptxlint: ignore[PTX106]')
    rules = {f.rule for f in lint_text(text)}
    assert "PTX104" in rules and "PTX106" not in rules


def test_different_spans_are_different_defects() -> None:
    text = (
        "__device__ void f(int x, int &r) {\n"
        '  asm("{ .reg .pred p; setp.gt.s32 p, %1, 0; @p mov.s32 %0, 1; }" : "=r"(r) : "r"(x));\n'
        "}\n"
    )
    assert [f.rule for f in lint_text(text, select=("PTX103", "PTX106"))] == ["PTX103"]


def test_every_precedence_pair_names_two_rules_and_a_reason() -> None:
    for kept, dropped, why in PRECEDENCE:
        assert kept != dropped and kept.startswith("PTX") and dropped.startswith("PTX") and why
