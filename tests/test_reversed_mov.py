"""A ``mov`` written the wrong way round (``ptxlint.analysis.reversed_mov``): found where the swap
is the one consistent reading, reported once by PTX105 or PTX106, and fixed by the swap."""

from __future__ import annotations

import pytest

from ptxlint.analysis.reversed_mov import ReversedMov
from ptxlint.analysis.statement import analysis_of
from ptxlint.engine import extract_statements
from ptxlint.fix import apply_edits
from ptxlint.model import AsmStatement, SourceFile
from tests.conftest import lint_text

STORE = ('__device__ void store128(unsigned long long* p, unsigned long long x, '
         'unsigned long long y) {{\n  asm volatile("{{ .reg .b128 _v; {body} }}" '
         ':: "l"(p), "l"(x), "l"(y) : "memory");\n}}\n')
LOAD = ('__device__ void load128(const unsigned long long* p, unsigned long long& x, '
        'unsigned long long& y) {{\n  asm volatile("{{ .reg .b128 _d; {body} }}" '
        ': "=l"(x), "=l"(y) : "l"(p) : "memory");\n}}\n')


def _statement(text: str) -> AsmStatement:
    [statement] = extract_statements(SourceFile("t.cu", text)).statements
    return statement


def reversed_movs(statement: AsmStatement) -> tuple[ReversedMov, ...]:
    return tuple(analysis_of(statement).reversed_movs.values())


def test_a_store_that_packs_the_wrong_way_is_found() -> None:
    [mov] = reversed_movs(_statement(STORE.format(
        body="mov.b128 {%1, %2}, _v; st.release.cta.b128 [%0], _v;")))
    assert mov.writes_inputs and mov.refs == (1, 2) and mov.register == "_v"


def test_a_load_that_unpacks_the_wrong_way_is_found() -> None:
    [mov] = reversed_movs(_statement(LOAD.format(
        body="ld.acquire.cta.b128 _d, [%2]; mov.b128 _d, {%0, %1};")))
    assert not mov.writes_inputs and mov.refs == (0, 1) and mov.register == "_d"


@pytest.mark.parametrize("text", [
    # the right way round
    STORE.format(body="mov.b128 _v, {%1, %2}; st.release.cta.b128 [%0], _v;"),
    LOAD.format(body="ld.acquire.cta.b128 _d, [%2]; mov.b128 {%0, %1}, _d;"),
    # the register has a value before the mov: the inputs are written on purpose or by mistake,
    # but swapping would not make the template consistent
    STORE.format(body="ld.b128 _v, [%0]; mov.b128 {%1, %2}, _v; st.b128 [%0], _v;"),
    # the register is read after: reading the outputs was the mistake (a CAS comparing against
    # its outputs), not the direction
    LOAD.format(body="mov.b128 _d, {%0, %1}; st.b128 [%2], _d;"),
    # the swap would put nothing to use: a packed register nothing reads, an unpacked one
    # nothing made
    STORE.format(body="mov.b128 {%1, %2}, _v; st.release.cta.b128 [%0], %1;"),
    STORE.format(body="mov.b128 {%1, %2}, _v; call f;"),  # what a call reads is not known
    LOAD.format(body="mov.b128 _d, {%0, %1};"),
    # a guarded mov, a template with a branch: not followed
    STORE.format(body=".reg .pred q; setp.eq.u64 q, %0, 0; @q mov.b128 {%1, %2}, _v; "
                      "st.b128 [%0], _v;"),
    STORE.format(body="bra L; L: mov.b128 {%1, %2}, _v; st.b128 [%0], _v;"),
])
def test_no_reversed_mov_where_the_swap_is_not_the_one_reading(text: str) -> None:
    assert reversed_movs(_statement(text)) == ()


@pytest.mark.parametrize(("text", "rule", "fixed"), [
    (STORE.format(body="mov.b128 {%1, %2}, _v; st.release.cta.b128 [%0], _v;"), "PTX105",
     "mov.b128 _v, {%1, %2};"),
    (LOAD.format(body="ld.acquire.cta.b128 _d, [%2]; mov.b128 _d, {%0, %1};"), "PTX106",
     "mov.b128 {%0, %1}, _d;"),
])
def test_one_finding_for_the_mov_and_the_swap_as_its_fix(text: str, rule: str, fixed: str) -> None:
    [finding] = lint_text(text, select=("PTX105", "PTX106"))
    assert finding.rule == rule and "copies the wrong way" in finding.message
    assert finding.fix is not None and not finding.fix.safe
    result, applied = apply_edits(text, [finding.fix])
    assert applied == 1 and fixed in result
    assert lint_text(result, select=("PTX105", "PTX106")) == []
