"""Questions about a template's scopes that PTX201/PTX202 share: where it lives, whether its brace
depths can be trusted, which names its instructions use."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ptxlint.model import AsmStatement, PtxOperand, PtxTemplate

__all__ = ["braces_known", "is_file_scope", "used_names", "uses_declared"]


def is_file_scope(statement: AsmStatement) -> bool:
    """Top-level asm is emitted once into the module: its declarations are meant to be global."""
    return statement.context.function is None and statement.context.macro is None


def braces_known(statement: AsmStatement) -> bool:
    """Whether brace depths can be trusted: no macro piece (it could hold a brace) and balanced."""
    if statement.template.has_holes:
        return False
    depth = 0
    for brace in statement.ptx.braces:
        depth += 1 if brace.char == "{" else -1
        if depth < 0:
            return False
    return depth == 0


def _operand_words(operand: PtxOperand) -> Iterator[str]:
    if operand.parts:
        for part in operand.parts:
            yield from _operand_words(part)
    else:
        yield operand.text.lstrip("!-")


def used_names(ptx: PtxTemplate) -> set[str]:
    """Every register, label and other word the instructions of ``ptx`` name as an operand."""
    names: set[str] = set()
    for instruction in ptx.instructions:
        if instruction.predicate is not None:
            names.update(_operand_words(instruction.predicate.register))
        for operand in instruction.operands:
            names.update(_operand_words(operand))
    return names


def uses_declared(declared: str, names: set[str]) -> bool:
    """Whether ``declared`` (``t`` or a parameterised ``r<4>``) is among ``names``."""
    base, _, count = declared.partition("<")
    if not count:
        return declared in names
    pattern = re.compile(re.escape(base) + r"[0-9]+")
    return any(pattern.fullmatch(name) for name in names)
