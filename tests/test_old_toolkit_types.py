"""cuda_fp16.h's types as ptxlint knows them are CUDA 9.0's and later ones': `__half` a class
with several conversions, `__half2` a pair of `__half` members `x` and `y`. Before CUDA 9.0,
`__half` was a struct holding an `unsigned short x` and `__half2` one holding an `unsigned int
x`, so `"r"(h2.x)` was right. A branch that only such a toolkit compiles (the `#else` of `#if
CUDA_VERSION >= 9000`) gets no verdict from the newer types; the same statement in a branch a
newer toolkit compiles does."""

from __future__ import annotations

from ptxlint.ptx.toolkit import no_toolkit_since
from tests.conftest import lint_text

STORE = """
__device__ void store(unsigned* p, half2 a, half2 b) {
#if CUDA_VERSION >= 9000
  asm("st.v2.u32 [%0], {%1, %2};" : : "l"(p), "r"(*(unsigned*)&a), "r"(*(unsigned*)&b));
#else
  asm("st.v2.u32 [%0], {%1, %2};" : : "l"(p), "r"(a.x), "r"(b.x));
#endif
}
"""


def _ptx004_lines(text: str) -> list[int]:
    return [text.count("\n", 0, f.span.start) + 1
            for f in lint_text(text, path="k.cu", select=("PTX004",))]


def test_a_branch_only_toolkits_before_9_compile_gets_no_fp16_verdict() -> None:
    assert _ptx004_lines(STORE) == []


def test_the_member_in_a_branch_newer_toolkits_compile_is_flagged() -> None:
    text = STORE.replace("#if CUDA_VERSION >= 9000", "#if CUDA_VERSION < 9000")
    assert _ptx004_lines(text) == [6]


def test_a_plain_int_in_the_old_branch_is_still_judged() -> None:
    text = STORE.replace('"r"(a.x), "r"(b.x)', '"r"(a.x), "r"((long)b.x)')
    assert [f.message.split(":")[0] for f in lint_text(text, path="k.cu", select=("PTX004",))] \
        == ["operand 2 ((long)b.x)"]


def test_which_toolkits_a_branch_admits() -> None:
    assert no_toolkit_since(("!(CUDA_VERSION >= 9000)",), (9, 0))
    assert no_toolkit_since(("__CUDACC_VER_MAJOR__ < 9",), (9, 0))
    assert no_toolkit_since(("defined(USE_X)", "CUDA_VERSION < 8000"), (9, 0))
    # CUDA 10 compiles it
    assert not no_toolkit_since(("CUDA_VERSION < 11000",), (9, 0))
    assert not no_toolkit_since(("CUDA_VERSION >= 9000",), (9, 0))
    assert not no_toolkit_since(("defined(USE_X)",), (9, 0))
    assert not no_toolkit_since((), (9, 0))
