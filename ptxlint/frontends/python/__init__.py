"""The Python front end: PTX in Triton, Pallas, helion, CuTe DSL and llvmlite calls, and the
CUDA C++ in CuPy and cuda.core strings, modelled as the same ``AsmStatement`` the C++ front end
builds (``syntax="llvm"`` for the LLVM-syntax APIs)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .apis import PREFILTER, mentions_api
    from .frontend import extract_python, parse_python

PYTHON_EXTENSIONS = (".py",)

__all__ = ["PREFILTER", "PYTHON_EXTENSIONS", "extract_python", "mentions_api", "parse_python"]

_HOMES = {
    "PREFILTER": "apis",
    "mentions_api": "apis",
    "extract_python": "frontend",
    "parse_python": "frontend",
}


def __getattr__(name: str) -> Any:
    # Loaded on first use: a run over C++ files never imports the Python grammar and tables.
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
