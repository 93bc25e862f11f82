"""What linting one file contributes to a run: ``FileOutcome``, small enough to send between
processes and to keep in the result cache."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ptxlint.frontends.python import PYTHON_EXTENSIONS
from ptxlint.model import Finding, SourceFile

if TYPE_CHECKING:
    from ptxlint.engine import FileResult


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
        typed_operands=sum(1 for o in operands if o.ctype is not None) if count_types else None,
        typed_tier2=(
            sum(1 for o in operands if o.ctype is not None and o.ctype.tier == 2)
            if count_types else None
        ),
    )


def add_typed(total: int | None, part: int | None) -> int | None:
    """Two typed-operand counts added; None (not counted) if either is."""
    return None if total is None or part is None else total + part
