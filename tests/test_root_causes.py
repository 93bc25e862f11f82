"""One defect, one finding: the analysis names the root cause, its rule reports it, and the rules
that would echo it stay silent. Each case has a twin without the root, where the echoing rule
still speaks (so its silence comes from the root, not from a rule gone deaf)."""

from __future__ import annotations

import pytest

from ptxlint.analysis.branch_roots import inputs_meant_elsewhere
from ptxlint.analysis.statement import StatementAnalysis, analysis_of
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.rule import RuleContext
from tests.conftest import lint_text

_HEAD = (
    "__device__ void f(int *p, int x, int y, uint4 v, unsigned long long u) {\n"
    "  int r;\n"
)


def _rules(body: str) -> list[str]:
    return sorted(f.rule for f in lint_text(_HEAD + body + "}\n"))


# (root rule, echoing rule, statement with the root, its twin without the root)
STACKS = [
    pytest.param(
        "PTX106", "PTX109",
        '  asm("add.u32 %0, %1, 1;" : "=r"(r) : "r"(x));\n'
        '  asm("add.u32 %0, %0, %1;" : "=r"(r) : "r"(y));\n  *p = r;\n',
        '  asm("add.u32 %0, %1, 1;" : "=r"(r) : "r"(x));\n'
        '  asm("add.u32 %0, %1, 2;" : "=r"(r) : "r"(y));\n  *p = r;\n',
        id="a-template-that-reads-an-output-continues-the-result-it-overwrites",
    ),
    pytest.param(
        "PTX006", "PTX010",
        '  asm("mov.u32 %0, 1;" : "=n"(r));\n',
        '  asm("add.u32 %0, %0, %1;" : "+r"(r) : "n"(x));\n',
        id="immediate-output-is-no-constant-to-judge",
    ),
    pytest.param(
        "PTX006", "PTX207",
        '  asm("mov.u32 %0, 1;" : "=n"(r));\n',
        '  asm("mov.u32 %0, 1;" :: "n"(5));\n',
        id="immediate-output-is-no-register-to-judge",
    ),
    pytest.param(
        "PTX002", "PTX106",
        '  asm volatile("add.s32 %0, %0, %2;" : "=r"(r) : "0"(x), "r"(y));\n',
        '  asm volatile("add.s32 %0, %0, %1;" : "=r"(r) : "r"(y));\n',
        id="tied-input-read-through-its-output",
    ),
    pytest.param(
        "PTX002", "PTX009",
        '  asm volatile("add.s32 %0, %0, %2;" : "=r"(r) : "0"(x), "r"(y));\n',
        '  asm volatile("add.s32 %0, %2, %2;" : "+r"(r) : "r"(x), "r"(y));\n',
        id="tied-input-never-named",
    ),
    pytest.param(
        "PTX106", "PTX104",
        '  asm volatile("st.global.u32 [%1], %0;" : "=r"(r) : "l"(p) : "memory");\n',
        '  asm volatile("st.global.u32 [%1], %0;" : "+r"(r) : "l"(p) : "memory");\n',
        id="swapped-operands-read-an-output-never-written",
    ),
    pytest.param(
        "PTX002", "PTX207",
        '  asm volatile("ld.global.u32 %0, %1;" : "=r"(r) : "m"(*p));\n',
        '  asm volatile("ld.global.u32 %0, %1;" : "=r"(r) : "l"(p));\n',
        id="memory-constraint-where-an-address-belongs",
    ),
    pytest.param(
        "PTX005", "PTX207",
        '  asm volatile("st.global.v4.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");\n',
        '  asm volatile("st.global.v4.u32 [%0], %1;" :: "l"(p), "r"(x) : "memory");\n',
        id="vector-type-where-a-vector-operand-belongs",
    ),
    pytest.param(
        "PTX204", "PTX301",
        '  asm volatile("ldu.shared.u32 %0, [%1];" : "=r"(r) : "l"(p));\n',
        '  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r) : "l"(p));\n',
        id="state-space-no-form-of-the-instruction-has",
    ),
    pytest.param(
        "PTX204", "PTX301",
        '  asm volatile("cp.async.ca.global.shared [%0], [%1], 16;" :: "l"(p), "l"(p + 4));\n',
        '  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "l"(p), "l"(p + 4));\n',
        id="state-spaces-out-of-place",
    ),
    pytest.param(
        "PTX204", "PTX301",
        '  asm volatile("cp.async.ca.shared.shared [%0], [%1], 16;" :: "l"(p), "l"(p + 4));\n',
        '  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "l"(p), "l"(p + 4));\n',
        id="state-space-no-form-combines-with-the-other",
    ),
    pytest.param(
        "PTX007", "PTX206",
        '  asm volatile("mov.b32 %0, %H1;" : "=r"(r) : "l"(u));\n',
        '  asm volatile("mov.b32 %0, %1;" : "=r"(r) : "l"(u));\n',
        id="gcc-modifier-on-a-wide-register",
    ),
    pytest.param(
        "PTX204", "PTX101",
        '  asm("atom.globl.add.u32 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(x) : "memory");\n',
        '  asm("atom.global.add.u32 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(x) : "memory");\n',
        id="misspelled-atomic-has-no-known-effects",
    ),
    pytest.param(
        "PTX004", "PTX206",
        '  asm volatile("add.u64 %0, %1, %1;" : "=l"(u) : "r"(u));\n',
        '  asm volatile("add.u64 %0, %1, %1;" : "=l"(u) : "r"(x));\n',
        id="wide-value-in-a-narrow-letter-of-a-wide-instruction",
    ),
    pytest.param(
        "PTX004", "PTX301",
        '  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r) : "r"(p));\n',
        '  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r) : "l"(p));\n',
        id="generic-pointer-in-r-as-a-shared-address",
    ),
    pytest.param(
        "PTX001", "PTX105",
        '  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r), "=r"(x) : "l"(p));\n',
        '  asm volatile("ld.global.v2.u32 {%0, %1}, [%2];" : "=r"(r) : "r"(x), "l"(p));\n',
        id="vector-load-given-too-few-outputs",
    ),
    pytest.param(
        "PTX106", "PTX105",
        '  asm volatile("mov.u32 %1, %0;" : "=r"(r) : "r"(x));\n',
        '  asm volatile("mov.u32 %1, %1;" : "+r"(r) : "r"(x));\n',
        id="copy-from-output-to-input",
    ),
    pytest.param(
        "PTX207", "PTX106",
        '  asm volatile("add.s32 %0 %1, %2;" : "=r"(r) : "r"(x), "r"(y));\n',
        '  asm volatile("add.s32 %0, %0, %1;" : "=r"(r) : "r"(x));\n',
        id="a-missing-comma-leaves-the-destination-unknown",
    ),
    pytest.param(
        "PTX001", "PTX009",
        '  asm volatile("mov.b32 %0, %2;" : "=r"(r) : "r"(x));\n',
        # (a template that computes: a lone copy's extra input is the dependency it carries)
        '  asm volatile("not.b32 %0, %1;" : "=r"(r) : "r"(x), "r"(y));\n',
        id="a-stray-number-and-the-operand-it-meant",
    ),
    pytest.param(
        "PTX201", "PTX202",
        '  asm volatile(".reg .pred q;\\n setp.eq.s32 q, %1, 0;\\n @q bra L1;\\n"\n'
        '               " mov.u32 %0, 1;\\n L1:" : "=r"(r) : "r"(x));\n',
        '  asm volatile("bra L1;\\n L1:\\n mov.u32 %0, %1;" : "=r"(r) : "r"(x));\n',
        id="a-template-without-braces-declares-and-labels",
    ),
    pytest.param(
        "PTX105", "PTX009",
        '  asm volatile("mov.u32 %1, %1;" : "=r"(r) : "r"(x));\n',
        '  asm volatile("add.s32 %0, %2, %2;" : "=r"(r), "=r"(y) : "r"(x));\n',
        id="the-input-written-where-the-unnamed-output-was-meant",
    ),
    pytest.param(
        "PTX106", "PTX009",
        '  asm volatile("add.s32 %0, %0, %1;" : "=r"(r) : "r"(x), "r"(y));\n',
        '  asm volatile("add.s32 %0, %1, %1;" : "=r"(r) : "r"(x), "r"(y));\n',
        id="the-output-read-where-the-unnamed-input-was-meant",
    ),
    pytest.param(
        "PTX206", "PTX009",
        '  asm volatile("add.u32 %0, %1, %1;" : "=r"(r) : "l"(u), "r"(x));\n',
        '  asm volatile("add.u32 %0, %1, %1;" : "=r"(r) : "r"(y), "r"(x));\n',
        id="a-number-that-names-a-register-of-the-wrong-type",
    ),
    pytest.param(
        "PTX206", "PTX009",
        '  asm volatile("st.global.u32 [%1], %1;" :: "l"(p), "r"(x) : "memory");\n',
        '  asm volatile("st.global.u32 [%1], %2;" :: "r"(y), "l"(p), "r"(x) : "memory");\n',
        id="an-address-that-names-the-value-not-the-pointer",
    ),
    # ptxas: "Unknown modifier '.red'" for bar.popc.red.u32; as bar.red.popc.u32 it writes %0
    pytest.param(
        "PTX204", "PTX106",
        '  asm volatile("bar.popc.red.u32 %0, 0, %1;" : "=r"(r) : "r"(x) : "memory");\n',
        '  asm volatile("bar.sync %0, %1;" : "=r"(r) : "r"(x) : "memory");\n',
        id="a-misspelled-instruction-s-guessed-roles",
    ),
    # a pointer in "r" that the template copies into a register and stores through as a
    # .shared address: one defect, the missing conversion (PTX004's fix); under "l", the
    # generic pointer is PTX301's
    pytest.param(
        "PTX004", "PTX301",
        '  asm volatile("{ .reg .u32 t; mov.u32 t, %0; st.shared.u32 [t], %1; }"'
        ' :: "r"(p), "r"(x) : "memory");\n',
        '  asm volatile("{ .reg .u64 t; mov.u64 t, %0; st.shared.u32 [t], %1; }"'
        ' :: "l"(p), "r"(x) : "memory");\n',
        id="a-pointer-in-r-copied-then-used-as-a-shared-address",
    ),
    # the selp that moved the predicate into the output deleted: the output's "never
    # referenced" is the lost predicate's echo; with no predicate, PTX009 speaks
    pytest.param(
        "PTX208", "PTX009",
        '  asm volatile("{ .reg .pred P; mbarrier.try_wait.parity.shared::cta.b64 P, [%1], %2; }"'
        ' : "=r"(r) : "r"(x), "r"(y) : "memory");\n',
        '  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%1];"'
        ' : "=r"(r) : "r"(x) : "memory");\n  p[0] = r;\n',
        id="a-lost-predicate-and-the-output-it-was-meant-for",
    ),
    pytest.param(
        "PTX207", "PTX106",
        # an stmatrix written in ldmatrix's shape: its registers bound as outputs are no
        # undefined read to declare '+', the operand order is the defect
        '  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"'
        ' : "=r"(r) : "r"(x) : "memory");\n  *p = r;\n',
        '  asm volatile("add.u32 %0, %0, %1;" : "=r"(r) : "r"(x));\n  *p = r;\n',
        id="operands-out-of-the-form-order-are-read-by-a-guess",
    ),
    pytest.param(
        "PTX207", "PTX104",
        '  asm volatile("ld.shared.u32 [%1], %0;" : "+r"(r) : "r"(x) : "memory");\n  *p = r;\n',
        '  asm volatile("st.shared.u32 [%1], %0;" : "+r"(r) : "r"(x) : "memory");\n  *p = r;\n',
        id="operands-out-of-the-form-order-are-written-by-a-guess",
    ),
    pytest.param(
        "PTX204", "PTX104",
        '  asm volatile("bar.popc.red.u32 %0, 0, %1;" : "+r"(r) : "r"(x) : "memory");\n',
        '  asm volatile("bar.sync %0, %1;" : "+r"(r) : "r"(x) : "memory");\n',
        id="a-misspelled-instruction-writes-nothing-known",
    ),
]


