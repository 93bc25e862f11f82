"""A function definition's name (syntax_tree.own_function_name): read down from its own
function declarator, whatever the declarators of its result wrap around it."""

from __future__ import annotations

import pytest

from ptxlint.frontends.syntax_tree import own_function_name, parse

# definition -> the name it declares, as spelled
FORMS = {
    "__device__ int f(int x) { return x; }": "f",
    "__device__ int* f(int x) { return 0; }": "f",
    "__device__ int& f(int x) { return x; }": "f",
    "__device__ int&& f(int x) { return 0; }": "f",
    "__device__ const int& f() { return x; }": "f",
    "__device__ int (&f(int))[4] { return a; }": "f",
    "__device__ void (*f(int n))(float) { return 0; }": "f",
    "__device__ void (&f(int n))(float) { return g; }": "f",
    "__device__ auto f(int n) -> int& { return x; }": "f",
    "__device__ int& S::f() { return a; }": "S::f",
    "__device__ void (*S::f(int n))(float) { return 0; }": "S::f",
    "template <class T> __device__ T const& f(T const& a) { return a; }": "f",
    "struct S { __device__ S& operator=(const S& o) { return *this; } };": "operator=",
    "struct S { __device__ ~S() { } };": "~S",
}


def _names(text: str) -> list[str | None]:
    parsed = parse("k.cu", text)
    found: list[str | None] = []
    stack = [parsed.tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "function_definition":
            name = own_function_name(node)
            found.append(parsed.node_text(name) if name is not None else None)
        stack.extend(reversed(node.children))
    return found


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_definition_is_named_through_the_declarators_of_its_result(form: str) -> None:
    assert _names(form) == [FORMS[form]]


def test_the_returned_function_pointers_parameters_name_nothing() -> None:
    # `(float g)` belongs to the pointer f returns: its declarator names no function
    assert _names("__device__ void (*f(int n))(float g) { return 0; }") == ["f"]


def test_the_name_a_call_spells_drops_qualifiers_and_template_arguments() -> None:
    from ptxlint.analysis.flow_syntax import function_name

    assert function_name("S<N>::fma") == "fma"  # an out-of-line member of a class template
    assert function_name("utmaldg<2, fmha::cudaTmaDescType::TILED, false>") == "utmaldg"
    assert function_name("ns::A<B<C>>::f<1>") == "f"
    assert function_name("cute::elect_one_sync") == "elect_one_sync"
    assert function_name(" k ") == "k"
