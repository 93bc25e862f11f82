"""PTX010 in Triton: an "n" operand takes a compile-time constant (a literal, a tl.constexpr,
an expression of those) and not a tensor. The analysis tells them apart
(ptxlint.analysis.placement.argument_kind); Triton itself is the judge where it is installed:
it compiles the constants (no GPU needed), and for the tensor LLVM reports the constraint and
the asm's instruction is gone from the PTX."""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import lint_text

KERNELS = '''
import triton
import triton.language as tl


@triton.jit
def const_kernel(X, Y, SHIFT: tl.constexpr):
    MASK: tl.constexpr = 0x000F000F
    x = tl.load(X + tl.arange(0, 128))
    y = tl.inline_asm_elementwise("lop3.b32 $0, $1, $2, $3, 0xEA; shl.b32 $0, $0, $4;",
                                  "=r,r,n,n,n", [x, MASK, MASK + 1, SHIFT],
                                  dtype=tl.int32, is_pure=True, pack=1)
    tl.store(Y + tl.arange(0, 128), y)


@triton.jit
def tensor_kernel(X, Y, S):
    x = tl.load(X + tl.arange(0, 128))
    s = tl.load(S + tl.arange(0, 128))
    y = tl.inline_asm_elementwise("shl.b32 $0, $1, $2;", "=r,r,n", [x, s],
                                  dtype=tl.int32, is_pure=True, pack=1)
    tl.store(Y + tl.arange(0, 128), y)
'''


def test_constexpr_immediates_are_silent_and_a_loaded_tensor_is_flagged() -> None:
    found = lint_text(KERNELS, path="k.py", select=("PTX010",))
    lines = [KERNELS[: f.span.start].count("\n") + 1 for f in found]
    assert lines == [KERNELS.splitlines().index('    y = tl.inline_asm_elementwise("shl.b32 $0, '
                                               '$1, $2;", "=r,r,n", [x, s],') + 1]
    assert "(s)" in found[0].message


@pytest.mark.parametrize("kernel, argument, kind", [
    (0, "3", "constant"), (0, "MASK", "constant"), (0, "MASK + 1", "constant"),
    (0, "SHIFT", "constant"), (1, "s", "runtime"), (0, "X", "runtime"),
    (0, "x + MASK", "runtime"), (0, "unknown_global", ""),
])
def test_argument_kind_follows_constexpr_and_tensors(kernel: int, argument: str, kind: str) -> None:
    from ptxlint.analysis.placement import argument_kind
    from ptxlint.engine import extract_statements
    from ptxlint.model import SourceFile

    statements = extract_statements(SourceFile("k.py", KERNELS)).statements
    assert argument_kind(statements[kernel], argument) == kind


@pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="Triton not installed")
def test_triton_compiles_the_constants_and_llvm_rejects_the_tensor(tmp_path) -> None:
    import importlib

    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    module_path = tmp_path / "kernels.py"
    module_path.write_text(KERNELS)
    spec = importlib.util.spec_from_file_location("kernels", module_path)
    assert spec is not None and spec.loader is not None
    kernels = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kernels)
    target = GPUTarget("cuda", 90, 32)
    ptx = triton.compile(ASTSource(kernels.const_kernel, {"X": "*i32", "Y": "*i32",
                                                          "SHIFT": "constexpr"}, {"SHIFT": 3}),
                         target=target).asm["ptx"]
    assert "983055, 983056" in ptx  # MASK and MASK + 1 spliced as immediates
    # LLVM reports "constraint 'n' expects an integer constant expression" on stderr; Triton
    # 3.9 then goes on and emits the asm empty: the shift is gone from the PTX
    try:
        ptx = triton.compile(ASTSource(kernels.tensor_kernel,
                                       {"X": "*i32", "Y": "*i32", "S": "*i32"}, {}),
                             target=target).asm["ptx"]
    except Exception as exc:  # an older Triton stops here instead
        assert "constant" in str(exc)
    else:
        assert "shl.b32" not in ptx