@pytest.mark.parametrize(("root", "echo", "with_root", "twin"), STACKS)
def test_the_root_finding_remains_and_its_echo_is_gone(
    root: str, echo: str, with_root: str, twin: str
) -> None:
    found = _rules(with_root)
    assert root in found and echo not in found, found


@pytest.mark.parametrize(("root", "echo", "with_root", "twin"), STACKS)
def test_without_the_root_the_other_rule_still_speaks(
    root: str, echo: str, with_root: str, twin: str
) -> None:
    found = _rules(twin)
    assert echo in found and root not in found, found


def test_a_misspelled_memory_instruction_asks_for_no_memory_clobber() -> None:
    text = _HEAD + '  asm volatile("st.glob.u32 [%0], %1;" :: "l"(p), "r"(x));\n}\n'
    assert [f.rule for f in lint_text(text, select=("PTX102", "PTX204"))] == ["PTX204"]
    spelled = text.replace("st.glob.", "st.global.")
    assert [f.rule for f in lint_text(spelled, select=("PTX102", "PTX204"))] == ["PTX102"]


def test_a_combination_no_target_spells_needs_no_target() -> None:
    """ldmatrix takes .b8 on sm_100a, but never with .m8n8: the spelling is PTX204's, and what
    its words would need on their own is no arch finding."""
    text = _HEAD + ('  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b8 {%0}, [%1];"'
                    ' : "=r"(r) : "r"(x));\n}\n')
    sm90a = RuleContext(arch=90, arch_suffix="a")
    chosen = ("PTX204", "PTX401")
    assert [f.rule for f in lint_text(text, select=chosen, context=sm90a)] == ["PTX204"]
    shaped = text.replace("m8n8.x1.trans.shared.b8", "m16n16.x1.trans.shared.b8")
    assert [f.rule for f in lint_text(shaped, select=chosen, context=sm90a)] == ["PTX401"]


def test_the_echo_stays_silent_when_only_it_is_selected() -> None:
    # the root is the analysis's, not another rule's finding: selection does not bring it back
    body = '  asm volatile("mov.b32 %0, %H1;" : "=r"(r) : "l"(u));\n}\n'
    assert lint_text(_HEAD + body, select=("PTX206",)) == []


def _analysis(body: str) -> StatementAnalysis:
    source = SourceFile("t.cu", _HEAD + body + "}\n")
    return analysis_of(extract_statements(source).statements[0])


