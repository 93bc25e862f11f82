"""A declaration that opens a macro's argument of statements (the CUDA headers'
``NV_IF_TARGET(NV_PROVIDES_SM_80, unsigned v; asm(... : "=r"(v)); ...)``) types the names
of that argument: tree-sitter reads it as the last parameter of a call it cannot close, and
the macro pastes the argument as statements. Its scope ends with the argument (the next
``,`` or ``)`` outside parentheses): past that the name is another declaration's, or unknown.
"""

from __future__ import annotations

from ptxlint.frontends.cxx.declaration_index import argument_end
from tests.conftest import lint_text
from tests.test_types import resolver_for, shape

UNSIGNED_SHORT = ("unsigned short", "integer", 2)
FLOAT = ("float", "floating", 4)


def _types(source: str, expression: str) -> list[tuple[str, str, int | None] | None]:
    """The type of each ``(expression)`` operand of ``source``, in text order."""
    resolver = resolver_for(source)
    found = []
    at = source.find(f"({expression})")
    while at >= 0:
        found.append(shape(resolver.resolve(expression, at + 1)))
        at = source.find(f"({expression})", at + 1)
    return found


def _first_in_argument(letter: str) -> str:
    return (
        "__device__ unsigned short f() {\n"
        "  NV_IF_TARGET(NV_PROVIDES_SM_80,\n"
        "    unsigned short v;\n"
        f'    asm("mov.b16 %0, 1;" : "={letter}"(v));\n'
        "    return v;\n"
        "  )\n"
        "  return 0;\n"
        "}\n"
    )


def test_first_declaration_of_a_macro_argument_types_its_names() -> None:
    assert _types(_first_in_argument("h"), "v") == [UNSIGNED_SHORT]


def test_sixteen_bit_local_of_a_macro_argument_under_r_is_flagged() -> None:
    # nvcc 13: "asm operand type size(2) does not match type/size implied by constraint 'r'"
    findings = lint_text(_first_in_argument("r"), select=("PTX004",))
    assert [f.rule for f in findings] == ["PTX004"]


def test_sixteen_bit_local_of_a_macro_argument_under_h_is_clean() -> None:
    assert lint_text(_first_in_argument("h"), select=("PTX004",)) == []


def test_a_name_past_the_macro_call_stays_unknown() -> None:
    # the argument's block ends with the call: no declaration of ``w`` is in scope after it
    source = (
        "__device__ void f() {\n"
        "  NV_IF_TARGET(NV_PROVIDES_SM_80,\n"
        "    float w;\n"
        '    asm("mov.b32 %0, 1;" : "=f"(w));\n'
        "  )\n"
        '  asm("mov.b32 %0, 1;" : "=r"(w));\n'
        "}\n"
    )
    assert _types(source, "w") == [FLOAT, None]


def test_the_next_argument_sees_the_outer_declaration() -> None:
    # NV_IF_ELSE_TARGET's second argument is another block: its ``v`` is the function's
    source = (
        "__device__ unsigned f() {\n"
        "  unsigned v = 0;\n"
        "  NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,\n"
        "    float v;\n"
        '    asm("mov.b32 %0, 1;" : "=f"(v));\n'
        "  ,\n"
        '    asm("mov.b32 %0, 1;" : "=r"(v));\n'
        "  )\n"
        "  return v;\n"
        "}\n"
    )
    # the first: two declarations of ``v`` the tree shows in one block, left unknown
    assert _types(source, "v") == [None, ("unsigned int", "integer", 4)]


def test_a_parameter_list_in_a_call_declares_nothing() -> None:
    # ``g(int n)`` closed: a declaration of a function, no macro argument left open
    source = (
        "__device__ void f() {\n"
        "  void g(int n);\n"
        '  asm("mov.b32 %0, 1;" : "=r"(n));\n'
        "}\n"
    )
    assert _types(source, "n") == [None]


def test_argument_end_splits_as_the_preprocessor_does() -> None:
    text = b'int v; asm("a,b" : "=r"(v)); { int x, y; } ,rest)'
    assert text[: argument_end(text, 0)].endswith(b"{ int x")  # braces do not group
    text = b"f(a, b) ',' /* , */ // ,\n x) tail"
    assert text[: argument_end(text, 0)] == b"f(a, b) ',' /* , */ // ,\n x"
    assert argument_end(b"int x = 1'000, y", 0) == len(b"int x = 1'000")
    assert argument_end(b'auto s = R"(,)"; ,', 0) is None  # a raw string: not sought
    assert argument_end(b"int v; no end", 0) is None
