"""The ``#if`` that admits exactly the targets and toolkits a form needs.

From the grammar's :class:`~ptxlint.ptx.grammar.Need`:

* a plain minimum, ``__CUDA_ARCH__ >= 800``;
* an architecture feature (sm_90a, sm_100a): ``__CUDA_ARCH_SPECIFIC__`` equal to one of the sm_
  numbers the feature exists on (nvcc 13.0 defines it for ``sm_XXa`` targets only, next to
  ``__CUDA_ARCH_FEAT_SMXX_ALL``; ``-arch=sm_90a`` also emits compute_90 PTX, which the guard
  leaves out);
* a family feature (sm_100f), or an architecture feature the family target also has:
  ``__CUDA_ARCH_FAMILY_SPECIFIC__`` (defined for ``sm_XXf`` and ``sm_XXa``) equal to one of them;
* a form removed from some target on: ``__CUDA_ARCH__ < N``;
* the PTX ISA version the form needs, as the CUDA release whose nvcc writes it
  (``ptxlint.ptx.versions``): ``__CUDACC_VER_MAJOR__``/``__CUDACC_VER_MINOR__``.

These are the macros ``ptxlint.ptx.targets`` evaluates, so ``ptxlint check`` reads the guard
the way nvcc does.
"""

from __future__ import annotations

from ptxlint.ptx.grammar import Need
from ptxlint.ptx.targets import TARGETS, Target
from ptxlint.ptx.versions import cuda_for_ptx, format_cuda, format_ptx

__all__ = ["admitted", "condition", "described"]

# PTX ISA versions up to this one come with every toolkit ptxlint knows (CUDA 11.0 on): no
# version test for them.
_BASELINE_PTX = 70


def _equal_to(macro: str, sms: tuple[int, ...]) -> str:
    tests = " || ".join(f"{macro} == {sm * 10}" for sm in sms)
    return f"(defined({macro}) && ({tests}))" if len(sms) > 1 else \
        f"(defined({macro}) && {macro} == {sms[0] * 10})"


def condition(need: Need) -> str:
    """The preprocessor condition under which the statement may be compiled."""
    parts = ["defined(__CUDA_ARCH__)"]
    if need.suffix == "a":
        specific = [_equal_to("__CUDA_ARCH_SPECIFIC__", need.only)] if need.only else []
        family = [_equal_to("__CUDA_ARCH_FAMILY_SPECIFIC__", need.family)] if need.family else []
        either = specific + family
        parts.append(either[0] if len(either) == 1 else "(" + " || ".join(either) + ")")
    elif need.suffix == "f":
        parts.append(_equal_to("__CUDA_ARCH_FAMILY_SPECIFIC__", need.family or need.only))
    elif need.sm:
        parts.append(f"__CUDA_ARCH__ >= {need.sm * 10}")
    if need.removed:
        parts.append(f"__CUDA_ARCH__ < {need.removed * 10}")
    if need.ptx > _BASELINE_PTX:
        cuda = cuda_for_ptx(need.ptx)
        if cuda is not None:
            major, minor = cuda
            parts.append(f"(__CUDACC_VER_MAJOR__ > {major} || (__CUDACC_VER_MAJOR__ == {major}"
                         f" && __CUDACC_VER_MINOR__ >= {minor}))")
    return " && ".join(parts)


def admitted(need: Need) -> tuple[Target, ...]:
    """The targets (of those nvcc can be asked for) on which the guard admits the statement."""
    return tuple(t for t in TARGETS if need.admits(t.sm, t.suffix))


def described(need: Need) -> str:
    """The need in words, for the header of what ``ptxlint new`` writes: the target, and the
    PTX ISA version with the oldest toolkit that writes it where the guard tests one."""
    cuda = cuda_for_ptx(need.ptx) if need.ptx > _BASELINE_PTX else None
    if cuda is None:
        return need.target
    return f"{need.target}, PTX ISA {format_ptx(need.ptx)} (CUDA {format_cuda(cuda)})"
