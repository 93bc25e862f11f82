"""The template's operand index (ptxlint.analysis.template_refs): each of its answers equals
the walk over the ``%`` tokens or the instructions' operands that it replaces, on every
statement of the rules' fixtures and on templates made to show each case."""

from __future__ import annotations

from ptxlint.analysis.template_refs import ESCAPE_KINDS, TemplateRefs, Use, refs_of
from ptxlint.engine import extract_statements
from ptxlint.model import AsmStatement, PtxOperand, SourceFile
from tests.conftest import rule_fixture_statements

_STATEMENTS = rule_fixture_statements()


def _statement(code: str) -> AsmStatement:
    (statement,) = extract_statements(SourceFile("t.cu", code)).statements
    return statement


def _names(operand: PtxOperand, index: int) -> bool:
    if operand.kind == "ref":
        return operand.ref == index
    return any(_names(part, index) for part in operand.parts)


def _uses_by_walk(statement: AsmStatement, index: int) -> list[tuple[int, str | None, bool]]:
    """Per instruction operand naming ``%index``: (instruction, address space, in an address),
    walking every instruction for the one index."""
    spaces_of = ("shared", "global", "local", "const", "param")
    found = []
    for position, instruction in enumerate(statement.ptx.instructions):
        spaces = [m.split("::")[0] for m in instruction.modifiers
                  if m.split("::")[0] in spaces_of]
        addresses = 0
        for operand in instruction.operands:
            if operand.kind == "address":
                space = spaces[0] if len(spaces) == 1 else (
                    spaces[addresses] if addresses < len(spaces) else None)
                addresses += 1
                if _names(operand, index):
                    found.append((position, space, True))
            elif _names(operand, index):
                found.append((position, None, False))
    return found


def _as_rows(statement: AsmStatement, uses: tuple[Use, ...]) -> list[tuple[int, str | None, bool]]:
    position = {id(i): n for n, i in enumerate(statement.ptx.instructions)}
    return [(position[id(u.instruction)], u.space, u.in_address) for u in uses]


def test_the_token_tables_are_the_walks_over_the_percent_tokens() -> None:
    for statement in _STATEMENTS:
        refs = refs_of(statement)
        percents = statement.ptx.percents
        numbered = [t for t in percents if t.kind == "ref" and t.index is not None]
        assert list(refs.refs) == numbered
        assert refs.referenced == {t.index for t in numbered}
        assert refs.highest == max((t.index for t in numbered), default=-1)  # type: ignore[type-var]
        assert list(refs.modified) == [t for t in percents if t.kind == "ref" and t.modifier]
        assert list(refs.named) == [t for t in percents if t.kind == "named"]
        assert list(refs.escapes) == [t for t in percents if t.kind in ESCAPE_KINDS]
        for index in range(refs.highest + 2):
            tokens = [t for t in numbered if t.index == index]
            assert list(refs.tokens_of(index)) == tokens
            assert refs.first(index) == (tokens[0] if tokens else None)


def test_the_tokens_within_a_span_are_those_that_start_in_it() -> None:
    for statement in _STATEMENTS:
        refs = refs_of(statement)
        size = len(statement.template.text)
        bounds = [(i.start, i.end) for i in statement.ptx.instructions]
        bounds += [(0, size), (size // 3, size), (0, size // 2), (size, size)]
        for start, end in bounds:
            assert list(refs.within(start, end)) == [
                t for t in refs.refs if start <= t.start < end
            ]


def test_each_operands_uses_are_the_walk_over_every_instruction_for_it() -> None:
    seen_address = seen_value = False
    for statement in _STATEMENTS:
        refs = refs_of(statement)
        for index in range(max(len(statement.operands), refs.highest + 1) + 1):
            rows = _as_rows(statement, refs.uses(index))
            assert rows == _uses_by_walk(statement, index), statement.template.text
            seen_address |= any(in_address for _, _, in_address in rows)
            seen_value |= any(not in_address for _, _, in_address in rows)
    assert seen_address and seen_value  # the fixtures show both


def test_an_operand_named_twice_in_one_address_is_one_use_and_spaces_go_in_order() -> None:
    statement = _statement(
        "__device__ void f(unsigned a, const void* p) {\n"
        '  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\\n\\t'
        'ld.shared.u32 %0, [%0+%0];" : "+r"(a) : "l"(p));\n}\n'
    )
    refs = refs_of(statement)
    copy, load = statement.ptx.instructions
    assert refs.uses(0) == (
        Use(copy, "shared", True), Use(load, None, False), Use(load, "shared", True)
    )
    assert refs.uses(1) == (Use(copy, "global", True),)
    assert refs.uses(2) == ()
    assert [t.start for t in refs.tokens_of(0)] == [t.start for t in refs.refs if t.index == 0]


def test_a_template_is_indexed_once_for_every_statement_that_spells_it() -> None:
    code = (
        "__device__ void f(int a) {\n"
        '  asm volatile("mov.u32 %0, %0;" : "+r"(a));\n'
        '  asm volatile("mov.u32 %0, %0;" : "+r"(a));\n}\n'
    )
    first, second = extract_statements(SourceFile("t.cu", code)).statements
    assert first.ptx is second.ptx  # the parse is shared: so is its index
    assert refs_of(first) is refs_of(second)


def test_tokens_out_of_text_order_are_still_found_within_a_span() -> None:
    statement = _statement(
        "__device__ void f(int a, int b) {\n"
        '  asm("add.s32 %0, %1, %0;" : "+r"(a) : "r"(b));\n}\n'
    )
    shuffled = statement.ptx.__class__(
        **{**{f: getattr(statement.ptx, f) for f in statement.ptx.__dataclass_fields__},
           "percents": tuple(reversed(statement.ptx.percents))}
    )
    refs = TemplateRefs(shuffled)
    size = len(statement.template.text)
    assert [t.start for t in refs.within(0, size)] == sorted(t.start for t in shuffled.percents)
