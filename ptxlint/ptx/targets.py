"""Which GPU targets an asm statement is compiled for, from ``--arch`` and its ``#if`` guards.

A statement's guards (``Context.guards``, plus the condition of an enclosing CCCL
``NV_IF_TARGET``/``NV_IF_ELSE_TARGET``/``NV_DISPATCH_TARGET`` call) are evaluated for each
candidate architecture with :func:`ptxlint.frontends.cxx.preproc.evaluate`. A guard that mentions an
architecture macro must be *true* for the statement to count as compiled there; a guard that
mentions none and stays unknown (``__cccl_ptx_isa >= 800``, ``defined(USE_FOO)``) is not about
the target and is assumed to hold.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from ptxlint import file_memos
from ptxlint.frontends.cxx.preproc import (
    DEFAULT_TARGET,
    Macros,
    condition_names,
    evaluate,
    macro_map,
)
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement, GuardMacro, SourceFile
from ptxlint.ptx.instructions import Requirement
from ptxlint.ptx.versions import DEFAULT_CUDA_VERSION, format_cuda, known_toolkits

__all__ = [
    "ARCHES",
    "OLDEST_TOOLKIT",
    "TARGETS",
    "Target",
    "admitted_targets",
    "arch_targets",
    "arch_toolkit_warning",
    "available",
    "built_since",
    "compiled_for",
    "compiled_for_host",
    "conjuncts",
    "condition_asked",
    "every_build_compiles_one",
    "exclusive_guards",
    "excluded_by_errors",
    "left_out_where_defined",
    "lowest_target",
    "names_architecture",
    "no_device_pass",
    "no_toolkit_compiles",
    "statement_guards",
    "strip_parens",
    "toolkit_compiles",
    "toolkit_target_problem",
    "toolkit_tested",
    "undecided_guards",
]


def statement_guards(statement: AsmStatement, local_only: bool = False) -> tuple[str, ...]:
    """The statement's guards as the extractor read them; ``local_only`` leaves out #if blocks
    longer than ``frontends.cxx.guards.LOCAL_GUARD_LINES`` lines (file-wide header guards)."""
    return statement.context.local_guards if local_only else statement.context.guards


# Every sm_ the CUDA toolchains have known (the guard lattice; order matters).
ARCHES: tuple[int, ...] = (
    30,
    32,
    35,
    37,
    50,
    52,
    53,
    60,
    61,
    62,
    70,
    72,
    75,
    80,
    86,
    87,
    88,
    89,
    90,
    100,
    101,
    103,
    107,
    110,
    120,
    121,
)
_ARCH_MACRO = on_first_use(
    r"__CUDA_ARCH(?:__|_FEAT_SM\w*|_SPECIFIC__|_FAMILY_SPECIFIC__|_LIST__|_HAS_FEATURE__)"
    r"|__NVCOMPILER_CUDA_ARCH__|NV_PROVIDES_SM|NV_IS_"
)


def names_architecture(guard: str) -> bool:
    """Whether ``guard`` tests a macro the target sets (``__CUDA_ARCH__``, the
    ``__CUDA_ARCH_FEAT_SM90_ALL``/``__CUDA_ARCH_SPECIFIC__`` family, NVHPC's and CCCL's target
    tests): an arch guard, which ``-arch`` decides and a ``-D`` never should. A project's own
    macro named like one (``CUTLASS_ARCH_MMA_SM90_ENABLED``) is not: its header decides it."""
    return _ARCH_MACRO().search(guard) is not None


class Target(NamedTuple):
    """A GPU target nvcc can compile for: ``sm_90``, ``sm_90a`` or ``sm_100f``."""

    sm: int
    suffix: str = ""  # "a" (sm_90a), "f" (sm_100f) or ""

    def __str__(self) -> str:
        return f"sm_{self.sm}{self.suffix}"


# Every target nvcc can be asked for: sm_XX, the architecture-specific sm_XXa (sm_90 and newer)
# and the family-specific sm_XXf (sm_100 and newer). `#if __CUDA_ARCH__ >= 900` admits them all
# from sm_90 on, and `-arch=sm_90` defines `__CUDA_ARCH__ == 900` without sm_90a's features.
TARGETS: tuple[Target, ...] = tuple(
    Target(sm, suffix)
    for sm in ARCHES
    for suffix in ("", "a", "f")
    if not (suffix == "a" and sm < 90) and not (suffix == "f" and sm < 100)
)


def available(need: Requirement, target: Target) -> bool:
    """Whether ``target`` has the instruction that ``need`` describes. A family feature
    (``f``: sm_100f) is on the family and architecture targets of its sm_ numbers (sm_100f,
    sm_100a, sm_103a...), never on plain sm_100; an architecture feature (``a``) on sm_XXa, and
    on sm_XXf only where the requirement says the family target suffices (the grammar's
    ``Need.family``; the table's requirements do not say, and count sm_XXf in)."""
    if need.sm > target.sm:
        return False
    if need.only and target.sm not in need.only:
        return False
    if need.suffix == "f":
        return target.suffix in ("a", "f")
    if need.suffix == "a":
        if target.suffix == "a":
            return True
        return target.suffix == "f" and (need.family is None or target.sm in need.family)
    return True


@functools.lru_cache(maxsize=4096)
def admitted_targets(
    guards: tuple[str, ...], local: tuple[str, ...]
) -> tuple[Target, ...] | None:
    """The targets a statement under ``guards`` may be compiled for, when its ``local`` guards
    (``Context.local_guards``) choose among targets; ``None`` when they do not (no guard names the
    architecture, or every target passes, as under `#ifdef __CUDA_ARCH__`): then the target is
    unknown. The set itself comes from every guard, file-wide ones included, which only ever
    narrow it (`#if __CUDA_ARCH__ >= 800` around a header keeps its `#else` of a `>= 900` check
    above sm_80)."""
    if not any(names_architecture(g) for g in local):
        return None
    chosen = tuple(t for t in TARGETS if compiled_for(local, t))
    if len(chosen) == len(TARGETS):
        return None
    return tuple(t for t in chosen if compiled_for(guards, t))


@functools.lru_cache(maxsize=4096)
def arch_targets(guards: tuple[str, ...]) -> tuple[Target, ...] | None:
    """The targets the arch guards among ``guards`` (:func:`names_architecture`) let a statement
    compile for, file-wide ones included; ``None`` when they do not choose (there are none, or
    every target passes, as under ``#ifdef __CUDA_ARCH__``). The other guards are left out, not
    assumed to hold: whether a ``defined(CUTLASS_ARCH_MMA_SM90_ENABLED)`` holds is a
    ``-D``'s business, not the target's, and a guard that holds nowhere
    (``!defined(__LP64__)``) says nothing of which target compiles the rest."""
    arch = tuple(g for g in guards if names_architecture(g))
    if not arch:
        return None
    # of a guard that joins an arch test to a project's macro with `&&` (NvCloth's
    # `defined(__CUDA_ARCH__) && defined(PX_PROFILE)`), the arch terms: undecided as a whole,
    # it would exclude every target
    arch = tuple(term for g in arch for term in _arch_terms(g))
    chosen = tuple(t for t in TARGETS if compiled_for(arch, t))
    return None if len(chosen) == len(TARGETS) else chosen


def _arch_terms(guard: str) -> list[str]:
    """The ``&&`` terms of ``guard`` that name the architecture; the guard itself where it is
    no plain conjunction (an ``||``, a negation of one)."""
    terms = conjuncts(strip_parens(guard))
    if terms is None or len(terms) == 1:
        return [guard]
    return [term for term in terms if names_architecture(term)]


def conjuncts(condition: str) -> list[str] | None:
    """The top-level ``&&`` terms of an ``#if`` condition; None when it has a top-level ``||``
    or ``?``."""
    terms, depth, start, i = [], 0, 0, 0
    while i < len(condition):
        ch = condition[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0 and condition.startswith("&&", i):
            terms.append(condition[start:i])
            start = i + 2
            i += 1
        elif depth == 0 and (condition.startswith("||", i) or ch == "?"):
            return None
        i += 1
    terms.append(condition[start:])
    return terms


def strip_parens(text: str) -> str:
    """``text`` without the parentheses that enclose all of it."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for n, ch in enumerate(text):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and n < len(text) - 1:
                return text
        text = text[1:-1].strip()
    return text


def undecided_guards(guards: tuple[str, ...], target: Target) -> tuple[str, ...] | None:
    """The guards a build for ``target`` leaves undecided (a macro the file does not set),
    where none is false there; None where one is, or where one tests the toolkit's version
    (decided per toolkit: ``compiled_for``)."""
    if toolkit_tested(guards):
        return None
    undecided = []
    for guard in guards:
        value = _value(guard, target, _NO_TOOLKIT)
        if value is False:
            return None
        if value is None:
            undecided.append(guard)
    return tuple(undecided)


# More undecided conditions than this among the statements asked about: no answer. The search
# below prunes a partial answer as soon as it compiles a statement, so a chain of arms costs
# about as many steps as it has conditions; the bound only caps the worst case.
_MOST_UNDECIDED = 24


def every_build_compiles_one(chains: Sequence[tuple[str, ...]]) -> bool:
    """Whether every build compiles at least one of the statements whose undecided guards are
    ``chains`` (``undecided_guards``): each undecided condition is read as a yes or no of its
    own, ``!(c)`` and ``!defined(X)`` as the other answer to ``c`` and ``defined(X)``, and a
    combination of answers that compiles none of them is searched for. The two arms of
    ``#ifdef A`` / ``#else`` are ``defined(A)`` and ``!(defined(A))``: one of them is always
    compiled."""
    read = []
    for chain in chains:
        answers = dict(map(_polarity, chain))
        if len(set(map(_polarity, chain))) == len(answers):
            read.append(answers)  # else it asks one condition for both answers: never compiled
    if not read or len({atom for chain in read for atom in chain}) > _MOST_UNDECIDED:
        return False
    return not _escapes(read, {})


def _escapes(chains: list[dict[str, bool]], value: dict[str, bool]) -> bool:
    """Whether answers beyond ``value`` exist that compile none of ``chains`` (a chain is
    compiled where every one of its conditions has its answer; one with none always is)."""
    open_chains = []
    for chain in chains:
        if any(value.get(atom, holds) is not holds for atom, holds in chain.items()):
            continue  # already not compiled
        if all(atom in value for atom in chain):
            return False  # compiled under these answers
        open_chains.append(chain)
    if not open_chains:
        return True
    atom = next(atom for chain in open_chains for atom in chain if atom not in value)
    for answer in (False, True):
        value[atom] = answer
        if _escapes(open_chains, value):
            del value[atom]
            return True
    del value[atom]
    return False


def exclusive_guards(first: Sequence[str], second: Sequence[str]) -> bool:
    """Whether no build compiles both of two statements under these ``#if`` conditions: one
    holds a condition the other holds negated (``defined(A)`` and ``!(defined(A))``, the two
    arms of ``#ifdef A`` / ``#else``), each read as ``every_build_compiles_one`` reads it."""
    answers = dict(_polarity(guard) for guard in first)
    return any(answers.get(atom, holds) is not holds
               for atom, holds in map(_polarity, second))


def condition_asked(guard: str) -> str:
    """What a condition asks, whichever answer it holds for: ``c`` of ``!(c)`` and of ``c``
    (as :func:`every_build_compiles_one` reads it)."""
    return _polarity(guard)[0]


def _polarity(guard: str) -> tuple[str, bool]:
    """A condition as (what it asks, whether it asks for yes): ``!(c)`` is ``c`` answered no."""
    text = guard.strip()
    if text.startswith("!"):
        inner = text[1:].strip()
        unwrapped = strip_parens(inner)
        if unwrapped != inner or re.fullmatch(r"defined\s*\(?\s*\w+\s*\)?", inner):
            return _polarity(unwrapped)[0], not _polarity(unwrapped)[1]
    return strip_parens(text), True


@functools.lru_cache(maxsize=1024)
def holds_for_no_target(guards: tuple[str, ...], macros: tuple[GuardMacro, ...] = ()) -> bool:
    """Whether, for every target and every supported toolkit (``_TOOLKIT_SAMPLE``), some
    guard of ``guards`` is decided false, with the file's ``macros`` they read
    (``__CUDA_ARCH__ >= 800`` with ``!(__CUDA_ARCH__ >= 700)``; ``!defined(USE_SYNC)`` where
    the file defines ``USE_SYNC`` for ``__CUDACC_VER_MAJOR__ >= 9 && __CUDA_ARCH__ >= 300``):
    no device build compiles what they guard. A guard undecided for a target (a ``-D``, a
    project's own arch macro) does not exclude it."""
    by_name = macro_map(macros)
    # a guard that names none of the file's macros reads none of them: its value for a target
    # and toolkit is ``_value``'s, memoised across statements and files, where each call
    # evaluated every guard again for every target and toolkit it tried (41 x 6), a dictionary
    # merged for each: the CUDA 13 headers' 121 calls evaluated 13,016 guards, and the whole
    # ``check -j 1 --no-cache`` there took 21.62 G instructions (cachegrind), 21.39 G so
    plain = [not by_name or by_name.keys().isdisjoint(_guard_names(g)) for g in guards]
    # a guard that reads the same for every target (``_varies_by_target``) is evaluated for
    # one target per toolkit, not for each (the CUDA 13 headers' 121 calls, cold: 16.5 ms ->
    # 4.0 ms; CUTLASS include/'s 123: 16.1 -> 7.8 ms)
    macros_vary = _varies_by_target(macros)
    same = [not _varies_by_target(g) and (alone or not macros_vary)
            for g, alone in zip(guards, plain, strict=True)]
    first = TARGETS[0]
    for toolkit, sample in enumerate(_TOOLKIT_SAMPLE):
        if any(_value_at(guard, alone, first, toolkit, sample, by_name) is False
               for guard, alone, fixed in zip(guards, plain, same, strict=True) if fixed):
            continue  # no target of this toolkit compiles it
        for target in TARGETS:
            if not any(_value_at(guard, alone, target, toolkit, sample, by_name) is False
                       for guard, alone, fixed in zip(guards, plain, same, strict=True)
                       if not fixed):
                return False
    return True


def _value_at(guard: str, alone: bool, target: Target, toolkit: int,
              sample: Mapping[str, int | None], by_name: Macros) -> bool | None:
    """``guard``'s value for ``target`` and ``_TOOLKIT_SAMPLE``'s ``toolkit``-th version
    (``sample``): ``_value``'s where it names none of the file's macros (``alone``), else
    evaluated with them (``by_name``)."""
    if alone:
        return _value(guard, target, toolkit)
    return _evaluate(guard, {**_target_defines(target), **sample}, by_name)


# guard -> the names it looks up once rewritten for evaluation (``_rewritten``)
_GUARD_NAMES: dict[str, tuple[str, ...]] = {}


def _guard_names(guard: str) -> tuple[str, ...]:
    found = _GUARD_NAMES.get(guard)
    if found is None:
        if len(_GUARD_NAMES) >= _VALUES_KEPT:
            _GUARD_NAMES.clear()
        found = _GUARD_NAMES[guard] = condition_names(_rewritten(guard))
    return found


_EXCLUDED: dict[int, tuple[SourceFile, frozenset[Target]]] = {}
file_memos.register(_EXCLUDED.clear)


def excluded_by_errors(source: SourceFile) -> frozenset[Target]:
    """Targets for which the file stops with ``#error`` (``#if __CUDA_ARCH__ < 1000`` /
    ``#error "needs sm_100+"``): a statement anywhere in it is never compiled for them. Only an
    ``#error`` whose every guard certainly holds for the target counts (a toolkit or project
    macro there leaves it out). Once per file."""
    cached = _EXCLUDED.get(id(source))
    if cached is not None and cached[0] is source:
        return cached[1]
    found: set[Target] = set()
    # the file's one reading of its #error lines (``FileGuards.directives``, which
    # ``host_code`` reads too; a search of the text, where each made its own), and the walk
    # of its directives that its statements' guards were read from
    from ptxlint.frontends.cxx.guards import guards_of

    file_guards = guards_of(source.text)
    seen: set[tuple[str, ...]] = set()
    for at in file_guards.directives.named("error"):
        conditions = file_guards.conditions_at(at)
        if conditions in seen or not any(names_architecture(c) for c in conditions):
            continue
        seen.add(conditions)
        found.update(t for t in TARGETS if _fires(conditions, t))
    if len(_EXCLUDED) > 64:
        _EXCLUDED.clear()
    result = frozenset(found)
    _EXCLUDED[id(source)] = (source, result)
    return result


def _fires(conditions: tuple[str, ...], target: Target) -> bool:
    return _held(conditions, target, _NO_TOOLKIT, unknown_holds=False)


# CUDA toolkits ptxlint considers: 11.0 and newer (older ones predate sm_80 and are long out of
# support). A branch that none of them compiles (`#if __CUDACC_VER_MAJOR__ < 9`,
# `#if CUDA_VERSION < 9000`) is history, not a target to lint for.
_TOOLKITS = tuple((major, minor) for major in (11, 12, 13) for minor in range(10))
OLDEST_TOOLKIT = _TOOLKITS[0]
_TOOLKIT_MACRO = on_first_use(
    r"__CUDACC_VER_MAJOR__|__CUDACC_VER_MINOR__|CUDA_VERSION|CUDART_VERSION"
)
# and CCCL's PTX ISA version, which its headers set from the toolkit's
_ISA_MACRO = on_first_use(r"__cccl_ptx_isa")


def toolkit_tested(guards: tuple[str, ...]) -> bool:
    """Whether a guard tests the toolkit's version (or CCCL's PTX ISA version) by name."""
    return any(_TOOLKIT_MACRO().search(g) or _ISA_MACRO().search(g) for g in guards)


def _toolkit_defines(major: int, minor: int) -> Mapping[str, int | None]:
    defines: dict[str, int | None] = dict(DEFAULT_TARGET)
    defines["__CUDACC_VER_MAJOR__"] = major
    defines["__CUDACC_VER_MINOR__"] = minor
    defines["CUDA_VERSION"] = defines["CUDART_VERSION"] = major * 1000 + minor * 10
    return defines


_TOOLKIT_DEFINES = tuple(_toolkit_defines(*version) for version in _TOOLKITS)
_TOOLKIT_SAMPLE = tuple(
    _toolkit_defines(major, minor) for major in (11, 12, 13) for minor in (0, 9)
)


@functools.lru_cache(maxsize=4096)
def no_toolkit_compiles(guards: tuple[str, ...]) -> bool:
    """Whether every supported CUDA toolkit leaves the branch out (a guard is false for each)."""
    about_toolkit = tuple(g for g in guards if _TOOLKIT_MACRO().search(g))
    if not about_toolkit:
        return False
    return all(
        any(_evaluate(g, defines) is False for g in about_toolkit) for defines in _TOOLKIT_DEFINES
    )


# The newest sm_ each toolkit compiles for (its release notes, and the PTX ISA version each
# `.target` needs: 5.0 sm_35, 6.0 sm_50, 6.5 sm_52, 7.0 sm_53, 8.0 sm_60-sm_62, 9.0 sm_70, 9.1
# sm_72, 10.0 sm_75, 11.0 sm_80, 11.1 sm_86, 11.4 sm_87, 11.8 sm_89/sm_90, 12.8
# sm_100/sm_101/sm_120, 12.9 sm_103/sm_121); `a` targets from 12.0, `f` targets from 12.9. A
# toolkit older than the first entry knows sm_30 at most.
_NEWEST_SM = ((5, 0, 35), (6, 0, 50), (6, 5, 52), (7, 0, 53), (8, 0, 62), (9, 0, 70),
              (9, 1, 72), (10, 0, 75), (11, 0, 80), (11, 1, 86), (11, 4, 87), (11, 8, 90),
              (12, 8, 120), (12, 9, 121))
# The sm_ a toolkit added below the newest one an older toolkit already knew: ptxas 13.4 lists
# sm_107, sm_107a and sm_107f and assembles for them (from PTX ISA 9.4: ".version 9.3 does not
# support .target sm_107a"); ptxas 13.3 does not know them ("Value 'sm_107a' is not defined
# for option 'gpu-name'"). sm_32 came with PTX ISA 4.0 (CUDA 6.0), after sm_35; sm_37 with
# 4.1 (CUDA 6.5), after sm_50.
# sm_88 and sm_110 with CUDA 13.0, sm_103 with 12.9 (ptxas 12.8 knows sm_100, sm_101 and
# sm_120, not sm_103 or sm_121; 12.9 not sm_88 or sm_110; 13.0 all but sm_101).
_ADDED_LATER = {32: (6, 0), 37: (6, 5), 88: (13, 0), 103: (12, 9), 107: (13, 4), 110: (13, 0)}


# The toolkit that first no longer compiles for an sm_ (ptxas: "Value 'sm_70' is not defined
# for option 'gpu-name'"): CUDA 11.0 dropped sm_30 and sm_32, 12.0 sm_35 and sm_37, 13.0 sm_50
# to sm_72 (Maxwell, Pascal, Volta; ptxas 12.4 builds each, 13.1 and 13.5 none), and 13.0 named
# sm_101 sm_110 (ptxas 13.x knows no sm_101, sm_101a or sm_101f).
_DROPPED_IN = {30: (11, 0), 32: (11, 0), 35: (12, 0), 37: (12, 0), 50: (13, 0), 52: (13, 0),
               53: (13, 0), 60: (13, 0), 61: (13, 0), 62: (13, 0), 70: (13, 0), 72: (13, 0),
               101: (13, 0)}


_RENAMED = {101: 110}  # of ``_DROPPED_IN``, the targets a toolkit names anew


def built_since(target: Target, since: tuple[int, int]) -> bool:
    """Some toolkit from CUDA ``since`` on compiles for ``target``: the toolkits after it
    dropped none of what it compiles but the targets of ``_DROPPED_IN``."""
    return since < _DROPPED_IN.get(target.sm, (1 << 16, 0))


def _toolkit_knows(version: tuple[int, int], target: Target) -> bool:
    newest = max((sm for major, minor, sm in _NEWEST_SM if (major, minor) <= version),
                 default=30)
    if target.suffix == "a" and version < (12, 0):
        return False
    if target.suffix == "f" and version < (12, 9):
        return False
    if version < _ADDED_LATER.get(target.sm, version):
        return False
    return target.sm <= newest


def toolkit_target_problem(target: Target, version: tuple[int, int]) -> str | None:
    """Why CUDA ``version``'s nvcc cannot compile for ``target``, or None where it can: a target
    newer than the toolkit (sm_110 before CUDA 13.0), or one it dropped (sm_70 from CUDA
    13.0 on, whose oldest target is sm_75) or named anew (sm_101, sm_110 from 13.0 on)."""
    cannot = f"CUDA {format_cuda(version)} does not compile for {target}"
    if _toolkit_knows(version, target):
        if built_since(target, version):
            return None
        dropped = format_cuda(_DROPPED_IN[target.sm])
        if target.sm in _RENAMED:
            return f"{cannot}: CUDA {dropped} named it {Target(_RENAMED[target.sm], target.suffix)}"
        oldest = min(sm for sm in ARCHES if built_since(Target(sm), version))
        return f"{cannot}: CUDA {dropped} dropped it, and compiles for sm_{oldest} and newer"
    first = next((v for v in known_toolkits() if _toolkit_knows(v, target)), None)
    return cannot if first is None else f"{cannot}, new in CUDA {format_cuda(first)}"


def arch_toolkit_warning(arch: int | None, suffix: str,
                         options: Mapping[str, object]) -> str | None:
    """The warning for a run whose ``arch`` its toolkit (``options``' ``cuda_version``)
    cannot compile for, or None: the rules still judge that target, as asked."""
    version = options.get("cuda_version")
    if arch is None or not isinstance(version, tuple):
        return None
    target = Target(arch, suffix)
    problem = toolkit_target_problem(target, version)
    if problem is None:
        return None
    hint = (f"; cuda-version is not set, and {format_cuda(DEFAULT_CUDA_VERSION)} is its "
            "default: set it to the toolkit you build with"
            ) if options.get("cuda_version_source") == "default" else ""
    return f"arch {target}: {problem}. The rules judge {target} all the same{hint}"


@functools.lru_cache(maxsize=4096)
def toolkit_compiles(
    guards: tuple[str, ...], version: tuple[int, int], ptx: int,
    macros: Sequence[GuardMacro] = (), any_target: bool = False,
) -> bool:
    """Whether CUDA ``version`` (whose PTX ISA is ``ptx``, x10) certainly compiles a statement
    under ``guards`` for some target: every guard decided and true there, with that toolkit's
    version macros (and CCCL's ``__cccl_ptx_isa``), and ``macros``, the definitions the
    guards' own names have in the file or the headers it includes by relative path (lmdeploy's
    ``TURBOMIND_ARCH_SM80``, 1 under ``__CUDA_ARCH__ >= 800``). A guard nothing here decides
    (a project's ``CUTLASS_ARCH_MMA_SM90_SUPPORTED``, set from the toolkit version in a header
    not read) may well keep that toolkit out: it counts as not compiling. ``any_target``: the
    targets that toolkit does not know count too (what the version tests alone decide)."""
    if not guards:
        return True
    toolkit = dict(_toolkit_defines(*version))
    toolkit["__cccl_ptx_isa"] = ptx * 10
    by_name = macro_map(macros) if macros else None
    considered = TARGETS if any_target else _known_targets(version)
    if not considered:
        return False
    # a guard that reads the same for every target is evaluated once, not once per target (the
    # CUDA 13 headers' 321 calls, cold: 67 ms -> 5 ms)
    varying = guards if _varies_by_target(macros) else tuple(
        guard for guard in guards if _varies_by_target(guard))
    if len(varying) < len(guards):
        defines = {**_target_defines(considered[0]), **toolkit}
        if not all(_evaluate(guard, defines, by_name) is True
                   for guard in guards if guard not in varying):
            return False
        if not varying:
            return True
    for target in considered:
        defines = {**_target_defines(target), **toolkit}
        if all(_evaluate(guard, defines, by_name) is True for guard in varying):
            return True
    return False


@functools.lru_cache(maxsize=64)
def _known_targets(version: tuple[int, int]) -> tuple[Target, ...]:
    """The targets CUDA ``version`` compiles for (``_toolkit_knows``), listed once per
    toolkit: ``toolkit_compiles`` asked it of every target on each call."""
    return tuple(target for target in TARGETS if _toolkit_knows(version, target))


# What every define that differs between targets is spelled with (``_defines``; the guards'
# ``__CUDA_ARCH_HAS_FEATURE__(SM100_ALL)`` too)
_ARCH_SPELLING = "__CUDA_ARCH"


def _varies_by_target(read: str | Sequence[GuardMacro]) -> bool:
    """Whether a guard, or the definitions of the file's macros that guards may read (their
    bodies, and the conditions under which they hold), name a define of ``_defines``, which
    alone differ between targets: else it reads the same for every target."""
    if isinstance(read, str):
        return _ARCH_SPELLING in read
    return any(
        _ARCH_SPELLING in macro.body or any(_ARCH_SPELLING in c for c in macro.conditions)
        for macro in read
    )


def _target_defines(target: Target) -> Mapping[str, int | None]:
    defines = _DEFINES.get(target)
    if defines is None:
        defines = _DEFINES[target] = _defines(target)
    return defines


def compiled_for_host(guards: tuple[str, ...]) -> bool:
    """nvcc's host pass certainly compiles a statement under ``guards``: every one is decided
    and true with ``__CUDA_ARCH__`` and the target feature macros undefined. An undecided
    guard (a project's macro, ``NV_IF_TARGET``'s) may well test the target: it does not hold."""
    return all(_host_value(guard) is True for guard in guards)


@functools.lru_cache(maxsize=4096)
def _host_value(guard: str) -> bool | None:
    return _evaluate(guard, _HOST_PASS)


def left_out_where_defined(
    guards: tuple[str, ...], name: str, macros: tuple[GuardMacro, ...] = ()
) -> bool:
    """Some guard of ``guards`` is decided false, for every target, where nvcc defines the
    macro ``name`` (``-rdc=true`` defines ``__CUDACC_RDC__``, ``-G`` ``__CUDACC_DEBUG__``),
    read with the file's ``macros``: no build with that option compiles the statement. The
    architecture stays unknown, so ``defined(__CUDA_ARCH__) && !defined(__CUDACC_RDC__)``
    leaves it out and ``__CUDA_ARCH__ >= 900`` does not; an undecided guard (a project's
    macro) leaves nothing out."""
    defines = {**DEFAULT_TARGET, name: 1}
    by_name = macro_map(macros)
    return any(_evaluate(guard, defines, by_name) is False for guard in guards)


@functools.lru_cache(maxsize=4096)
def no_device_pass(guard: str) -> bool:
    """The ``#if`` condition ``guard`` is decided false for every target: no device pass of
    nvcc compiles what it guards (``!defined(__CUDA_ARCH__)``, the ``#else`` or ``#elif`` after
    ``#ifdef __CUDA_ARCH__``), only the host pass may. A condition undecided for some target
    (a project's macro) may hold there."""
    if "__CUDA_ARCH__" not in guard:
        return False  # (most conditions: only the architecture's own macro is set per pass)
    for target in TARGETS:
        defines = _DEFINES.get(target)
        if defines is None:
            defines = _DEFINES[target] = _defines(target)
        if _evaluate(guard, defines) is not False:
            return False
    return True


def _host_defines() -> Mapping[str, int | None]:
    defines: dict[str, int | None] = dict(DEFAULT_TARGET)
    defines["__CUDA_ARCH__"] = None
    for sm in ARCHES:
        defines[f"__CUDA_ARCH_FEAT_SM{sm}_ALL"] = None
    defines["__CUDA_ARCH_SPECIFIC__"] = None
    defines["__CUDA_ARCH_FAMILY_SPECIFIC__"] = None
    return defines


def _defines(target: Target) -> Mapping[str, int | None]:
    defines: dict[str, int | None] = dict(DEFAULT_TARGET)
    defines["__CUDA_ARCH__"] = target.sm * 10
    specific = target.suffix in ("a", "f")
    for sm in ARCHES:
        feature = target.suffix == "a" and sm == target.sm
        defines[f"__CUDA_ARCH_FEAT_SM{sm}_ALL"] = 1 if feature else None
    defines["__CUDA_ARCH_SPECIFIC__"] = target.sm * 10 if target.suffix == "a" else None
    defines["__CUDA_ARCH_FAMILY_SPECIFIC__"] = target.sm * 10 if specific else None
    return defines


_DEFINES: dict[Target, Mapping[str, int | None]] = {}
_HOST_PASS = _host_defines()
# A function-like macro call the evaluator cannot expand (`_CCCL_CUDA_COMPILER(NVHPC)`) becomes
# one unknown identifier, so `unknown || __CUDA_ARCH__ >= 900` still decides for sm_90. An
# operator's alternative spelling before a parenthesis (`and (__CUDA_ARCH__ >= 1000)`) is none.
_CALL = on_first_use(
    r"\b(?!(?:defined|and|or|not|bitand|bitor|xor|compl|not_eq)\b)[A-Za-z_]\w*\s*\([^()]*\)"
)


# crt/host_defines.h: `#define __CUDA_ARCH_HAS_FEATURE__(_FEAT) __CUDA_ARCH_FEAT_##_FEAT`, the
# spelling TransformerEngine and NCCL use for `a` targets (`__CUDA_ARCH_HAS_FEATURE__(SM100_ALL)`).
_HAS_FEATURE = on_first_use(r"\b__CUDA_ARCH_HAS_FEATURE__\s*\(\s*(\w+)\s*\)")


def _evaluate(
    guard: str, defines: Mapping[str, int | None], macros: Macros | None = None
) -> bool | None:
    guard = _rewritten(guard)
    return evaluate(guard, defines, macros) if macros else evaluate(guard, defines)


def _rewritten(guard: str) -> str:
    """``guard`` as ``_evaluate`` hands it to ``evaluate``."""
    if "(" in guard:
        if "__CUDA_ARCH_HAS_FEATURE__" in guard:
            guard = _HAS_FEATURE().sub(r"__CUDA_ARCH_FEAT_\1", guard)
        guard = _CALL().sub("__ptxlint_unknown__", guard)
    return guard


@functools.lru_cache(maxsize=4096)
def compiled_for(guards: tuple[str, ...], target: Target, unknown_holds: bool = True) -> bool:
    """Whether a statement under ``guards`` is certainly compiled for ``target``, as far as
    the architecture is concerned. With ``unknown_holds=False`` an undecided guard of any kind
    counts as excluding the target (a macro from another header, such as cuda_fp8.h's
    ``__CUDA_FP8_INTERNAL_CAN_RELY_ON_PTX_FOR_SHORTTYPESCVT__``, may well test the arch)."""
    if _held(guards, target, _NO_TOOLKIT, unknown_holds):
        return True
    # `__CUDACC_VER_MAJOR__ >= 12 && __CUDA_ARCH__ >= 900`: compiled for the target when some
    # supported toolkit compiles it (the newest and the oldest of each major release decide).
    if not any(_TOOLKIT_MACRO().search(g) for g in guards):
        return False
    return any(
        _held(guards, target, toolkit, unknown_holds) for toolkit in range(len(_TOOLKIT_SAMPLE))
    )


# A project's own architecture macro, defined in a header this file does not include (NCCL's
# NCCL_CUDA_ARCH_SPECIFIC, set from __CUDA_ARCH_SPECIFIC__ in device.h; CUTLASS_ARCH_MMA_SM90_*):
# undecided, it may well choose the target, so it never counts as holding.
_ARCH_LIKE = on_first_use(r"[A-Za-z0-9_]*(?:ARCH|SM_?[0-9]{2,3})[A-Za-z0-9_]*")


_NO_TOOLKIT = -1  # the target's own defines, no toolkit version sampled

# (guard, target, toolkit) -> the guard's value there. Guard tuples differ where their guards
# repeat (a file's own guards under each statement's local ones), and each new tuple was
# evaluated for every target again: 0.59 s of 8.3 s profiled on the CUDA headers' asm files.
_VALUES: dict[tuple[str, Target, int], bool | None] = {}
_VALUES_KEPT = 1 << 16


def _value(guard: str, target: Target, toolkit: int) -> bool | None:
    """``_evaluate(guard, defines)`` under ``target``'s defines, with ``_TOOLKIT_SAMPLE``'s
    ``toolkit``-th version over them unless ``_NO_TOOLKIT``; memoised."""
    if "__CUDA_ARCH" not in guard:
        # it names no define that differs between targets (``_defines``): one value for all of
        # them (over the CUDA headers, 2,147 of 3,502 evaluations were such guards' repeats)
        target = TARGETS[0]
    key = (guard, target, toolkit)
    try:
        return _VALUES[key]
    except KeyError:
        pass
    defines = _DEFINES.get(target)
    if defines is None:
        defines = _DEFINES[target] = _defines(target)
    if toolkit != _NO_TOOLKIT:
        defines = {**defines, **_TOOLKIT_SAMPLE[toolkit]}
    if len(_VALUES) >= _VALUES_KEPT:
        _VALUES.clear()
    value = _VALUES[key] = _evaluate(guard, defines)
    return value


def _held(guards: tuple[str, ...], target: Target, toolkit: int, unknown_holds: bool) -> bool:
    for guard in guards:
        value = _value(guard, target, toolkit)
        if value is True:
            continue
        if value is None and unknown_holds and not _names_arch(guard):
            continue
        return False
    return True


# guard -> whether it names an architecture macro (``_ARCH_MACRO``, ``_ARCH_LIKE``): a fact of
# the text, asked for each target and toolkit in turn (``lowest_target`` tries each target), where
# the two searches were most of ``_held``'s own time (``_ARCH_LIKE`` is tried at every character).
_NAMES_ARCH: dict[str, bool] = {}


def _names_arch(guard: str) -> bool:
    known = _NAMES_ARCH.get(guard)
    if known is None:
        if len(_NAMES_ARCH) >= _VALUES_KEPT:
            _NAMES_ARCH.clear()
        known = _NAMES_ARCH[guard] = bool(
            _ARCH_MACRO().search(guard) or _ARCH_LIKE().search(guard)
        )
    return known


@functools.lru_cache(maxsize=4096)
def lowest_target(guards: tuple[str, ...]) -> Target | None:
    """The lowest architecture the guards compile the statement for, when they bound it from
    below (the oldest architecture is excluded); ``None`` when they set no lower bound or
    exclude every architecture."""
    if not any(names_architecture(g) for g in guards):
        return None
    if compiled_for(guards, Target(ARCHES[0])):
        return None  # no lower bound (no guard, or only an upper one such as `< 900`)
    for sm in ARCHES:
        for suffix in ("", "a"):
            if suffix and sm < 90:
                continue
            if compiled_for(guards, Target(sm, suffix)):
                return Target(sm, suffix)
    return None
