"""PTX401 arch-unsupported-instruction."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint import file_memos
from ptxlint.analysis.discarded_arms import ConstexprArms, constexpr_arms
from ptxlint.analysis.statement import StatementAnalysis, analysis_of
from ptxlint.model import AsmStatement, Finding, PtxInstruction, Severity
from ptxlint.ptx.instructions import Requirement, form_feature, instruction_requirement
from ptxlint.ptx.targets import (
    OLDEST_TOOLKIT,
    TARGETS,
    Target,
    available,
    built_since,
    condition_asked,
    every_build_compiles_one,
)
from ptxlint.rule import Rule, RuleContext, first_of_each


class ArchUnsupportedInstruction(Rule):
    id = "PTX401"
    name = "arch-unsupported-instruction"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    summary = "Instruction needs a newer GPU than the statement is compiled for"
    tags = ("correctness", "targets")
    docs = """\
## What it does
Flags an instruction whose minimum target is above the architecture the statement is compiled
for. The targets are `--arch` (or `arch` in the configuration) when given; otherwise the lowest
architecture the statement's `#if __CUDA_ARCH__ ...` guards (and an enclosing CCCL
`NV_IF_TARGET(NV_PROVIDES_SM_XX, ...)`) let it compile for. A project that builds for several
GPUs lists them all (`arch = ["sm_80", "sm_90a"]`, `--arch sm_80,sm_90a`): as nvcc compiles the
statement once per target, it is judged for each listed target its guards compile it for, and a
need is reported once, for the lowest listed target without it. A wgmma under
`#if __CUDA_ARCH__ >= 900` is then silent with `["sm_80", "sm_90a"]` (the guard keeps it from
the sm_80 build, sm_90a has it), but reported for sm_90 with `["sm_90", "sm_90a"]`. A statement
no `#if` guards (an sm_90a-only kernel file, a Python DSL kernel) is judged for every listed
target: where a folder's files are built for fewer targets, its own configuration names them.
Without an `arch`, a file the compile database compiles is judged for its command's targets.
Minimums come from the PTX ISA's target notes: `cp.async` sm_80, `ldmatrix` sm_75,
`redux.sync` sm_80, `elect.sync`,
`mbarrier.try_wait` and clusters (`.shared::cluster`) sm_90, `wgmma` and `setmaxnreg` sm_90a,
`tcgen05` sm_100a; and those of the special registers an instruction reads: the cluster
registers (`%clusterid`, `%cluster_ctarank`...) and `%aggr_smem_size` need sm_90 (ptxas:
"Feature '%cluster_ctarank' requires .target sm_90 or higher"). An instruction no target spells
(an unknown modifier, or modifiers no form combines, such as ldmatrix's `.b8` with `.m8n8`) is
PTX204's alone: what its words would need on their own says nothing of what was meant. A form
that only a newer toolkit's ptxas takes (`cvt.rn.satfinite.e4m3x2.bf16x2`, new in ptxas 13.1,
under the default `cuda-version` 13.0) is PTX204's too: that ptxas stops at the form ("Unexpected
instruction types specified for 'cvt'") on every target, and PTX204's finding names the target
the form needs, so the two fixes are one finding.

