"""The statement features read off a statement and its PTX parse in one call
(``ptxlint.rule.parse_features``): each holds exactly where its definition does, whichever of
them are wanted, and ``NEEDS`` answers each the same way."""

from __future__ import annotations

from ptxlint.analysis.carry import PRODUCERS
from ptxlint.model import AsmStatement
from ptxlint.ptx.instructions import deprecation
from ptxlint.ptx.isa_table import ADVISED
from ptxlint.ptx.protocols import collective
from ptxlint.rule import NEEDS, PARSE_NEEDS, STRING_PIECES, parse_features
from tests.conftest import rule_fixture_statements

_STATEMENTS = rule_fixture_statements()


def _opcodes(statement: AsmStatement) -> list[str]:
    return [i.opcode for i in statement.ptx.instructions]


# Each feature by its definition, instruction by instruction.
_DEFINITIONS = {
    "clobbers": lambda s: bool(s.clobbers),
    "missing-commas": lambda s: bool(s.missing_commas),
    "llvm": lambda s: s.syntax == "llvm" or s.llvm is not None,
    "instructions": lambda s: bool(s.ptx.instructions),
    "branches": lambda s: any(
        i.predicate is not None or i.opcode in ("bra", "brx", "ret", "exit", "trap")
        for i in s.ptx.instructions
    ),
    "directives": lambda s: bool(s.ptx.directives),
    "labels": lambda s: bool(s.ptx.labels),
    "braces": lambda s: bool(s.ptx.braces),
    "addresses": lambda s: "[" in s.template.text,
    "string-pieces": lambda s: sum(p.kind in STRING_PIECES for p in s.template.pieces) > 1,
    "template-problems": lambda s: bool(s.ptx.problems),
    "carry-arithmetic": lambda s: any(op in PRODUCERS for op in _opcodes(s)),
    # some form of the opcode is deprecated, or advised against: a superset of the instructions
    # PTX402 reports
    "deprecated-opcodes": lambda s: any(
        deprecation(i.opcode, ()) is not None or deprecation(i.opcode, i.modifiers) is not None
        or any(entry[0] == i.opcode for entry in ADVISED)
        for i in s.ptx.instructions
    ),
    # an instruction the warp may have to reach together: a superset of what PTX601 asks about
    "collectives": lambda s: any(
        i.opcode == "bar" or "aligned" in i.modifiers or "sync" in i.modifiers
        for i in s.ptx.instructions
    ),
    # a tcgen05 instruction that names its .cta_group (PTX614)
    "cta-groups": lambda s: any(
        i.opcode == "tcgen05" and any(m.startswith("cta_group") for m in i.modifiers)
        for i in s.ptx.instructions
    ),
    # the template's last instruction has no ';' (PTX205)
    "unterminated-last": lambda s: bool(s.ptx.instructions)
    and not s.ptx.instructions[-1].terminated,
    "never": lambda s: False,
    # no statement has it: a rule needing it also speaks at a file's helper calls
    "helper-calls": lambda s: False,
    # no statement linted has it: a rule needing it is asked about the statements extraction
    # left out (a template literal broken by a line end, PTX014)
    "left-out": lambda s: False,
}


def test_collectives_hold_wherever_an_instruction_is_a_warp_collective() -> None:
    found = [s for s in _STATEMENTS if any(collective(i) for i in s.ptx.instructions)]
    assert found and all("collectives" in parse_features(s) for s in found)


def test_every_parse_feature_is_a_need_with_a_definition() -> None:
    assert set(PARSE_NEEDS) == set(_DEFINITIONS)
    assert set(PARSE_NEEDS) <= set(NEEDS)


def test_each_feature_holds_exactly_where_its_definition_does() -> None:
    for name, definition in _DEFINITIONS.items():
        held = 0
        for statement in _STATEMENTS:
            found = name in parse_features(statement)  # before the definition makes pieces
            holds = bool(definition(statement))
            assert found == holds, (name, statement.template.text)
            assert (name in parse_features(statement, (name,))) == holds, name
            assert NEEDS[name](statement) == holds, name
            held += holds
        if name not in ("never", "helper-calls", "left-out"):
            assert 0 < held < len(_STATEMENTS), name  # the fixtures show it both ways


def test_a_deprecated_instruction_is_under_its_feature() -> None:
    for statement in _STATEMENTS:
        if any(deprecation(i.opcode, i.modifiers) for i in statement.ptx.instructions):
            assert "deprecated-opcodes" in parse_features(statement)

