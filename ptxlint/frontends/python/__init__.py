"""The Python front end: PTX in Triton, Pallas, helion, CuTe DSL and llvmlite calls, and the
CUDA C++ in CuPy and cuda.core strings, modelled as the same ``AsmStatement`` the C++ front end
builds (``syntax="llvm"`` for the LLVM-syntax APIs)."""

from .apis import PREFILTER, mentions_api
from .frontend import extract_python, parse_python

PYTHON_EXTENSIONS = (".py",)

__all__ = ["PREFILTER", "PYTHON_EXTENSIONS", "extract_python", "mentions_api", "parse_python"]
