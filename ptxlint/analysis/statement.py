"""One statement's analysis: every fact more than one rule reads, computed the first time a rule
asks and kept for the next one.

Rules read the statement through :func:`analysis_of`; nothing here imports a rule. A fact is a
function of the statement and of what :mod:`ptxlint.file_traits` knows of its file (so a pure
rule's memoised outcome stays right on a copy of the statement elsewhere).
"""

from __future__ import annotations

from functools import cached_property

from ptxlint import file_memos
from ptxlint.analysis import guards as _guards
from ptxlint.file_traits import excluded_targets
from ptxlint.model import AsmStatement, PtxInstruction
from ptxlint.ptx.judge import Verdict, judge
from ptxlint.ptx.targets import (
    Target,
    admitted_targets,
    compiled_for,
    lowest_target,
    no_toolkit_compiles,
)

__all__ = ["StatementAnalysis", "analysis_of"]


class StatementAnalysis:
    """The shared facts of one statement. Each is computed on first use."""

    def __init__(self, statement: AsmStatement) -> None:
        self.statement = statement
        self._verdicts: dict[tuple[int, bool], tuple[PtxInstruction, Verdict]] = {}

    # ------------------------------------------------------------------ guards and targets

    @cached_property
    def guards(self) -> tuple[str, ...]:
        """The ``#if`` conditions (and enclosing ``NV_IF_TARGET`` condition) that decide
        whether the statement is compiled: its guards without the file's include guard."""
        return _guards.binding_guards(self.statement, self.statement.context.guards)

    @cached_property
    def local_guards(self) -> tuple[str, ...]:
        """:attr:`guards` without file-wide ``#if`` blocks (longer than
        ``ptxlint.guards.LOCAL_GUARD_LINES``)."""
        return _guards.binding_guards(self.statement, self.statement.context.local_guards)

    @cached_property
    def no_toolkit_compiles(self) -> bool:
        """Every supported CUDA toolkit leaves the branch out (``#if CUDA_VERSION < 9000``)."""
        return no_toolkit_compiles(self.guards)

    def compiled_for_arch(self, target: Target) -> bool:
        """The statement is certainly compiled for ``target`` (``--arch``): every guard is
        decided and true there, the include guard aside."""
        return compiled_for(self.guards, target, unknown_holds=False)

    def compiled_for(self, target: Target) -> bool:
        """The statement may be compiled for ``target``: no guard about the architecture
        excludes it (guards about anything else are assumed to hold)."""
        return compiled_for(self.guards, target)

    @cached_property
    def admitted_targets(self) -> tuple[Target, ...]:
        """Without ``--arch``: the targets the guards let the statement compile for, where the
        local guards choose among targets; empty where they do not (the target is unknown),
        and without those the file ``#error``s out for."""
        admitted = admitted_targets(self.guards, self.local_guards)
        if not admitted:
            return ()
        excluded = excluded_targets(self.statement.source)
        return tuple(t for t in admitted if t not in excluded) if excluded else admitted

    @cached_property
    def lowest_target(self) -> Target | None:
        """The guards' own lower bound on the architecture, unless the file excludes it."""
        lowest = lowest_target(self.local_guards)
        if lowest is not None and lowest in excluded_targets(self.statement.source):
            return None
        return lowest

    @cached_property
    def rocm_guarded(self) -> bool:
        """Some guard must hold for a HIP/ROCm build: not nvcc's code."""
        return _guards.rocm_guarded(self.statement)

    @cached_property
    def clang_only(self) -> bool:
        """Only clang compiles the statement (its own CUDA headers, or a guard excludes nvcc)."""
        return _guards.clang_only(self.statement)

    @cached_property
    def only_for_32bit(self) -> bool:
        """No 64-bit build compiles the statement."""
        return _guards.only_for_32bit(self.statement)

    @cached_property
    def data_model_guarded(self) -> bool:
        """A guard mentions the data model, or only a 32-bit build compiles the statement."""
        return _guards.data_model_guarded(self.statement)

    # ------------------------------------------------------------------ the grammar's verdicts

    def verdict(self, instruction: PtxInstruction, typed_floats: bool = True) -> Verdict:
        """The grammar's verdict on ``instruction`` (:func:`ptxlint.ptx.judge.judge`), once per
        instruction: PTX204, PTX206 and PTX207 each read it."""
        key = (id(instruction), typed_floats)
        known = self._verdicts.get(key)
        if known is not None and known[0] is instruction:
            return known[1]
        verdict = judge(self.statement, instruction, typed_floats)
        self._verdicts[key] = (instruction, verdict)
        return verdict


# The analyses of the current file's statements, by identity (the statement is held, so its
# id stays its own). The engine lints one file's statements in turn and every rule asks of the
# same statement; a new file (or ``file_memos.release``) starts afresh.
_ANALYSES: dict[int, tuple[AsmStatement, StatementAnalysis]] = {}
_KEPT = 1 << 14


def analysis_of(statement: AsmStatement) -> StatementAnalysis:
    """The statement's analysis, made on first ask."""
    known = _ANALYSES.get(id(statement))
    if known is not None and known[0] is statement:
        return known[1]
    if len(_ANALYSES) >= _KEPT:
        _ANALYSES.clear()
    analysis = StatementAnalysis(statement)
    _ANALYSES[id(statement)] = (statement, analysis)
    return analysis


file_memos.register(_ANALYSES.clear)
