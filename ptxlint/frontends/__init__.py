"""Front ends: each reads one kind of source and builds the shared :mod:`ptxlint.model`.

The C++ front end lives in :mod:`.cxx.extract` (asm statements of CUDA C++); the Python one
in :mod:`ptxlint.frontends.python` (Triton, CuTe DSL, llvmlite/Numba, CuPy, cuda.core).
"""
