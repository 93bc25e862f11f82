"""PTX104 reads which ``%N`` a template writes as ``written_indices``' set where the flow can
be followed: the keys of the flow's writers map (``WriteAnalysis.writes``), from the same
destinations."""

from __future__ import annotations

from collections.abc import Set

import pytest

from ptxlint import rule_memo
from ptxlint.analysis import statement as statement_analysis
from ptxlint.analysis.operand_access import written_indices
from ptxlint.model import PtxTemplate
from ptxlint.ptx.flow import analyze, template_writes
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text, rule_fixture_statements


def _agree(ptx: PtxTemplate, text: str, written: Set[int | None], count: int) -> bool:
    analysis = analyze(ptx, text)
    if analysis is None:
        return True  # the rule stops before asking
    return all((i in analysis.writes) == (i in written) for i in range(count + 2))


def test_the_written_set_is_the_flow_maps_keys_on_the_fixtures() -> None:
    statements = [s for s in rule_fixture_statements() if s.operands]
    assert any(analyze(s.ptx, s.template.text) is not None for s in statements)
    for s in statements:
        assert _agree(s.ptx, s.template.text, written_indices(s), len(s.operands)), s.template.text


def test_the_written_set_is_the_flow_maps_keys_for_many_destinations() -> None:
    # past the flow's few-destinations threshold its map answers lazily
    outputs = ", ".join(f"%{i}" for i in range(64))
    text = ("{ .reg .pred p; setp.ne.b32 p, %66, 0;\n"
            f"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{{outputs}}}, %64, %65, p, "
            "1, 1, 0, 0;\n mov.b32 %70, %66; }")
    ptx = parse_template(text, True)
    analysis = analyze(ptx, text)
    assert analysis is not None and 70 in analysis.writes and 64 not in analysis.writes
    assert _agree(ptx, text, template_writes(ptx).refs, 72)


def _followed(monkeypatch: pytest.MonkeyPatch, statement: str) -> tuple[list[str], int]:
    """PTX104's findings on ``statement`` alone, and how many templates it had the flow follow."""
    calls = []

    def counted(ptx: PtxTemplate, text: str) -> object:
        calls.append(text)
        return analyze(ptx, text)

    monkeypatch.setattr(statement_analysis, "analyze", counted)
    rule_memo.MEMO.clear()  # an outcome replayed from an earlier test would call nothing
    text = f"__device__ void f(unsigned *p, unsigned v, unsigned w) {{\n  {statement}\n}}\n"
    return [f.rule for f in lint_text(text, select=("PTX104",))], len(calls)


def test_a_template_that_writes_every_output_has_no_paths_followed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # whatever the paths, an output some instruction writes is never "not written"
    found, followed = _followed(
        monkeypatch,
        'asm("{ .reg .pred q; setp.ne.u32 q, %2, 0; @q bra L; mov.b32 %0, %2; L: '
        'mov.b32 %1, %2; }" : "=r"(v), "+r"(w) : "r"(v));',
    )
    assert found == [] and followed == 0


def test_an_unwritten_output_has_the_paths_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    found, followed = _followed(
        monkeypatch, 'asm volatile("st.global.u32 [%1], %0;" : "+r"(v) : "l"(p) : "memory");'
    )
    assert found == ["PTX104"] and followed == 1


def test_an_unwritten_output_of_a_template_not_followed_is_not_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # an indirect branch: the paths are not known, and the rule says nothing
    found, followed = _followed(
        monkeypatch,
        'asm volatile("{ .reg .u32 t; brx.idx %2, T; T: .branchtargets L; L: st.global.u32 '
        '[%1], %0; }" : "+r"(v) : "l"(p), "r"(w) : "memory");',
    )
    assert found == [] and followed == 1


def test_a_video_destination_selector_writes_the_whole_register() -> None:
    """PTX ISA, scalar video instructions: `d = optMerge(dsel, tmp, c)`: the selected byte or
    half-word gets the result and the rest of d comes from c (nvdiffrast's byte-wise adds)."""
    def rules(template: str) -> list[str]:
        code = ("__device__ unsigned f(unsigned a, unsigned b) {\n  unsigned v, z = 0;\n"
                f'  asm("{template}" : "=r"(v) : "r"(a), "r"(b), "r"(z));\n  return v;\n}}\n')
        return [f.rule for f in lint_text(code)]

    assert rules("vadd.u32.u32.u32 %0.b0, %1, %2, %3;") == []
    assert rules("vadd2.u32.u32.u32 %0.h10, %1, %2, %3;") == []
    assert rules("vadd.u32.u32.u32 %2.b0, %1, %1, %3;") == ["PTX105"]


def test_an_output_without_a_modifier_is_ptx006s_alone() -> None:
    """nvcc rejects an output with neither '=' nor '+' ("an asm output operand must have one
    of the '=' or '+' modifiers"): an input list written one colon too early is one defect,
    PTX006's, not also an output the template never writes. A '+' output only read beside it is
    still reported."""
    code = (
        "__device__ void f(unsigned *R, unsigned a, unsigned b) {\n"
        '  asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};"\n'
        '               : "r"(a), "r"(R[0]), "r"(R[1]));\n'
        '  asm volatile("st.shared.u32 [%0], %1;" : "r"(a), "+r"(b) : : "memory");\n'
        "}\n"
    )
    found = sorted((f.rule, code.count("\n", 0, f.span.start) + 1) for f in lint_text(code))
    assert ("PTX006", 3) in found and ("PTX006", 4) in found
    assert [f for f in found if f[0] == "PTX104"] == [("PTX104", 4)]
