"""What the ``#if`` conditions around a statement say: which of them bind at all (a header's
include guard does not), which targets they admit, and which build compiles the statement
(a 32-bit one, clang only, HIP/ROCm).

ptxlint judges sizes for NVPTX64 (LP64: pointers and ``long`` are 8 bytes). Code under a guard
that tests the data model (``#if !defined(__LP64__)``, ``#else`` of ``__CVTA_PTR_64``) may be
built for a 32-bit target, and code under a HIP/ROCm guard (or another vendor's GPU compiler's:
MUSA, MACA, BANG) is not compiled by nvcc at all.

Pure functions of the statement (and of its file's include guard); :mod:`ptxlint.analysis.
statement` keeps their answers once per statement.
"""

from __future__ import annotations

from ptxlint.analysis.include_guard import is_include_guard_condition
from ptxlint.file_traits import clang_cuda_header, include_guard
from ptxlint.frontends.cxx import dialect, preproc
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement, CType

__all__ = [
    "binding_guards",
    "clang_only",
    "data_model_guarded",
    "model_dependent",
    "only_for_32bit",
    "rocm_guarded",
]

def binding_guards(statement: AsmStatement, conditions: tuple[str, ...]) -> tuple[str, ...]:
    """``conditions`` (the statement's guards, all or local, outermost first) without its
    file's include guard, which holds wherever the file is read at all. The include guard is
    the file's first directive, so it can only be the outermost condition."""
    if not conditions or "defined" not in conditions[0]:
        return conditions
    name = include_guard(statement.source)
    if name is not None and is_include_guard_condition(conditions[0], name):
        return conditions[1:]
    return conditions


# Macros whose value depends on the pointer width or on the OS's data model.
_DATA_MODEL = on_first_use(
    r"LP64|ILP32|WIN64|_WIN32|_MSC_VER|PTR_?64|PTR_?32|SIZEOF_POINTER|SIZEOF_LONG|SIZEOF_SIZE_T"
    r"|_M_X64|x86_64|__i386__|aarch64|__arm__|INTPTR|UINTPTR_MAX|SIZE_MAX|__CUDACC_RTC__"
)


def data_model_guarded(statement: AsmStatement) -> bool:
    """A guard mentions the data model, or only a 32-bit build compiles the statement: LP64
    sizes may not apply."""
    return any(_DATA_MODEL().search(g) for g in statement.context.guards) or only_for_32bit(
        statement
    )


def model_dependent(ctype: CType) -> bool:
    """Whether a type's size differs between LP64 and 32-bit/LLP64 targets."""
    if ctype.kind in ("pointer",) or ctype.spelling.endswith("]"):
        return True
    return ctype.spelling in ("long", "unsigned long")


def rocm_guarded(statement: AsmStatement) -> bool:
    """Some guard must hold for a HIP/ROCm build (the extractor already drops most of these)."""
    return dialect.rocm_guarded(statement.context.guards)


_NVCC = {"__NVCC__": 1}


def clang_only(statement: AsmStatement) -> bool:
    """Only clang compiles the statement: it is in one of clang's own CUDA headers
    (``__clang_cuda_*.h``, which nvcc never includes), or a guard excludes nvcc."""
    if clang_cuda_header(statement.source):
        return True
    guards = statement.context.guards
    if not guards or preproc.evaluate_guards(guards, _NVCC) is not False:
        return False
    return preproc.evaluate_guards(guards, {}) is not False  # `#if 0` leaves out every compiler


# A 64-bit Windows build (LLP64): the other data model nvcc 13.0 still builds for.
_WIN64: dict[str, int | None] = {
    **preproc.DEFAULT_TARGET,
    "__LP64__": None,
    "_LP64": None,
    "__linux__": None,
    "_WIN32": 1,
    "_WIN64": 1,
    "_MSC_VER": 1940,
}


def only_for_32bit(statement: AsmStatement) -> bool:
    """No 64-bit build compiles the statement (``#if !defined(__LP64__)``, or the ``#else`` of
    ``#if __CVTA_PTR_64`` where the file defines ``__CVTA_PTR_64`` for every 64-bit target):
    its 32-bit forms are right where it is built."""
    context = statement.context
    if not context.guards:
        return False
    if preproc.evaluate_guards(context.guards, {}, context.guard_macros) is False:
        return False  # `#if 0`: no build at all, 32-bit or not
    return all(
        preproc.evaluate_guards(context.guards, target, context.guard_macros) is False
        for target in (preproc.DEFAULT_TARGET, _WIN64)
    )
