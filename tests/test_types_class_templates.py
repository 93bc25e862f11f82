"""Members of class template instances and members found through base classes.

C++ member name lookup ([class.member.lookup]) searches the class, then its direct bases, in
order: a name the class declares hides the bases' (an enumerator, a member template and a
using-declaration too), and one found in two bases is ambiguous. A class template instance
``S<args>`` ([temp.spec]) is the explicit specialization for those arguments, else the partial
specialization they match, else the primary template with its parameters replaced by them.
Whatever the typer cannot decide (a dependent argument, a base it cannot see, a specialization
the arguments may or may not match) stays unknown: a wrong type is a false PTX004."""

from __future__ import annotations

from tests.conftest import lint_text
from tests.test_types import resolve, shape

INT = ("int", "integer", 4)
SHORT = ("short", "integer", 2)
HALF = ("__half", "half", 2)


def _operand(prelude: str, params: str, expression: str, constraint: str = "r") -> str:
    return (
        f"{prelude}\n__device__ void f({params}, int out) {{\n"
        f'  asm("mov.b32 %0, %1;" : "=r"(out) : "{constraint}"({expression}));\n}}\n'
    )


def typed(prelude: str, params: str, expression: str) -> tuple[str, str, int | None] | None:
    return shape(resolve(_operand(prelude, params, expression), expression))


# --------------------------------------------------------------------------- the primary template


def test_a_member_of_the_primary_template_has_the_argument_s_type() -> None:
    prelude = "template <class T> struct Box { T v; T* p; };"
    assert typed(prelude, "Box<int> b", "b.v") == INT
    assert typed(prelude, "Box<short> b", "b.v") == SHORT
    assert typed(prelude, "Box<short>* b", "b->v") == SHORT
    assert typed(prelude, "Box<short> b", "*b.p") == SHORT


def test_a_member_typedef_of_the_parameter_is_the_argument() -> None:
    prelude = "template <class T> struct Box { typedef T value_type; value_type v; };"
    assert typed(prelude, "Box<short> b", "b.v") == SHORT


def test_a_default_argument_fills_the_parameters_left_out() -> None:
    prelude = "template <class T, class U = short> struct Pair { T a; U b; };"
    assert typed(prelude, "Pair<int> p", "p.b") == SHORT
    assert typed(prelude, "Pair<int, int> p", "p.b") == INT


def test_an_argument_that_names_a_template_parameter_is_unknown() -> None:
    prelude = "template <class T> struct Box { T v; };\nstruct T { short s; };"
    source = (
        f"{prelude}\ntemplate <class T> __device__ void f(Box<T> b, int out) {{\n"
        '  asm("mov.b32 %0, %1;" : "=r"(out) : "r"(b.v));\n}\n'
    )
    assert resolve(source, "b.v") is None


def test_a_qualified_template_id_names_the_template_of_its_namespace() -> None:
    prelude = "namespace lib { namespace v1 { template <class T> struct Box { T v; }; } }"
    assert typed(prelude, "lib::v1::Box<short> b", "b.v") == SHORT
    assert typed(prelude, "v1::Box<short> b", "b.v") == SHORT  # from inside lib
    assert typed(prelude, "::lib::v1::Box<short> b", "b.v") == SHORT
    # another namespace's template of that name, or one the qualifier cannot show
    assert typed(prelude, "other::Box<short> b", "b.v") is None
    assert typed(prelude, "::v1::Box<short> b", "b.v") is None
    assert typed(prelude, "lib::Box<short> b", "b.v") is None


def test_a_specialization_declared_with_a_qualified_name_leaves_the_template_unknown() -> None:
    prelude = (
        "namespace lib { template <class T> struct Box { T v; }; }\n"
        "template <> struct lib::Box<int> { short v; };"
    )
    assert typed(prelude, "lib::Box<long> b", "b.v") is None


