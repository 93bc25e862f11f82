"""Value flow through a class's data members (``analysis/member_values.py``): what every site
that may give a member a value agrees on, read as PTX301 reads a local's value."""

from __future__ import annotations

import pytest

from ptxlint.analysis import value_flow
from ptxlint.analysis.value_flow import Value, operand_value
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from tests.conftest import lint_text

# A class holding a shared-memory address; `%s` is its constructor's initializers and body.
_CLASS = """\
#include <cstdint>
__shared__ float shared_tile[64];
struct Tile {
  float *ptr_;
  uint32_t addr_;
  __device__ explicit Tile(float *p)%s
  __device__ float load() const;
  __device__ float load_global() const;
};
__device__ float Tile::load() const {
  float v;
  asm volatile("ld.shared.f32 %%0, [%%1];" : "=f"(v) : "l"(ptr_));
  return v;
}
__device__ float Tile::load_global() const {
  float v;
  asm volatile("ld.global.f32 %%0, [%%1];" : "=f"(v) : "r"(this->addr_));
  return v;
}
__global__ void k(float *out) {
  __shared__ float tile[64];
  Tile t(tile);
  out[0] = t.load() + t.load_global();
}
"""

_CONVERTED = """ : ptr_(p), addr_(static_cast<uint32_t>(__cvta_generic_to_shared(p))) {
    asm("cvta.to.shared.u64 %0, %0;" : "+l"(ptr_));
  }"""


def _ptx301(text: str) -> list[str]:
    return [f.message for f in lint_text(text, select=("PTX301",)) if f.rule == "PTX301"]


def _member_values(text: str) -> list[Value | None]:
    """The values of the two loads' address operands (``ptr_``, ``this->addr_``)."""
    source = SourceFile("test.cu", text)
    extracted = extract_statements(source)
    value_flow._CACHE.clear()
    found = []
    for statement in extracted.statements:
        if "ld." in statement.template.text:
            operand = statement.operands[1]
            found.append(
                operand_value(statement, operand, True, extracted.parsed, extracted.statements)
            )
    return found


def test_a_member_a_constructor_converts_last_holds_a_shared_window_address() -> None:
    """The constructor's body converts the member in place after its mem-initializer gave it
    the pointer: what the other member functions see is the conversion. The 32-bit member
    initialized with the conversion is a shared-window address, which a global load misuses."""
    text = _CLASS % _CONVERTED
    assert _member_values(text) == [Value.SHARED, Value.SHARED]
    messages = _ptx301(text)
    assert len(messages) == 1
    assert "shared-memory offset ('this->addr_')" in messages[0]
    assert "ld.global.f32" in messages[0]


def test_a_member_given_a_generic_pointer_is_flagged_as_a_local_would_be() -> None:
    text = _CLASS % " : ptr_(&shared_tile[0]), addr_(0) {}"
    local = text.replace('"l"(ptr_)', '"l"(q)').replace(
        '  float v;\n  asm volatile("ld.shared',
        '  float v;\n  float *q = &shared_tile[0];\n  asm volatile("ld.shared',
    )
    assert _member_values(text)[0] is Value.GENERIC
    generic = [m for m in _ptx301(text) if "generic pointer ('ptr_'" in m]
    assert len(generic) == 1
    # the same through a local copy of it
    assert len([m for m in _ptx301(local) if "generic pointer ('q'" in m]) == 1


@pytest.mark.parametrize(
    "other",
    [
        # another member function stores a plain pointer in it
        "  __device__ void reset(float *g) { ptr_ = g; }\n",
        # so does code that reaches it through an object
        "  __device__ void dummy() {}\n",
    ],
)
def test_a_member_given_both_kinds_is_unknown_as_a_local_would_be(other: str) -> None:
    text = (_CLASS % _CONVERTED).replace("  __device__ float load() const;\n",
                                         "  __device__ float load() const;\n" + other)
    if "dummy" in other:
        text = text.replace("  Tile t(tile);\n", "  Tile t(tile);\n  t.ptr_ = out;\n")
    # a pointer member of unknown origin reads as a pointer local of unknown origin does
    assert _member_values(text)[0] is Value.POINTER
    assert any("generic pointer ('ptr_'" in m for m in _ptx301(text))


def test_a_member_function_the_file_does_not_define_leaves_the_member_unknown() -> None:
    text = (_CLASS % _CONVERTED).replace(
        "  __device__ float load() const;\n",
        "  __device__ float load() const;\n  __device__ void rebind(float *g);\n",
    )
    assert _member_values(text) == [Value.POINTER, None]
    # the 32-bit member, unknown, is not reported in the global load
    assert not any("this->addr_" in m for m in _ptx301(text))


