"""What linting one file contributes to a run: ``FileOutcome``, small enough to send between
processes and to keep in the result cache."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ptxlint.frontends.python import PYTHON_EXTENSIONS
from ptxlint.model import Finding, Operand, SourceFile
from ptxlint.run.discover import is_error_reason

if TYPE_CHECKING:
    from ptxlint.engine import FileResult
    from ptxlint.report.run_result import RunResult


@dataclass
class FileOutcome:
    """What one file contributes to a run (small enough to send between processes)."""

    path: str
    reason: str | None = None  # why it was not linted
    decode_errors: bool = False
    findings: list[Finding] = field(default_factory=list)
    source: SourceFile | None = None  # kept when there are findings to show
    statements: int = 0
    skipped_statements: int = 0
    skipped: list[tuple[int, str]] = field(default_factory=list)  # (line, reason)
    asm_labels: int = 0
    expansion_statements: int = 0  # of statements, those read from a macro invocation
    expanded_macros: set[str] = field(default_factory=set)  # "realpath:line" of each #define
    unexpanded_macros: list[tuple[str, int, str]] = field(default_factory=list)  # key, line, macro
    skipped_invocations: list[tuple[int, str]] = field(default_factory=list)  # (line, reason)
    branch_variants: int = 0  # extra readings of statements with #if inside
    operands: int = 0
    # None: not counted. Counting reads every operand's type, which types every statement the
    # rules left untyped: under `--select PTX002` that was 11% of the CUDA headers' `-j 1` CPU
    # (2.36-2.48 s against 2.05-2.24 s), for a figure only JSON and `stats` show.
    typed_operands: int | None = 0
    typed_tier2: int | None = 0
    python_calls: int = 0
    python_opaque: int = 0
    fixed: int = 0  # findings that fixing resolved
    fixed_rules: dict[str, int] = field(default_factory=dict)  # the same, per rule
    diff: str = ""
    write_error: str | None = None
    notes: list[str] = field(default_factory=list)  # run-wide notes (Tier-2 fallbacks)
    file_notes: list[str] = field(default_factory=list)  # about the file (#if nesting cut)
    # one part of a file linted in parts (``file_parts``): what the merge reads, pickled
    # without the file's text
    part_rows: bytes | None = None


# The engine (extraction, typing, fixing) is imported where a file is linted: a warm run that
# finds every result in the cache never loads it.


def file_outcome(
    path: str, source: SourceFile, result: FileResult, count_types: bool = True
) -> FileOutcome:
    """What ``result``, the lint of ``source``, contributes to a run; its typed operands
    counted only with ``count_types`` (see ``FileOutcome.typed_operands``)."""
    from ptxlint.frontends.cxx.extract import ASM_LABEL

    operands = [o for s in result.statements for o in s.operands]
    labels = [r for _, r in result.skipped_statements if r.startswith(ASM_LABEL)]
    skipped = [
        (source.line_col(offset).line, reason)
        for offset, reason in result.skipped_statements
        if not reason.startswith(ASM_LABEL)
    ]
    python = path.endswith(PYTHON_EXTENSIONS)
    typed = _typed_counts(operands) if count_types else None
    return FileOutcome(
        python_calls=len(result.statements) + len(skipped) if python else 0,
        python_opaque=sum(1 for s in result.statements if s.template.has_holes) if python else 0,
        path=path,
        decode_errors=source.decode_errors,
        findings=result.findings,
        source=source if result.findings else None,
        statements=len(result.statements),
        skipped_statements=len(skipped),
        skipped=skipped,
        asm_labels=len(labels),
        expansion_statements=sum(1 for s in result.statements if s.context.expansion),
        expanded_macros=result.expanded_macros,
        branch_variants=result.branch_variants,
        skipped_invocations=[
            (source.line_col(offset).line, reason) for offset, reason in result.skipped_invocations
        ],
        unexpanded_macros=[
            (f"{os.path.realpath(path)}:{line}", line, macro)
            for line, macro in (
                (source.line_col(offset).line, macro) for offset, macro in result.unexpanded_macros
            )
        ],
        operands=len(operands),
        typed_operands=typed[0] if typed else None,
        typed_tier2=typed[1] if typed else None,
    )


def _typed_counts(operands: list[Operand]) -> tuple[int, int]:
    """How many of ``operands`` have a type, and how many of those a Tier-2 one. Each
    ``ctype`` read once: a read goes through the operand's lazy field, and the two counts'
    own passes read it up to three times an operand (CUTLASS ``include/``, 143,000 operands:
    28,000 M -> 27,596 M instructions of the whole CLI, cachegrind)."""
    typed = tier2 = 0
    for ctype in [o.ctype for o in operands]:
        if ctype is not None:
            typed += 1
            if ctype.tier == 2:
                tier2 += 1
    return typed, tier2


def add_typed(total: int | None, part: int | None) -> int | None:
    """Two typed-operand counts added; None (not counted) if either is."""
    return None if total is None or part is None else total + part


# The outcome of every file of a run that the prefilter (or the index) dropped and that is
# valid UTF-8: all such a file adds to the run is its count (``merge``), so one outcome stands
# for them all, where each had its own (the CUDA 13 headers: 1,692 of 1,799 files; making and
# merging their outcomes took 8-9 ms of CPU). Nothing changes it: ``runner.collected`` finds
# neither source nor findings in it.
UNLINTED = FileOutcome("")


def merge(result: RunResult, outcome: FileOutcome, fix_mode: str | None = None) -> None:
    """Add what ``outcome`` contributes to the run's ``result`` (``fix_mode``: "fix", "diff"
    or None, as ``run`` takes it)."""
    if outcome is UNLINTED:
        result.files += 1
        return
    for note in outcome.notes:
        if ("", note) not in result.file_notes:
            result.file_notes.append(("", note))
    if outcome.reason is not None:
        target = result.errors if is_error_reason(outcome.reason) else result.notes
        target.append((outcome.path, outcome.reason))
        return
    # The file was linted: these are notes about it, not reasons it was skipped.
    result.file_notes.extend((outcome.path, note) for note in outcome.file_notes)
    if outcome.decode_errors:
        result.file_notes.append(
            (outcome.path, "not valid UTF-8; undecodable bytes were replaced for linting")
        )
        # --fix would have written it, --diff would have shown it: each says why it did not
        if fix_mode and any(f.fix for f in outcome.findings) and not outcome.fixed:
            result.file_notes.append((outcome.path, "not fixed: the file is not valid UTF-8"
                                      if fix_mode == "fix" else
                                      "no diff: --fix leaves a file that is not valid UTF-8 "
                                      "unchanged"))
    if outcome.write_error:
        result.errors.append((outcome.path, outcome.write_error))
    result.files += 1
    result.files_with_asm += 1 if outcome.statements or outcome.skipped_statements else 0
    result.statements += outcome.statements
    result.skipped_statements += outcome.skipped_statements
    result.skipped.extend((outcome.path, line, reason) for line, reason in outcome.skipped)
    result.asm_labels += outcome.asm_labels
    result.expansion_statements += outcome.expansion_statements
    result.expanded_macros |= outcome.expanded_macros
    result.branch_variants += outcome.branch_variants
    result.skipped_invocations.extend(
        (outcome.path, line, reason) for line, reason in outcome.skipped_invocations
    )
    result.unexpanded_macros.extend(
        (key, outcome.path, line, macro) for key, line, macro in outcome.unexpanded_macros
    )
    result.operands += outcome.operands
    result.typed_operands += outcome.typed_operands or 0  # None: not shown (``run``)
    result.typed_tier2 += outcome.typed_tier2 or 0
    result.python_calls += outcome.python_calls
    result.python_opaque += outcome.python_opaque
    result.fixed += outcome.fixed
    if outcome.fixed_rules:
        result.fixed_rules[outcome.path] = outcome.fixed_rules
    if outcome.diff:
        result.diffs.append(outcome.diff)
    if outcome.source is not None:
        result.sources[outcome.path] = outcome.source
    result.findings.extend(outcome.findings)
