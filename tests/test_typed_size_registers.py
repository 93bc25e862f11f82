"""st.bulk's 32-bit size register (PTX ISA 9.0): ptxas 13.0 takes one declared ``.u32`` or
``.s32`` and fails on an untyped ``.b32`` one, inline asm's "r" ("Arguments mismatch for
instruction 'mov'", in its own expansion of the store), which ptxas 13.1 takes; the 64-bit size
takes any 64-bit integer register. The grammar's verdict names the toolkit an error is one for
(``Issue.toolkit``); each case is assembled with the ptxas of the toolkits it names where it is
installed."""

from __future__ import annotations

import pytest

from ptxlint.ptx import grammar
from ptxlint.ptx.operand_classes import Issue
from ptxlint.ptx.parser import parse_template
from tests.benchmark_module import load
from tests.probe_registers import assemble, resolve
from tests.toolchain_cache import PTXAS

toolkits = load("toolkits")


def _type_issues(text: str) -> list[Issue]:
    [instruction] = parse_template(text + ";", extended=False).instructions
    verdict = grammar.check(instruction, resolve)
    assert verdict.form is not None or verdict.issues, text  # the grammar speaks
    return [i for i in verdict.issues if i.kind == "type"]


# (the instruction, whether ptxas 13.0 takes it, whether ptxas 13.1 takes it)
CASES = [
    ("st.bulk [%rd0], %u1, 0", True, True),
    ("st.bulk.weak.shared::cta [%rd0], %s1, 0", True, True),
    ("st.bulk [%rd0], %r1, 0", False, True),
    ("st.bulk [%rd0], %ul1, 0", True, True),
    ("st.bulk [%rd0], %rd1, 0", True, True),
    ("st.bulk [%rd0], %us1, 0", False, False),
    ("st.bulk [%rd0], %f1, 0", False, False),
    ("st.bulk [%rd0], %hx1, 0", False, False),
]


@pytest.mark.parametrize(("text", "in_13_0", "in_13_1"), CASES)
def test_the_grammar_names_the_toolkits_that_take_it(text: str, in_13_0: bool,
                                                      in_13_1: bool) -> None:
    issues = _type_issues(text)
    if in_13_0:
        assert issues == []
    elif in_13_1:  # an error for toolkits before 13.1 only
        assert issues and all(i.toolkit == (13, 1) for i in issues)
    else:
        assert issues and all(i.toolkit is None for i in issues)


def _ptxas(toolkit: str) -> str | None:
    return toolkits.found().get(toolkit) or (PTXAS if toolkit == "13.0" else None)


@pytest.mark.parametrize("toolkit", ["13.0", "13.1"])
@pytest.mark.parametrize(("text", "in_13_0", "in_13_1"), CASES)
def test_ptxas_agrees(toolkit: str, text: str, in_13_0: bool, in_13_1: bool) -> None:
    ptxas = _ptxas(toolkit)
    if ptxas is None:
        pytest.skip(f"no ptxas of CUDA {toolkit}")
    result = assemble(ptxas, "9.0", "sm_100a", text, 4)
    assert result.ok == (in_13_0 if toolkit == "13.0" else in_13_1), result.stderr
    if not result.ok:
        assert "Arguments mismatch" in result.stderr