def test_a_local_or_parameter_of_the_members_name_is_not_the_member() -> None:
    text = (_CLASS % _CONVERTED).replace(
        "  float v;\n  asm volatile(\"ld.shared",
        "  float v;\n  float *ptr_ = &shared_tile[0];\n  asm volatile(\"ld.shared",
    )
    assert _member_values(text)[0] is Value.GENERIC  # the local, not the converted member


def test_a_copy_constructor_copies_what_the_member_holds() -> None:
    text = (_CLASS % _CONVERTED).replace(
        "  __device__ float load() const;\n",
        "  __device__ Tile(const Tile &other) : ptr_(other.ptr_), addr_(other.addr_) {}\n"
        "  __device__ float load() const;\n",
    )
    assert _member_values(text) == [Value.SHARED, Value.SHARED]


def test_an_assignment_inside_a_lambda_leaves_the_member_unknown() -> None:
    text = (_CLASS % _CONVERTED).replace(
        "  __device__ float load() const;\n",
        "  __device__ void later(float *g) { auto f = [&] { ptr_ = g; }; f(); }\n"
        "  __device__ float load() const;\n",
    )
    assert _member_values(text)[0] is Value.POINTER


# NvCloth's wrappers (CuSolverKernel.cu): the width of a pointer is a macro, so the tree reads
# neither the conversion's operand nor the loads' (a macro constraint's use is left out of the
# parse with its operand); the statements read both.
_MACRO_WIDTH = """\
#if defined(_WIN64) || defined(__x86_64__)
#define POINTER_CONSTRAINT "l"
#define POINTER_TYPE "u64"
#else
#define POINTER_CONSTRAINT "r"
#define POINTER_TYPE "u32"
#endif
enum Space { Shared, Global };
template <Space, typename T> __device__ T load(const T *ptr);
template <> __device__ float load<Shared>(const float *ptr) {
  float value;
  asm("ld.shared.f32 %0, [%1];" : "=f"(value) : POINTER_CONSTRAINT(ptr));
  return value;
}
template <> __device__ int load<Shared>(const int *ptr) {
  int value;
  asm("ld.shared.s32 %0, [%1];" : "=r"(value) : POINTER_CONSTRAINT(ptr));
  return value;
}
"""

_MAKER = """\
template <typename T> __device__ T *to_shared(T *ptr) {
  asm("cvta.to.shared." POINTER_TYPE " %0, %0;" : "+" POINTER_CONSTRAINT(ptr));
  return ptr;
}
"""


def test_a_file_that_converts_pointers_through_macros_makes_shared_window_pointers() -> None:
    """A pointer parameter no call site explains may hold a shared-window pointer in a file
    that makes them, also where the maker and the operand are spelt through macros."""
    assert not _ptx301(_MACRO_WIDTH + _MAKER)
    # without the maker, the pointer parameters are generic as their type says
    assert len(_ptx301(_MACRO_WIDTH)) == 2


def test_the_address_of_a_reference_is_what_it_was_bound_to() -> None:
    """``&ref`` of a reference parameter is the address of what each call binds it to: a
    variable's (generic) or, bound to ``*p``, ``p``'s own value, a shared-window address where
    ``p`` holds one (NvCloth's ``Reference(T& ref) : mPtr(&ref)``, bound to ``*mPtr`` of a
    pointer it converted with ``cvta.to.shared``). Converting that again breaks working code."""
    text = """\
__device__ float load_ref(float &ref) {
  float v;
  float *q = &ref;
  asm volatile("ld.shared.f32 %%0, [%%1];" : "=f"(v) : "l"(q));
  return v;
}
__global__ void k(float *out) {
  __shared__ float tile[64];
  float *s = (float *)__cvta_generic_to_shared(tile);
  out[0] = load_ref(%s);
}
"""
    assert not _ptx301(text % "*s")
    assert not _ptx301(text % "s[3]")
    [bound_to_variable] = [
        f for f in lint_text(text % "tile[3]", select=("PTX301",)) if f.rule == "PTX301"
    ]
    assert bound_to_variable.fix is not None and bound_to_variable.fix.safe


def test_a_reference_no_call_explains_is_a_variable_unless_the_file_makes_shared_pointers(
) -> None:
    """Where no call site explains a reference parameter (a member function's, whose calls
    value flow does not follow), its address is a variable's, as its type says; in a file that
    makes shared-window pointers it may be bound through one, as a pointer parameter may hold
    one."""
    text = """\
struct Ref {
  float *ptr_;
  __device__ explicit Ref(float &ref) : ptr_(&ref) {}
  __device__ float get() const {
    float v;
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "l"(ptr_));
    return v;
  }
};
"""
    assert len(_ptx301(text)) == 1
    maker = """\
template <typename T> __device__ T *to_shared(T *ptr) {
  asm("cvta.to.shared.u64 %0, %0;" : "+l"(ptr));
  return ptr;
}
"""
    assert not _ptx301(maker + text)
