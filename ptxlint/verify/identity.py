"""What the verification's parts agree on: a statement's identity, the target it is probed for,
the tool ids of cache keys, and the rule id of the toolchain's own findings."""

from __future__ import annotations

from collections.abc import Collection

from ptxlint.model import AsmStatement
from ptxlint.verify.configuration import target_for
from ptxlint.verify.target_choice import DEFAULT_ARCH, chosen_target
from ptxlint.verify.toolchain import Toolchain, arch_key

TOOLCHAIN_ERROR = "toolchain-error"

# (path, span.start, the #if branches taken inside the statement): the branches of one
# statement are separate statements, with separate probes and verdicts
StatementKey = tuple[str, int, tuple[str, ...]]


def key_of(statement: AsmStatement) -> StatementKey:
    return (statement.source.path, statement.span.start, statement.context.branch)


def probe_arch(statement: AsmStatement, requested: str | None,
               known: Collection[str] = ()) -> str:
    """The target the statement is compiled for: ``requested`` where its guards admit it, else
    the nearest target they admit (see verify.configuration); without ``requested``, one that
    has every instruction the statement spells and ptxas builds (``known``: its targets; see
    verify.target_choice), else sm_90 as the guards admit it."""
    if requested is None:
        chosen = chosen_target(statement, known).arch
        if chosen is not None:
            return chosen
    wanted = requested or DEFAULT_ARCH
    return target_for(statement, wanted) or wanted


def ptxas_target(arch: str, toolchain: Toolchain) -> str | None:
    """The -arch ptxas runs with for PTX written for ``.target arch``: the arch itself, or the
    oldest this ptxas builds when the target is older (PTX for sm_70 assembles for sm_75)."""
    if toolchain.supports(arch):
        return arch
    older = [a for a in toolchain.archs if not a[-1].isalpha()]
    if older and arch_key(arch) < arch_key(older[0]):
        return older[0]
    return None


def tool_id(toolchain: Toolchain, name: str) -> str:
    tool = toolchain.nvcc if name == "nvcc" else toolchain.ptxas
    return f"{tool.path}@{tool.version}" if tool else name
