"""The Julia calls that carry PTX, and the byte prefilter.

``PREFILTER`` is the list of byte strings a ``.jl`` file must contain for the Julia front end
to parse it (discovery and the runner read it to skip files early, as for Python).
"""

from __future__ import annotations

PREFILTER: tuple[bytes, ...] = (
    b"@asmcall",  # LLVM.jl / CUDA.jl
    b"llvmcall",  # Base.llvmcall with an inline asm call in its IR
    b'ptx"',  # PTX.jl's instruction wrappers
)


def mentions_api(data: bytes | str) -> bool:
    """The cheap test: could this Julia source call one of the APIs at all?"""
    if isinstance(data, str):
        return any(word.decode() in data for word in PREFILTER)
    return any(word in data for word in PREFILTER)
