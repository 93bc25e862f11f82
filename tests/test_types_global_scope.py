"""A type named from the global namespace (``::float2``) is the toolkit's type of that name:
CUDA declares its vector types, ``__half`` and the C integer typedefs there, so ``::T`` types
an operand as ``T`` does. A name the toolkit does not declare stays unknown when written
``::T``: the file's own declarations of ``T`` may live in a namespace, and ``::`` is written
precisely to name another one."""

from __future__ import annotations

from tests.conftest import lint_text
from tests.test_types import resolve, shape

FLOAT = ("float", "floating", 4)


def _source(params: str, operand: str, letter: str = "f", prelude: str = "") -> str:
    return (
        f"{prelude}\n__device__ void f({params}) {{\n  float r;\n"
        f'  asm("add.f32 %0, %1, %1;" : "=f"(r) : "{letter}"({operand}));\n}}\n'
    )


def test_global_vector_type_parameter_member_is_float() -> None:
    source = _source("const ::float2 a", "a.x")
    assert shape(resolve(source, "a.x")) == FLOAT


def test_global_vector_type_with_attribute_is_float() -> None:
    source = _source("[[maybe_unused]] const ::float2 a", "a.y")
    assert shape(resolve(source, "a.y")) == FLOAT


def test_global_vector_type_functional_cast_with_braces() -> None:
    source = _source("float x", "::float2{x, x}.x")
    assert shape(resolve(source, "::float2{x, x}.x")) == FLOAT


def test_global_scalar_typedef_keeps_its_type() -> None:
    source = _source("::uint32_t u", "u", "r")
    assert shape(resolve(source, "u")) == ("unsigned int", "integer", 4)


def test_global_name_the_toolkit_does_not_declare_stays_unknown() -> None:
    # the file's Vec is in a namespace: ``::Vec`` is another one, declared elsewhere
    prelude = "namespace n { struct Vec { float x; }; }"
    source = _source("const ::Vec a", "a.x", prelude=prelude)
    assert resolve(source, "a.x") is None


def test_global_vector_member_under_r_is_flagged() -> None:
    # nvcc 13: "asm operand type size(4) does not match type/size implied by constraint 'r'"
    findings = lint_text(_source("const ::float2 a", "a.x", "r"), select=("PTX004",))
    assert [f.rule for f in findings] == ["PTX004"]


def test_global_vector_member_under_f_is_clean() -> None:
    assert lint_text(_source("const ::float2 a", "a.x", "f"), select=("PTX004",)) == []
