"""Specifier macros left out of the parse: which macros are such (``cxx.specifier_macros``),
which of their uses stand before a declaration (``frontends.specifier_uses``), and the tree
and the readers of a function's header with them left out (``syntax_tree.parse``)."""

from __future__ import annotations

import os

import pytest

from ptxlint.analysis.latent import emission
from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx import companion
from ptxlint.frontends.cxx.macros import MacroTable
from ptxlint.frontends.cxx.specifier_macros import SpecifierMacros
from ptxlint.frontends.specifier_uses import specifier_uses
from ptxlint.frontends.syntax_tree import left_out_after_edit, own_function_name, parse
from ptxlint.model import SourceFile

_ARRIVE = 'asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(addr));'

# Member functions defined out of their class after two specifier macros, in an include guard:
# tree-sitter reads the macros as two type names, and its recovery makes the first two
# definitions an error spanning lines and names the third ``INLINE void half::arrive``.
HALF = f"""#define MY_HOST_DEVICE __forceinline__ __device__ __host__
#define MY_DEVICE __forceinline__ __device__
#define INLINE inline
#if !defined(HALF_HPP)
#define HALF_HPP
MY_HOST_DEVICE INLINE half::operator signed char() const {{ return static_cast<signed char>(x); }}
MY_HOST_DEVICE INLINE half::operator unsigned char() const {{ return static_cast<unsigned char>(x); }}
MY_DEVICE INLINE void half::arrive(unsigned addr) const {{
  {_ARRIVE}
}}
#endif
"""

# A constructor after a specifier macro (read as a declaration of type ``MY_DEVICE`` with a bit
# field) and a pragma macro before a loop: errors within a line, the declarations around whole.
PIPELINE = f"""#define MY_DEVICE __forceinline__ __device__
#define MY_PRAGMA_UNROLL _Pragma("unroll")
struct Pipeline {{
  unsigned phase_;
  MY_DEVICE
  Pipeline(unsigned p) : phase_(p) {{}}

  MY_DEVICE
  void wait(unsigned addr) {{
    MY_PRAGMA_UNROLL
    for (int i = 0; i < 2; ++i) {{
      {_ARRIVE}
    }}
  }}
}};
"""


def _judge(path: str, text: str) -> SpecifierMacros:
    return SpecifierMacros(lambda: MacroTable(path, text))


