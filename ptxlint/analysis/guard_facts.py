"""What a chain of ``#if`` conditions says about the statements under it, worked out once per
chain of a file.

Every guard fact of a statement (:mod:`ptxlint.analysis.guards`, the targets of
:mod:`ptxlint.ptx.targets`) is a function of its file and of its context's conditions alone:
``guards``, ``local_guards`` and the ``guard_macros`` they read. The statements of a function
share one context, and a file's functions share few chains: the CUDA 13 headers' 3,746
statements sit under 218 distinct chains of their files, CUTLASS ``include/``'s 3,217 under 160.
So :func:`guard_facts_of` hands the statements of one chain the same :class:`GuardFacts`:
every guard fact of every statement took 50 ms instead of 98 over the CUDA headers, 23 ms
instead of 152 over CUTLASS (typed statements, best of 5). Only the current file's chains are
kept (as many as its contexts at most).
"""

from __future__ import annotations

from collections.abc import Hashable

from ptxlint import file_memos
from ptxlint.analysis import guards as _guards
from ptxlint.analysis.lazy_fact import fact
from ptxlint.file_traits import excluded_targets
from ptxlint.model import AsmStatement, Context
from ptxlint.ptx.instructions import Requirement
from ptxlint.ptx.targets import (
    TARGETS,
    Target,
    admitted_targets,
    arch_targets,
    available,
    compiled_for,
    compiled_for_host,
    holds_for_no_target,
    lowest_target,
    names_architecture,
    no_toolkit_compiles,
    undecided_guards,
)
from ptxlint.ptx.toolkit import FP16_CLASSES_SINCE, no_toolkit_since

__all__ = ["GuardFacts", "guard_facts_of"]


