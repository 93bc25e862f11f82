"""PTX102 asks the analysis for the memory effects it may report (those of instructions PTX204
does not report as misspelled, which reads the grammar's verdict) only where the template's own
effects hold one that counts: a volatile statement whose only access is asynchronous, or one
without memory effects, is answered from the template's effects alone, with the same answer."""

from __future__ import annotations

from ptxlint.analysis.statement import analysis_of
from ptxlint.engine import extract_statements, instantiate, run_rule
from ptxlint.model import AsmStatement, SourceFile
from ptxlint.registry import load_rules
from ptxlint.rule import RuleContext

_RULE = next(r for r in instantiate(load_rules().rules) if r.id == "PTX102")


def _statement(body: str) -> AsmStatement:
    source = SourceFile("e.cu", "__device__ void f(unsigned* p, unsigned long long d, float x) {\n"
                        f"  {body}\n}}\n")
    (statement,) = extract_statements(source).statements
    return statement


def test_an_asynchronous_access_of_a_volatile_statement_is_not_judged() -> None:
    statement = _statement(
        'asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes'
        ' [%0], [%1], 16, [%2];" :: "r"(0u), "l"(p), "r"(8u));'
    )
    assert run_rule(_RULE, statement, RuleContext()) == ()
    assert "memory_effects" not in vars(analysis_of(statement))


def test_a_template_without_memory_effects_is_not_judged() -> None:
    statement = _statement('asm("add.f32 %0, %0, 1.0;" : "+f"(x));')
    assert run_rule(_RULE, statement, RuleContext()) == ()
    assert "memory_effects" not in vars(analysis_of(statement))


def test_a_store_is_still_reported_through_the_analysis() -> None:
    statement = _statement('asm("st.global.u32 [%0], 1;" :: "l"(p));')
    found = run_rule(_RULE, statement, RuleContext())
    assert isinstance(found, list) and len(found) == 1
    assert "memory_effects" in vars(analysis_of(statement))


def test_an_issued_access_of_an_asm_that_lacks_volatile_is_ptx101s() -> None:
    """A tcgen05.ld with outputs and no volatile: PTX101 reports the missing volatile, and once
    volatile the access only issued here needs no clobber; PTX102 stays silent. An atomic's
    own memory access is a second defect, reported by both."""
    from tests.conftest import lint_text

    def rules(body: str) -> list[str]:
        code = ("__device__ void f(unsigned t, unsigned* p, unsigned* o) {\n  unsigned a, b;\n"
                f"  {body}\n  o[0] = a + b;\n}}\n")
        return sorted(f.rule for f in lint_text(code, select=("PTX101", "PTX102")))

    assert rules('asm("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%0, %1}, [%2];"'
                 ' : "=r"(a), "=r"(b) : "r"(t));') == ["PTX101"]
    assert rules('asm("atom.global.add.u32 %0, [%1], 1;" : "=r"(a) : "l"(p)); b = 0;'
                 ) == ["PTX101", "PTX102"]