def test_the_analysis_names_each_root() -> None:
    tied = _analysis('  asm volatile("add.s32 %0, %0, %2;" : "=r"(r) : "0"(x), "r"(y));\n')
    root = tied.tied_input(0)
    assert root is not None and (root.kind, root.rule, root.operand) == ("tied-input", "PTX002", 1)
    assert tied.tied(1) and not tied.tied(2) and tied.operand_root(1) is None

    bad = _analysis('  asm volatile("mov.b32 %0, %1;" : "=r"(r) : "r"(v));\n')
    root = bad.operand_root(1)
    assert root is not None and (root.kind, root.rule) == ("non-scalar-operand", "PTX005")
    template = bad.statement.template.text
    at = template.index("%1")
    spoiled = bad.template_root(at, at + 2)
    assert spoiled is not None and spoiled.operand == 1
    assert bad.template_root(0, template.index("%0") + 2) is None

    modified = _analysis('  asm volatile("mov.b32 %0, %H1;" : "=r"(r) : "l"(u));\n')
    at = modified.statement.template.text.index("%H1")
    root = modified.template_root(at, at + 3)
    assert root is not None and (root.kind, root.rule) == ("operand-modifier", "PTX007")


def test_a_tie_clang_accepts_still_silences_the_read() -> None:
    # clang's own CUDA headers take matching constraints: no PTX002, and the read is intended
    text = (
        "__device__ int f(int x) {\n  int r;\n"
        '  asm("add.s32 %0, %0, 1;" : "=r"(r) : "0"(x));\n  return r;\n}\n'
    )
    found = [f.rule for f in lint_text(text, path="__clang_cuda_intrinsics.h")]
    assert "PTX106" not in found and "PTX009" not in found


SWAPPED = (
    "__device__ void f(unsigned *p, unsigned &v) {\n"
    '  asm volatile("st.global.u32 [%1], %0;" : "=r"(v) : "l"(p) : "memory");\n'
    "}\n"
)


def test_an_undefined_read_is_the_root_whatever_is_selected_or_suppressed() -> None:
    assert [f.rule for f in lint_text(SWAPPED, select=("PTX104",))] == []
    text = SWAPPED.replace('"memory");', '"memory");  // ptxlint: ignore[PTX106]')
    assert "PTX104" not in {f.rule for f in lint_text(text)}


def test_a_write_under_a_predicate_is_only_a_conditional_output() -> None:
    # %0 is read under @p only after it is written under @p: no undefined read, and it is written
    text = (
        "__device__ void f(int x, int &r) {\n"
        '  asm("{ .reg .pred p; setp.gt.s32 p, %1, 0; @p mov.s32 %0, 1; }" : "=r"(r) : "r"(x));\n'
        "}\n"
    )
    assert [f.rule for f in lint_text(text, select=("PTX103", "PTX104", "PTX106"))] == ["PTX103"]


def test_a_spelling_ptx204_does_not_judge_keeps_its_effects() -> None:
    # under a PTX ISA newer than the grammar's (9.5, CUDA 13.5) the grammar abstains and
    # PTX204 is silent: the root is not reported, so its echo is no echo and PTX102 still speaks
    text = (
        "#if __cccl_ptx_isa >= 990\n"
        "__device__ void f(int *p, int x) {\n"
        '  asm volatile("st.glob.u32 [%0], %1;" :: "l"(p), "r"(x));\n'
        "}\n#endif\n"
    )
    assert [f.rule for f in lint_text(text, select=("PTX102", "PTX204"))] == ["PTX102"]


def test_register_misfits_are_judged_once_for_the_size_and_the_scalar_rules() -> None:
    """The operands under a register letter whose type it does not take (PTX004's size,
    PTX005's aggregate) or whose type is unknown, in operand order; accepted ones are left
    out, and PTX005's non-scalar operands are those of them."""
    text = _HEAD + (
        '  asm volatile("mov.b32 %0, %1; mov.b32 %0, %2; mov.b32 %0, %3; mov.b32 %0, %4;"'
        ' : "=r"(r) : "r"(x), "r"(u), "r"(v), "r"(undeclared));\n}\n'
    )
    [statement] = extract_statements(SourceFile("t.cu", text)).statements
    analysis = StatementAnalysis(statement)
    misfits = [(m.operand.expression, m.verdict and m.verdict.rule) for m in analysis.register_misfits]
    assert misfits == [("u", "PTX004"), ("v", "PTX005"), ("undeclared", None)]
    assert [n.operand.expression for n in analysis.non_scalar_operands] == ["v"]
    found = sorted((f.rule, f.message.split(" (")[1].split(")")[0]) for f in lint_text(text)
                   if f.rule in ("PTX004", "PTX005"))
    assert found == [("PTX004", "u"), ("PTX005", "v")]


def test_register_misfits_follow_runs_of_one_type_and_letter_in_operand_order() -> None:
    """A run of operands of one type and letter is judged once, but each operand of a run that
    misfits is named, in operand order, across runs that change the type, the letter or go
    through an operand of unknown type; the statement's types are worked out by the first
    read (nothing read before), and the answer is the one of a statement whose types were."""
    operands = ['"=r"(r)', '"r"(x)', '"r"(u)', '"r"(u)', '"r"(nope)', '"r"(u)', '"l"(u)',
                '"l"(x)', '"n"(4)', '"r"(x)', '"h"(x)']
    text = _HEAD + (
        '  asm volatile("' + " ".join(f"mov.b32 %0, %{k};" for k in range(1, len(operands)))
        + '" : ' + operands[0] + " : " + ", ".join(operands[1:]) + ");\n}\n"
    )
    [fresh] = extract_statements(SourceFile("t.cu", text)).statements
    misfits = [(m.operand.index, m.verdict and m.verdict.rule)
               for m in StatementAnalysis(fresh).register_misfits]
    assert misfits == [(2, "PTX004"), (3, "PTX004"), (4, None), (5, "PTX004"), (7, "PTX004"),
                       (10, "PTX004")]
    [typed] = extract_statements(SourceFile("t.cu", text)).statements
    assert [o.ctype for o in typed.operands][2] is not None
    assert [(m.operand.index, m.verdict) for m in StatementAnalysis(typed).register_misfits] == [
        (m.operand.index, m.verdict) for m in StatementAnalysis(fresh).register_misfits]


def test_the_analysis_names_the_roots_of_a_register_and_of_its_numbering() -> None:
    wide = _analysis('  asm volatile("add.u64 %0, %1, %1;" : "=l"(u) : "r"(u));\n')
    at = wide.statement.template.text.index("%1")
    root = wide.register_type_root(at, at + 2)
    assert root is not None and (root.kind, root.rule, root.operand) == (
        "register-misfit", "PTX004", 1)
    assert wide.template_root(at, at + 2) is None  # the register's type only: not its shape
    assert wide.register_type_root(0, wide.statement.template.text.index("%0") + 2) is None

    short = _analysis(
        '  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4]; mov.u32 %0, %1;"'
        ' : "=r"(r), "=r"(x) : "l"(p));\n'
    )
    template = short.statement.template.text
    at = template.index("%2")
    root = short.numbering_root(at, at + 2)
    assert root is not None and (root.kind, root.rule) == ("operand-index", "PTX001")
    at = template.index("%0", template.index("mov"))
    assert short.numbering_root(at, at + 2) is None  # another instruction: its own numbering


