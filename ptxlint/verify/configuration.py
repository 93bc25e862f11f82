"""The configuration a finding holds in: the target and the defines under which the statement is
compiled at all.

A statement under ``#if __CUDA_ARCH__ >= 1000`` does not exist in an sm_90 build, and one in the
``#ifdef LEFT`` branch of a template does not exist unless ``LEFT`` is defined: compiling either
for the user's ``--arch`` (or without ``-DLEFT``) would judge code the toolchain never sees. The
target is the requested one when the statement's guards admit it, else the nearest one they
admit (without ``--arch``, one every instruction of the statement exists on first:
``target_choice``); the defines are those the guards' plain ``defined(X)``/``!defined(X)``
terms ask for.
Where the guards admit no target, or ask for what a ``-D`` cannot say, there is no such
configuration and the finding is unverifiable.

The guards are the statement analysis's (``StatementAnalysis.guards``: the file's include guard
binds nothing), and so are the targets they admit (``StatementAnalysis.arch_targets``: every
arch guard's, file-wide ones included, without the targets the file ``#error``s for). Where the
statement's own guards choose, PTX401 judged the same targets (``admitted_targets``), so
``--verify`` compiles what it judged. A statement whose guards test the toolkit's version
(``#if CUDA_VERSION >= 13010``) exists only in the builds of the toolkits they admit
(``oldest_toolkit``): an older toolchain's words about it are about no build it has.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from ptxlint.analysis.statement import analysis_of
from ptxlint.frontends.cxx.preproc import DEFAULT_TARGET, evaluate_guards
from ptxlint.model import AsmStatement
from ptxlint.ptx.targets import (
    Target,
    conjuncts,
    names_architecture,
    strip_parens,
    toolkit_tested,
)
from ptxlint.ptx.toolkit import oldest_compiling
from ptxlint.ptx.versions import CudaVersion, format_cuda, parse_cuda_version
from ptxlint.value_class import value_class
from ptxlint.verify.target_choice import DEFAULT_ARCH, chosen_target

_TARGET = re.compile(r"sm_(\d+)([af]?)")
_NAME = r"[A-Za-z_]\w*"
_DEFINED = re.compile(rf"\s*defined\s*(?:\(\s*({_NAME})\s*\)|({_NAME}))\s*")
_NOT = re.compile(r"\s*!\s*\((.*)\)\s*", re.S)
_NOT_DEFINED = re.compile(rf"\s*!\s*defined\s*(?:\(\s*({_NAME})\s*\)|({_NAME}))\s*")


@value_class(slots=False)
class Configuration:
    """Where a statement's finding can be compiled: ``arch`` (None: no target compiles it, see
    ``why``) and the ``-D``/``-U`` flags that select its branch."""

    arch: str | None
    defines: tuple[str, ...] = ()
    why: str = ""


def parse_target(text: str) -> Target | None:
    match = _TARGET.fullmatch(text)
    return Target(int(match[1]), match[2]) if match else None


def target_for(statement: AsmStatement, requested: str) -> str | None:
    """``requested`` when the statement's guards compile it for that target, else the lowest
    target at or above it they compile it for, else the highest below; None when none. The
    guards' targets are the analysis's (``StatementAnalysis.arch_targets``)."""
    admitted = analysis_of(statement).arch_targets
    if admitted is None:
        return requested
    want = parse_target(requested)
    if want is None or want in admitted:
        return requested
    # same suffix first: a user asking for sm_90a wants the architecture-specific features
    ranked = sorted(admitted, key=lambda t: (t.suffix != want.suffix, t.sm, t.suffix))
    above = [t for t in ranked if t.sm >= want.sm]
    if above:
        return str(above[0])
    below = sorted(admitted, key=lambda t: (t.suffix != want.suffix, -t.sm, t.suffix))
    return str(below[0]) if below else None


def defines_for(statement: AsmStatement) -> tuple[str, ...] | None:
    """The -D/-U flags that make the statement's non-architecture guards hold, as far as they are
    plain ``defined`` tests; None when a guard asks for something else that is not already
    known to hold (a value, an ``||``), which a -D would have to guess."""
    flags: list[str] = []
    analysis = analysis_of(statement)
    arch = analysis.arch_guards  # the target's: -arch selects their branch
    for guard in analysis.guards:  # the include guard selects nothing
        if guard in arch:
            flags.extend(_beside_arch(guard))
            continue
        negated = _NOT.fullmatch(guard)
        body = strip_parens(negated[1]) if negated else strip_parens(guard)
        single = _DEFINED.fullmatch(body)
        if negated:
            if single is None:
                if _known(guard):
                    continue
                return None
            name = single[1] or single[2]
            if not _fixed(name):
                flags.append(f"-U{name}")
            continue
        terms = conjuncts(body)
        if terms is None:
            if _known(guard):
                continue
            return None
        for term in terms:
            term = strip_parens(term)
            yes, no = _DEFINED.fullmatch(term), _NOT_DEFINED.fullmatch(term)
            if yes:
                name = yes[1] or yes[2]
                if not _fixed(name):
                    flags.append(f"-D{name}")
            elif no:
                name = no[1] or no[2]
                if not _fixed(name):
                    flags.append(f"-U{name}")
            elif not _known(term):
                return None
    return tuple(dict.fromkeys(flags))


def _beside_arch(guard: str) -> list[str]:
    """The -D/-U flags for the plain ``defined`` tests an arch guard joins to its arch test
    with ``&&`` (NvCloth's ``defined(__CUDA_ARCH__) && defined(PX_PROFILE)``: -arch selects the
    arch test, and a -D the project's macro). Its other terms are left to the target, as the
    whole guard was; none where it is no plain conjunction (an ``||``, a negation)."""
    flags: list[str] = []
    for term in conjuncts(strip_parens(guard)) or ():
        term = strip_parens(term)
        found = _DEFINED.fullmatch(term) or _NOT_DEFINED.fullmatch(term)
        if found is None or names_architecture(term) or _fixed(name := found[1] or found[2]):
            continue
        flags.append(("-U" if found.re is _NOT_DEFINED else "-D") + name)
    return flags


def _fixed(name: str) -> bool:
    # what the target or nvcc decides (__LP64__, __CUDACC__): a -D would lie about the build
    return name in DEFAULT_TARGET or name.startswith("__CUDA")


def _known(condition: str) -> bool:
    from ptxlint.frontends.cxx.preproc import evaluate

    return evaluate(condition) is True


def in_default_build(statement: AsmStatement) -> bool:
    """Whether the default build (64-bit Linux, ``preproc.DEFAULT_TARGET``) may compile the
    statement: no guard is false there. The statements the verifier probes, and those the
    re-lint after a confirmed error reads: a branch no 64-bit build compiles (the ``#else`` of
    ``defined(__LP64__)``) would have its toolchain errors judged in a build nvcc 13 does not
    make. Not ``analysis.guards.only_for_32bit``, which also asks a 64-bit Windows build and
    leaves ``#if 0`` out."""
    context = statement.context
    return evaluate_guards(context.guards, macros=context.guard_macros) is not False


def not_in_default_build(statement: AsmStatement) -> str:
    """Why no build the toolchain makes holds the statement, where a guard of it is false in
    the default build (``in_default_build``: the ``#else`` of sppark's ``#if 1``, of
    ``defined(__LP64__)``): the verifier probes no such statement, so nothing it compiles is
    about the finding; "" where the default build may compile it."""
    if in_default_build(statement):
        return ""
    context = statement.context
    false = next((g for g in context.guards
                  if evaluate_guards((g,), macros=context.guard_macros) is False), "")
    return ("in no build the toolchain makes: its #if guard " + (f"'{false}' " if false else "")
            + "is false for a 64-bit build")


def _major_minor(version: str) -> CudaVersion | None:
    """``(13, 0)`` of a tool's "13.0.88"; None where it said no version."""
    try:
        return parse_cuda_version(version)
    except ValueError:
        return None


def oldest_toolkit(statement: AsmStatement) -> CudaVersion | None:
    """The oldest CUDA toolkit whose builds hold the statement, where its guards test the
    toolkit's version (``#if CUDA_VERSION >= 13010``: 13.1), as PTX403 reads them; None where
    they say nothing of it, or no toolkit certainly compiles it."""
    # the guards that test the toolkit alone: another (flashinfer's ENABLE_4BIT_KV_CACHE beside
    # `__CUDACC_VER_MINOR__ >= 2`) is the same for every toolkit, so it lets no older one
    # compile the statement, where undecided it would leave the toolkit unknown. A guard that
    # joins the two with && (`defined(FLASHINFER_ENABLE_FP4_E2M1) && CUDA_VERSION >= 12080`)
    # is read as its terms, each a guard of its own; one with || stays whole
    tested = tuple(term for g in analysis_of(statement).guards for term in _terms(g)
                   if toolkit_tested((term,)))
    found = oldest_compiling(tested, statement.context.guard_macros) if tested else None
    return found[0] if found is not None else None


def _terms(guard: str) -> list[str]:
    """The top-level ``&&`` terms of ``guard``, or the guard itself where it has none."""
    return conjuncts(strip_parens(guard)) or [guard]


def older_than_guards(statement: AsmStatement, tools: Sequence[tuple[str, str]]) -> str:
    """Why the toolchain (``tools``: each tool's name and version, ``("ptxas", "13.0.88")``) is
    too old for the statement, whose guards admit only newer toolkits (TransformerEngine's
    ``cvt.rn.satfinite.e4m3x2.bf16x2`` under ``#if CUDA_VERSION >= 13010``, which ptxas 13.0
    rejects as a form it does not know): no build it makes holds the statement, so nothing it
    says is about the finding; "" where the guards admit it, say nothing of the toolkit, or
    no tool's version is known."""
    oldest = oldest_toolkit(statement)
    if oldest is None:
        return ""
    found = [(name, version, have) for name, version in tools
             if (have := _major_minor(version)) is not None]
    if not found:
        return ""
    name, version, have = min(found, key=lambda tool: tool[2])
    if have >= oldest:
        return ""
    return (f"the statement's guards compile it only with CUDA {format_cuda(oldest)} or newer, "
            f"and the toolchain found has {name} {version}: no build it makes holds the "
            "statement (--nvcc/--ptxas or CUDA_HOME can name a newer one)")


def configuration(statement: AsmStatement, requested: str | None,
                  known: Collection[str] = (), ptxas: str = "ptxas") -> Configuration:
    """The configuration at ``requested`` (the user's --arch), or where the user named none at
    the target the statement's instructions need (``target_choice``; ``known``: the targets
    the installed ptxas builds, ``ptxas`` its name for a reason)."""
    if requested is None:
        choice = chosen_target(statement, known, ptxas)
        if choice.why:
            return Configuration(None, (), choice.why)
        arch = choice.arch or target_for(statement, DEFAULT_ARCH)
    else:
        arch = target_for(statement, requested)
    if arch is None:
        guards = " && ".join(analysis_of(statement).arch_guards)
        why = f"({guards})" if guards else "(the file's #error excludes every target)"
        return Configuration(None, (), f"no target compiles this statement {why}")
    defines = defines_for(statement)
    if defines is None:
        return Configuration(arch, (), "")
    return Configuration(arch, defines)


__all__ = [
    "Configuration", "configuration", "defines_for", "in_default_build", "not_in_default_build",
    "older_than_guards",
    "oldest_toolkit",
    "parse_target", "target_for",
]
