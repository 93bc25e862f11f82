"""A template that writes one of the registers the compiler declares in the function it is
inlined into (nvcc's ``.reg .b32 %r<N>``, ``.b64 %rd<N>``, ``.f32 %f<N>``, ``.pred %p<N>``...)
without declaring it in its own braces overwrites a value the compiler keeps there: PTX213,
an error. Reading such a register, declaring it inside the braces, and the special registers
stay silent. nvcc's own PTX shows the write landing on a live value where it is installed."""

from __future__ import annotations

import re

import pytest

from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, run_cached


def _ptx213(body: str, operands: str = "") -> list[str]:
    source = (f"__device__ int f(int a) {{ int y = a; asm volatile(\"{body}\"{operands}); "
              f"return y; }}\n")
    return [f.message for f in lint_text(source, select=("PTX213",))]


@pytest.mark.parametrize(("body", "operands", "name"), [
    ("mov.u32 %%r1, 5; mov.u32 %0, %%r1;", ' : "=r"(y)', "'%%r1'"),  # extended asm's spelling
    ("mov.u64 %rd1, 0;", "", "'%rd1'"),
    ("mov.f32 %f1, 0f00000000;", "", "'%f1'"),
    ("setp.eq.u32 %p1, 0, 0;", "", "'%p1'"),
    ("{ .reg .b32 %r1; } mov.u32 %r1, 5;", "", "'%r1'"),  # its braces are closed by then
])
def test_a_write_of_a_compiler_register_is_reported(body: str, operands: str, name: str
                                                    ) -> None:
    [message] = _ptx213(body, operands)
    assert message.startswith(f"{name} is written") and "compiler" in message


@pytest.mark.parametrize("body", ["add.cc.u32 %r0, 0xFFFFFFFF, 1;", "setp.eq.u32 %p0, 0, 0;"])
def test_number_0_is_a_warning(body: str) -> None:
    """nvcc names its registers from 1: %r0 holds none of its values, and exists only where
    the function declares a .b32 register at all (a function without: "Unknown symbol")."""
    source = f'__device__ void f() {{ asm("{body}"); }}\n'
    [finding] = lint_text(source, select=("PTX213",))
    assert finding.severity.value == "warning" and "from 1" in finding.message


def test_one_finding_per_register() -> None:
    [message] = _ptx213("mov.u32 %r1, 5; add.u32 %r1, %r1, 1;")
    assert "(and 1 more write)" in message


@pytest.mark.parametrize(("body", "operands"), [
    ("{ .reg .b32 %r1; mov.u32 %r1, 5; }", ""),  # its own, in its braces
    ("{ .reg .b32 %r<4>; mov.u32 %r3, 5; }", ""),
    ("{ .reg .b32 %%r1; mov.u32 %%r1, 5; mov.u32 %0, %%r1; }", ' : "=r"(y)'),
    ("mov.u32 %0, %%r1;", ' : "=r"(y)'),  # a read: ptxas takes it (what it holds is another
    ("st.global.u32 [%rd1], %r1;", ""),   # question), not this one's
    ("mov.u32 %%r1, 5;", ""),  # basic asm: reaches ptxas as '%%r1' (PTX008's)
    ("mov.u32 %r1, %1;", ' : "=r"(y) : "r"(a)'),  # with operands: an operand reference
    ("mov.u32 %0, %%clock;", ' : "=r"(y)'),
    ("mov.u32 %0, %%tid.x;", ' : "=r"(y)'),
])
def test_declared_or_read_is_silent(body: str, operands: str) -> None:
    assert _ptx213(body, operands) == []


def test_a_scope_another_statement_of_the_function_opens_declares_it() -> None:
    source = ('__device__ void f() { asm volatile("{ .reg .b32 %r1;");\n'
              '  asm volatile("mov.u32 %r1, 5;");\n  asm volatile("}"); }\n')
    assert lint_text(source, select=("PTX213",)) == []


_KERNEL = """\
__global__ void k(int *out, int a, int b) {
  int x = a * 3 + b;
  asm volatile("add.u32 %r3, %r3, 7;");
  out[0] = x;
}
"""


@pytest.mark.skipif(NVCC is None, reason="nvcc (CUDA toolkit) not found")
def test_nvcc_keeps_a_live_value_in_the_register_written() -> None:
    """nvcc 13.0 computes x into %r3, the asm adds 7 to it, and the store writes the sum."""
    run = run_cached(NVCC, ["-arch=sm_90", "-ptx", INPUT, "-o", OUTPUT], _KERNEL,
                     filename="k.cu", read_output=True)
    assert run.ok, run.stderr
    ptx = run.output
    assert re.search(r"\.reg \.b32\s+%r<\d+>;", ptx)
    assert re.search(r"mad\.lo\.s32\s+%r3,", ptx)  # x
    after = ptx[ptx.index("add.u32 %r3, %r3, 7;"):]
    assert re.search(r"st\.global\.u32\s+\[%rd\d+\], %r3;", after)
    [finding] = lint_text(_KERNEL, select=("PTX213",))
    assert finding.message.startswith("'%r3' is written")
    assert finding.severity.value == "error"


_NO_PREDICATES = """\
__global__ void k(int *out, int a) {
  asm volatile("setp.eq.u32 %p0, 0, 0;");
  out[0] = a;
}
"""


@pytest.mark.skipif(NVCC is None, reason="nvcc (CUDA toolkit) not found")
def test_number_0_is_unknown_where_the_function_has_none_of_that_type() -> None:
    run = run_cached(NVCC, ["-arch=sm_90", "-c", INPUT, "-o", OUTPUT], _NO_PREDICATES,
                     filename="k.cu")
    assert not run.ok and "Unknown symbol '%p0'" in run.stderr


def test_the_advice_for_an_unknown_name_fits_a_template_without_braces() -> None:
    # `fma.rn.bf16x2 %0, %1, %2, z;`: nothing declares `z`, and the template has no braces to
    # declare it in: the advice names the block to write, not "the braces"
    (message,) = _ptx213("fma.rn.bf16x2 %0, %1, %2, zq;", ' : "=r"(y) : "r"(a), "r"(a)')
    assert "declare it in a { } block of the template (.reg .<type> zq;)" in message
