"""An output that the template only reads has one rule: PTX106 for a write-only ('=') output
(the read gets an undefined value), PTX104 for a read-write or tied one (it could be an input).
The docs' examples of both rules say the same."""

from __future__ import annotations

from ptxlint.registry import load_rules
from tests.conftest import lint_text

_ONLY_READ = {
    "write-only": 'asm volatile("st.global.u32 [%1], %0;" : "=r"(v) : "l"(p) : "memory");',
    "read-write": 'asm volatile("st.global.u32 [%1], %0;" : "+r"(v) : "l"(p) : "memory");',
}


def _rules(statement: str, path: str = "t.cu") -> list[str]:
    text = f"__device__ void f(unsigned *p, unsigned v) {{\n  {statement}\n}}\n"
    found = lint_text(text, path=path, select=("PTX104", "PTX106"))
    return [f.rule for f in found]


def test_write_only_output_only_read_is_ptx106s() -> None:
    assert _rules(_ONLY_READ["write-only"]) == ["PTX106"]


def test_read_write_output_only_read_is_ptx104s() -> None:
    assert _rules(_ONLY_READ["read-write"]) == ["PTX104"]


def test_tied_output_only_read_could_be_an_input_not_undefined() -> None:
    # clang takes the tie: the output's register carries the input in, unchanged
    found = lint_text(
        '__device__ int f(int x) { int d;\n'
        '  asm("mov.b32 %1, %0;" : "=r"(d) : "0"(x)); return d; }\n',
        select=("PTX104", "PTX106"),
    )
    assert [f.rule for f in found] == ["PTX104"]
    assert "undefined" not in found[0].message and "tied" in found[0].message


def _example(rule_id: str, section: str) -> str:
    rule = next(r for r in load_rules().rules if r.id == rule_id)
    docs = rule.docs
    body = docs[docs.index(f"## {section}"):]
    return body[body.index("```cuda") + len("```cuda"): body.index("```", body.index("```cuda") + 7)]


def test_each_rules_docs_example_is_its_own_finding_and_not_the_others() -> None:
    for rule_id in ("PTX104", "PTX106"):
        bad = _example(rule_id, "Example")
        good = _example(rule_id, "Use instead")
        text = "__device__ int f(unsigned *p, unsigned v, int x) {\n" + bad + "\nreturn 0; }\n"
        assert [f.rule for f in lint_text(text, select=("PTX104", "PTX106"))] == [rule_id]
        text = "__device__ int f(unsigned *p, unsigned v, int x) {\n" + good + "\nreturn 0; }\n"
        assert [f.rule for f in lint_text(text, select=("PTX104", "PTX106"))] == []
