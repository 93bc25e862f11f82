# ruff: noqa: E501  (C header text kept as written)
"""The prelude and header shims Tier 2 hands to libclang.

The ``libclang`` wheel ships the library without Clang's resource headers (``stddef.h``,
``stdarg.h``, ``limits.h``...) and without the CUDA wrapper headers that ``clang -x cuda`` normally
force-includes. We parse with ``-nocudainc`` and supply a small prelude that spells the CUDA
keywords as the attributes Clang understands, declares the builtin variables, and then includes
``cuda_runtime.h`` as nvcc does when the CUDA headers are on the include path. The shims are
written once into the cache folder (``-idirafter``), so the system's own headers win.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PRELUDE = r"""/* ptxlint Tier-2 prelude: what nvcc and clang's CUDA wrapper headers would provide */
#define __CUDACC__ 1
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__ __attribute__((grid_constant))
/* keep CUDA's own declarations of the builtin variables out: they clash with clang's view */
#define __DEVICE_LAUNCH_PARAMETERS_H__
struct __ptxlint_dim3 { unsigned int x, y, z; };
extern const __device__ __ptxlint_dim3 threadIdx, blockIdx, blockDim, gridDim;
static constexpr int warpSize = 32;
#if __has_include(<cuda_runtime.h>)
#include <cuda_runtime.h>
#endif
"""

SHIMS: dict[str, str] = {
    "stddef.h": r"""/* ptxlint shim: the libclang wheel ships no resource headers */
#if !defined(__need_size_t) && !defined(__need_ptrdiff_t) && !defined(__need_wchar_t) && !defined(__need_NULL) && !defined(__need_wint_t) && !defined(__need_max_align_t)
#define __need_size_t
#define __need_ptrdiff_t
#define __need_wchar_t
#define __need_NULL
#define __need_max_align_t
#define __PTXLINT_STDDEF_ALL
#endif
#if defined(__need_size_t) && !defined(__PTXLINT_SIZE_T)
#define __PTXLINT_SIZE_T
typedef __SIZE_TYPE__ size_t;
#endif
#undef __need_size_t
#if defined(__need_ptrdiff_t) && !defined(__PTXLINT_PTRDIFF_T)
#define __PTXLINT_PTRDIFF_T
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#endif
#undef __need_ptrdiff_t
#if defined(__need_wchar_t) && !defined(__cplusplus) && !defined(__PTXLINT_WCHAR_T)
#define __PTXLINT_WCHAR_T
typedef __WCHAR_TYPE__ wchar_t;
#endif
#undef __need_wchar_t
#if defined(__need_wint_t) && !defined(__PTXLINT_WINT_T)
#define __PTXLINT_WINT_T
typedef __WINT_TYPE__ wint_t;
#endif
#undef __need_wint_t
#if defined(__need_NULL)
#undef NULL
#ifdef __cplusplus
#define NULL __null
#else
#define NULL ((void*)0)
#endif
#endif
#undef __need_NULL
#if defined(__need_max_align_t) && !defined(__PTXLINT_MAX_ALIGN_T)
#define __PTXLINT_MAX_ALIGN_T
typedef struct { long long __a __attribute__((aligned(__alignof__(long long)))); long double __b __attribute__((aligned(__alignof__(long double)))); } max_align_t;
#endif
#undef __need_max_align_t
#if defined(__PTXLINT_STDDEF_ALL)
#undef __PTXLINT_STDDEF_ALL
#ifndef offsetof
#define offsetof(t, d) __builtin_offsetof(t, d)
#endif
#endif
""",
    "stdarg.h": r"""#ifndef __PTXLINT_STDARG_H
