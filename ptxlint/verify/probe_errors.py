"""What the toolchain said about a probe or a compile, read back onto the statements: ptxas's
errors on a PTX probe mapped to the statement and characters they are about, nvcc's on a .cu
probe split into the statement's and the probe's own, and the kinds of message that say nothing
about the asm itself."""

from __future__ import annotations

import re
from typing import NamedTuple

from ptxlint.model import AsmStatement, Finding, Span
from ptxlint.verify import ptx_probe, scratch, whole_file
from ptxlint.verify.diagnostics import Diagnostic, parse
from ptxlint.verify.runner import Outcome

# ptxas errors that a statement probed alone may get for reasons outside it
ISOLATION = re.compile(r"Unknown symbol|not declared|undefined", re.I)
# nvcc front-end messages about an asm statement itself (its operands, constraints, clobbers)
ABOUT_ASM = re.compile(r"\basm\b|constraint|operand|clobber|register name", re.I)
ARCH_ERROR = re.compile(r"not supported on \.target|requires \.target|requires sm_|"
                        r"not supported for \.target", re.I)


class Mapped(NamedTuple):
    """A ptxas error of a PTX probe, mapped back to the statement and the characters it is about."""

    statement: AsmStatement
    span: Span
    diagnostic: Diagnostic
    # the template offset of the line ptxas named; None for a line the probe wrote or none
    offset: int | None = None


def ptx_errors(probe: ptx_probe.PtxProbe, outcome: Outcome,
               warnings: bool = False) -> list[Mapped]:
    """ptxas's errors on the probe (``warnings``: its warnings instead), each mapped back."""
    out = []
    for diag in parse(outcome.messages):
        if diag.is_error is warnings:
            continue
        where = probe.source_span(diag.line) if diag.line else None
        if where is None:
            # no line: the message is about the whole module, so about the group
            first = probe.statements[0]
            out.append(Mapped(first, first.span, diag))
        else:
            origin = probe.line_origin[diag.line]
            out.append(Mapped(where[0], where[1], diag, origin[1] if origin else None))
    return out


def finding_lines(finding: Finding) -> tuple[int, int] | None:
    """The template offsets [start, end) of the lines that hold the PTX instruction, directive
    or label the finding's span starts in: ptxas's words about that item name one of them (an
    instruction over several lines, a vector operand per line, is named by any). None where no
    item holds the span (a finding on the operand list), or the finding has no statement."""
    statement = finding.statement
    if statement is None:
        return None
    template, ptx, at = statement.template, statement.ptx, finding.span.start
    items: list[tuple[int, int]] = [(i.start, i.end) for i in ptx.instructions]
    items += [(d.start, d.end) for d in ptx.directives]
    items += [(label.start, label.end) for label in ptx.labels]
    # the item one of whose characters comes from the span's start; failing that, the item
    # whose source span (its first character's start to its last's end) holds it. The second
    # alone is wrong where values come from elsewhere: a Python f-string's
    # '{downcast} ...\n{upcast} ...' spans from the first value's assignment to the template,
    # and so holds the second value's assignment, where a finding on the second line starts
    starts, ends = template.char_starts, template.char_ends

    def made_of(start: int, end: int) -> bool:
        return any(starts[i] <= at < max(ends[i], starts[i] + 1)
                   for i in range(start, min(max(end, start + 1), len(template.text))))

    def spanning(start: int, end: int) -> bool:
        span = template.source_span(start, max(end, start + 1))
        return span.start <= at < span.end

    found = next((item for item in items if made_of(*item)), None) or next(
        (item for item in items if spanning(*item)), None)
    if found is None:
        return None
    start, end = found
    text = template.text
    stop = text.find("\n", max(end - 1, start))
    return text.rfind("\n", 0, start) + 1, len(text) if stop < 0 else stop


def on_lines(mapped: Mapped, lines: tuple[int, int] | None) -> bool:
    """Whether ptxas's message is about ``lines`` (``finding_lines``): a message on another
    line of the statement is about another instruction, and after a fatal one (a parse error)
    ptxas reads no further, so it says nothing of the lines after. A message on no line of the
    template (the module's, a line the probe wrote) may be about any."""
    return lines is None or mapped.offset is None or lines[0] <= mapped.offset < lines[1]


def cu_errors(statement: AsmStatement, outcome: Outcome) -> tuple[list[Diagnostic], list[str]]:
    """(errors on the statement's lines, errors elsewhere: the probe's own fault, each quoted
    with the tool that gave it, nvcc's front end or the ptxas it runs)."""
    first = statement.line
    last = statement.source.line_col(statement.span.end).line
    mine, other = [], []
    for diag in parse(outcome.messages):
        if not diag.is_error:
            continue
        if scratch.same_source(diag.file, statement.source.path) and first <= diag.line <= last + 1:
            mine.append(diag)
        else:
            other.append(quote(diag))
    if outcome.returncode != 0 and not mine and not other:
        other.append("nvcc: " + (outcome.messages.splitlines()[0] if outcome.messages
                                 else f"exit status {outcome.returncode}"))
    return mine, other


_QUOTED = re.compile(r"'([^'\s]+)'")


def most_specific(agreeing: list[Diagnostic], finding: Finding) -> Diagnostic:
    """Of the messages that state the finding's claim on its lines, the one about what the
    finding names: ptxas says "Feature '.16x256b' not supported on .target 'sm_90'" and then
    "Instruction 'tcgen05.ld' not supported on .target 'sm_90'" of one tcgen05.ld, and names
    each instruction of a line in turn. First a message naming the flagged instruction (a
    name the finding quotes, or its opcode: 'tcgen05.ld' of 'tcgen05.ld.sync.aligned...'), then
    one naming a part of it ('.16x256b'), then ptxas's first."""
    named = _QUOTED.findall(finding.message)

    def rank(diag: Diagnostic) -> int:
        said = _QUOTED.findall(diag.message)
        if any(m == q or m.startswith(q + ".") for q in said for m in named):
            return 0
        if any(q in m for q in said for m in named):
            return 1
        return 2

    return min(agreeing, key=rank)  # min keeps the first of equal rank


def quote(diag: Diagnostic) -> str:
    return f"{diag.tool}: {diag.message}"


def compile_failure(outcome: Outcome, path: str) -> str:
    """Why the file ``path`` compiled as written failed: nvcc's first error, else the host
    compiler's words ("fatal error: x.h: No such file or directory" after its "In file included
    from" lines), with the scratch copy's name given back as ``path``."""
    first = next((d for d in parse(outcome.messages) if d.is_error), None)
    if first is not None:
        return quote(first)
    said = next((ln.strip() for ln in outcome.messages.splitlines() if "error" in ln),
                outcome.messages[:200])
    return said[:300].replace(scratch.SOURCE_NAME, path)


def blocked(report: whole_file.Report) -> bool:
    """Whether the compile failed on something that is not an asm statement (a missing header,
    a define the build passes): then nothing it says about the asm is about the asm."""
    return bool(report.failure) or any(not e.statements for e in report.errors)


def on_chosen_line(diag: Diagnostic, probe: ptx_probe.PtxProbe) -> bool:
    # no line: about the module, so possibly about the stand-in too
    return not diag.line or diag.line in probe.chosen_lines


def last_error(outcome: Outcome) -> str:
    lines = [ln.strip() for ln in outcome.messages.splitlines() if ln.strip()]
    return (lines[-1] if lines else f"exit status {outcome.returncode}")[:300]