def test_a_template_of_one_name_in_two_namespaces_is_unknown() -> None:
    prelude = (
        "namespace a { template <class T> struct Box { T v; }; }\n"
        "namespace b { template <class T> struct Box { short v; }; }"
    )
    assert typed(prelude, "Box<int> x", "x.v") is None


# --------------------------------------------------------------------------- specializations


def test_an_explicit_specialization_is_preferred_to_the_primary() -> None:
    prelude = (
        "template <class T> struct Box { T v; };\n"
        "template <> struct Box<int> { short v; };"
    )
    assert typed(prelude, "Box<int> b", "b.v") == SHORT
    assert typed(prelude, "Box<long> b", "b.v") == ("long", "integer", 8)


def test_a_partial_specialization_binds_its_own_parameters() -> None:
    prelude = (
        "template <class T, int N> struct Vec { T v; };\n"
        "template <class T> struct Vec<T, 1> { T* v; };"
    )
    assert typed(prelude, "Vec<short, 1> x", "*x.v") == SHORT
    assert typed(prelude, "Vec<short, 2> x", "x.v") == SHORT


def test_a_specialization_the_arguments_may_match_is_unknown() -> None:
    # S<T*> matches S<int*>, which this typer does not deduce: never the primary's T
    prelude = (
        "template <class T> struct Box { T v; };\n"
        "template <class T> struct Box<T*> { short v; };"
    )
    assert typed(prelude, "Box<int> b", "b.v") is None
    # a tag spelled otherwise than in the specialization may name the same class
    prelude = (
        "template <class Use, class T> struct Frag { T v; };\n"
        "template <> struct Frag<ns::acc, int> { short v; };"
    )
    assert typed(prelude, "Frag<acc, int> x", "x.v") is None
    assert typed(prelude, "Frag<ns::acc, int> x", "x.v") == SHORT


def test_enumerators_as_arguments_compare_by_value() -> None:
    # each layout its own partial specialization; the primary's default names one of them
    prelude = (
        "enum layout { ROW, COL, MIRRORED = 4, SCRAMBLED };\n"
        "enum class kind { A = 1, B };\n"
        "template <int I, class T, layout L = ROW> struct Tile {};\n"
        "template <int I, class T> struct Tile<I, T, ROW> { T x[I]; };\n"
        "template <int I, class T> struct Tile<I, T, COL> { short x[I]; };\n"
        "template <int I, class T> struct Tile<I, T, SCRAMBLED> { long x[I]; };\n"
        "template <kind K> struct Op { int v; };\n"
        "template <> struct Op<kind::B> { short v; };"
    )
    assert typed(prelude, "Tile<8, int> t", "t.x[0]") == INT
    assert typed(prelude, "Tile<8, int, COL> t", "t.x[0]") == SHORT
    assert typed(prelude, "Tile<8, int, layout(5)> t", "t.x[0]") is None
    assert typed(prelude, "Tile<8, int, SCRAMBLED> t", "t.x[0]") == ("long", "integer", 8)
    assert typed(prelude, "Op<kind::B> o", "o.v") == SHORT
    assert typed(prelude, "Op<kind::A> o", "o.v") == INT
    # an enumerator's value that is no literal leaves the ones after it unknown
    prelude = prelude.replace("MIRRORED = 4", "MIRRORED = 2 * 2")
    assert typed(prelude, "Tile<8, int, SCRAMBLED> t", "t.x[0]") is None
    assert typed(prelude, "Tile<8, int, COL> t", "t.x[0]") is None


def test_two_partial_specializations_that_match_are_unknown() -> None:
    prelude = (
        "template <class T, class U> struct P { T v; };\n"
        "template <class T> struct P<T, int> { short v; };\n"
        "template <class U> struct P<int, U> { long v; };"
    )
    assert typed(prelude, "P<int, int> x", "x.v") is None
    assert typed(prelude, "P<long, int> x", "x.v") == SHORT


# --------------------------------------------------------------------------- base classes


