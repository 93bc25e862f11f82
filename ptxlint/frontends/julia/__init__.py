"""The Julia front end: PTX in CUDA.jl's ``@asmcall``, in ``Base.llvmcall`` IR with an inline
asm call, and in PTX.jl's ``ptx"..."`` instruction wrappers, modelled as the same
``AsmStatement`` the other front ends build (``syntax="llvm"``, the dialect Triton uses)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .apis import PREFILTER, mentions_api
    from .frontend import extract_julia

JULIA_EXTENSIONS = (".jl",)

__all__ = ["JULIA_EXTENSIONS", "PREFILTER", "extract_julia", "mentions_api"]

_HOMES = {"PREFILTER": "apis", "mentions_api": "apis", "extract_julia": "frontend"}


def __getattr__(name: str) -> Any:
    # Loaded on first use: a run over C++ or Python files never imports the Julia grammar.
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