def test_a_predicated_vector_load_is_one_conditional_output_finding() -> None:
    body = (
        "  r = 0; x = 1;\n"
        '  asm volatile("{ .reg .pred q; setp.ne.u32 q, %2, 0;\\n"\n'
        '               "@q ld.global.v2.u32 {%0, %1}, [%3]; }"\n'
        '               : "=r"(r), "=r"(x) : "r"(y), "l"(p));\n'
    )
    found = [f for f in lint_text(_HEAD + body + "}\n") if f.rule == "PTX103"]
    assert len(found) == 1, found
    assert "outputs %0 ('=r'), %1 ('=r') are written only under '@q'" in found[0].message
    assert found[0].fix is not None
    assert [e.new_text for e in found[0].fix.edits] == ["+", "+"]
    # outputs the load writes under different guards are two defects
    split = body.replace("@q ld.global.v2.u32 {%0, %1}, [%3];",
                         "@q ld.global.u32 %0, [%3]; @!q ld.global.u32 %1, [%3];")
    found = [f for f in lint_text(_HEAD + split + "}\n") if f.rule == "PTX103"]
    assert len(found) == 2, found


def test_a_stray_number_names_the_operands_nothing_names() -> None:
    one = '  asm volatile("mov.b32 %0, %2;" : "=r"(r) : "r"(x));\n'
    (found,) = lint_text(_HEAD + one + "}\n", select=("PTX001",))
    assert found.message.endswith("; operand 1 (x) is never named: did you mean %1?")
    two = '  asm volatile("add.s32 %0, %3, %4;" : "=r"(r) : "r"(x), "r"(y));\n'
    found_two = lint_text(_HEAD + two + "}\n", select=("PTX001", "PTX009"))
    assert [f.rule for f in found_two] == ["PTX001", "PTX001"]
    assert all(f.message.endswith(
        "; operands 1 (x), 2 (y) are never named: did you mean %1, %2 where the template has "
        "%3, %4?") for f in found_two)
    # the numbers after an unnamed operand shifted by one: the whole shift is named
    shifted = '  asm volatile("add.s32 %0, %2, %3;" : "=r"(r) : "r"(x), "r"(y));\n'
    (found,) = lint_text(_HEAD + shifted + "}\n", select=("PTX001",))
    assert found.message.endswith(
        "; operand 1 (x) is never named: did you mean %1, %2 where the template has %2, %3? "
        "(the numbers after the gap look shifted)")
    # no renumbering fits: the unnamed operands are named, nothing more
    far = '  asm volatile("add.s32 %0, %5, %6;" : "=r"(r) : "r"(x), "r"(y));\n'
    found_far = lint_text(_HEAD + far + "}\n", select=("PTX001",))
    assert len(found_far) == 2
    assert all(f.message.endswith("; operands 1 (x), 2 (y) are never named") for f in found_far)


def test_a_backwards_copy_in_a_triton_template_is_one_finding() -> None:
    text = (
        "import triton.language as tl\n"
        "def f(x):\n"
        '    return tl.inline_asm_elementwise("mov.b32 $1, $0;", "=r,r", args=[x],\n'
        "                                     dtype=tl.int32, is_pure=True, pack=1)\n"
    )
    found = lint_text(text, path="k.py")
    assert [f.rule for f in found] == ["PTX106"], found
    assert "'mov.b32 $0, $1' would copy the input into the output" in found[0].message


def test_one_operand_misused_in_several_places_is_one_type_finding() -> None:
    body = '  asm volatile("{ mul.lo.u32 %0, %1, %1; add.u32 %0, %0, %1; }" : "=l"(u) : "r"(x));\n'
    found = lint_text(_HEAD + body + "}\n", select=("PTX206",))
    assert len(found) == 1, found
    assert found[0].message.endswith("(and 2 more uses of %0 in this statement)")


def test_declarations_outside_braces_are_one_finding_naming_every_name() -> None:
    body = (
        '  asm volatile(".reg .u32 t1;\\n .reg .u32 t2;\\n .reg .pred p;\\n"\n'
        '               " setp.eq.u32 p, %1, 0;\\n @p bra L1;\\n mov.u32 t1, %1;\\n"\n'
        '               " mov.u32 t2, t1;\\n L1:\\n mov.u32 %0, t2;" : "=r"(r) : "r"(x));\n'
    )
    (found,) = lint_text(_HEAD + body + "}\n", select=("PTX201", "PTX202"))
    assert found.rule == "PTX201"
    assert found.message.startswith(
        "'.reg' declares 't1', 't2', 'p' (and label 'L1') outside '{ }'")
    assert found.fix is not None  # one set of braces scopes every name


def test_a_letter_copied_along_neighbouring_operands_is_one_size_finding() -> None:
    head = "__device__ void f(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {\n"
    body = (
        '  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "\n'
        '               "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"\n'
        '      : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])\n'
        '      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));\n'
    )
    (found,) = lint_text(head + body + "}\n", select=("PTX004",))
    assert found.message.startswith("operands 0..3 (c[0], c[1], ..., c[3]): 'float'")
    assert found.fix is not None and [e.new_text for e in found.fix.edits] == ["f"] * 4
    # a run is broken by an operand refused for another reason
    mixed = body.replace('"+r"(c[2])', '"+l"(c[2])')
    assert len(lint_text(head + mixed + "}\n", select=("PTX004",))) == 3


def test_a_backwards_copy_in_cute_dsl_inline_ptx_is_named_as_written() -> None:
    text = (
        "import cutlass.cute as cute\n"
        "from cutlass import Int32\n\n\n"
        "@cute.kernel\n"
        "def kernel():\n"
        "    a = cute.arch.thread_idx()[0]\n"
        '    cute.arch.inline_ptx("mov.b32 {$r0}, {$w0};", write_only_types=[Int32],\n'
        "                         read_only_args=[a])\n"
    )
    found = lint_text(text, path="k.py")
    assert [f.rule for f in found] == ["PTX106"], found
    assert found[0].message.startswith(
        "'mov.b32 {$r0}, {$w0}' copies the wrong way: it reads write-only output {$w0} ")
    assert "'mov.b32 {$w0}, {$r0}' would copy the input into the output" in found[0].message


@pytest.mark.parametrize(("constraints", "template", "echo"), [
    ("=r,r", "add.f32 $0, $1, $2;", "PTX001"),  # one input short: $2 is past the string
    ("=r,r,r", "add.f32 $0, $1, $1;", "PTX009"),  # one input too many: nothing names it
])
def test_a_constraint_string_the_call_does_not_bind_is_one_finding(
    constraints: str, template: str, echo: str
) -> None:
    args = "[x, y]" if echo == "PTX001" else "[x]"
    text = (
        "import triton.language as tl\n"
        "def f(x, y):\n"
        f'    return tl.inline_asm_elementwise("{template}", "{constraints}", args={args},\n'
        "                                     dtype=tl.float32, is_pure=True, pack=1)\n"
    )
    assert [f.rule for f in lint_text(text, path="k.py")] == ["PTX501"]
    # the call's own count given, the template's numbering speaks for itself
    bound = "[x, y]" if echo == "PTX009" else "[x]"
    assert echo in [f.rule for f in lint_text(text.replace(args, bound), path="k.py")]


