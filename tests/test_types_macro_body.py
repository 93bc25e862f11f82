"""Operands of an asm statement written in a ``#define`` body, typed where the body declares
their names: a macro that defines a whole function (a family of wrappers stamped out per
layout or cache modifier) declares its parameters and locals wherever it expands. A name the
body does not declare binds where the macro expands (unknown here), and a macro parameter,
or a name pasted from one (``a##b``), stands for the macro's argument (unknown)."""

from __future__ import annotations

from tests.conftest import lint_text
from tests.test_types import resolve, shape

UINT = ("unsigned int", "integer", 4)


def _defined(body: str, params: str = "(NAME, MOD)") -> str:
    """A macro defining a function whose body is ``body`` (lines joined by continuations),
    and two expansions of it."""
    lines = body.strip("\n").split("\n")
    joined = " \\\n".join(lines)
    return f"#define DEFINE_LOAD{params} \\\n{joined}\nDEFINE_LOAD(a, ca)\nDEFINE_LOAD(b, cg)\n"


LOAD = """__device__ unsigned load_##NAME(const unsigned* ptr, uint2 pair) {
  unsigned v;
  asm volatile("ld." #MOD ".u32 %0, [%1];" : "=r"(v) : "l"(ptr), "r"(pair.y));
  return v;
}"""


def test_the_parameters_and_locals_of_a_function_the_macro_defines() -> None:
    source = _defined(LOAD)
    assert shape(resolve(source, "v")) == UINT
    assert shape(resolve(source, "ptr")) == ("unsigned int *", "pointer", 8)
    assert shape(resolve(source, "pair.y")) == UINT


def test_a_name_the_body_does_not_declare_is_unknown() -> None:
    # bound where the macro expands: a global here, a local there
    source = "int counter;\n" + _defined(LOAD.replace('"r"(pair.y)', '"r"(counter)'))
    assert resolve(source, "counter") is None


def test_a_macro_parameter_in_a_type_or_an_operand_is_unknown() -> None:
    source = "struct T { short s; };\n" + _defined(
        LOAD.replace("uint2 pair", "T pair").replace("pair.y", "pair.s"), "(NAME, MOD, T)"
    )
    assert resolve(source, "pair.s") is None
    source = _defined(LOAD.replace('"r"(pair.y)', '"r"(MOD)'))
    assert resolve(source, "MOD") is None
    # a name pasted from a parameter names nothing of the file
    source = "unsigned v_a;\n" + _defined(LOAD.replace('"r"(pair.y)', '"r"(v_##NAME)'))
    assert resolve(source, "v_##NAME") is None


# A wmma-like fragment library: the mma wrappers are stamped out per layout by a macro whose
# function binds a half fragment's elements with "=f"; each half element is two bytes.
FRAGMENTS = """#include <cuda_fp16.h>
template <typename T, int size> struct storage { T x[size]; };
struct accumulator; struct row; struct col;
template <class Use, int m, class T, class Layout = void> class fragment;
template <> class fragment<accumulator, 8, half> : public storage<half, 8> {};
template <> class fragment<accumulator, 8, float> : public storage<float, 8> {};
#define DEFINE_MMA(LAYOUT) \\
__device__ void mma_##LAYOUT(fragment<accumulator, 8, half>& d, \\
                             const fragment<accumulator, 8, float>& c) { \\
  asm("{mov.b32 %0, %1;}" : "=f"(d.x[0]) : "f"(c.x[0])); \\
}
DEFINE_MMA(row)
DEFINE_MMA(col)
"""


def test_a_half_fragment_element_bound_with_f_in_a_macro_defined_function() -> None:
    findings = [f for f in lint_text(FRAGMENTS, "frag.cu") if f.rule == "PTX004"]
    assert len(findings) == 1, [f.message for f in findings]
    assert findings[0].message.startswith("operand 0 (d.x[0])")
    # at the #define, once for its expansions
    assert FRAGMENTS.count("\n", 0, findings[0].span.start) + 1 == 10
