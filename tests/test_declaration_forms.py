"""Two declaration forms whose names the operand typer finds in their right scope: a variable
of an ``if``/``switch`` init-statement (C++17) or condition, visible in every branch of its
statement and not after it, and a parameter of a function whose result is a function pointer
(``void (*get(int n))(int)``: the list after ``get`` is its own, the outer one the pointer's)."""

from __future__ import annotations

import pytest

from ptxlint.frontends.cxx.c_types import own_function_declarator
from tests.conftest import lint_text
from tests.test_types import _PARSER, resolve, shape


def _asm(name: str) -> str:
    return f'asm volatile("add.u32 %0, %0, %1;" : "+r"(out) : "r"({name}));'


def _kernel(body: str) -> str:
    return f"__device__ unsigned f();\n__device__ void k(unsigned out) {{\n{body}\n}}\n"


# each places the asm where the header's variable ``v`` (declared ``long long``) is in scope
HEADER_SCOPES = {
    "if-init then": "if (long long v = f(); v > 0) {{ {asm} }}",
    "if-init else": "if (long long v = f(); v > 0) {{ }} else {{ {asm} }}",
    "if-init no braces": "if (long long v = f(); v) {asm}",
    "if-init with condition declaration": "if (long long v = f(); int w = v) {{ {asm} }}",
    "switch-init": "switch (long long v = f(); v) {{ case 1: {asm} }}",
    "switch-condition": "switch (long long v = f()) {{ default: {asm} }}",
    "if-condition": "if (long long v = f()) {{ {asm} }}",
    "else-if-init": "if (out) {{ }} else if (long long v = f(); v) {{ {asm} }}",
    "range-for-init": "int d[2]; for (long long v = f(); int e : d) {{ {asm} }}",
}


@pytest.mark.parametrize("form", sorted(HEADER_SCOPES))
def test_statement_header_variable_types_its_operand(form: str) -> None:
    source = _kernel(HEADER_SCOPES[form].format(asm=_asm("v")))
    assert shape(resolve(source, "v")) == ("long long", "integer", 8)


@pytest.mark.parametrize("form", sorted(HEADER_SCOPES))
def test_statement_header_variable_hides_an_outer_one_of_its_name(form: str) -> None:
    source = _kernel("short v = 1;\n" + HEADER_SCOPES[form].format(asm=_asm("v")))
    assert shape(resolve(source, "v")) == ("long long", "integer", 8)


@pytest.mark.parametrize("header", ["if (long long v = f(); v) { }", "switch (long long v = f(); v) { }",
                                    "if (long long v = f()) { } else { }"])
def test_statement_header_variable_is_not_visible_after_its_statement(header: str) -> None:
    source = _kernel(f"short v = 1;\n{header}\n{_asm('v')}")
    assert shape(resolve(source, "v")) == ("short", "integer", 2)


def test_auto_init_variable_hides_a_typed_outer_one() -> None:
    # `auto` is deduced from `f()`: the operand is the header's `unsigned`, not the outer
    # `long long`; from a call of unknown type it stays untyped, never the outer one's type
    source = _kernel(f"long long v = 1;\nif (auto v = f(); v) {{ {_asm('v')} }}")
    assert shape(resolve(source, "v")) == ("unsigned int", "integer", 4)
    source = _kernel(f"long long v = 1;\nif (auto v = g(); v) {{ {_asm('v')} }}")
    assert resolve(source, "v") is None


RESULT_DECLARATORS = {
    "function pointer": "void (*get(short n))(int)",
    "pointer to function pointer": "int (*(*get(short n))(long))(char)",
    "reference to array": "int (&get(short n))[4]",
    "pointer to array": "int (*get(short n))[4]",
    "plain": "int get(short n)",
}


@pytest.mark.parametrize("form", sorted(RESULT_DECLARATORS))
def test_parameter_of_function_with_nested_result_is_typed(form: str) -> None:
    source = (
        f"__device__ {RESULT_DECLARATORS[form]} {{\n"
        f"  unsigned out = 0;\n  {_asm('n')}\n  return 0;\n}}\n"
    )
    assert shape(resolve(source, "n")) == ("short", "integer", 2)