def test_a_write_meant_for_the_unnamed_output_offers_its_number() -> None:
    body = '  asm volatile("mov.u32 %1, %1;" : "=r"(r) : "r"(x));\n'
    (found,) = lint_text(_HEAD + body + "}\n", select=("PTX105", "PTX009"))
    assert "output %0 (r) is named nowhere" in found.message
    assert found.fix is not None and not found.fix.safe
    assert [e.new_text for e in found.fix.edits] == ["%0"]
    # two inputs written: which one was meant is not known, each is its own finding
    two = ('  asm volatile("mov.u32 %1, %2; mov.u32 %2, %1;" : "=r"(r) : "r"(x), "r"(y));\n'
           "  p[0] = r;\n")  # read after the asm: its undefined value reaches the store
    rules = sorted(f.rule for f in lint_text(_HEAD + two + "}\n", select=("PTX105", "PTX009")))
    assert rules == ["PTX009", "PTX105", "PTX105"]


def test_inputs_listed_one_colon_too_early_are_one_finding() -> None:
    body = ('  asm volatile("st.shared.v2.u32 [%0], {%1, %2};" : "r"(x), "r"(y), "r"(x)'
            ' : : "memory");\n')
    (found,) = lint_text(_HEAD + body + "}\n")
    assert found.rule == "PTX006" and "(%0, %1, %2)" in found.message
    assert found.fix is not None and not found.fix.safe
    # the template writes one of them: each output without '=' or '+' is its own finding
    written = '  asm("mov.u32 %0, %1;" : "r"(r), "r"(x));\n'
    rules = [f.rule for f in lint_text(_HEAD + written + "}\n", select=("PTX006",))]
    assert rules == ["PTX006", "PTX006"]


def test_an_llvm_read_meant_for_the_unnamed_input_is_one_finding() -> None:
    """Gluon's ``mov.b32 $0, $0;`` given "=r,r": the read of the write-only output was meant
    for the input no ``$N`` names, one defect (PTX106 names it, PTX009 is silent)."""
    text = ("import triton.language as tl\n\n\ndef k(x):\n"
            '    return tl.inline_asm_elementwise("mov.b32 $0, $0;", "=r,r", [x],\n'
            "                                    dtype=tl.int32, is_pure=True, pack=1)\n")
    chosen = ("PTX106", "PTX009")
    (found,) = lint_text(text, "k.py", select=chosen)
    assert found.rule == "PTX106" and "did you mean $1?" in found.message
    # the output tied to the input ("=r,0") is read-write: nothing read undefined, nothing
    # unnamed
    assert lint_text(text.replace('"=r,r"', '"=r,0"'), "k.py", select=chosen) == []


def test_an_operand_named_with_the_wrong_sigil_is_not_unused() -> None:
    """Triton's template names operands `$N`; `%1` is PTX008's finding, and the input it meant
    is named, not unused (PTX009 speaks where nothing names it)."""
    text = ("import triton.language as tl\n\n\ndef k(x):\n"
            '    return tl.inline_asm_elementwise("add.f32 $0, %1, 1.0;", "=r,r", [x],\n'
            "                                    dtype=tl.float32, is_pure=True, pack=1)\n")
    chosen = ("PTX008", "PTX009")
    assert [f.rule for f in lint_text(text, "k.py", select=chosen)] == ["PTX008"]
    unnamed = text.replace("%1", "1.0")
    assert [f.rule for f in lint_text(unnamed, "k.py", select=chosen)] == ["PTX009"]


def test_a_triton_value_wider_than_its_letter_is_one_finding() -> None:
    """An f64 in "f": LLVM makes a 32-bit register (PTX004), and the 64-bit instruction that
    reads it then has the wrong register type (PTX206): one defect, the letter."""
    text = ("import triton.language as tl\n\n\ndef k(x):\n"
            '    return tl.inline_asm_elementwise("mov.b64 $0, $1;", "=l,f", [x.to(tl.float64)],\n'
            "                                    dtype=tl.float64, is_pure=True, pack=1)\n")
    chosen = ("PTX004", "PTX206")
    assert [f.rule for f in lint_text(text, "k.py", select=chosen)] == ["PTX004"]
    # a 32-bit value in a 32-bit register: no misfit, and the 64-bit mov's type is PTX206's
    narrow = text.replace('"=l,f", [x.to(tl.float64)]', '"=l,r", [x.to(tl.float32)]')
    assert [f.rule for f in lint_text(narrow, "k.py", select=chosen)] == ["PTX206"]


def test_a_predicate_written_by_a_rejected_instruction_is_ptx207s_alone() -> None:
    # ptxas: "Predicate output not allowed for instruction 'match.any'"
    text = ('__device__ unsigned f(unsigned x) {\n  unsigned r;\n'
            '  asm volatile("{ .reg .pred p; match.any.sync.b32 %0|p, %1, 0xffffffff; }"'
            ' : "=r"(r) : "r"(x));\n  return r;\n}\n')
    assert [f.rule for f in lint_text(text, select=("PTX207", "PTX208"))] == ["PTX207"]


def test_a_vector_whose_elements_miss_the_same_way_is_one_ptx206_finding() -> None:
    # an s32 wgmma's accumulators bound to "f": one choice of letter, not four defects
    text = ('__device__ void f(float* d, int* e, unsigned long long a, unsigned long long b) {\n'
            '  asm volatile("wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 '
            '{%0,%1,%2,%3}, %4, %5, 1;"\n'
            '    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(a), "l"(b));\n}\n')
    [found] = lint_text(text, select=("PTX206",))
    assert found.message.endswith(
        "(and 3 more elements of the vector with the same constraint: %1, %2, %3)")
    # another letter on one of them: the other three are still one finding
    mixed = text.replace('"+f"(d[1])', '"+h"(e[1])')
    [found] = lint_text(mixed, select=("PTX206",))
    assert found.message.endswith("(and 2 more elements of the vector with the same "
                                  "constraint: %2, %3)")
    # a bit register among them makes the vector a bit vector, which an s32 accumulator takes
    # (ptxas 13.0 assembles {%f1, %r1, %f2, %r2} there): no finding
    bits = text.replace('"+f"(d[1])', '"+r"(e[1])').replace('"+f"(d[3])', '"+r"(e[3])')
    assert lint_text(bits, select=("PTX206",)) == []


def test_the_element_a_short_vector_lacks_is_ptx207s_alone() -> None:
    # ptxas: "Arguments mismatch for instruction 'ld'": the fourth output is the element the
    # vector lacks, one defect
    text = ('__device__ void f(const uint4* p, uint4& v, unsigned& w) {\n'
            '  asm volatile("ld.global.v4.u32 {%0, %1, %2}, [%4];"\n'
            '    : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p) : "memory");\n}\n')
    assert [f.rule for f in lint_text(text, select=("PTX009", "PTX207"))] == ["PTX207"]
    # an input, the same: the store's fourth value
    store = ('__device__ void f(uint4* p, uint4 v) {\n'
             '  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3};"\n'
             '    :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");\n}\n')
    assert [f.rule for f in lint_text(store, select=("PTX009", "PTX207"))] == ["PTX207"]
    # the vector of the right length: the unnamed output is unused, nothing else
    whole = text.replace("{%0, %1, %2}, [%4]", "{%0, %1, %2, %2}, [%4]")
    assert [f.rule for f in lint_text(whole, select=("PTX009", "PTX207"))] == ["PTX009"]
    # an unnamed operand of another letter is no element of the vector: still unused
    other = ('__device__ void f(const uint4* p, uint4& v, unsigned long long& w) {\n'
             '  asm volatile("ld.global.v4.u32 {%0, %1, %2}, [%4];"\n'
             '    : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=l"(w) : "l"(p) : "memory");\n}\n')
    assert sorted(f.rule for f in lint_text(other, select=("PTX009", "PTX207"))) == [
        "PTX009", "PTX207"]


