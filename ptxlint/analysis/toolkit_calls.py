"""Calls of the CUDA toolkit that take no asynchronous-protocol step.

Between two protocol steps of a function (a copy and its wait, a wgmma and its wait), a call of
a function ptxlint cannot read might take the step the rules look for, and the rules stay
silent around it (:meth:`ptxlint.analysis.function_flow.FunctionFlow.opaque_between`). The
functions of the toolkit's own headers are never read (they are not the project's), so each
use of a conversion intrinsic, a math function or a cooperative-groups accessor would silence
them. These are the ones known to take none of the steps of :mod:`ptxlint.ptx.protocols`:

* :data:`HARMLESS_CALLS`: built-ins that are harmless whatever the project defines;
* :func:`toolkit_harmless`: names of the toolkit's conversion and arithmetic intrinsics
  (``__float22bfloat162_rn``, ``__hmul2``, ``__umulhi``...) and address-space conversions
  (``__cvta_generic_to_global``), the constructors of its half, bfloat16 and narrow float
  types (``__nv_bfloat162``, ``__nv_fp8_e4m3``), the C math library (``log1pf``,
  ``exp2``...), vector makers, cooperative-groups accessors (``this_cluster``, a cluster's
  ``map_shared_rank``, which maps an address: ``mapa``) and the device runtime's programmatic
  dependent launch controls (``cudaGridDependencySynchronize``,
  ``cudaTriggerProgrammaticLaunchCompletion``: ``griddepcontrol.wait`` waits for the
  prerequisite grids, ``.launch_dependents`` lets the dependents be scheduled, PTX ISA
  "griddepcontrol"; neither is a step of this grid's protocols), the device heap and memory
  operations of the CUDA C++ Programming Guide's "Dynamic Global Memory Allocation and
  Operations" (``malloc``, ``free``, ``memcpy``, ``memset``: ordinary loads and stores, no
  asynchronous copy, barrier, fence or wgmma), the warp matrix functions
  (``wmma::load_matrix_sync``, ``mma_sync``...: synchronous loads, stores and mma of
  fragments), consulted only for a name
  the project does not define (a project function of the same name is read instead). A
  group's ``sync()`` is a barrier (``bar.sync``), no step, except on a cluster group, whose
  ``sync()`` is ``barrier.cluster.arrive`` (a release at cluster scope): it is harmless only
  where that step is not asked about.

Not among them, because they do take steps: ``cuda::pipeline`` (``producer_commit``,
``consumer_wait``), ``cuda::memcpy_async``, ``__pipeline_commit``/``__pipeline_wait_prior``
(whose steps :mod:`.library_helpers` states), cooperative groups' ``wait``/``wait_prior``
(``cp.async`` commits and waits), ``cuda::barrier`` and ``cuda::ptx`` wrappers.

:func:`toolkit_read` says where such a call reads the memory a pointer argument points to
(:data:`MEMORY_READERS`): a read of a ``cp.async``'s destination, as ``tile[i]`` is.
"""

from __future__ import annotations

import tree_sitter

from ptxlint.analysis.flow_syntax import argument_of, callee_name
from ptxlint.analysis.value_syntax import offsets_itself
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.lazy_regex import on_first_use

__all__ = ["HARMLESS_CALLS", "MEMORY_READERS", "toolkit_harmless", "toolkit_read"]

HARMLESS_CALLS = frozenset(
    "__syncthreads __syncwarp __threadfence __threadfence_block __cvta_generic_to_shared "
    "__shfl_sync __shfl_xor_sync __shfl_up_sync __shfl_down_sync __ballot_sync __any_sync "
    "__all_sync __activemask __ldg __float2half __half2float __float2bfloat16 "
    "__bfloat162float __fdividef __expf __logf __saturatef __fmul_rn __fadd_rn __fmaf_rn "
    "min max fminf fmaxf fabsf expf exp2f logf sqrtf rsqrtf __frcp_rn make_float2 make_float4 "
    "make_int2 make_int4 make_uint2 make_uint4 printf assert static_assert static_cast "
    "reinterpret_cast const_cast dynamic_cast bit_cast __nanosleep clock64 clock "
    "__brev __popc __ffs __clz atomicAdd atomicExch atomicCAS atomicMax atomicMin".split())