class GuardFacts:
    """The guard facts of the statements under one chain of conditions of one file; each is
    computed on first use. ``statement`` is the first statement asked about: the facts read
    only its file and its context's conditions, which the others share."""

    def __init__(self, statement: AsmStatement) -> None:
        self.statement = statement
        self._lacking: dict[tuple[object, ...], tuple[Target, ...]] = {}

    @fact
    def guards(self) -> tuple[str, ...]:
        """The ``#if`` conditions (and enclosing ``NV_IF_TARGET`` condition) that decide
        whether the statement is compiled: its guards without the file's include guard."""
        return _guards.binding_guards(self.statement, self.statement.context.guards)

    @fact
    def local_guards(self) -> tuple[str, ...]:
        """:attr:`guards` without file-wide ``#if`` blocks (longer than
        ``ptxlint.frontends.cxx.guards.LOCAL_GUARD_LINES``)."""
        return _guards.binding_guards(self.statement, self.statement.context.local_guards)

    @fact
    def no_device_build(self) -> bool:
        """No device build compiles the branch: for every target and supported toolkit some
        guard is false, read with the file's macros it tests (``#ifndef USE_SYNC`` where the
        file defines ``USE_SYNC`` for ``__CUDACC_VER_MAJOR__ >= 9 && __CUDA_ARCH__ >= 300``),
        every branch for toolkits older than any supported one among them
        (``targets.no_toolkit_compiles``). Not the host pass's question
        (``compiled_for_host``): a host-only branch is no device build's either."""
        return no_toolkit_compiles(self.guards) or holds_for_no_target(
            self.guards, self.statement.context.guard_macros)

    def compiled_for_arch(self, target: Target) -> bool:
        """The statement is certainly compiled for ``target`` (``--arch``): every guard is
        decided and true there, the include guard aside, and the file does not ``#error``
        for it (a build for that target stops there)."""
        return compiled_for(self.guards, target, unknown_holds=False) and (
            target not in excluded_targets(self.statement.source)
        )

    def undecided_for(self, target: Target) -> tuple[str, ...] | None:
        """The guards a build for ``target`` leaves undecided, none being false there and the
        file not ``#error``ing for it (``targets.undecided_guards``); None otherwise."""
        if target in excluded_targets(self.statement.source):
            return None
        return undecided_guards(self.guards, target)

    def compiled_for(self, target: Target) -> bool:
        """The statement may be compiled for ``target``: no guard about the architecture
        excludes it (guards about anything else are assumed to hold), nor an ``#error`` of
        the file for it, as :attr:`admitted_targets` and :attr:`arch_targets` read them."""
        return compiled_for(self.guards, target) and (
            target not in excluded_targets(self.statement.source)
        )

    @fact
    def fp16_structs(self) -> bool:
        """Only toolkits before CUDA 9.0 compile the branch (``toolkit.no_toolkit_since``):
        their ``__half`` and ``__half2`` are plain structs (``unsigned short x``, ``unsigned
        int x``), not the classes ptxlint's types describe (``toolkit.FP16_CLASSES_SINCE``)."""
        return no_toolkit_since(self.guards, FP16_CLASSES_SINCE)

    @fact
    def compiled_for_host(self) -> bool:
        """nvcc's host pass certainly compiles the statement: no guard (the include guard
        aside) leaves it out where ``__CUDA_ARCH__`` is undefined."""
        return compiled_for_host(self.guards)

    @fact
    def admitted_targets(self) -> tuple[Target, ...]:
        """Without ``--arch``: the targets the guards let the statement compile for, where the
        local guards choose among targets; empty where they do not (the target is unknown),
        and without those the file ``#error``s out for."""
        admitted = admitted_targets(self.guards, self.local_guards)
        if not admitted:
            return ()
        excluded = excluded_targets(self.statement.source)
        return tuple(t for t in admitted if t not in excluded) if excluded else admitted

    @fact
    def arch_guards(self) -> tuple[str, ...]:
        """Of :attr:`guards`, those the target decides (``ptx.targets.names_architecture``):
        ``-arch`` selects their branch, never a ``-D``."""
        return tuple(g for g in self.guards if names_architecture(g))

    @fact
    def arch_targets(self) -> tuple[Target, ...] | None:
        """The targets the statement is compiled for as far as the target decides: those every
        arch guard admits, file-wide ones included, without those the file ``#error``s for
        (an ``#error`` under an arch test is a file-wide guard too); ``None`` when nothing
        chooses. Unlike :attr:`admitted_targets` it is not the rules' question (whether the
        statement's own guards pick its targets) but the build's (which ``-arch`` compiles
        it): a header under a file-wide ``#if __CUDA_ARCH__ >= 900`` is no sm_80 code, and
        a project's ``defined(CUTLASS_ARCH_MMA_SM90_ENABLED)`` beside the arch test chooses
        no target (``ptx.targets.arch_targets``). Empty where they exclude every target."""
        chosen = arch_targets(self.arch_guards)
        excluded = excluded_targets(self.statement.source)
        if not excluded:
            return chosen
        return tuple(t for t in (TARGETS if chosen is None else chosen) if t not in excluded)

    def lacking(self, need: Requirement) -> tuple[Target, ...]:
        """Of :attr:`admitted_targets`, those without what ``need`` describes (PTX401's
        question), in their order. Kept per requirement: the statements of one chain ask of
        the same few (over the CUDA 13 headers PTX401 tested a target 30,703 times, for
        1,900 statements under 218 chains; its CPU there went from 0.064-0.069 s to
        0.057-0.060 s, three runs each on a busy host). At most one entry per distinct
        requirement the chain's statements have."""
        key = (need.sm, need.suffix, need.only, need.family)  # what ``available`` reads
        known = self._lacking.get(key)
        if known is None:
            known = self._lacking[key] = tuple(
                t for t in self.admitted_targets if not available(need, t)
            )
        return known

    @fact
    def lowest_target(self) -> Target | None:
        """The guards' own lower bound on the architecture, unless the file excludes it."""
        lowest = lowest_target(self.local_guards)
        if lowest is not None and lowest in excluded_targets(self.statement.source):
            return None
        return lowest

    @fact
    def rocm_guarded(self) -> bool:
        """Some guard must hold for a HIP/ROCm build: not nvcc's code."""
        return _guards.rocm_guarded(self.statement)

    @fact
    def clang_only(self) -> bool:
        """Only clang compiles the statement (its own CUDA headers, or a guard excludes nvcc)."""
        return _guards.clang_only(self.statement)

    @fact
    def only_for_32bit(self) -> bool:
        """No 64-bit build compiles the statement."""
        return _guards.only_for_32bit(self.statement)

    @fact
    def data_model_guarded(self) -> bool:
        """A guard mentions the data model, or only a 32-bit build compiles the statement."""
        return _guards.data_model_guarded(self.statement)


def guard_facts_of(statement: AsmStatement) -> GuardFacts:
    """The facts of the statement's chain of conditions in its file, made on the first ask."""
    context = statement.context
    source = statement.source
    if not _FILE or _FILE[0] is not source:
        _forget()
        _FILE.append(source)
    known = _BY_CONTEXT.get(id(context))
    if known is not None and known[0] is context:
        return known[1]
    chain: Hashable = (context.guards, context.local_guards, context.guard_macros)
    facts = _BY_CHAIN.get(chain)
    if facts is None:
        facts = _BY_CHAIN[chain] = GuardFacts(statement)
    _BY_CONTEXT[id(context)] = (context, facts)  # held, so that the id stays its own
    return facts


# The current file's chains: by context identity (the statements of a function share one), and
# by the conditions themselves. One file's: a new file starts afresh.
_FILE: list[object] = []
_BY_CONTEXT: dict[int, tuple[Context, GuardFacts]] = {}
_BY_CHAIN: dict[Hashable, GuardFacts] = {}


def _forget() -> None:
    _FILE.clear()
    _BY_CONTEXT.clear()
    _BY_CHAIN.clear()


file_memos.register(_forget)
