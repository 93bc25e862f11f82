"""A toolkit typedef name that is not reserved to the implementation (``half``, ``half2``,
``nv_bfloat16``, ``nv_bfloat162``) is the file's own type where the file declares it: C++ name
lookup finds that declaration, and the toolkit's cannot be in scope beside it (a
redefinition). Blender Cycles' ``typedef unsigned short half;`` is an ``unsigned short``, which
'h' takes, not cuda_fp16.h's class ``__half``."""

from __future__ import annotations

from tests.conftest import lint_text
from tests.test_types import resolve, shape


def _source(prelude: str) -> str:
    return (
        f"{prelude}\n__device__ half f(float x) {{\n  half v;\n"
        '  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(v) : "f"(x));\n  return v;\n}\n'
    )


def test_file_typedef_of_half_is_its_own_type() -> None:
    source = _source("typedef unsigned short half;")
    assert shape(resolve(source, "v")) == ("unsigned short", "integer", 2)
    assert not [f for f in lint_text(source, "k.cu") if f.rule == "PTX004"]


def test_file_alias_of_half_is_its_own_type() -> None:
    source = _source("using half = unsigned short;")
    assert shape(resolve(source, "v")) == ("unsigned short", "integer", 2)


def test_half_the_file_does_not_declare_is_the_toolkits() -> None:
    # a mention in a comment or another declaration is no declaration of the type
    source = _source("// typedef-free file: half comes from cuda_fp16.h\nint half_count;")
    assert shape(resolve(source, "v")) == ("__half", "half", 2)
    assert [f.rule for f in lint_text(source, "k.cu")] == ["PTX004"]


def test_toolkit_typedef_of_half_keeps_the_class() -> None:
    # cuda_fp16.h's own spelling names the class again
    source = _source("struct __half { unsigned short x; };\ntypedef __half half;")
    assert shape(resolve(source, "v")) == ("__half", "half", 2)
