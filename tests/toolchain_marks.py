"""Skip markers for the tests of ``--verify``: the CUDA toolchain found the way ``--verify`` finds
it (its flags, ``CUDA_HOME``/``CUDA_PATH``, ``PATH``, the pip extra), where
``tests/toolchain_cache.py``'s markers look on ``PATH`` and under the CUDA home only."""

from __future__ import annotations

import shutil

import pytest

from ptxlint.verify import discover

toolchain = discover()

# nvcc compiles the host side too, so a host compiler is needed wherever nvcc runs
_HOST = shutil.which("g++") is not None

needs_cuda = pytest.mark.skipif(
    toolchain.ptxas is None or toolchain.nvcc is None or not _HOST,
    reason="needs nvcc, ptxas and a host compiler (CUDA Toolkit not found)",
)
needs_nvcc_host = pytest.mark.skipif(
    toolchain.nvcc is None or not _HOST,
    reason="needs nvcc and a host compiler (CUDA Toolkit not found)",
)
