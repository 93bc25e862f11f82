"""Declarations of a template that take names of nvcc's own registers inside braces where the
template names operands that nvcc gives names of the same scheme (PTX215's fact).

nvcc substitutes each ``%N`` with the register it chose for the operand, named by the
constraint's letter and numbered per function from 1 (nvcc 13.0 ``-ptx``: ``"h"`` ``%rs1``,
``"r"`` ``%r1``, ``"l"`` ``%rd1``, ``"f"`` ``%f1``, ``"d"`` ``%fd1``, ``"q"`` ``%rq1``). A
``.reg .f32 %%f<11>;`` inside the template's braces declares ``%f0`` to ``%f10`` for the rest
of the block, so an ``%N`` that nvcc names ``%f2`` there reads the template's own register, and
an output it names so is never written back: which operands that hits depends on the numbering
of the function the asm is inlined into."""

from __future__ import annotations

import re
from typing import NamedTuple

from ptxlint.analysis.template_refs import refs_of
from ptxlint.model import AsmStatement, PtxDirective
from ptxlint.ptx.scopes import declaration_blocks

__all__ = ["Shadowing", "shadowing_declarations"]

# the register name nvcc gives an operand of each constraint letter (nvcc 13.0 -ptx, sm_90)
SCHEME = {"h": "%rs", "r": "%r", "l": "%rd", "f": "%f", "d": "%fd", "q": "%rq"}
# a declared name of one of those schemes: `%%f3`, or parameterised, `%%f<11>`
_SCHEME_NAME = re.compile(r"%%(rs|rd|rq|fd|r|f)(?:[0-9]+|<[0-9]+>)")


class Shadowing(NamedTuple):
    directive: PtxDirective
    declared: str  # as written: `%%f<11>`
    register: str  # the scheme nvcc names the operands with: `%f`
    operands: tuple[int, ...]  # the %N inside the declaration's block that nvcc names so


def _scheme_of(statement: AsmStatement, index: int, depth: int = 0) -> str | None:
    """The register scheme nvcc names operand ``index`` with: its one letter's, or the one of
    the operand a digit ties it to; None where the letters leave it open."""
    operands = statement.operands
    if not 0 <= index < len(operands) or depth > 1:
        return None
    constraint = operands[index].constraint
    letters = constraint.letters
    if constraint.opaque:
        return None
    if letters.isdigit():
        return _scheme_of(statement, int(letters), depth + 1)
    return SCHEME.get(letters) if len(letters) == 1 else None


def shadowing_declarations(statement: AsmStatement) -> tuple[Shadowing, ...]:
    """Each ``.reg`` name of the template, declared inside braces, that is one of nvcc's
    register schemes, with the operands the template names after it in that block whose
    register nvcc names from the same scheme. Only where nvcc rewrites ``%`` (extended asm
    with operands, ``%%f1`` spelling ``%f1``) and the braces balance; a declaration at depth 0
    collides with the function's own and is PTX201's."""
    ptx = statement.ptx
    if not statement.operands or statement.syntax != "gnu" or not ptx.directives:
        return ()
    declarations = [d for d in ptx.directives if d.name == ".reg" and d.depth > 0
                    and any("%%" in name for name in d.declared)]
    if not declarations:
        return ()
    blocks = declaration_blocks(ptx)
    if blocks is None:
        return ()
    refs = refs_of(statement)
    found: list[Shadowing] = []
    for directive in declarations:
        end = blocks[directive.start][1]  # inside braces (depth > 0), which balance
        for name in directive.declared:
            match = _SCHEME_NAME.fullmatch(name)
            if match is None:
                continue
            register = "%" + match.group(1)
            hit = sorted({t.index for t in refs.within(directive.end, end)
                          if t.index is not None and _scheme_of(statement, t.index) == register})
            if hit:
                found.append(Shadowing(directive, name, register, tuple(hit)))
    return tuple(found)