def test_a_member_of_a_base_class() -> None:
    prelude = "struct Base { short s; };\nstruct Derived : public Base { int i; };"
    assert typed(prelude, "Derived d", "d.s") == SHORT
    assert typed(prelude, "Derived d", "d.i") == INT
    # through two levels, and a declaration in the class hides the base's
    prelude += "\nstruct Again : Derived { int s; };\nstruct Deeper : Derived {};"
    assert typed(prelude, "Again d", "d.s") == INT
    assert typed(prelude, "Deeper d", "d.s") == SHORT


def test_a_member_of_a_template_base_class_has_the_arguments_substituted() -> None:
    prelude = (
        "template <class T> struct Base { T v; };\n"
        "template <class U> struct Derived : Base<U> {};\n"
        "struct Plain : Base<short> {};"
    )
    assert typed(prelude, "Derived<int> d", "d.v") == INT
    assert typed(prelude, "Plain d", "d.v") == SHORT


def test_a_member_the_bases_cannot_decide_is_unknown() -> None:
    prelude = (
        "struct A { int m; };\nstruct B { short m; };\n"
        "struct Both : A, B {};\n"  # ambiguous
        "struct Unseen : Elsewhere {};\n"  # a base this file does not declare
        "struct Qualified : ns::A {};\n"
        "struct Enum : A { enum { m = 1 }; };\n"  # hides A::m; not a data member
        "struct Using : A { using B::m; };"
    )
    for params in ("Both x", "Unseen x", "Qualified x", "Enum x", "Using x"):
        assert typed(prelude, params, "x.m") is None, params


def test_a_name_in_a_member_function_is_found_in_the_base() -> None:
    source = (
        "struct Base { short s; };\n"
        "struct Derived : Base {\n  __device__ void f(int out) {\n"
        '    asm("mov.b32 %0, %1;" : "=r"(out) : "r"(s));\n  }\n};\n'
    )
    assert shape(resolve(source, "s")) == SHORT
    dependent = source.replace("struct Derived : Base", "template <class T> struct Derived : T")
    assert resolve(dependent, "s") is None


# --------------------------------------------------------------------------- the rule


# A fragment class per shape, each an explicit specialization of a declared-only primary
# template, its storage a templated base's array (the layout of nvcuda::wmma-like fragment
# libraries): an element of a half fragment bound with "f" is two bytes in a 32-bit register.
FRAGMENTS = """#include <cuda_fp16.h>
template <typename T, int size>
struct __align__(4) frag_storage { T x[size]; enum { num_elements = size }; };
struct matrix_a; struct accumulator; struct row_major;
template <class Use, int m, int n, int k, class T, class Layout = void>
class fragment;
template <> class fragment<matrix_a, 8, 8, 4, half, row_major>
    : public frag_storage<half, 4> {};
template <> class fragment<accumulator, 8, 8, 4, float> : public frag_storage<float, 8> {};
template <> class fragment<accumulator, 8, 8, 4, half> : public frag_storage<half, 8> {};
"""


def test_an_element_of_a_specialized_fragment_through_its_templated_base() -> None:
    source = FRAGMENTS + (
        "__device__ void store(fragment<accumulator, 8, 8, 4, half>& d,\n"
        "                      const fragment<accumulator, 8, 8, 4, float>& c) {\n"
        '  asm("mov.b32 %0, %1;" : "=f"(d.x[0]) : "f"(c.x[1]));\n}\n'
    )
    findings = [f for f in lint_text(source, "frag.cu") if f.rule == "PTX004"]
    assert [f.message.split(":")[0] for f in findings] == ["operand 0 (d.x[0])"]
    assert "__half" in findings[0].message


def test_a_fragment_whose_specialization_is_not_declared_is_unknown() -> None:
    source = FRAGMENTS + (
        "__device__ void store(fragment<accumulator, 16, 16, 16, half>& d) {\n"
        '  asm("mov.b32 %0, 0;" : "=f"(d.x[0]));\n}\n'
    )
    assert not [f for f in lint_text(source, "frag.cu") if f.rule == "PTX004"]