Without `--arch`, the guards are read as a *set* of targets: every `sm_XX`, `sm_XXa` (sm_90 and
newer) and `sm_XXf` (sm_100 and newer) for which they hold. When that set contains a target
the instruction does not have, the rule reports it (a warning, naming the lowest such target):
the `#else` of `#if __CUDA_ARCH__ >= 900` is also compiled for sm_75, where `redux.sync`
(sm_80) does not exist; `#if __CUDA_ARCH__ >= 900` also admits a plain `-arch=sm_90` build and
sm_100/sm_120, where `wgmma` and `setmaxnreg` do not exist (they need
`defined(__CUDA_ARCH_FEAT_SM90_ALL)`, or `__CUDA_ARCH_SPECIFIC__`/
`__CUDA_ARCH_FAMILY_SPECIFIC__` for the newer targets' features). It is an error when the
guard's own lower bound is too low (`#if __CUDA_ARCH__ >= 750` around `cp.async`). Guards
that choose no target (none, or `#ifdef __CUDA_ARCH__`) leave the target unknown: silent.
A target that no toolkit from the project's oldest on compiles is no target of the build
(`min-cuda-version`, or CMake's `find_package(CUDA X)`; else CUDA 11.0, the oldest ptxlint
supports): CUDA 13.0 compiles for sm_75 and newer (it dropped sm_50 to sm_72, and named sm_101
sm_110), 12.0 for sm_50 and newer, 11.0 for sm_35 and newer. With `min-cuda-version = "13.0"`,
`#if __CUDA_ARCH__ >= 700` around `ldmatrix` (sm_75) is compiled for sm_75 at the lowest; with
`"12.4"`, or none set, for sm_70, which lacks it.
Branches that no supported toolkit compiles (CUDA 11.0 and newer: `#if __CUDACC_VER_MAJOR__ < 9`,
`#if CUDA_VERSION < 9000`) are not checked, nor are branches a macro of the file keeps from
every supported build (`#ifndef USE_SYNC`, where the file defines `USE_SYNC` under
`__CUDACC_VER_MAJOR__ >= 9 && __CUDA_ARCH__ >= 300`). With `--arch`, a guard the rule cannot decide
(a macro from another header) leaves the statement unchecked, unless every branch the build
may take holds an instruction the target lacks, whatever each needs: `#ifdef PIPELINED` around
one `ldmatrix` and `#else` around a `cp.async` is compiled for sm_70 one way or the other, so
each is reported (the
file's statements under such guards are read as a choice, each undecided condition a yes or
no of its own, `!(c)` the other answer to `c`). A header's include guard (`#ifndef X_H` /
`#define X_H` around the whole file) is no such guard: it holds wherever the header is read.
The arms of an `if constexpr` are such a choice too: an instantiation keeps one arm and
discards the other unread, so the bf16 `mma` of `if constexpr (std::is_same_v<T, half>) {...}
else {...}` is compiled only where the template is instantiated for bf16, which a build for
sm_75 need not do. It is reported where every arm an instantiation may keep fails (a
`cp.async` in each arm). An arm with no code of its own offers no alternative and counts as
failing: a missing or empty `else` (the template exists to emit the asm), or one of only
`static_assert`s (arms for 1 to 5 dimensions, then an `else` that refuses the rest). Arms of
different functions are different choices.