#define __PTXLINT_STDARG_H
typedef __builtin_va_list va_list;
#define va_start(ap, param) __builtin_va_start(ap, param)
#define va_end(ap) __builtin_va_end(ap)
#define va_arg(ap, type) __builtin_va_arg(ap, type)
#define va_copy(dest, src) __builtin_va_copy(dest, src)
#define __va_copy(d, s) __builtin_va_copy(d, s)
#endif
#if defined(__need___va_list) && !defined(__PTXLINT_GNUC_VA_LIST)
#define __PTXLINT_GNUC_VA_LIST
typedef __builtin_va_list __gnuc_va_list;
#endif
#undef __need___va_list
#ifndef __GNUC_VA_LIST
#define __GNUC_VA_LIST
typedef __builtin_va_list __gnuc_va_list;
#endif
""",
    "limits.h": r"""#ifndef __PTXLINT_LIMITS_H
#define __PTXLINT_LIMITS_H
#define CHAR_BIT __CHAR_BIT__
#define SCHAR_MAX __SCHAR_MAX__
#define SCHAR_MIN (-__SCHAR_MAX__-1)
#define UCHAR_MAX (__SCHAR_MAX__*2+1)
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MAX __SHRT_MAX__
#define SHRT_MIN (-__SHRT_MAX__-1)
#define USHRT_MAX (__SHRT_MAX__*2+1)
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__-1)
#define UINT_MAX (__INT_MAX__*2U+1U)
#define LONG_MAX __LONG_MAX__
#define LONG_MIN (-__LONG_MAX__-1L)
#define ULONG_MAX (__LONG_MAX__*2UL+1UL)
#define LLONG_MAX __LONG_LONG_MAX__
#define LLONG_MIN (-__LONG_LONG_MAX__-1LL)
#define ULLONG_MAX (__LONG_LONG_MAX__*2ULL+1ULL)
#define MB_LEN_MAX 16
#endif
""",
    "stdbool.h": r"""#ifndef __cplusplus
#define bool _Bool
#define true 1
#define false 0
#endif
#define __bool_true_false_are_defined 1
""",
    "float.h": r"""#ifndef __PTXLINT_FLOAT_H
#define __PTXLINT_FLOAT_H
#define FLT_RADIX __FLT_RADIX__
#define FLT_MANT_DIG __FLT_MANT_DIG__
#define DBL_MANT_DIG __DBL_MANT_DIG__
#define FLT_DIG __FLT_DIG__
#define DBL_DIG __DBL_DIG__
#define FLT_MIN __FLT_MIN__
#define DBL_MIN __DBL_MIN__
#define FLT_MAX __FLT_MAX__
#define DBL_MAX __DBL_MAX__
#define FLT_EPSILON __FLT_EPSILON__
#define DBL_EPSILON __DBL_EPSILON__
#define FLT_MIN_EXP __FLT_MIN_EXP__
#define DBL_MIN_EXP __DBL_MIN_EXP__
#define FLT_MAX_EXP __FLT_MAX_EXP__
#define DBL_MAX_EXP __DBL_MAX_EXP__
#define LDBL_MANT_DIG __LDBL_MANT_DIG__
#define LDBL_MAX __LDBL_MAX__
#define LDBL_MIN __LDBL_MIN__
#define LDBL_EPSILON __LDBL_EPSILON__
#define FLT_TRUE_MIN __FLT_DENORM_MIN__
#define DBL_TRUE_MIN __DBL_DENORM_MIN__
#endif
""",
}


def _digest() -> str:
    h = hashlib.sha256(PRELUDE.encode())
    for name in sorted(SHIMS):
        h.update(name.encode() + b"\0" + SHIMS[name].encode())
    return h.hexdigest()[:16]


PRELUDE_DIGEST = _digest()


def materialize(cache_root: Path) -> tuple[Path, Path]:
    """Write the prelude and shims under ``cache_root`` once; return (prelude file, shim folder)."""
    folder = cache_root / f"prelude-{PRELUDE_DIGEST}"
    prelude = folder / "ptxlint_prelude.h"
    shims = folder / "include"
    if not prelude.exists():
        shims.mkdir(parents=True, exist_ok=True)
        for name, text in SHIMS.items():
            _write(shims / name, text)
        _write(prelude, PRELUDE)  # last: its presence says the folder is complete
    return prelude, shims


def _write(path: Path, text: str) -> None:
    # write-then-rename so concurrent runs (CLI and LSP) never read half a file
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