def test_an_accumulator_a_short_destination_lacks_is_ptx207s_alone() -> None:
    # the fourth accumulator is still read as the C operand, so it is named, but nothing
    # writes it: the element the destination lacks, one defect
    text = ('__device__ void f(float* c, unsigned a0, unsigned a1, unsigned a2, unsigned a3,\n'
            '                  unsigned b0, unsigned b1) {\n'
            '  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "\n'
            '    "{%0, %1, %2}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"\n'
            '    : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])\n'
            '    : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));\n}\n')
    assert [f.rule for f in lint_text(text, select=("PTX104", "PTX207"))] == ["PTX207"]
    # the whole destination, the C operand without %3: it is only read nowhere, unused
    whole = text.replace('"{%0, %1, %2}, {%4', '"{%0, %1, %2, %3}, {%4')
    assert lint_text(whole, select=("PTX104", "PTX207")) == []
    # a read-write operand of another letter beside it, only read: still PTX104's
    other = ('__device__ void f(const uint4* p, uint4& v, unsigned long long& w) {\n'
             '  asm volatile("ld.global.v4.u32 {%0, %1, %2}, [%4];\\n\\tst.global.u64 [%4], %3;"\n'
             '    : "=r"(v.x), "=r"(v.y), "=r"(v.z), "+l"(w) : "l"(p) : "memory");\n}\n')
    assert sorted(f.rule for f in lint_text(other, select=("PTX104", "PTX207"))) == [
        "PTX104", "PTX207"]


def test_an_output_bound_among_the_inputs_is_no_element_of_their_walk() -> None:
    # %0 is the destination: a[0] bound as an input is a misplaced output (PTX105), and the
    # walk the instruction reads is a[0], a[2], with nothing repeated
    text = ('__device__ void f(unsigned* a) {\n'
            '  asm volatile("max.xorsign.abs.bf16x2 %0, %1, %2;"\n'
            '    :: "r"(a[0]), "r"(a[0]), "r"(a[2]));\n}\n')
    assert [f.rule for f in lint_text(text, select=("PTX012", "PTX105"))] == ["PTX105"]
    # a store writes none of its inputs: a[0] twice and a[1] never is still the walk's slip
    store = ('__device__ void f(unsigned* a, unsigned* p) {\n'
             '  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};"\n'
             '    :: "l"(p), "r"(a[0]), "r"(a[0]), "r"(a[2]), "r"(a[3]) : "memory");\n}\n')
    assert [f.rule for f in lint_text(store, select=("PTX012", "PTX105"))] == ["PTX012"]


MISNUMBERED = (
    "__device__ void f(unsigned *p, unsigned v, unsigned long long w) {\n"
    "  unsigned r;\n"
    '  asm volatile("add.u32 %0, %1, %1;" : "=r"(r) : "l"(w), "r"(v));\n'
    '  asm volatile("st.global.u32 [%1], %1;" :: "l"(p), "r"(v) : "memory");\n'
    "  *p = r;\n}\n"
)


def test_a_number_naming_the_wrong_operand_is_one_finding_that_names_the_unnamed_one() -> None:
    """A ``%N`` whose register its place cannot take, where the one operand no ``%N`` names
    fits that place: one defect, the number (PTX206 asks for the operand; PTX009 is silent),
    and no fix (which of the two ``%1`` was meant is not known)."""
    found = lint_text(MISNUMBERED, select=("PTX206", "PTX009"))
    assert [f.rule for f in found] == ["PTX206", "PTX206"]
    add, store = found
    assert add.message.endswith(
        "(and 1 more use of %1 in this statement) "
        "(did you mean %2, input operand 2 (v), which no %N names?)")
    assert store.message.endswith("(did you mean %0, input operand 0 (p), which no %N names?)")
    assert add.fix is None and store.fix is None
    # what the analysis names: the operand of the %N and the one it was meant to be
    statements = extract_statements(SourceFile("t.cu", MISNUMBERED)).statements
    meant = [analysis_of(s).misnumbered_reference(None, None, lambda: None)
             for s in statements]
    assert [(m.index, m.operand.index) for m in meant if m is not None] == [(1, 2), (1, 0)]


@pytest.mark.parametrize(("operands", "rules"), [
    # two unnamed operands would fit: which one was meant is not known
    ('"=r"(r) : "l"(w), "r"(v), "r"(x)', ["PTX009", "PTX009", "PTX206"]),
    # the unnamed operand does not fit either: a wrong letter and an unused operand
    ('"=r"(r) : "l"(w), "l"(u)', ["PTX009", "PTX206"]),
    # no %N of the wrong type: an operand left out on purpose (or forgotten) is PTX009's
    ('"=r"(r) : "r"(x), "r"(v)', ["PTX009"]),
    # an input cannot be the destination %0 was meant to be
    ('"=l"(u) : "r"(x), "r"(v), "r"(y)', ["PTX009", "PTX206"]),
])
def test_a_misnumbered_reference_needs_one_unnamed_operand_that_fits(
    operands: str, rules: list[str]
) -> None:
    template = "add.u32 %0, %1, %2;" if operands.startswith('"=l"') else "add.u32 %0, %1, %1;"
    text = ("__device__ void f(unsigned v, unsigned x, unsigned y, unsigned long long w,\n"
            "                  unsigned long long u) {\n  unsigned r;\n"
            f'  asm volatile("{template}" : {operands});\n}}\n')
    found = lint_text(text, select=("PTX206", "PTX009"))
    assert sorted(f.rule for f in found) == rules
    assert not any("did you mean" in f.message for f in found)


def test_a_misnumbered_destination_and_read_write_operand() -> None:
    head = ("__device__ void f(unsigned x, unsigned long long w, unsigned long long u) {\n"
            "  unsigned r, s;\n")
    chosen = ("PTX206", "PTX009", "PTX104")
    # a destination of the wrong type where an output no %N names fits: %0 was meant
    (found,) = lint_text(head + '  asm volatile("add.u32 %1, %2, %2;" : "=r"(r), "=l"(u)'
                         ' : "r"(x));\n}\n', select=chosen)
    assert found.rule == "PTX206" and "did you mean %0, output operand 0 (r)" in found.message
    # a read of the wrong type where a "+" output no %N names fits: its value is read
    (found,) = lint_text(head + '  asm volatile("add.u32 %0, %2, %2;" : "=r"(r), "+r"(s)'
                         ' : "l"(w));\n}\n', select=chosen)
    assert found.rule == "PTX206" and "did you mean %1, output operand 1 (s)" in found.message


