"""The roots that one ``#if`` branch of a statement finds, for the statement's other branches.

A statement with ``#if`` inside is linted once per branch, each branch's reading its own
statement. Where they bind the same operands, an input that one branch's template names is used
by the build that takes that branch (``Context.branch_named``): the other branches do not call
it unused. An input that a branch's template was meant to name is the same: where a root in one
branch names the input its defect was meant for (a ``%N`` of the wrong register type that was
meant to name it, PTX206; an undefined read meant for it, PTX106; an element a too-short vector
lacks, PTX207), mending that branch names the input there, and the other branches' "never
referenced" (PTX009) goes with it. One defect, one finding: the root's rule reports it in its
branch, and PTX009 is silent on that input in every branch.

An output is not carried across: in a branch whose template does not name an output, the
variable receives an undefined value whatever another branch does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ptxlint.analysis.statement import StatementAnalysis, analysis_of
from ptxlint.model import AsmStatement

__all__ = ["inputs_meant_elsewhere"]


def _binding(statement: AsmStatement) -> tuple[tuple[str, str, str], ...]:
    # as the front end compares branches (``Context.branch_named``): the same operands
    return tuple((o.role, o.constraint.text, o.expression) for o in statement.operands)


def inputs_meant_elsewhere(
    statement: AsmStatement,
    file_statements: Iterable[AsmStatement],
    arch: int | None | Callable[[StatementAnalysis], int | None],
    cuda_version: object,
    parsed: Callable[[], object | None],
) -> frozenset[int]:
    """The inputs of ``statement`` that a root in another ``#if`` branch of it names as the
    operand its defect was meant for (see the module's docstring); empty for a statement
    without ``#if`` inside. ``file_statements``: the file's linted statements, the branches
    among them; ``arch``, ``cuda_version`` and ``parsed`` as
    :meth:`StatementAnalysis.misnumbered_reference` takes them (``arch`` may be asked of each
    branch's analysis: ``RuleContext.one_arch``, as PTX206 asks it of that branch)."""
    if not statement.context.branch:
        return frozenset()
    start = statement.span.start
    bound = _binding(statement)
    meant: set[int] = set()
    for other in file_statements:
        if (other is statement or other.span.start != start or not other.context.branch
                or other.source.path != statement.source.path or _binding(other) != bound):
            continue
        analysis = analysis_of(other)
        if not analysis.unreferenced_operands:
            continue  # every root named here is an operand its branch leaves unnamed
        target = arch(analysis) if callable(arch) else arch
        misnumbered = analysis.misnumbered_reference(target, cuda_version, parsed)
        if misnumbered is not None:
            meant.add(misnumbered.operand.index)
        misdirected = analysis.misdirected_read
        if misdirected is not None:
            meant.add(misdirected[1].index)
        meant |= analysis.vector_lacks
    operands = statement.operands
    return frozenset(i for i in meant if i < len(operands) and operands[i].role == "input")
