"""PTX201 and PTX202 stay silent where a statement is emitted once into its PTX function
(``analysis.emission.declared_once``): a ``__global__`` function is an entry, never inlined, so
a statement of its own body outside loops, lambdas and ``goto`` reaches its PTX once, unless
another statement of the kernel declares the same name outside braces (nvcc 13.0 builds the
first kind and stops at the second with "Duplicate definition of variable")."""

from __future__ import annotations

import pytest

from ptxlint.ptx.targets import exclusive_guards
from tests.conftest import lint_text

DECLARE = r'asm volatile(".reg .f32 v;\n\tmov.f32 v, 0f00000000;\n\tst.global.f32 [%0], v;" :: "l"(out) : "memory");'  # noqa: E501
LABEL = r'asm volatile("{ .reg .pred p; setp.eq.s32 p, %0, 0; @p bra DONE; }\nDONE:" :: "r"(c));'

SILENT = {
    "kernel": f"__global__ void k(float *out) {{ {DECLARE} }}",
    "kernel-template": f"template <int N> __global__ void k(float *out) {{ {DECLARE} }}",
    "after-a-branch": "__global__ void k(float *out, int c) {\n"
                      f"  if (c) out[1] = 1.0f; else out[2] = 2.0f;\n  {DECLARE}\n}}",
    "two-kernels": f"__global__ void a(float *out) {{ {DECLARE} }}\n"
                   f"__global__ void b(float *out) {{ {DECLARE} }}",
    "label-in-kernel": f"__global__ void k(int c) {{ {LABEL} }}",
    # one arm of an `if constexpr` is discarded in each instantiation; `#if` arms likewise
    "if-constexpr-arms": "template <int N> __global__ void k(float *out) {\n"
                         f"  if constexpr (N > 0) {{ {DECLARE} }}\n  else {{ {DECLARE} }}\n}}",
    "preprocessor-arms": "__global__ void k(float *out) {\n#if defined(A)\n"
                         f"  {DECLARE}\n#else\n  {DECLARE}\n#endif\n}}",
}
FLAGGED = {
    "device-function": (f"__device__ void f(float *out) {{ {DECLARE} }}", 1),
    "in-a-loop": ("__global__ void k(float *out, int n) {\n"
                  f"  for (int i = 0; i < n; ++i) {DECLARE}\n}}", 1),
    "in-a-lambda": ("__global__ void k(float *out) {\n"
                    f"  auto f = [&]() {{ {DECLARE} }};\n  f(); f();\n}}", 1),
    "under-a-goto": ("__global__ void k(float *out, int n) {\n  int i = 0;\nagain:\n"
                           f"  {DECLARE}\n  if (++i < n) goto again;\n}}", 1),
    "label-in-device-function": (f"__device__ void f(int c) {{ {LABEL} }}", 1),
}


@pytest.mark.parametrize("name", sorted(SILENT))
def test_emitted_once_is_silent(name: str) -> None:
    assert lint_text(SILENT[name], select=("PTX201", "PTX202")) == []


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_copies_are_flagged(name: str) -> None:
    text, count = FLAGGED[name]
    found = lint_text(text, select=("PTX201", "PTX202"))
    assert [f.rule for f in found] == ["PTX202" if "label" in name else "PTX201"] * count


# Two statements of one function, both compiled, that define one name outside braces: ptxas
# stops at the second ("Duplicate definition of variable 'v'", nvcc 13.0, both arms of a plain
# `if` too). The later one reports it and names the earlier; in a kernel the earlier one is
# emitted once and says nothing.
COLLIDING = {
    "kernel": (f"__global__ void k(float *out) {{\n  {DECLARE}\n  {DECLARE}\n}}", [3]),
    "kernel-if-arms": ("__global__ void k(float *out, int c) {\n"
                       f"  if (c) {{ {DECLARE} }}\n  else {{ {DECLARE} }}\n}}", [3]),
    "device-function": (f"__device__ void f(float *out) {{\n  {DECLARE}\n  {DECLARE}\n}}",
                        [2, 3]),
    # a build that defines FOO compiles both
    "one-under-an-if": (f"__global__ void k(float *out) {{\n  {DECLARE}\n#if defined(FOO)\n"
                        f"  {DECLARE}\n#endif\n}}", [4]),
}


@pytest.mark.parametrize("name", sorted(COLLIDING))
def test_the_later_of_two_definitions_names_the_earlier(name: str) -> None:
    text, lines = COLLIDING[name]
    found = lint_text(text, select=("PTX201",))
    assert [text.count("\n", 0, f.span.start) + 1 for f in found] == lines
    assert "the asm at line 2 of this function defines it too" in found[-1].message
    assert all("line 2" not in f.message for f in found[:-1])


@pytest.mark.parametrize(("first", "second", "exclusive"), [
    (("defined(A)",), ("!(defined(A))",), True),
    (("X > 1", "defined(A)"), ("X > 1", "!defined(A)"), True),
    ((), ("defined(A)",), False),
    (("defined(A)",), ("defined(B)",), False),
])
def test_exclusive_guards(first: tuple[str, ...], second: tuple[str, ...],
                          exclusive: bool) -> None:
    assert exclusive_guards(first, second) is exclusive
    assert exclusive_guards(second, first) is exclusive
