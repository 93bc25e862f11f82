"""PTX104 reads which ``%N`` a template writes as ``written_indices``' set where the flow can
be followed: the keys of the flow's writers map (``WriteAnalysis.writes``), from the same
destinations."""

from __future__ import annotations

from collections.abc import Set

from ptxlint.analysis.operand_access import written_indices
from ptxlint.model import PtxTemplate
from ptxlint.ptx.flow import analyze, template_writes
from ptxlint.ptx.parser import parse_template
from tests.conftest import rule_fixture_statements


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
