"""Three forms whose C++ type is exact and known from the file: a call of a function with a
trailing return type or a return type deduced from its returns, a functional cast with
braces (``T{x}``), and a range-``for`` variable over a C array or a braced list. The expected
types were checked with nvcc 13.0 (``static_assert(std::is_same_v<decltype(e), T>)``); the
typer's types carry no references, so ``float&`` reads as ``float``."""

from __future__ import annotations

import pytest

from tests.conftest import lint_text
from tests.test_types import check, resolve, shape

FUNCTIONS = """
struct S { int a; };
__device__ auto f(int) -> uint32_t;
__device__ auto g() { return 1.0; }
__device__ auto h(bool c) { if (c) return 1u; return 2u; }
__device__ auto arr_ret() { static float a[4]; return a; }
__device__ auto s_ptr(float* p) -> uint32_t { return (uint32_t)(size_t)p; }
"""

TYPED = [
    ("f(1)", "", ("unsigned int", "integer", 4)),
    ("g()", "", ("double", "floating", 8)),
    ("h(true)", "", ("unsigned int", "integer", 4)),
    ("arr_ret()", "", ("float *", "pointer", 8)),
    ("s_ptr(p)", "float* p;", ("unsigned int", "integer", 4)),
    ("v", "auto v = g();", ("double", "floating", 8)),
    ("uint32_t{x}", "float x;", ("unsigned int", "integer", 4)),
    ("double{}", "", ("double", "floating", 8)),
    ("unsigned{3}", "", ("unsigned int", "integer", 4)),
    ("std::uint64_t{1}", "", ("unsigned long", "integer", 8)),
    ("S{}", "", ("S", "aggregate", None)),
    ("u64{1}", "typedef unsigned long long u64;", ("unsigned long long", "integer", 8)),
    ("(uint32_t){x}", "float x;", ("unsigned int", "integer", 4)),
    ("float(1)", "", ("float", "floating", 4)),
]


@pytest.mark.parametrize(("operand", "body", "expected"), TYPED)
def test_calls_and_functional_casts_are_typed_as_cpp_types_them(
    operand: str, body: str, expected: tuple[str, str, int | None]
) -> None:
    assert shape(check(operand, body, FUNCTIONS)) == expected


UNTYPED_CALLS = {
    "returns of two types": "__device__ auto u(bool c) { if (c) return 1; return 1.0; }",
    "recursive": "__device__ auto u(int n) { if (n) return u(n - 1); return u(0); }",
    "template": "template <class T> __device__ auto u() { return T{}; }",
    "abbreviated template": "__device__ auto u(auto x) { return x; }",
    "decltype(auto)": "int g_x; __device__ decltype(auto) u() { return (g_x); }",
    "no value": "__device__ auto u() { return; }",
    "braced list": "__device__ auto u() { return {1}; }",
    "declared only": "__device__ auto u();",
    "class template member": "template <int N> struct W { static auto u() { return N; } };",
}


@pytest.mark.parametrize("form", sorted(UNTYPED_CALLS))
def test_deduced_return_without_one_known_type_stays_untyped(form: str) -> None:
    assert check("u()", "", UNTYPED_CALLS[form]) is None


def test_returns_of_a_lambda_in_the_body_are_not_the_functions() -> None:
    prelude = "__device__ auto u() { auto l = [] { return 1.0; }; return 1u; }"
    assert shape(check("u()", "", prelude)) == ("unsigned int", "integer", 4)


def test_functional_cast_of_a_template_parameter_stays_untyped() -> None:
    source = """
    template <typename T> __device__ void k() {
        asm volatile("" :: "r"(T{}));
    }
    """
    assert resolve(source, "T{}") is None


RANGE_SOURCE = """
__device__ void k(float* out) {
    float arr[4]; unsigned list[3]; double grid[2][3]; float* p = out;
    std::array<unsigned, 2> std_arr;
    for (auto& e : arr) { for (auto w : list) { for (auto r : grid) {
    for (auto& row : grid) { for (auto b : {1u, 2u}) { for (uint32_t v : arr) {
    for (auto m : {1u, 2}) { for (auto q : p) { for (auto z : std_arr) {
        asm volatile("" :: "f"(e), "r"(w), "l"(r), "l"(row), "r"(b), "r"(v), "r"(m), "r"(q),
                     "r"(z));
    } } } } } } } } }
}
"""

RANGE_TYPED = [
    ("e", ("float", "floating", 4)),
    ("w", ("unsigned int", "integer", 4)),
    ("r", ("double *", "pointer", 8)),
    ("row", ("double[3]", "aggregate", 24)),
    ("b", ("unsigned int", "integer", 4)),
    ("v", ("unsigned int", "integer", 4)),
]


@pytest.mark.parametrize(("operand", "expected"), RANGE_TYPED)
def test_range_for_variable_is_typed_as_an_element_of_its_range(
    operand: str, expected: tuple[str, str, int]
) -> None:
    assert shape(resolve(RANGE_SOURCE, operand)) == expected


@pytest.mark.parametrize("operand", ["m", "q", "z"])
def test_range_for_variable_over_mixed_list_pointer_or_class_stays_untyped(operand: str) -> None:
    assert resolve(RANGE_SOURCE, operand) is None


def ptx004_messages(prelude: str, declaration: str, value: str, constraint: str) -> list[str]:
    """PTX004's messages on ``value`` passed under ``constraint`` in a kernel that declares
    ``declaration`` just before the asm, after ``prelude`` at file scope."""
    source = (
        f"{prelude}\n"
        "__global__ void k(unsigned* out) {\n"
        f"  {declaration}\n"
        f'  asm volatile("mov.b32 %0, %1;" : "=r"(out[0]) : "{constraint}"({value}));\n'
        "}\n"
    )
    return [f.message for f in lint_text(source, select=("PTX004",))]


@pytest.mark.parametrize(
    ("prelude", "declaration", "value"),
    [
        ("__device__ auto wide(int) -> unsigned long long;", "", "wide(1)"),
        ("__device__ auto wide() { return 1ull; }", "", "wide()"),
        ("", "", "uint64_t{1}"),
        ("", "double vals[2]; for (auto x : vals)", "x"),
    ],
)
def test_constraint_size_rule_sees_64_bit_values_of_each_form(
    prelude: str, declaration: str, value: str
) -> None:
    found = ptx004_messages(prelude, declaration, value, "r")
    assert len(found) == 1


@pytest.mark.parametrize(
    ("prelude", "declaration", "value"),
    [
        ("__device__ auto narrow(int) -> uint32_t;", "", "narrow(1)"),
        ("__device__ auto narrow() { return 1u; }", "", "narrow()"),
        ("", "", "uint32_t{1}"),
        ("", "unsigned vals[2]; for (auto x : vals)", "x"),
    ],
)
def test_constraint_size_rule_is_silent_on_32_bit_values_of_each_form(
    prelude: str, declaration: str, value: str
) -> None:
    assert ptx004_messages(prelude, declaration, value, "r") == []