A statement gets one finding per target its instructions need, at the first instruction that
needs it, which counts the others: ptxas stops at the first, and one guard or target mends
them all (a wgmma wrapper's fence, mma, commit and wait are one finding). An instruction
outside a statement's own `#if` blocks is one finding too, however many of the statement's
branches admit a target without it: the most severe, under the branch that says it (the
`#else` of `#if __CUDA_ARCH__ < 700` is an error for sm_70, and the warning for sm_60 that the
`#if` branch would add names the same instruction to guard).

## Why is this bad?
ptxas refuses the instruction for the older target ("Feature ... requires .target sm_NN or
higher"), so the build breaks for every user who targets that GPU, often in a configuration
the author never built.

## Example
```cuda
#if __CUDA_ARCH__ >= 750
asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(s), "l"(g));
#endif
```

## Use instead
```cuda
#if __CUDA_ARCH__ >= 800
asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(s), "l"(g));
#endif
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        analysis = analysis_of(statement)
        if analysis.no_device_build:
            # a branch for toolkits older than any supported one, or one a file macro keeps
            # from every supported target and toolkit (#ifndef USE_SYNC, defined for sm_30+)
            return
        configured = context.options.get("min_cuda_version")
        # without the project's oldest toolkit, the oldest ptxlint supports: no target only
        # older toolkits compiled (sm_30, sm_32) is a target of the build
        since = configured if isinstance(configured, tuple) else OLDEST_TOOLKIT
        found = (self._check_arch(statement, context, analysis) if context.listed_targets
                 else self._check_guards(statement, analysis, since))
        cuda_version = context.options.get("cuda_version")
        yield from _once_per_need([
            (need, finding) for instruction, need, finding in found
            # PTX204's (the root: ``spelling_issue``): the toolkit's ptxas stops at the form
            # before it asks about the target, and PTX204 names the target the form needs
            if analysis.spelling_issue(instruction, cuda_version) is None
        ])

    def _check_guards(
        self, statement: AsmStatement, analysis: StatementAnalysis,
        since: tuple[int, int],
    ) -> Iterator[tuple[PtxInstruction, Requirement, Finding]]:
        # The guards' targets (without those the file #errors for: nothing in it is built for
        # them) are worked out once per chain of conditions, which a function's statements
        # share; what each instruction needs is a verdict per instruction. Where the chain's
        # targets are known already, they are read first: most statements' guards choose no
        # target (CUTLASS's include/: 3,169 of 3,217; the CUDA 13 headers: 1,449 of 3,746),
        # and then no instruction is asked what it needs. Else the needs first: the targets
        # only where an instruction needs some (a third of the CUDA headers' need none).
        admitted = analysis.known_admitted_targets()
        if admitted is not None and not admitted:
            return  # the guards do not choose targets (or exclude them all): target unknown
        needs = [
            (instruction, need)
            for instruction in statement.ptx.instructions
            if not instruction.opaque
            for need in (instruction_requirement(statement, instruction),)
            if need.sm or need.suffix or need.only
        ]
        if not needs:
            return  # every target has every instruction
        if admitted is None:
            admitted = analysis.admitted_targets
            if not admitted:
                return  # the guards do not choose targets: target unknown
        lowest = analysis.lowest_target
        if lowest is not None and not built_since(lowest, since):
            # no toolkit from min-cuda-version on compiles the guard's own lower bound (CUDA 13
            # has no sm_70): the build's lowest target is the next one some toolkit compiles
            lowest = next((t for t in TARGETS if t.sm >= lowest.sm and not t.suffix
                           and built_since(t, since)), None)
        for instruction, need in needs:
            if lowest is not None and need.sm > lowest.sm:
                # The guard's own lower bound is too low: every build for it fails.
                problem = _shortfall(need, lowest, False)
                yield instruction, need, self._found(
                    statement, instruction, f"{problem}{_why(statement, instruction, need)}",
                    lowest, "its #if guards"
                )
                continue
            lacking = analysis.lacking(need)
            lacking = tuple(t for t in lacking if built_since(t, since))
            if not lacking:
                continue  # the guard is exact, or stricter than needed
            first = lacking[0]
            more = (
                f", and {len(lacking) - 1} more target{'s' if len(lacking) > 2 else ''} without "
                f"it up to {lacking[-1]}"
                if len(lacking) > 1
                else ""
            )
            span = self.template_span(statement, instruction.opcode_start, instruction.opcode_end)
            yield instruction, need, self.finding(
                statement,
                span,
                f"'{instruction.mnemonic}' needs {need.targets_named}"
                f"{_why(statement, instruction, need)}, but its #if "
                f"guards also admit {first}{_suffix_note(first, need)}{more}: guard it with "
                f"{_exact_guard(need)}",
                severity=Severity.WARNING,
            )

    def _check_arch(
        self, statement: AsmStatement, context: RuleContext, analysis: StatementAnalysis
    ) -> Iterator[tuple[PtxInstruction, Requirement, Finding]]:
        # nvcc compiles the statement once per listed target its guards admit: each such build
        # is judged, lowest first, and a need is reported for the lowest target that lacks it
        # only (``_once_per_need`` then keeps its first instruction): a newer build failing
        # for the same need is mended by the same guard
        # A statement under a guard the build leaves undecided (``#ifdef PIPELINED``) is judged
        # only where the file's other statements under the other answers fail alike: then
        # whichever branch the build takes, one of them is compiled (``_every_branch_fails``).
        # An ``if constexpr`` arm is such a choice too: an instantiation discards one arm
        # (``discarded_arms``), so a bf16 mma beside its f16 twin is compiled only where the
        # template is instantiated for bf16.
        reported: set[tuple[int, str, tuple[int, ...]]] = set()
        arms: ConstexprArms | None = None
        for sm, suffix in context.listed_targets:
            target = Target(sm, suffix)
            certain = analysis.compiled_for_arch(target)
            if not certain and not analysis.undecided_for(target):
                continue
            failed: set[tuple[int, str, tuple[int, ...]]] = set()
            for instruction in statement.ptx.instructions:
                if instruction.opaque:
                    continue
                need = instruction_requirement(statement, instruction)
                key = (need.sm, need.suffix, need.only)
                if key in reported:
                    continue
                problem = _shortfall(need, target, True)
                if problem is None:
                    continue
                if arms is None:
                    arms = constexpr_arms(statement, context)
                chosen = not certain or bool(arms.conditions)
                if chosen and not _every_branch_fails(context, target, arms.function):
                    continue
                failed.add(key)
                source = context.targets_from or "--arch"
                if chosen:
                    source += _choices(certain, bool(arms.conditions))
                yield instruction, need, self._found(
                    statement, instruction, f"{problem}{_why(statement, instruction, need)}",
                    target, source
                )
            reported |= failed

    def _found(
        self,
        statement: AsmStatement,
        instruction: PtxInstruction,
        need: str,
        target: Target,
        source: str,
    ) -> Finding:
        span = self.template_span(statement, instruction.opcode_start, instruction.opcode_end)
        return self.finding(
            statement,
            span,
            f"'{instruction.mnemonic}' needs {need}, but the statement is compiled for {target} "
            f"({source})",
        )


def _choices(certain: bool, arms: bool) -> str:
    """Why a statement under a choice is judged: every choice fails. An ``if constexpr`` with
    no ``else`` (or one of only ``static_assert``s) offers no code in the statement's place,
    so its arms are said to offer none that builds, not to hold the instruction each."""
    if certain:
        return "; the if constexpr around it offers no arm that builds in its place"
    if arms:
        return ("; neither the #if guards nor the if constexpr around it offer a branch that "
                "builds in its place")
    return "; each branch of the #if guards the build may take holds such an instruction"


# a failing statement's undecided guards and if constexpr arms, and the function whose arms
# hold it (None where it is in none)
Branch = tuple[tuple[str, ...], int | None]


def _every_branch_fails(context: RuleContext, target: Target, function: int | None) -> bool:
    """Whether every build for ``target`` compiles one of the file's statements that fail
    there, under guards it leaves undecided or in ``if constexpr`` arms
    (``targets.every_build_compiles_one`` over those conditions): they are the branches of
    one choice, each of which fails, whatever each needs. An arm that offers no alternative
    (empty, missing, or of only ``static_assert``s: ``discarded_arms``) counts as failing.
    Arms count only within ``function``, the asking statement's: another template's arms are
    another instantiation's choice. Worked out once per file, target and function."""
    statements = context.file_statements
    known = _BRANCHES.get((id(statements), target))
    if known is None or known[0] is not statements:
        branches: list[Branch] = []
        refusing: dict[int, tuple[tuple[str, tuple[str, ...]], ...]] = {}
        for other in statements:
            undecided = analysis_of(other).undecided_for(target)
            if undecided is None or not any(
                    _shortfall(instruction_requirement(other, instruction), target, True)
                    for instruction in other.ptx.instructions if not instruction.opaque):
                continue  # not compiled for the target, or compiled and fine
            arms = constexpr_arms(other, context)
            if not undecided and not arms.conditions:
                continue  # compiled certainly: no branch to cover
            holder = arms.function if arms.conditions else None
            if holder is not None:
                refusing[holder] = arms.refusing
            branches.append((undecided + arms.conditions, holder))
        # an arm that offers no alternative counts where its if chooses among failing arms
        # (not an unrelated `if constexpr (...) { static_assert(...); }` of the function)
        asked = {condition_asked(condition) for chain, _ in branches for condition in chain}
        branches += ((chain, holder) for holder, arms_of in refusing.items()
                     for condition, chain in arms_of if condition in asked)
        known = _BRANCHES[(id(statements), target)] = (statements, branches, {})
    _, branches, answers = known
    if function not in answers:
        answers[function] = every_build_compiles_one(
            [chain for chain, holder in branches if holder in (None, function)])
    return answers[function]


# (the file's statements, target) -> (those statements, the branches that fail there, the
# answers so far, per function); only the current file's
_BRANCHES: dict[tuple[int, Target], tuple[object, list[Branch], dict[int | None, bool]]] = {}
file_memos.register(_BRANCHES.clear)


def _once_per_need(found: list[tuple[Requirement, Finding]]) -> Iterator[Finding]:
    """One finding per target a statement's instructions need: ptxas stops at the first, and
    one guard (or one target) mends them all (a wgmma wrapper's fence, mma, commit and wait
    were four findings)."""
    groups: dict[tuple[int, str, tuple[int, ...]], list[Finding]] = {}
    for need, finding in found:
        groups.setdefault((need.sm, need.suffix, need.only), []).append(finding)
    return first_of_each(groups.values(), "it")


def _why(statement: AsmStatement, instruction: PtxInstruction, need: Requirement) -> str:
    """`` (what imposes the need)``: a modifier or the operands that select the form, or the
    table's feature; nothing when that would only repeat the instruction's name."""
    feature = form_feature(statement, instruction, need)
    return f" ({feature})" if feature and feature != instruction.mnemonic else ""


def _suffix_note(target: Target, need: Requirement) -> str:
    if need.suffix and target.sm >= need.sm and not target.suffix:
        return f" (a build for {target}, not {target}{need.suffix_on(target.sm)})"
    return ""


def _exact_guard(need: Requirement) -> str:
    if need.suffix == "f" and need.only:
        # defined for the family and the architecture targets (sm_100f, sm_100a) alike
        return " || ".join(f"__CUDA_ARCH_FAMILY_SPECIFIC__ == {sm * 10}" for sm in need.only)
    if need.suffix == "a" and need.only:
        return " || ".join(f"defined(__CUDA_ARCH_FEAT_SM{sm}_ALL)" for sm in need.only)
    if need.suffix == "a":
        return (
            f"defined(__CUDA_ARCH_FEAT_SM{need.sm}_ALL) or __CUDA_ARCH_SPECIFIC__ / "
            "__CUDA_ARCH_FAMILY_SPECIFIC__"
        )
    return f"__CUDA_ARCH__ >= {need.sm * 10}"


def _shortfall(need: Requirement, target: Target, check_suffix: bool) -> str | None:
    # a feature of listed targets is on none newer than them (sm_107a's is not on sm_110a)
    if check_suffix and need.only and target.sm not in need.only:
        listed = ", ".join(f"sm_{sm}{need.suffix}" for sm in need.only)
        return f"{listed} (it exists on no other target)"
    if need.sm > target.sm:
        return f"sm_{need.sm}{need.suffix} or newer"
    if check_suffix and need.suffix and not available(need, target):
        sm = max(need.sm, target.sm)
        if need.suffix_on(sm) == "f":
            return f"a family-specific target such as sm_{sm}f (or sm_{sm}a)"
        return f"an architecture-specific target such as sm_{sm}a"
    return None
