"""Which operand defect of an instruction PTX207 reports, decided once for every rule that must
know it: PTX207 itself, and PTX009, which stays silent on an operand whose ``%N`` a reported
vector spells as a bare number (``{%13, %14, %15, 16}`` where ``%16`` was meant: one typo, the
vector PTX207 reports and the operand nothing names are its two echoes).

An instruction's operand finding is, in order: a C-style operand (``(int64_t)2``,
``c_operand_issue``); a malformed operand list (a ``PtxProblem`` of kind "operand-list" that
no other rule's root explains); else the grammar's first operand issue that holds where the
statement is built (a float-register type issue is judged again with "f"/"d" untyped where
only sm_100+ builds it, as nvcc declares them there) and that the configured toolkit's ptxas
does not take, unless its operand or ``%N`` is another rule's defect (``template_root``).
Nothing for an instruction that is opaque, no opcode, or runs into the next one (PTX205's).
"""

from __future__ import annotations

from ptxlint import file_memos
from ptxlint.analysis.register_types import floats_typed
from ptxlint.analysis.statement import StatementAnalysis, analysis_of
from ptxlint.model import AsmStatement, Operand, PtxInstruction, PtxOperand
from ptxlint.ptx.grammar import c_operand_issue
from ptxlint.ptx.instructions import is_opcode
from ptxlint.ptx.judge import Verdict
from ptxlint.ptx.operand_classes import Issue, parse_immediate
from ptxlint.ptx.toolkit import toolkit_accepts
from ptxlint.value_class import value_class

__all__ = ["OperandFinding", "MeantNumber", "number_meant_as_operand", "operand_findings"]


@value_class
class OperandFinding:
    """What PTX207 reports of ``instruction``: at template offsets ``start``..``end``, with
    ``message``; ``issue`` the grammar's issue where it is one (None for a C-style operand or a
    malformed operand list)."""

    instruction: PtxInstruction
    start: int
    end: int
    message: str
    issue: Issue | None = None


@value_class
class MeantNumber:
    """An integer literal of a reported vector (``literal``) where the operand ``operand``,
    which no ``%N`` names, was meant: its number is the literal's value, and it is bound under
    the letter of the vector's other elements."""

    literal: PtxOperand
    operand: Operand


def operand_findings(statement: AsmStatement, arch: int | None,
                     cuda_version: object) -> tuple[OperandFinding, ...]:
    """PTX207's findings of ``statement``, one an instruction at most (see the module): kept
    for the last statement asked, which PTX009 asks about right after PTX207."""
    for last in _LAST[:1]:  # one read (threads share it): the entry, or none
        if last[0] is statement and last[1] == arch and last[2] == cuda_version:
            return last[3]
    found = _operand_findings(statement, arch, cuda_version)
    _LAST[:] = [(statement, arch, cuda_version, found)]
    return found


_LAST: list[tuple[AsmStatement, int | None, object, tuple[OperandFinding, ...]]] = []
file_memos.register(_LAST.clear)


def _operand_findings(statement: AsmStatement, arch: int | None,
                      cuda_version: object) -> tuple[OperandFinding, ...]:
    if statement.opaque_sections:
        return ()
    analysis = analysis_of(statement)
    problems = statement.ptx.problems
    out: list[OperandFinding] = []
    for instruction, verdict in zip(statement.ptx.instructions, analysis.verdicts, strict=True):
        if instruction.opaque or not is_opcode(instruction.opcode):
            continue
        c_issue = c_operand_issue(instruction)
        if c_issue is not None:
            if not analysis.runs_together(instruction):
                out.append(OperandFinding(instruction, c_issue.start, c_issue.end,
                                          c_issue.message))
            continue
        listed = next((p for p in problems if p.kind == "operand-list"
                       and instruction.start <= p.start < instruction.end
                       and analysis.template_root(p.start, p.end) is None
                       and not analysis.runs_together(instruction)), None)
        if listed is not None:
            out.append(OperandFinding(instruction, listed.start, listed.end,
                                      f"{listed.message} in '{instruction.mnemonic}'"))
            continue
        if verdict is None:
            # a family no form judges (tex, tld4, sust...): its vectors alone are judged, an
            # integer literal beside a float register (ptxlint.ptx.operand_check)
            verdict = analysis.verdict(instruction)
        if not verdict.issues or analysis.runs_together(instruction):
            continue  # (operands that run into the next instruction: PTX205's defect)
        issue = _reported_issue(analysis, instruction, verdict, arch, cuda_version)
        if issue is not None:
            out.append(OperandFinding(instruction, issue.start, issue.end, issue.message, issue))
    return tuple(out)


def _reported_issue(analysis: StatementAnalysis, instruction: PtxInstruction, verdict: Verdict,
                    arch: int | None, cuda_version: object) -> Issue | None:
    for issue in verdict.issues:
        if issue.kind != "operand":
            continue
        if issue.typed_floats and not floats_typed(analysis, arch):
            # built for sm_100+ only, where nvcc declares "f"/"d" registers untyped
            again = analysis.verdict(instruction, False).issues
            if not any((i.start, i.end) == (issue.start, issue.end) for i in again):
                continue
        if toolkit_accepts(issue, cuda_version, analysis.guards):
            continue  # the configured toolkit's ptxas (cuda-version) takes it
        if analysis.template_root(issue.start, issue.end) is not None:
            return None  # the operand or its %N is the defect (PTX002, PTX005, PTX007)
        return issue
    return None


def number_meant_as_operand(statement: AsmStatement, arch: int | None,
                            cuda_version: object) -> MeantNumber | None:
    """The one integer literal of a vector PTX207 reports for mixing it with float registers
    whose value is the number of an operand no ``%N`` names, bound under the letter and role
    of the vector's ``%N`` elements (``{%13, %14, %15, 16}`` beside an unnamed ``"f"`` input
    16): the ``%`` was dropped. None where there is no such literal, or more than one."""
    analysis = analysis_of(statement)
    unnamed = {o.index: o for o in analysis.unreferenced_operands}
    if not unnamed or analysis.stray_refs:
        return None
    operands = statement.operands
    found: list[MeantNumber] = []
    for finding in operand_findings(statement, arch, cuda_version):
        if finding.issue is None or not finding.issue.typed_floats:
            continue
        vector = _vector_at(finding.instruction, finding.start, finding.end)
        if vector is None:
            continue
        refs = [p for p in vector.parts if p.kind == "ref"]
        indices = [p.ref for p in refs if p.ref is not None and p.ref < len(operands)]
        if not refs or len(indices) != len(refs):
            continue
        kinds = {(operands[i].role, operands[i].constraint.letters) for i in indices}
        for literal in (p for p in vector.parts if p.kind == "immediate"):
            value = parse_immediate(literal.text)
            meant = unnamed.get(value) if value is not None else None
            if meant is not None and kinds == {(meant.role, meant.constraint.letters)}:
                found.append(MeantNumber(literal, meant))
    return found[0] if len(found) == 1 else None


def _vector_at(instruction: PtxInstruction, start: int, end: int) -> PtxOperand | None:
    """The vector operand (or vector inside an address) of ``instruction`` at ``start``..``end``."""
    for operand in instruction.operands:
        for vector in (operand, *operand.parts):
            if vector.kind == "vector" and (vector.start, vector.end) == (start, end):
                return vector
    return None
