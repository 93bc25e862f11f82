"""The Python APIs that carry PTX (or CUDA C++ holding PTX), and the byte prefilter.

``PREFILTER`` is the one list of byte strings a file must contain for the Python front end
to parse it; discovery and the runner may read it to skip files early.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ptxlint.value_class import value_class

# A .py file is parsed only if it contains one of these (a `bytes.find` per word).
PREFILTER: tuple[bytes, ...] = (
    b"inline_asm",  # inline_asm_elementwise (Triton, helion), Pallas, CuTe llvm.inline_asm
    b"inline_ptx",  # CuTe DSL cute.arch.inline_ptx, MLIR nvvm.inline_ptx
    b"InlineAsm",  # llvmlite ir.InlineAsm (Numba)
    b"RawKernel",
    b"RawModule",
    b"ElementwiseKernel",
    b"ReductionKernel",
    b"cuda.core",  # cuda.core Program
    b"load_inline",  # torch.utils.cpp_extension.load_inline(cuda_sources=...)
    b"SourceModule",  # PyCUDA
    b"func_native",  # Warp's @wp.func_native(snippet)
)


def mentions_api(data: bytes | str) -> bool:
    """The cheap test: could this Python source call one of the APIs at all?"""
    if isinstance(data, str):
        return any(word.decode() in data for word in PREFILTER)
    return any(word in data for word in PREFILTER)


_LLVM_CALL = re.compile(
    r"\b(?:inline_asm_elementwise|elementwise_inline_asm|inline_asm|inline_ptx|InlineAsm)\s*\("
)
_CXX_CALL = re.compile(
    r"\b(?:RawKernel|RawModule|ElementwiseKernel|ReductionKernel|Program|load_inline"
    r"|SourceModule|func_native)\s*\("
)
_CXX_ASM = re.compile(r"\b(?:asm|__asm__|__asm)\b")
# ``_LLVM_CALL`` without its leading ``\b`` (see ``bounded_matches``)
_LLVM_WORD = re.compile(
    r"(?:inline_asm_elementwise|elementwise_inline_asm|inline_asm|inline_ptx|InlineAsm)\s*\("
)


def bounded_matches(
    bounded: re.Pattern[str], words: re.Pattern[str], text: str
) -> Iterator[re.Match[str]]:
    r"""``bounded.finditer(text)``, for a pattern that begins with ``\b`` and ``words``, the same
    pattern without its boundaries: every match of ``bounded`` starts where ``words`` matches,
    and ``bounded.match(text, at)`` sees the character before ``at`` for its ``\b``, so trying it
    at each such place, left to right, and going on after a match's end as ``finditer`` does,
    finds exactly its matches. A pattern that begins with ``\b`` is tried at every character;
    one that begins with the words lets the engine skip to where one may begin."""
    at = 0
    while (word := words.search(text, at)) is not None:
        m = bounded.match(text, word.start())
        if m is not None:
            yield m
            at = m.end()
        else:
            at = word.start() + 1


def _llvm_call(text: str) -> bool:
    """``_LLVM_CALL.search(text) is not None`` (see ``bounded_matches``)."""
    return next(bounded_matches(_LLVM_CALL, _LLVM_WORD, text), None) is not None


def worth_parsing(text: str) -> bool:
    """The second, still parse-free test: a call of an LLVM-syntax API, or a call of a C++ one
    in a file that spells an ``asm`` keyword somewhere (CuPy code without asm has no PTX)."""
    if _llvm_call(text):
        return True
    return _CXX_CALL.search(text) is not None and _CXX_ASM.search(text) is not None


@value_class(slots=False)
class Api:
    """One callable: its family, parameter names in positional order, and their roles."""

    # "triton" | "helion" | "pallas" | "torch" | "cute" | "cute-ptx" | "llvmlite" | "cupy" |
    # "cuda.core" | "torch-ext" | "pycuda" | "warp"
    key: str
    function: str  # the last name of the callee
    params: tuple[str, ...]  # positional order
    # role -> parameter name: asm, constraints, args, dtype, side_effects, pack, code...
    # (a C++ API's code roles are ``CODE_ROLES``)
    roles: tuple[tuple[str, str], ...]
    syntax: str = "llvm"  # "llvm" | "cxx" (the string is CUDA C++)
    varargs: bool = False  # positional arguments are the inputs (`*inputs`)
    defaults: tuple[tuple[str, object], ...] = ()  # parameter -> default, where it matters

    def param(self, role: str) -> str | None:
        return dict(self.roles).get(role)


TRITON_PARAMS = ("asm", "constraints", "args", "dtype", "is_pure", "pack")
_TRITON_ROLES = (
    ("asm", "asm"),
    ("constraints", "constraints"),
    ("args", "args"),
    ("dtype", "dtype"),
    ("pure", "is_pure"),
    ("pack", "pack"),
)

TRITON = Api("triton", "inline_asm_elementwise", TRITON_PARAMS, _TRITON_ROLES)
HELION = Api("helion", "inline_asm_elementwise", TRITON_PARAMS, _TRITON_ROLES)
PALLAS = Api(
    "pallas",
    "elementwise_inline_asm",
    ("asm", "args", "constraints", "pack", "result_shape_dtypes"),
    (
        ("asm", "asm"),
        ("constraints", "constraints"),
        ("args", "args"),
        ("pack", "pack"),
        ("dtype", "result_shape_dtypes"),
    ),
)
# PyTorch's higher-order op (lowered to Triton's call): `inline_asm_elementwise(*inputs,
# asm_str=..., constraints=..., dtype=..., is_pure=True, pack=1)`.
TORCH = Api(
    "torch",
    "inline_asm_elementwise",
    (),
    (
        ("asm", "asm_str"),
        ("constraints", "constraints"),
        ("args", "*inputs"),
        ("dtype", "dtype"),
        ("pure", "is_pure"),
        ("pack", "pack"),
    ),
    varargs=True,
    defaults=(("is_pure", True), ("pack", 1)),
)
CUTE = Api(
    "cute",
    "inline_asm",
    (
        "res",
        "operands_",
        "asm_string",
        "constraints",
        "has_side_effects",
        "is_align_stack",
        "asm_dialect",
        "operand_attrs",
    ),
    (
        ("asm", "asm_string"),
        ("constraints", "constraints"),
        ("args", "operands_"),
        ("dtype", "res"),
        ("side_effects", "has_side_effects"),
        ("dialect", "asm_dialect"),
    ),
)
# CuTe DSL's `cute.arch.inline_ptx(ptx_code, *, write_only_types=, read_only_args=,
# read_write_args=, predicate=)`: operands named by `{$wN}`/`{$rN}`/`{$rwN}` placeholders,
# constraints chosen by the NVVM lowering (`nvvm.inline_ptx`), never written by the user.
CUTE_PTX = Api(
    "cute-ptx",
    "inline_ptx",
    ("ptx_code",),
    (
        ("asm", "ptx_code"),
        ("w", "write_only_types"),
        ("r", "read_only_args"),
        ("rw", "read_write_args"),
        ("predicate", "predicate"),
    ),
)
# The MLIR op's generated builder, `nvvm.inline_ptx(write_only_args, read_only_args,
# read_write_args, ptx_code, *, predicate=)`: the same lowering, result types in place of
# CuTe's Numeric classes.
NVVM_PTX = Api(
    "cute-ptx",
    "inline_ptx",
    ("write_only_args", "read_only_args", "read_write_args", "ptx_code"),
    (
        ("asm", "ptx_code"),
        ("w", "write_only_args"),
        ("r", "read_only_args"),
        ("rw", "read_write_args"),
        ("predicate", "predicate"),
    ),
)
LLVMLITE = Api(
    "llvmlite",
    "InlineAsm",
    ("ftype", "asm", "constraint", "side_effect"),
    (("asm", "asm"), ("constraints", "constraint"), ("side_effects", "side_effect")),
)
CUPY_RAW = Api(
    "cupy", "RawKernel", ("code", "name", "options", "backend"), (("code", "code"),), "cxx"
)
CUPY_MODULE = Api("cupy", "RawModule", ("code",), (("code", "code"),), "cxx")
CUPY_ELEMENTWISE = Api(
    "cupy",
    "ElementwiseKernel",
    ("in_params", "out_params", "operation", "name", "reduce_dims", "preamble"),
    (("code", "operation"), ("preamble", "preamble")),
    "cxx",
)
CUPY_REDUCTION = Api(
    "cupy",
    "ReductionKernel",
    (
        "in_params",
        "out_params",
        "map_expr",
        "reduce_expr",
        "post_map_expr",
        "identity",
        "name",
        "reduce_type",
        "reduce_dims",
        "preamble",
    ),
    (("code", "map_expr"), ("preamble", "preamble")),
    "cxx",
)
CUDA_CORE = Api(
    "cuda.core", "Program", ("code", "code_type", "options"), (("code", "code"),), "cxx"
)

# PyTorch's JIT extension: `cuda_sources` (a string or a list of them) is nvcc's; `cpp_sources`
# goes to the host compiler, whose asm is the host's.
TORCH_EXTENSION = Api(
    "torch-ext",
    "load_inline",
    ("name", "cpp_sources", "cuda_sources"),
    (("code", "cuda_sources"),),
    "cxx",
)
PYCUDA = Api(
    "pycuda", "SourceModule", ("source", "nvcc", "options"), (("code", "source"),), "cxx"
)
# Warp's native function: each snippet is the body of a device function Warp generates around
# it (the forward pass, its adjoint, and the forward replayed in the backward pass).
WARP_NATIVE = Api(
    "warp",
    "func_native",
    ("snippet", "adj_snippet", "replay_snippet"),
    (("code", "snippet"), ("adjoint_code", "adj_snippet"), ("replay_code", "replay_snippet")),
    "cxx",
)
# The roles of a C++ API whose argument is CUDA C++ to lint.
CODE_ROLES = ("code", "preamble", "adjoint_code", "replay_code")


def classify(origin: str, head_imported: bool, llvmlite_imported: bool) -> Api | None:
    """Which API a callee is, from its dotted origin (imports applied to its first name).

    ``origin`` is e.g. ``triton.language.inline_asm_elementwise`` for ``tl.inline_asm_...``
    after ``import triton.language as tl``; ``head_imported`` says whether its first name came
    from an import (a parameter or local called ``tl`` still counts, by convention).
    """
    parts = origin.split(".")
    last = parts[-1]
    head = parts[0] if len(parts) > 1 else ""
    lowered = origin.lower()
    if last == "inline_asm_elementwise":
        if "_higher_order_ops" in lowered:
            return TORCH  # PyTorch's HOP: inputs as *args, then keywords
        if "torch" in lowered or head in ("ops", "V", "self"):
            return None  # Inductor's internal ops: code generators, not calls with PTX
        if len(parts) == 1 and not head_imported:
            return None  # a local function of that name (Triton's own definition)
        return HELION if lowered.startswith("helion") or head == "hl" else TRITON
    if last == "elementwise_inline_asm":
        if "dialect" in lowered or head in ("tt", "tt_dialect"):
            return None  # the MLIR builder that Pallas' lowering calls, not the user API
        return PALLAS
    if last == "inline_asm":
        if len(parts) >= 2 and (
            parts[-2] == "llvm" or lowered.endswith("dialects.llvm.inline_asm")
        ):
            return CUTE
        return None
    if last == "inline_ptx":
        if len(parts) >= 2 and parts[-2] == "nvvm":
            return NVVM_PTX
        if "cute" in lowered or "cutlass" in lowered or (len(parts) >= 2 and parts[-2] == "arch"):
            return CUTE_PTX
        return None
    if last == "InlineAsm":
        if "llvmlite" in lowered or (llvmlite_imported and head in ("ir", "lir", "llvmir", "lc")):
            return LLVMLITE
        return None
    if last in ("RawKernel", "RawModule", "ElementwiseKernel", "ReductionKernel"):
        if lowered.startswith("cupy") or head in ("cp", "cupy", "cupyx"):
            return {
                "RawKernel": CUPY_RAW,
                "RawModule": CUPY_MODULE,
                "ElementwiseKernel": CUPY_ELEMENTWISE,
                "ReductionKernel": CUPY_REDUCTION,
            }[last]
        return None
    if last == "Program" and "cuda.core" in lowered:
        return CUDA_CORE
    if last == "load_inline" and "cpp_extension" in lowered:
        return TORCH_EXTENSION
    if last == "SourceModule" and "pycuda" in lowered:
        return PYCUDA
    if last == "func_native" and (lowered.startswith("warp") or head == "wp"):
        return WARP_NATIVE
    return None