def _function_names(parsed_text: str, judged: bool) -> list[str]:
    parsed = parse("k.cu", parsed_text, _judge("k.cu", parsed_text) if judged else None)
    names: list[str] = []
    stack = [parsed.tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "function_definition" and (name := own_function_name(node)):
            names.append(parsed.node_text(name))
        stack.extend(node.children)
    return sorted(names)


# ------------------------------------------------------------------ which uses


def test_only_uses_where_declaration_specifiers_may_stand_are_found() -> None:
    text = (
        "#ifdef SPEC\n"  # a directive
        "SPEC void f();\n"  # before a declaration: found
        "// SPEC void g();\n"  # a comment
        'const char* s = "SPEC int x";\n'  # a literal
        "int y = SPEC;\n"  # an operand
        "int z = call(SPEC);\n"  # an argument
        "template <class T> SPEC SPEC T h();\n"  # after a template head, twice: found
        "struct S { public: SPEC ~S(); };\n"  # after an access specifier: found
        "#endif\n"
    )
    uses = specifier_uses(text, lambda name, _: name == "SPEC")
    found = [(text[a:b], text.count("\n", 0, a)) for a, b in uses]
    assert found == [("SPEC", 1), ("SPEC", 6), ("SPEC", 6), ("SPEC", 7)]


def test_a_name_the_judge_refuses_is_never_left_out() -> None:
    text = "SPEC void f();\nOTHER void g();\n"
    found = specifier_uses(text, lambda name, _: name == "OTHER")
    assert [text[a:b] for a, b in found] == ["OTHER"]


# ------------------------------------------------------------------ which macros


_DEFINES = """#define DEV __forceinline__ __device__
#define TYPED static inline void
#define CALLED(x) __device__
#define EMPTY
#define NESTED DEV __attribute__((always_inline)) [[nodiscard]]
#if defined(A)
#define SPLIT __device__
#else
#define SPLIT int
#endif
#define PRAGMA _Pragma("unroll")
#define HASH_PRAGMA #pragma unroll
#define NUMBER 4
"""


@pytest.mark.parametrize(("name", "expected"), [
    ("DEV", True), ("TYPED", False), ("CALLED", False), ("EMPTY", True), ("NESTED", True),
    ("SPLIT", False), ("PRAGMA", True), ("HASH_PRAGMA", True), ("NUMBER", False),
    ("UNDEFINED", False),
])
def test_a_macro_is_a_specifier_macro_where_each_definition_is_specifiers_only(
    name: str, expected: bool
) -> None:
    assert _judge("k.cu", _DEFINES)(name, len(_DEFINES)) is expected


def test_a_name_undefined_before_the_use_is_no_specifier_macro() -> None:
    text = "#define DEV __device__\n#undef DEV\n"
    judge = _judge("k.cu", text)
    assert judge("DEV", text.index("#undef")) is True
    assert judge("DEV", len(text)) is False


def test_a_second_half_reads_its_companions_specifier_macros(tmp_path: os.PathLike[str]) -> None:
    folder = str(tmp_path)
    with open(os.path.join(folder, "half.h"), "w") as f:
        f.write('#define HD __host__ __device__\n#include "half.hpp"\n')
    half = "HD int twice(int x) { return 2 * x; }\n"
    path = os.path.join(folder, "half.hpp")
    with open(path, "w") as f:
        f.write(half)
    companion.forget()
    try:
        assert _judge(path, half)("HD", 0) is True
    finally:
        companion.forget()


# ------------------------------------------------------------------ the tree


def test_the_parse_leaves_out_specifier_macros_where_the_tree_errs_at_them() -> None:
    plain = parse("k.cu", HALF)
    judged = parse("k.cu", HALF, _judge("k.cu", HALF))
    assert plain.tree.root_node.has_error  # the case is real
    assert not judged.tree.root_node.has_error
    assert [HALF[a:b] for a, b in judged.specifier_uses] == ["MY_HOST_DEVICE", "INLINE"] * 2 + [
        "MY_DEVICE", "INLINE"]
    assert _function_names(HALF, judged=False) == ["INLINE void half::arrive"]
    assert _function_names(HALF, judged=True) == [
        "half::arrive", "half::operator signed char() const",
        "half::operator unsigned char() const"]


def test_a_tree_whose_errors_stay_within_lines_is_kept_as_it_is() -> None:
    parsed = parse("k.cu", PIPELINE, _judge("k.cu", PIPELINE))
    assert parsed.tree.root_node.has_error  # the case is real
    assert parsed.specifier_uses == () and parsed.skipped == ()


def test_a_tree_whose_errors_lie_away_from_specifier_macros_is_kept_as_it_is() -> None:
    text = HALF.replace("#define ", "#define NOT_")  # its macros defined nowhere
    parsed = parse("k.cu", text, _judge("k.cu", text))
    assert parsed.tree.root_node.has_error  # the case is real
    assert parsed.specifier_uses == ()


def test_a_functions_header_starts_at_the_specifier_macros_left_out_before_it() -> None:
    parsed = parse("k.cu", HALF, _judge("k.cu", HALF))
    arrive = HALF.index("void half::arrive")
    macros = HALF.rindex("MY_DEVICE", 0, arrive)
    assert parsed.header_start(arrive) == macros
    assert parsed.header_start(macros) == macros  # nothing left out before it


def test_the_statement_keeps_its_function_and_device_specifiers() -> None:
    result = extract_statements(SourceFile("k.cu", HALF))
    (statement,) = result.statements
    assert result.parsed.specifier_uses  # the case is real
    assert statement.context.function == "half::arrive"
    assert "__device__" in statement.context.function_specifiers
    found = emission(statement, result.parsed)
    assert found is not None and found.macro_words  # the header's macros, read from the text


def test_an_edit_inside_a_literal_leaves_out_what_a_fresh_parse_does() -> None:
    old = parse("k.cu", HALF, _judge("k.cu", HALF))
    at = HALF.index("mbarrier.arrive")
    edited = HALF[:at] + "  " + HALF[at:]
    fresh = parse("k.cu", edited, _judge("k.cu", edited))
    skipped, uses = left_out_after_edit(old, edited.encode())
    assert (skipped, uses) == (fresh.skipped, fresh.specifier_uses)
    assert uses  # the case is real


def test_a_libraries_specifier_macro_is_one_where_no_definition_is_visible() -> None:
    assert _judge("k.cu", "")("CUTLASS_DEVICE", 0) is True
    assert _judge("k.cu", "")("MY_DEVICE", 0) is False
    undefined = "#undef CUTLASS_DEVICE\n"  # the file says it is no macro here
    assert _judge("k.cu", undefined)("CUTLASS_DEVICE", len(undefined)) is False
    typed = "#define CUTLASS_DEVICE int\n"  # the file's own meaning wins
    assert _judge("k.cu", typed)("CUTLASS_DEVICE", len(typed)) is False