def test_a_misnumbered_float_register_depends_on_the_target() -> None:
    """"f" is a .f32 register below sm_100 (no .u32 operand), untyped .b32 from sm_100 on."""
    text = ("__device__ void f(unsigned v, float x) {\n  unsigned r;\n"
            '  asm volatile("add.u32 %0, %1, %1;" : "=r"(r) : "f"(x), "r"(v));\n}\n')
    chosen = ("PTX206", "PTX009")
    sm90 = RuleContext(arch=90, arch_suffix="a")
    assert [f.rule for f in lint_text(text, select=chosen, context=sm90)] == ["PTX206"]
    sm100 = RuleContext(arch=100, arch_suffix="a")
    assert [f.rule for f in lint_text(text, select=chosen, context=sm100)] == ["PTX009"]


def test_a_shared_offset_used_as_a_generic_address_is_no_misnumbered_reference() -> None:
    """The 32-bit address register holds a shared-window offset: PTX301's defect, not a
    register type (PTX206 is silent), so the unnamed pointer is PTX009's."""
    text = ("__device__ void g(int *p, unsigned long long q) {\n"
            "  unsigned s = __cvta_generic_to_shared(p);\n"
            '  asm volatile("st.u32 [%1], %1;" :: "l"(q), "r"(s) : "memory");\n}\n')
    chosen = ("PTX206", "PTX009", "PTX301")
    assert sorted(f.rule for f in lint_text(text, select=chosen)) == ["PTX009", "PTX301"]
    plain = text.replace("  unsigned s = __cvta_generic_to_shared(p);\n", "").replace(
        "unsigned long long q)", "unsigned long long q, unsigned s)")
    assert [f.rule for f in lint_text(plain, select=chosen)] == ["PTX206"]


def test_an_llvm_number_naming_the_wrong_operand_is_one_finding() -> None:
    text = ("import triton.language as tl\n\n\ndef k(x, y):\n"
            '    return tl.inline_asm_elementwise("add.u32 $0, $1, $1;", "=r,l,r",\n'
            "                                     [x.to(tl.int64), y], dtype=tl.int32,\n"
            "                                     is_pure=True, pack=1)\n")
    (found,) = lint_text(text, "k.py", select=("PTX206", "PTX009"))
    assert found.rule == "PTX206"
    assert found.message.endswith("(did you mean $2, input operand 2 (y), which no $N names?)")


def test_a_vector_element_of_the_wrong_type_names_the_unnamed_output() -> None:
    head = "__device__ void f(const float *p, float &a, double &g, double &h) {\n"
    chosen = ("PTX206", "PTX009")
    one = head + ('  asm volatile("ld.global.v2.f32 {%0, %1}, [%3];"'
                  ' : "=f"(a), "=d"(g), "=f"(a) : "l"(p) : "memory");\n}\n')
    (found,) = lint_text(one, select=chosen)
    assert found.message.endswith("(did you mean %2, output operand 2 (a), which no %N names?)")
    # two elements miss alike: which of them was meant for the unnamed output is not known
    two = head + ('  asm volatile("ld.global.v2.f32 {%1, %2}, [%3];"'
                  ' : "=f"(a), "=d"(g), "=d"(h) : "l"(p) : "memory");\n}\n')
    assert sorted(f.rule for f in lint_text(two, select=chosen)) == ["PTX009", "PTX206"]


LOST_RESULT = (
    "__device__ unsigned f(unsigned bar, unsigned phase) {\n"
    "  unsigned done, other;\n"
    '  asm volatile("{\\n\\t.reg .pred P1;\\n\\t"\n'
    '               "mbarrier.try_wait.parity.shared::cta.b64 P1, [%1], %2;\\n\\t}"\n'
    '               : "=r"(done) : "r"(bar), "r"(phase) : "memory");\n'
    '  asm volatile("{\\n\\t.reg .pred P1;\\n\\t"\n'
    '               "mbarrier.try_wait.parity.shared::cta.b64 P1, [%2], %3;\\n\\t}"\n'
    '               : "=r"(done), "=r"(other) : "r"(bar), "r"(phase) : "memory");\n'
    '  asm volatile("{\\n\\t.reg .pred P1;\\n\\t"\n'
    '               "mbarrier.try_wait.parity.shared::cta.b64 P1, [%1], %2;\\n\\t}"\n'
    '               : "=f"(done) : "r"(bar), "r"(phase) : "memory");\n'
    '  asm volatile("{\\n\\t.reg .pred P1;\\n\\t"\n'
    '               "mbarrier.try_wait.parity.shared::cta.b64 P1, [%1], %2;\\n\\t"\n'
    '               "selp.b32 %0, 1, 0, P1;\\n\\t}"\n'
    '               : "=r"(done) : "r"(bar), "r"(phase) : "memory");\n'
    "  return done + other;\n}\n"
)


def test_a_lost_predicate_names_the_output_its_missing_selp_would_fill() -> None:
    """One predicate computed and dropped, one write-only output nothing writes: one defect,
    the ``selp`` between them missing (PTX208 names the output and the ``selp``; PTX009 is
    silent; a float output the same, its ``selp.f32`` choosing between two values). With two
    such outputs (which one was meant is not known), both findings stay; with the ``selp``,
    none."""
    found = lint_text(LOST_RESULT, select=("PTX208", "PTX009", "PTX104"))
    assert [(f.rule, LOST_RESULT.count("\n", 0, f.span.start) + 1) for f in found] == [
        ("PTX208", 4), ("PTX208", 7), ("PTX009", 8), ("PTX009", 8), ("PTX208", 10)]
    assert "(selp.f32 %0, a, b, P1;)" in found[4].message
    assert found[0].message.endswith(
        "and output %0 (done) is written by no instruction: the move of the one into the "
        "other is missing (selp.b32 %0, 1, 0, P1;), so the variable receives an undefined "
        "value")
    assert "move it into an output (selp.b32 %N" in found[1].message
    statements = extract_statements(SourceFile("t.cu", LOST_RESULT)).statements
    results = [analysis_of(s).lost_result for s in statements]
    assert [(r[0].name, r[1].index) if r else None for r in results] == [
        ("P1", 0), None, ("P1", 0), None]


_CUTE = (
    "from cutlass import Int32\nfrom cutlass._mlir.dialects import llvm\n"
    "from cutlass.cutlass_dsl import T\n\n"
    "def f(a, b, c):\n"
    "    x, y, z = (Int32(v).ir_value() for v in (a, b, c))\n"
)


def test_a_tie_lost_with_a_constraint_entry_is_ptx501s_alone() -> None:
    """A constraint string one entry short of the call's operands (PTX501) that lost the
    input tied to an output: the output's read before any write (PTX106) is that defect."""
    text = _CUTE + (
        "    return llvm.inline_asm(llvm.StructType.get_literal([T.i32(), T.i32()]),\n"
        "                           [x, y, z], 'add.u32 $0, $0, $2; add.u32 $1, $1, $2;',\n"
        "                           '=r,=r,r,0')\n"
    )
    assert sorted(f.rule for f in lint_text(text, "k.py", select=("PTX106", "PTX501"))) == [
        "PTX501"]
    # the twin with the call's count right: the untied output's read is PTX106's
    twin = text.replace("[x, y, z]", "[x, y]")
    assert sorted(f.rule for f in lint_text(twin, "k.py", select=("PTX106", "PTX501"))) == [
        "PTX106"]