# CUDA Math API intrinsics (conversions, half/bfloat16 arithmetic, integer intrinsics, the
# read-only and cache-hinted loads): no asynchronous copy, barrier, fence or wgmma among them
_INTRINSIC = on_first_use(
    r"__(?:float|half|bfloat|double|int|uint|ll|ull|short|ushort|h|f|d|u?mul|u?sad|byte_perm|"
    r"funnelshift|popc|clz|ffs|brev|fns|dp[24]a|v|low|high|lows|highs|halves|nv_cvt|ld[gc]|"
    r"st[wc]|isnan|isinf|finite|signbit|exp|log|pow|sin|cos|tan|sqrt|rsqrt|saturate|rhadd|"
    r"hadd|uhadd|urhadd|m[ai][nx]|cvta|nv_(?:half|bfloat16|fp8|fp6|fp4))\w*")
# the C math library, single and double precision (std:: or not)
_MATH = on_first_use(
    r"(?:exp|exp2|exp10|expm1|log|log2|log10|log1p|pow|sqrt|rsqrt|cbrt|rcbrt|sin|cos|tan|"
    r"sinh|cosh|tanh|asin|acos|atan|atan2|asinh|acosh|atanh|erf|erfc|erfinv|erfcinv|fabs|"
    r"fmin|fmax|floor|ceil|round|rint|lrint|llrint|lround|llround|trunc|fma|fmod|remainder|"
    r"abs|labs|llabs|copysign|isnan|isinf|isfinite|signbit|ldexp|frexp|modf|hypot|nearbyint|"
    r"sincos|sincospi|sinpi|cospi|normcdf|normcdfinv|lgamma|tgamma|fdim|nextafter|scalbn)f?")
_MAKERS = on_first_use(r"make_(?:u?char|u?short|u?int|u?long|u?longlong|float|double|half|"
                     r"bfloat16)[1-4]?|dim3")
# cooperative groups' accessors: a group's rank, size and index (no synchronisation)
_GROUPS = frozenset(
    "this_thread_block this_grid this_thread tiled_partition thread_rank meta_group_rank "
    "meta_group_size num_threads size group_index thread_index dim_threads group_dim "
    "block_index block_rank num_blocks dim_blocks coalesced_threads this_cluster "
    "map_shared_rank".split())
# the device runtime's programmatic dependent launch controls (griddepcontrol)
_LAUNCH_CONTROLS = frozenset(
    ("cudaGridDependencySynchronize", "cudaTriggerProgrammaticLaunchCompletion"))


# the device heap and its memory operations (CUDA C++ Programming Guide, "Dynamic Global
# Memory Allocation and Operations"), and the warp matrix functions ("Warp Matrix Functions":
# loads, stores and mma of fragments, wmma.load/store/mma, which are no asynchronous steps)
_MEMORY_OPERATIONS = frozenset(("malloc", "free", "memcpy", "memset", "memcmp",
                                "load_matrix_sync", "store_matrix_sync", "mma_sync",
                                "fill_fragment"))


def toolkit_harmless(name: str, release_asked: bool) -> bool:
    """A call of ``name``, which the project does not define, is a toolkit function that takes
    no protocol step; ``release_asked``: a release at cluster scope is among the steps asked
    about (a cluster group's ``sync()`` is one)."""
    if name in HARMLESS_CALLS or name in _GROUPS or name in _LAUNCH_CONTROLS or \
            name in _MEMORY_OPERATIONS:
        return True
    if name == "sync":
        return not release_asked
    return any(pattern().fullmatch(name) for pattern in (_INTRINSIC, _MATH, _MAKERS))


# Toolkit functions that read the memory a pointer argument points to, by the argument's index:
# a read of a cp.async's destination as much as ``tile[i]`` is (CUDA C++ Programming Guide,
# "Warp Matrix Functions": ``load_matrix_sync(a, mptr, ldm)`` loads the fragment from
# ``mptr``; the C library's ``memcpy(dst, src, n)`` reads ``src``)
MEMORY_READERS = {"load_matrix_sync": 1, "memcpy": 1, "memcmp": 0}


def toolkit_read(parsed: ParsedSource, identifier: tree_sitter.Node) -> bool:
    """``identifier`` (a pointer or an array, or an element's address) is passed, itself or
    plus an offset, where a function of :data:`MEMORY_READERS` reads what it points to."""
    found = argument_of(parsed, identifier)
    if found is None:
        return False
    call, index, argument = found
    return MEMORY_READERS.get(callee_name(parsed, call) or "") == index and offsets_itself(
        parsed, argument, parsed.node_text(identifier))
