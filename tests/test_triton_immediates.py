"""PTX010 in Triton: an "n" operand takes a compile-time constant (a literal, a tl.constexpr,
an expression of those) and not a tensor. The analysis tells them apart
(ptxlint.analysis.placement.argument_kind); Triton itself is the judge where it is installed:
it compiles the constants (no GPU needed), and for the tensor LLVM reports the constraint and
the asm's instruction is gone from the PTX."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

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
    module_path = tmp_path / "kernels.py"
    module_path.write_text(KERNELS)
    # in a child, as ptxlint's own Triton probes run: on the tensor's "n" constraint LLVM
    # reports "constraint 'n' expects an integer constant expression", and some Triton
    # versions then abort the interpreter (3.6), others go on and emit the asm empty (3.9)
    script = tmp_path / "compile.py"
    script.write_text(f"""
import importlib.util, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
spec = importlib.util.spec_from_file_location("kernels", {str(module_path)!r})
kernels = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kernels)
target = GPUTarget("cuda", 90, 32)
if sys.argv[1] == "const":
    signature, constants = {{"X": "*i32", "Y": "*i32", "SHIFT": "constexpr"}}, {{"SHIFT": 3}}
    kernel = kernels.const_kernel
else:
    signature, constants = {{"X": "*i32", "Y": "*i32", "S": "*i32"}}, {{}}
    kernel = kernels.tensor_kernel
print(triton.compile(ASTSource(kernel, signature, constants), target=target).asm["ptx"])
""")

    def compiled(which: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(script), which], capture_output=True,
                              text=True, timeout=300)

    const = compiled("const")
    assert const.returncode == 0, const.stderr[-2000:]
    assert "983055, 983056" in const.stdout  # MASK and MASK + 1 spliced as immediates
    tensor = compiled("tensor")
    if tensor.returncode != 0:  # an abort, or an older Triton's exception
        assert "constant" in tensor.stderr, tensor.stderr[-2000:]
    else:
        assert "shl.b32" not in tensor.stdout  # the asm emitted empty: the shift is gone
