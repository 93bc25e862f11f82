"""Which toolkits compile a statement, as its ``#if`` guards and the project's settings say.

:func:`oldest_compiling`: the oldest CUDA toolkit that certainly compiles a statement, what an
instruction's PTX ISA version is held against (PTX403). :func:`toolkit_accepts`: whether an
instruction verdict that names a newer ptxas is an error for the run's toolkit. A grammar form
new in a later toolkit (``toolkit=13.1``) makes :func:`ptxlint.ptx.grammar.check` report what
the older toolkits' ptxas says, with that toolkit on the issue; the rules ask
:func:`toolkit_accepts` whether the toolkit the verdicts are for (``cuda-version``) is one of
the newer ones, or whether the statement's ``#if`` guards may keep it out."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from ptxlint.frontends.cxx.preproc import DEFAULT_TARGET, evaluate
from ptxlint.model import GuardMacro
from ptxlint.ptx.grammar import Issue
from ptxlint.ptx.targets import (
    OLDEST_TOOLKIT,
    no_toolkit_compiles,
    toolkit_compiles,
    toolkit_tested,
)
from ptxlint.ptx.versions import (
    DEFAULT_CUDA_VERSION,
    NEWEST_KNOWN,
    CudaVersion,
    known_toolkits,
    ptx_for_cuda,
)

__all__ = ["FP16_CLASSES_SINCE", "assembles", "beyond_grammar", "builds_branch",
           "no_toolkit_since",
           "oldest_compiling", "toolkit_accepts", "toolkit_unseen"]

# cuda_fp16.h's types as ptxlint knows them (``frontends.cxx.c_types``: ``__half`` a class with
# several conversions, ``__half2`` a pair of ``__half`` members ``x`` and ``y``) are CUDA 9.0's
# and later ones'. Before, ``__half`` was a struct holding an ``unsigned short x`` and
# ``__half2`` one holding an ``unsigned int x``.
FP16_CLASSES_SINCE: CudaVersion = (9, 0)

# The toolkits before the oldest one ptxlint supports (``targets.OLDEST_TOOLKIT``, 11.0) that a
# version test may still tell apart: 9.0 to 10.2.
_OLDER_TOOLKITS: tuple[CudaVersion, ...] = ((9, 0), (9, 1), (9, 2), (10, 0), (10, 1), (10, 2))


@functools.lru_cache(maxsize=4096)
def oldest_compiling(
    guards: tuple[str, ...], macros: tuple[GuardMacro, ...] = (),
    since: CudaVersion | None = None,
) -> tuple[CudaVersion, int] | None:
    """The oldest toolkit, with the PTX ISA version (x10) its ptxas accepts, that certainly
    compiles a statement under ``guards`` (``targets.toolkit_compiles``, ``macros`` the guards'
    definitions): ``since`` (the project's ``min-cuda-version``) or a newer one. Without
    ``since``, only where the guards bound the toolkit from below themselves: a version test
    (``__CUDACC_VER_MAJOR__ >= 12``, ``CUDA_VERSION >= 12040``, CCCL's ``__cccl_ptx_isa >=
    800``) that keeps the oldest toolkit ptxlint considers (``targets.OLDEST_TOOLKIT``, 11.0)
    out whatever it targets. A statement whose guards say nothing of the toolkit, bound it only
    from above (the fallback branch of ``#if CUDA_VERSION >= 12090``) or from below by an older
    one (``CUDA_VERSION >= 10000``: without ``since``, ptxlint considers no toolkit before
    11.0), leaves the oldest toolkit to the project's settings. None where no
    toolkit certainly compiles it (a guard nothing here decides), or ``since`` is newer than
    the table."""
    if since is None:
        if not toolkit_tested(guards):
            return None
        since = OLDEST_TOOLKIT
        first_ptx = ptx_for_cuda(since)
        if first_ptx is None or toolkit_compiles(guards, since, first_ptx, macros,
                                                 any_target=True):
            return None
    for version in known_toolkits(since):
        ptx = ptx_for_cuda(version)
        if ptx is None:
            return None
        if toolkit_compiles(guards, version, ptx, macros):
            return version, ptx
    return None


@functools.lru_cache(maxsize=4096)
def no_toolkit_since(guards: tuple[str, ...], version: CudaVersion) -> bool:
    """Whether every CUDA toolkit from ``version`` on leaves a branch under ``guards`` out: for
    each, some guard that tests the toolkit's version is decided false with its version macros
    (``targets.no_toolkit_compiles`` for the supported toolkits, 11.0 on). A guard nothing
    decides (a project's macro, a function-like test) excludes no toolkit."""
    about_toolkit = tuple(g for g in guards if toolkit_tested((g,)))
    if not about_toolkit or not no_toolkit_compiles(guards):
        return False
    for major, minor in _OLDER_TOOLKITS:
        if (major, minor) < version:
            continue
        defines = {**DEFAULT_TARGET, "__CUDACC_VER_MAJOR__": major,
                   "__CUDACC_VER_MINOR__": minor, "CUDA_VERSION": major * 1000 + minor * 10,
                   "CUDART_VERSION": major * 1000 + minor * 10}
        if not any(evaluate(g, defines) is False for g in about_toolkit):
            return False
    return True


def assembles(first: CudaVersion | None, cuda_version: object) -> bool:
    """Whether the ptxas of the toolkit ``cuda_version`` (``(major, minor)``, a rule option;
    13.0 when absent) takes what the toolkit ``first`` was the first to take (a grammar
    form's ``toolkit=``; None: every toolkit): what PTX204 holds an instruction against, and
    what completion offers."""
    return first is None or _run_toolkit(cuda_version) >= first


def _run_toolkit(cuda_version: object) -> CudaVersion:
    return cuda_version if isinstance(cuda_version, tuple) else DEFAULT_CUDA_VERSION


def toolkit_accepts(issue: Issue, cuda_version: object, guards: tuple[str, ...] = ()) -> bool:
    """Whether what ``issue`` reports is no error for the toolkit ``cuda_version``
    (``(major, minor)``, a rule option; 13.0 when absent): its ptxas is one of the newer ones
    the issue names, or the statement's ``guards`` may keep that toolkit out (CUTLASS's
    ``CUTE_ARCH_MXF4NVF4_4X_UE8M0_MMA_ENABLED``, set from CUDA 13.1 on): then say nothing."""
    if issue.toolkit is None:
        return False
    if assembles(issue.toolkit, cuda_version):
        return True
    return not builds_branch(guards, cuda_version)


def builds_branch(guards: tuple[str, ...], cuda_version: object) -> bool:
    """Whether the toolkit ``cuda_version`` (13.0 when absent) compiles a statement under
    ``guards``: not the ``#else`` of ``__CUDACC_VER_MAJOR__ >= 12``, for 13.0."""
    if not guards:
        return True
    version = _run_toolkit(cuda_version)
    ptx = ptx_for_cuda(version)
    return ptx is None or toolkit_compiles(guards, version, ptx)


def toolkit_unseen(options: Mapping[str, object], syntax: str) -> bool:
    """Whether the toolkit whose ptxas assembles a statement of ``syntax`` is unknown to the
    run: LLVM-syntax asm (Triton, CuTe DSL, llvmlite) is assembled by its DSL's own toolchain
    (the ptxas in Triton's wheel, the CUDA that ``nvidia-cutlass-dsl`` was built on, the
    driver's JIT), not the project's nvcc, so the default ``cuda-version`` says nothing of it;
    a configured one (or the toolkit ``--verify`` runs) does."""
    return syntax == "llvm" and options.get("cuda_version_source") == "default"


def beyond_grammar(cuda_version: object) -> CudaVersion | None:
    """The toolkit the verdicts are for (``cuda_version``, a rule option) where it is newer
    than the newest whose PTX ISA the grammar covers: a word the grammar does not know may be
    one of its new instructions or modifiers. ``None`` otherwise."""
    if isinstance(cuda_version, tuple) and cuda_version > NEWEST_KNOWN:
        return (int(cuda_version[0]), int(cuda_version[1]))
    return None
