"""A Python call whose constraint string is built at run time (Triton-distributed's
``constraints=(f"={c.value},...,l")`` for multimem.ld_reduce) gets no PTX probe; the verdict says
the string is built at run time, where it said the constraint "comes from a macro", which a
Python file has none of."""

from __future__ import annotations

from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.verify import ptx_probe

SOURCE = '''\
import triton.language as tl
from triton.language import core


@core.extern
def ld_reduce(ptr, c: core.constexpr, _semantic=None):
    return tl.inline_asm_elementwise(
        asm="multimem.ld_reduce.global.add.v4.f32 {$0,$1,$2,$3}, [$4];",
        constraints=(f"={c.value},={c.value},={c.value},={c.value},l"),
        args=[ptr],
        dtype=[tl.float32, tl.float32, tl.float32, tl.float32],
        is_pure=False,
        pack=1,
        _semantic=_semantic,
    )
'''


def test_a_run_time_constraint_is_not_called_a_macro():
    [statement] = extract_statements(SourceFile("k.py", SOURCE)).statements
    assert statement.syntax == "llvm" and statement.operands[0].constraint.opaque
    try:
        ptx_probe.build([statement], "sm_90", "9.0")
    except ptx_probe.NotProbeable as exc:
        said = str(exc)
    else:
        raise AssertionError("a probe was built from an unknown constraint")
    assert said == "operand 0's constraint comes from a string built at run time"
