"""The target a statement is probed for when the user names none: one that has every instruction
the statement spells.

Without ``--arch`` a probe compiles for ``DEFAULT_ARCH`` (sm_90). A statement that spells an
architecture-specific form (``wgmma.mma_async``: sm_90a; ``tcgen05.*``: sm_100a or the sm_100f
family) would then fail in ptxas for the target ("not supported on .target 'sm_90'"), not for
the defect a finding names, and no finding on it could ever be confirmed or refuted. The target
comes from the PTX knowledge rules judge with (``instruction_requirement``: the minimum
target of each instruction as written, its ``a``/``f`` suffix and the sm_ numbers that have
it), narrowed by the targets the statement's ``#if`` guards admit and by those the installed
ptxas builds (``Toolchain.archs``, read once from ``ptxas --help``). Where no target has every
instruction, or none of those is admitted or built, the choice says why: the finding is
unverifiable then, not judged at a target that cannot compile it. An explicit ``--arch`` is
never second-guessed here (``configuration.target_for``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ptxlint.analysis.statement import analysis_of
from ptxlint.config import parse_arch
from ptxlint.model import AsmStatement
from ptxlint.ptx.instructions import Requirement, instruction_requirement
from ptxlint.ptx.targets import TARGETS, Target, available
from ptxlint.value_class import value_class

DEFAULT_ARCH = "sm_90"
_DEFAULT = Target(90)
# the suffix tried first on one sm_: plain, then the architecture-specific target (which has
# its family's features too), then the family target
_SUFFIX_RANK = {"": 0, "a": 1, "f": 2}


@value_class(slots=False)
class Choice:
    """``arch``: the target every instruction of the statement has (None: the default stands
    where ``why`` is "", no target does where it says why)."""

    arch: str | None = None
    why: str = ""


def needs_of(statement: AsmStatement) -> list[tuple[str, Requirement]]:
    """(mnemonic, requirement) of each instruction that some target lacks."""
    out: list[tuple[str, Requirement]] = []
    for instruction in statement.ptx.instructions:
        if instruction.opaque:
            continue  # a hole in its spelling: what it needs is not known
        need = instruction_requirement(statement, instruction)
        if need.sm or need.suffix or need.only:
            out.append((instruction.mnemonic, need))
    return out


def choose(needs: list[tuple[str, Requirement]], admitted: Collection[Target] | None,
           known: Collection[str], ptxas: str = "ptxas") -> Choice:
    """The lowest target that has every need, is ``admitted`` (None: the guards choose none)
    and ``known`` to ptxas (empty: not known, every target counts); ``Choice()`` where the
    default target already has every need."""
    if all(available(need, _DEFAULT) for _, need in needs):
        return Choice()
    having = [t for t in TARGETS if all(available(need, t) for _, need in needs)]
    if not having:
        return Choice(None, "no target has every instruction of the statement: "
                      + _named(needs))
    if admitted is not None:
        allowed = set(admitted)
        having = [t for t in having if t in allowed]
        if not having:
            return Choice(None, "its #if guards admit none of the targets its instructions "
                          "need: " + _named(needs))
    if known:
        built = [t for t in having if str(t) in known]
        if not built:
            return Choice(None, f"{ptxas} builds none of the targets its instructions need "
                          f"({_listed(having)}): " + _named(needs))
        having = built
    best = min(having, key=lambda t: (t.sm, _SUFFIX_RANK.get(t.suffix, 3)))
    return Choice(str(best))


def chosen_target(statement: AsmStatement, known: Collection[str] = (),
                  ptxas: str = "ptxas") -> Choice:
    """``choose`` for the statement's instructions and the targets its guards admit."""
    needs = needs_of(statement)
    if not needs:
        return Choice()
    return choose(needs, analysis_of(statement).arch_targets, known, ptxas)


def listed_target(statement: AsmStatement, listed: Sequence[str]) -> str:
    """Of a build's several targets (``arch`` as a list, lowest first), the one the statement's
    probes compile for: the lowest its guards admit that has every instruction it spells, else
    the lowest they admit (the shortfall is PTX401's finding, whose probes compile at the
    targets it names), else the lowest listed (the guards admit none:
    ``configuration.target_for`` then finds the nearest they do)."""
    admitted = analysis_of(statement).arch_targets
    inside = [name for name in listed
              if admitted is None or Target(*parse_arch(name)) in admitted]
    needs = needs_of(statement)
    having = [name for name in inside
              if all(available(need, Target(*parse_arch(name))) for _, need in needs)]
    return (having or inside or list(listed))[0]


def _named(needs: list[tuple[str, Requirement]]) -> str:
    seen: dict[str, str] = {}
    for mnemonic, need in needs:
        if not available(need, _DEFAULT):
            seen.setdefault(mnemonic, need.targets_named)
    parts = [f"'{m}' needs {t}" for m, t in seen.items()]
    more = len(parts) - 3
    return ", ".join(parts[:3]) + (f" and {more} more" if more > 0 else "")


def _listed(targets: list[Target]) -> str:
    names = [str(t) for t in targets]
    return ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")


__all__ = ["DEFAULT_ARCH", "Choice", "choose", "chosen_target", "listed_target", "needs_of"]
