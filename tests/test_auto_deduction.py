"""A variable declared with a placeholder type (``auto``, ``auto*``, ``auto&``, ``const auto``,
``decltype(auto)``) is typed from its initialiser as C++ deduces it ([dcl.type.auto.deduct]),
so the rules that read an operand's C++ type see it. The expected types below were checked
with nvcc 13.0 (``static_assert(std::is_same_v<decltype(x), T>)``); the typer's types carry
no cv-qualifiers or references, so ``const int&`` reads as ``int``."""

from __future__ import annotations

import pytest

from tests.test_deduced_forms import ptx004_messages
from tests.test_types import check, resolve, shape

# (operand, declarations, the type C++ gives the operand)
DEDUCED = [
    ("a", "auto a = 1.0;", ("double", "floating", 8)),
    ("a", "auto a = 1.0f;", ("float", "floating", 4)),
    ("a", "short s; auto a = s + (char)2;", ("int", "integer", 4)),
    ("b", "float* buf; auto* b = buf;", ("float *", "pointer", 8)),
    ("b", "int local[4]; auto* b = local;", ("int *", "pointer", 8)),
    ("b", "float* buf; auto** b = &buf;", ("float **", "pointer", 8)),
    ("b", "float* buf; auto* const __restrict__ b = buf;", ("float *", "pointer", 8)),
    ("c", "int x; const auto& c = x;", ("int", "integer", 4)),
    ("c", "int local[4]; auto const& c = local;", ("int[4]", "aggregate", 16)),
    ("c", "unsigned x; auto&& c = x;", ("unsigned int", "integer", 4)),
    ("c", "float* p; auto* const& c = p;", ("float *", "pointer", 8)),
    ("d", "const int x = 1; auto d = x;", ("int", "integer", 4)),
    ("d", "int local[4]; auto d = local;", ("int *", "pointer", 8)),
    ("d", "int local[4]; auto& d = local;", ("int[4]", "aggregate", 16)),
    ("d", "int x; decltype(auto) d = x;", ("int", "integer", 4)),
    ("d", "int local[4]; decltype(auto) d = (local);", ("int[4]", "aggregate", 16)),
    ("e", "int x; auto e{x};", ("int", "integer", 4)),
    ("e", "auto e(1u);", ("unsigned int", "integer", 4)),
    ("e", "auto (e) = 2ull;", ("unsigned long long", "integer", 8)),
    ("s[0]", "char* buf; auto s = reinterpret_cast<uint32_t*>(buf);", ("unsigned int", "integer", 4)),
    ("v", "float4* p; auto v = *reinterpret_cast<const float4*>(p);", ("float4", "aggregate", 16)),
    (
        "a",
        "void* p; const auto a = static_cast<uint32_t>(__cvta_generic_to_shared(p));",
        ("unsigned int", "integer", 4),
    ),
    ("h", "float f; auto h = __float2half(f);", ("__half", "half", 2)),
    ("t", "auto t = threadIdx.x;", ("unsigned int", "integer", 4)),
    ("b", "auto a = 1.0; auto b = a * 2;", ("double", "floating", 8)),
]


@pytest.mark.parametrize(("operand", "body", "expected"), DEDUCED)
def test_placeholder_variable_is_typed_as_cpp_deduces_it(
    operand: str, body: str, expected: tuple[str, str, int]
) -> None:
    assert shape(check(operand, body)) == expected


UNTYPED = {
    "initializer list": "auto u = {1};",
    "braced list of two": "auto u{1, 2};",
    "unknown initialiser": "auto u = unknown();",
    "its own initialiser": "auto u = u;",
    "structured binding": "struct P { int a; int b; } p; auto [u, w] = p;",
    "array copied by decltype(auto)": "int local[4]; decltype(auto) u = local;",
    "auto* of a non-pointer chain": "float x; auto** u = &x;",
    "no initialiser": "auto u;",
    "overloaded call": "float g(float); double g(double); auto u = g(1.0f);",
}


@pytest.mark.parametrize("form", sorted(UNTYPED))
def test_placeholder_variable_without_a_deducible_type_stays_untyped(form: str) -> None:
    ctype = check("u", UNTYPED[form])
    # `auto**` stays what the declarator alone says: some pointer
    assert ctype is None or (ctype.kind == "pointer" and ctype.spelling.startswith("auto"))


def test_template_dependent_initialiser_stays_untyped() -> None:
    source = """
    template <typename T> __device__ void f(T x) {
        auto a = x * 2; auto b = static_cast<T>(1); auto c = sizeof(T);
        asm volatile("" :: "r"(a), "r"(b), "l"(c));
    }
    """
    assert resolve(source, "a") is None
    assert resolve(source, "b") is None
    assert shape(resolve(source, "c")) == ("unsigned long", "integer", 8)


def test_parameters_and_template_parameters_declared_auto_stay_untyped() -> None:
    source = """
    template <auto N = 5u> __device__ void f() {
        auto g = [](auto v = 1.0, int w = 0) { asm volatile("" :: "r"(v), "r"(w), "n"(N)); };
    }
    """
    assert resolve(source, "v") is None
    assert resolve(source, "N") is None
    assert shape(resolve(source, "w")) == ("int", "integer", 4)


def test_condition_and_static_member_declarations_are_deduced() -> None:
    source = """
    struct S {
        static constexpr auto kBytes = 16u, kWide = 8ull;
        __device__ void g(float f, double* d) {
            if (auto h = __float2half(f)) {
                if (auto* p = d) {
                    asm volatile("" :: "h"(h), "r"(kBytes), "l"(kWide), "l"(p));
                }
            }
        }
    };
    """
    assert shape(resolve(source, "h")) == ("__half", "half", 2)
    assert shape(resolve(source, "p")) == ("double *", "pointer", 8)
    assert shape(resolve(source, "kBytes")) == ("unsigned int", "integer", 4)
    assert shape(resolve(source, "kWide")) == ("unsigned long long", "integer", 8)


def test_initialiser_names_are_looked_up_where_the_initialiser_is() -> None:
    # the initialiser reads the `x` visible at it (the float), not the one the operand sees
    source = """
    __device__ void k() {
        float x = 1.0f;
        auto a = x;
        {
            double x = 2.0;
            asm volatile("" :: "f"(a), "d"(x));
        }
    }
    """
    assert shape(resolve(source, "a")) == ("float", "floating", 4)
    assert shape(resolve(source, "x")) == ("double", "floating", 8)


def _ptx004(declaration: str, constraint: str) -> list[str]:
    return ptx004_messages("", declaration, "v", constraint)


def test_constraint_size_rule_sees_a_double_declared_auto() -> None:
    found = _ptx004("auto v = 1.0;", "r")
    assert len(found) == 1 and "double" in found[0]


def test_constraint_size_rule_is_silent_on_a_float_declared_auto() -> None:
    assert _ptx004("auto v = 1.0f;", "f") == []
    assert _ptx004("const auto v = static_cast<uint32_t>(1.0);", "r") == []