def test_a_fallback_write_of_the_element_a_guarded_vector_lacks_is_ptx207s() -> None:
    """``@p ld.global.v4.u32 {%0, %1, %2}, [%4];`` beside ``@!p mov.u32 %3, 0;``: %3 is written
    only where the load does not run because the vector lacks it, one defect (PTX207), not
    a conditional output (PTX103)."""
    text = ('__device__ void f(const uint4* p, uint4& v, int c) {\n'
            '  asm volatile("{\\n\\t.reg .pred q;\\n\\tsetp.ne.s32 q, %5, 0;\\n\\t"\n'
            '    "@q ld.global.v4.u32 {%0, %1, %2}, [%4];\\n\\t"\n'
            '    "@!q mov.u32 %0, 0;\\n\\t@!q mov.u32 %1, 0;\\n\\t"\n'
            '    "@!q mov.u32 %2, 0;\\n\\t@!q mov.u32 %3, 0;\\n\\t}"\n'
            '    : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "r"(c) : "memory");\n}\n')
    assert [f.rule for f in lint_text(text, select=("PTX103", "PTX207"))] == ["PTX207"]
    # the whole vector: every output written on both paths, nothing to say
    whole = text.replace("{%0, %1, %2}, [%4]", "{%0, %1, %2, %3}, [%4]")
    assert lint_text(whole, select=("PTX103", "PTX207")) == []


def test_the_next_instruction_s_words_are_no_undeclared_registers() -> None:
    """A ';' missing where two string pieces meet (PTX205): the instruction reads the next
    one's words (``@_p exit``) as its operands, and 'exit' is no register it names (PTX213)."""
    text = ('__device__ void f(int i) {\n'
            '  asm volatile("{ .reg .pred _p; setp.lt.s32 _p, %0, 0"\n'
            '               " @_p exit; }" :: "r"(i));\n}\n')
    assert [f.rule for f in lint_text(text, select=("PTX205", "PTX213"))] == ["PTX205"]
    # the ';' there, a misspelt register: PTX213's
    typo = text.replace('0"\n', '0;"\n').replace("@_p exit", "@_q exit")
    assert [f.rule for f in lint_text(typo, select=("PTX205", "PTX213"))] == ["PTX213"]


def test_a_rejected_form_matched_by_a_stray_operand_is_ptx001s() -> None:
    """``cvta.to.shared.u32 %0, %2;`` given two operands: which register ``%2`` was meant to be
    decides what ptxas says of the form (a 32-bit one: "32-bit addressing", PTX204; a 64-bit
    one: "Arguments mismatch", PTX206), so only the numbering (PTX001) is reported."""
    text = ('__device__ unsigned f(unsigned a) {\n  unsigned r;\n'
            '  asm("cvta.to.shared.u32 %0, %2;" : "=r"(r) : "r"(a));\n  return r;\n}\n')
    assert [f.rule for f in lint_text(text, select=("PTX001", "PTX204"))] == ["PTX001"]
    # the twin, its operand in range: the form's rejection is PTX204's
    twin = text.replace("%0, %2;", "%0, %1;")
    assert [f.rule for f in lint_text(twin, select=("PTX001", "PTX204"))] == ["PTX204"]


def _branched(extra: str = "") -> str:
    """A statement whose ``#if`` branch reads ``%2`` (a 64-bit register) where ``%3`` was
    meant, and whose ``#else`` branch names neither."""
    return (
        "__device__ void f(unsigned x, unsigned v, unsigned long long w,\n"
        "                  unsigned long long u) {\n  unsigned r;\n"
        "  asm volatile(\n"
        "#if defined(FAST)\n"
        '      "add.u32 %0, %1, %2;"\n'
        "#else\n"
        '      "mov.u32 %0, %1;"\n'
        "#endif\n"
        f'      : "=r"(r) : "r"(x), "l"(w), "r"(v){extra});\n'
        "  (void)r;\n}\n"
    )


def test_an_input_another_branch_misnumbers_is_one_finding_in_every_branch() -> None:
    """The ``#else`` branch names no ``%3`` either, but mending the ``#if`` branch's number
    names it there, and the input is used: one defect, PTX206's in its branch."""
    found = lint_text(_branched(), select=("PTX206", "PTX009"))
    assert [f.rule for f in found] == ["PTX206"]
    assert "did you mean %3" in found[0].message
    statements = extract_statements(SourceFile("t.cu", _branched())).statements
    assert len(statements) == 2
    assert [inputs_meant_elsewhere(s, statements, None, None, lambda: None)
            for s in statements] == [frozenset(), frozenset({3})]


def test_an_input_no_branch_names_or_means_is_still_unused() -> None:
    """A second defect on the statement: an input no branch names and no root was meant for
    (a 64-bit ``u`` cannot be the ``.u32`` that ``%2``'s place takes) keeps its finding."""
    found = lint_text(_branched(', "l"(u)'), select=("PTX206", "PTX009"))
    assert sorted(f.rule for f in found) == ["PTX009", "PTX206"]
    (unused,) = [f for f in found if f.rule == "PTX009"]
    assert unused.message.startswith("input operand 4 (u)")
    assert not unused.branch  # both branches leave it unnamed: no branch note


def _inline_ptx(template: str, writes: int, reads: int) -> str:
    return (
        "import cutlass.cute as cute\n"
        "from cutlass import Int32\n\n\n"
        "@cute.kernel\n"
        "def kernel():\n"
        "    a = cute.arch.thread_idx()[0]\n"
        f'    cute.arch.inline_ptx("{template}", write_only_types=[{", ".join(["Int32"] * writes)}],\n'
        f"                         read_only_args=[{', '.join(['a'] * reads)}])\n"
    )


def test_a_renumbered_placeholder_is_one_finding_for_the_statement() -> None:
    # {$r0} becomes $0, the output; {$r1} (past the one-element list) becomes the input
    found = lint_text(_inline_ptx("ld.shared.u32 {$r0}, [{$r1}];", 1, 1), path="k.py")
    assert [f.rule for f in found] == ["PTX510"], found
    assert found[0].message.endswith(
        "also '{$r1}' is past the end of read_only_args and binds read_only_args[0]")


def test_what_a_renumbered_placeholder_reads_is_not_a_second_defect() -> None:
    # {$w1} binds write_only_types[0], so {$r0} reads write_only_types[1]: PTX510's defect
    found = lint_text(_inline_ptx("mov.b32 {$w1}, {$r0};", 2, 1), path="k.py")
    assert [f.rule for f in found] == ["PTX510"], found
    # an output read before any write in another instruction is a defect of its own
    found = lint_text(
        _inline_ptx("add.s32 {$w0}, {$w0}, 1;\\n mov.b32 {$w2}, {$r0};", 3, 1), path="k.py")
    assert sorted(f.rule for f in found) == ["PTX106", "PTX510"], found


def test_a_placeholder_past_its_list_is_not_also_a_stray_operand() -> None:
    # two placeholders, one argument: the lowering's $1 names no operand (PTX001's words), but
    # the defect the author wrote is {$r1}
    text = _inline_ptx("st.shared.u32 [{$r1}], {$r0};", 0, 1).replace(
        "write_only_types=[], ", "")
    found = lint_text(text, path="k.py")
    assert [f.rule for f in found] == ["PTX510"], found
    assert found[0].message == "'{$r1}' names read_only_args[1], but the list has 1 element"
