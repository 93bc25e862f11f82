"""What a duplicate definition collides with, as PTX201 and PTX202 say it."""

from __future__ import annotations

from ptxlint.analysis.emission import earlier_declaring
from ptxlint.model import AsmStatement
from ptxlint.rule import RuleContext

from ._llvm import copies


def second_copy(statement: AsmStatement, context: RuleContext) -> str:
    """The definition that collides with the statement's own: an earlier asm of its function
    that defines the name too (both in one PTX function, whatever calls it), else the copy the
    compiler (or the DSL, for LLVM-syntax asm) may make of this one."""
    if statement.syntax == "llvm":
        return copies(statement)
    earlier = earlier_declaring(statement, context)
    if earlier is None:
        return "a second inlined or unrolled copy of this asm"
    line = earlier.source.line_col(earlier.span.start).line
    return f"the asm at line {line} of this function defines it too, so this"
