"""Whether an instruction verdict that names a newer ptxas is an error for the run's toolkit.

A grammar form new in a later toolkit (``toolkit=13.1``) makes :func:`ptxlint.ptx.grammar.check`
report what the older toolkits' ptxas says, with that toolkit on the issue; the rules ask
:func:`toolkit_accepts` whether the toolkit the verdicts are for (``cuda-version``) is one of
the newer ones, or whether the statement's ``#if`` guards may keep it out.
"""

from __future__ import annotations

from ptxlint.ptx.grammar import Issue
from ptxlint.ptx.targets import toolkit_compiles
from ptxlint.ptx.versions import DEFAULT_CUDA_VERSION, ptx_for_cuda

__all__ = ["toolkit_accepts"]


def toolkit_accepts(issue: Issue, cuda_version: object, guards: tuple[str, ...] = ()) -> bool:
    """Whether what ``issue`` reports is no error for the toolkit ``cuda_version``
    (``(major, minor)``, a rule option; 13.0 when absent): its ptxas is one of the newer ones
    the issue names, or the statement's ``guards`` may keep that toolkit out (CUTLASS's
    ``CUTE_ARCH_MXF4NVF4_4X_UE8M0_MMA_ENABLED``, set from CUDA 13.1 on): then say nothing."""
    if issue.toolkit is None:
        return False
    version = cuda_version if isinstance(cuda_version, tuple) else DEFAULT_CUDA_VERSION
    if version >= issue.toolkit:
        return True
    ptx = ptx_for_cuda(version)
    return bool(guards) and ptx is not None and not toolkit_compiles(guards, version, ptx)
