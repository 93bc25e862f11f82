"""The element type of a Triton argument comes from the binding that reaches the call, and only
when one binding surely does: a loop's or comprehension's target, or a binding later in a loop
(the next iteration reads it; Triton unrolls ``tl.static_range``, so the type may change), is
another binding of the name at the call, and the type is then unknown, never the one of an
earlier ``x = tl.full(..., tl.float32)`` or a module-level ``x = 1.0``. (These are Python's
scoping rules; Triton 3.6.0 itself iterates only ranges, and rejects ``for x in (a, b)`` over
tensors: "'Tuple' object has no attribute 'func'".)"""

from __future__ import annotations

from tests.conftest import lint_text

HEAD = """import triton
import triton.language as tl

x = 1.0


@triton.jit
def kernel(a_ptr, b_ptr, y_ptr):
    offs = tl.arange(0, 1024)
    a = tl.load(a_ptr + offs).to(tl.bfloat16)
    b = tl.load(b_ptr + offs).to(tl.bfloat16)
"""
# a 16-bit register per bf16 element at pack=1: right for bf16, wrong for float32
ASM = 'tl.inline_asm_elementwise("mov.b16 $0, $1;", "=h,h", [x], dtype=tl.bfloat16, ' \
      "is_pure=True, pack=1)"


def _ptx004(body: str) -> list[str]:
    text = HEAD + body.replace("ASM", ASM)
    return [f.message for f in lint_text(text, "kernel.py", select=("PTX004",))]


def test_a_loop_target_is_not_an_earlier_binding() -> None:
    # the finding was "input $1 holds float32 (32 bits)" about the bf16 loop variable
    assert _ptx004("""    x = tl.full([1024], 1.0, tl.float32)
    tl.store(y_ptr + offs, x)
    for x in (a, b):
        y = ASM
        tl.store(y_ptr + offs, y)
""") == []


def test_a_loop_target_is_not_a_module_constant() -> None:
    # valid Triton: x is the loop's int, not the module's float
    assert _ptx004("""    for x in tl.static_range(2):
        tl.store(y_ptr + offs, ASM)
""") == []


def test_a_binding_later_in_the_loop_reaches_the_next_iteration() -> None:
    assert _ptx004("""    x = tl.full([1024], 1.0, tl.float32)
    for i in tl.static_range(2):
        y = ASM
        x = a
    tl.store(y_ptr + offs, y)
""") == []
    assert _ptx004("""    x = tl.full([1024], 1.0, tl.float32)
    while x is not None:
        y = ASM
        x = a
    tl.store(y_ptr + offs, y)
""") == []


def test_a_comprehension_target_is_not_an_outer_binding() -> None:
    assert _ptx004("""    x = tl.full([1024], 1.0, tl.float32)
    ys = [ASM for x in (a, b)]
    tl.store(y_ptr + offs, ys[0])
""") == []


def test_a_binding_that_surely_reaches_still_gives_the_type() -> None:
    # bound before the loop and never again in it; bound in the loop before the call
    for body in ("""    x = tl.full([1024], 1.0, tl.float32)
    for i in tl.static_range(2):
        tl.store(y_ptr + offs, ASM)
""", """    for i in tl.static_range(2):
        x = tl.load(a_ptr + offs).to(tl.float32)
        tl.store(y_ptr + offs, ASM)
"""):
        found = _ptx004(body)
        assert len(found) == 1 and "holds float32 (32 bits)" in found[0], body