def test_macro_call_in_a_function_name_keeps_the_outer_parameter_list() -> None:
    # `NAME(get)(long n)`: a function cannot return a function, so `(get)` is a macro's
    # argument list and `(long n)` the function's own
    source = f"void NAME(get)(long n) {{\n  unsigned out = 0;\n  {_asm('n')}\n}}\n"
    assert shape(resolve(source, "n")) == ("long", "integer", 8)


def test_out_of_line_member_returning_function_pointer_sees_its_class_members() -> None:
    source = (
        "struct S { long m; void (*get(int n))(int); };\n"
        f"void (*S::get(int n))(int) {{\n  unsigned out = 0;\n  {_asm('m')}\n  return 0;\n}}\n"
    )
    assert shape(resolve(source, "m")) == ("long", "integer", 8)


def _size_findings(source: str) -> list[str]:
    return [f.message for f in lint_text(source, select=("PTX004",))]


def test_wide_init_variable_with_32_bit_constraint_is_reported() -> None:
    source = "#include <cstdint>\n" + _kernel(
        f"if (uint64_t x = f(); x > 0) {{ {_asm('x')} }}"
    )
    messages = _size_findings(source)
    assert len(messages) == 1 and "(x)" in messages[0] and "8 bytes" in messages[0]


def test_narrow_init_variable_shadowing_a_wide_one_is_not_reported() -> None:
    source = "#include <cstdint>\n" + _kernel(
        f"uint64_t x = f();\nif (uint32_t x = f(); x > 0) {{ {_asm('x')} }}"
    )
    assert _size_findings(source) == []


def test_wide_parameter_of_function_returning_function_pointer_is_reported() -> None:
    source = (
        "#include <cstdint>\n"
        f"__device__ void (*get(uint64_t n))(int) {{\n  unsigned out = 0;\n  {_asm('n')}\n"
        "  return 0;\n}\n"
    )
    messages = _size_findings(source)
    assert len(messages) == 1 and "(n)" in messages[0] and "8 bytes" in messages[0]


# `#if` branches that each open a kernel's parameter list (flashinfer's quantization
# kernels): the parse recovers with an error node before the declarator in parentheses
_LAUNCH_BOUNDS_IF = (
    "__global__ void\n#if defined(__CUDA_ARCH__)\n__launch_bounds__(512, 4) get(\n#else\n"
    "get(\n#endif\n    {params})"
)


def test_wide_parameter_of_a_kernel_whose_list_opens_in_if_branches_is_reported() -> None:
    source = "#include <cstdint>\n" + _LAUNCH_BOUNDS_IF.format(params="uint64_t n") + (
        f" {{\n  unsigned out = 0;\n  {_asm('n')}\n}}\n"
    )
    messages = _size_findings(source)
    assert len(messages) == 1 and "(n)" in messages[0] and "8 bytes" in messages[0]


@pytest.mark.parametrize(
    ("source", "parameters"),
    [
        ("struct S { operator long*() noexcept { return 0; } };", "()"),
        ("void (*get(short n))(int) { return 0; }", "(short n)"),
        ("void NAME(get)(long n) { }", "(long n)"),
        ("auto l = [](char c) -> int (*)(int) { return 0; };", "(char c)"),
        ("int& get(short n) { return r; }", "(short n)"),
        ("void (&get(short n))(int) { return g; }", "(short n)"),
        (_LAUNCH_BOUNDS_IF.format(params="short n") + " {\n  int k = 0;\n}\n",
         "(\n#endif\n    short n)"),
    ],
)
def test_own_parameter_list_is_found_under_every_function_declarator_shape(
    source: str, parameters: str
) -> None:
    data = source.encode()
    root = _PARSER.parse(data).root_node
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in ("function_definition", "lambda_expression"):
            break
        stack.extend(node.children)
    own = own_function_declarator(node.child_by_field_name("declarator"))
    assert own is not None
    params = own.child_by_field_name("parameters")
    assert params is not None and params.text == parameters.encode()
