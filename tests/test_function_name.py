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
