"""PTX401 under ``--arch`` reads the arms of ``if constexpr`` as a choice each instantiation
makes (``analysis.discarded_arms``): an arm is judged where every arm an instantiation may
keep fails for the target, as the branches of an undecided ``#if`` are."""

from __future__ import annotations

from ptxlint.config import Config, arch_fields, merge_cli
from ptxlint.rule import RuleContext
from tests.conftest import lint_text

CP_ASYNC = 'asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(s), "l"(g));'
CP_ASYNC_CG = 'asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s), "l"(g));'
LDMATRIX = 'asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(s));'
HEAD = "#include <type_traits>\nstruct half; struct bf16;\n"


def _lines(source: str, arch: str = "sm_75") -> list[int]:
    context = RuleContext(**arch_fields(merge_cli(Config(), arch=[arch]).arch))
    text = HEAD + source
    found = lint_text(text, select=("PTX401",), context=context)
    return sorted(text.count("\n", 0, f.span.start) + 1 for f in found)


def _line_of(source: str, text: str, nth: int = 1) -> int:
    lines = (HEAD + source).splitlines()
    return [i + 1 for i, line in enumerate(lines) if text in line][nth - 1]


def _two_arms(first: str, second: str, name: str = "f") -> str:
    """A template whose body is one ``if constexpr`` with ``first`` and ``second`` as arms."""
    return f"""template <bool A>
__device__ void {name}(unsigned s, const void* g) {{
  unsigned r;
  if constexpr (A) {{
    {first}
  }} else {{
    {second}
  }}
}}
"""


def test_an_arm_beside_one_that_compiles_is_silent() -> None:
    # the bf16 arm is compiled only where the template is instantiated for bf16
    source = f"""template <typename T>
__device__ void f(unsigned s, const void* g) {{
  unsigned r;
  if constexpr (std::is_same<T, half>::value) {{
    {LDMATRIX}
  }} else if constexpr (std::is_same<T, bf16>::value) {{
    {CP_ASYNC}
  }}
}}
"""
    assert _lines(source) == []


def test_every_arm_failing_is_reported_with_the_choice_named() -> None:
    source = _two_arms(CP_ASYNC, CP_ASYNC_CG)
    assert _lines(source) == [_line_of(source, "cp.async.ca"), _line_of(source, "cp.async.cg")]
    context = RuleContext(**arch_fields(merge_cli(Config(), arch=["sm_75"]).arch))
    found = lint_text(HEAD + source, select=("PTX401",), context=context)
    assert all("offers no arm that builds in its place" in f.message for f in found)


def test_an_arm_of_only_static_asserts_is_no_way_out() -> None:
    source = f"""template <int N>
__device__ void f(unsigned s, const void* g) {{
  if constexpr (N == 1) {{
    {CP_ASYNC}
  }} else if constexpr (N == 2) {{
    {CP_ASYNC_CG}
  }} else {{
    static_assert(N >= 1 && N <= 2);
  }}
}}
"""
    assert len(_lines(source)) == 2


def test_a_missing_or_empty_else_is_no_alternative() -> None:
    # the template exists to emit the asm: the arm is judged as if it stood alone
    source = f"""template <bool A>
__device__ void f(unsigned s, const void* g) {{
  if constexpr (A) {{
    {CP_ASYNC}
  }}
}}
"""
    assert len(_lines(source)) == 1
    empty = source.replace("  }\n}", "  } else { ; }\n}")
    assert "else { ; }" in empty and len(_lines(empty)) == 1
    # an else with code of its own is an alternative
    fallback = source.replace("  }\n}", "  } else {\n    s = 0;\n  }\n}")
    assert "s = 0" in fallback and _lines(fallback) == []


def test_arms_failing_for_different_needs_fail_alike() -> None:
    wgmma = 'asm volatile("wgmma.fence.sync.aligned;" ::: "memory");'
    source = _two_arms(CP_ASYNC, wgmma)
    assert len(_lines(source)) == 2
    # for sm_80 only the wgmma arm fails; its twin compiles
    assert _lines(source, "sm_80") == []


def test_arms_of_two_functions_are_two_choices() -> None:
    # the same words in two templates: each is instantiated with its own arguments
    source = _two_arms(CP_ASYNC, LDMATRIX) + _two_arms(LDMATRIX, CP_ASYNC_CG, "h")
    assert _lines(source) == []


def test_a_target_with_the_feature_is_silent_either_way() -> None:
    source = _two_arms(CP_ASYNC, CP_ASYNC_CG)
    assert _lines(source, "sm_80") == []


def test_an_undecided_guard_and_an_arm_combine() -> None:
    # #ifdef PIPELINED: an arm that fails; #else: a statement that fails; the arm's twin
    # compiles. A build without PIPELINED fails; one with it fails only if it keeps the arm
    source = f"""template <bool A>
__device__ void f(unsigned s, const void* g) {{
  unsigned r;
#ifdef PIPELINED
  if constexpr (A) {{
    {CP_ASYNC}
  }} else {{
    {LDMATRIX}
  }}
#else
  {CP_ASYNC_CG}
#endif
}}
"""
    assert _lines(source) == []
    both = source.replace(LDMATRIX, CP_ASYNC.replace(".ca.", ".cg."))
    assert len(_lines(both)) == 3


def test_a_static_assert_that_checks_arguments_refuses_nothing() -> None:
    # an if constexpr around only a check, beside the dispatch: not one of its choices
    source = f"""template <typename T, bool F>
__device__ void f(unsigned s, const void* g) {{
  unsigned r;
  if constexpr (!std::is_same<T, half>::value) {{
    static_assert(!F);
  }}
  if constexpr (std::is_same<T, half>::value) {{
    {LDMATRIX}
  }} else if constexpr (std::is_same<T, bf16>::value) {{
    {CP_ASYNC}
  }}
}}
"""
    assert _lines(source) == []


def test_many_nested_arms_are_all_read() -> None:
    # eight conditions: every combination keeps one failing arm or refuses the arguments
    arms = "".join(f"  {'else ' if k else ''}if constexpr (N == {k}) {{\n    {CP_ASYNC}\n  }}\n"
                   for k in range(8))
    source = (f"template <int N>\n__device__ void f(unsigned s, const void* g) {{\n{arms}"
              "  else {\n    static_assert(N < 8);\n  }\n}\n")
    assert len(_lines(source)) == 8
    assert _lines(source.replace("static_assert(N < 8);", "s = 0;")) == []
