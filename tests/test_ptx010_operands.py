"""PTX010 on a statement of several "n" operands: each is judged on its own (a built-in, a
parameter, a template parameter, a constant), the function's facts read for those that name a
variable."""

from __future__ import annotations

import pytest

from ptxlint.analysis.operand_names import evaluated_names, names_variables
from tests.conftest import lint_text

_BUILTINS = ("threadIdx.x", "blockIdx.y", "blockDim.z", "gridDim.x", "clusterIdx.x",
             "clusterDim.y", "warpSize")


@pytest.mark.parametrize("builtin", _BUILTINS)
def test_every_builtin_is_reported_as_known_only_at_run_time(builtin: str) -> None:
    text = f'__device__ void f() {{ asm volatile("bar.sync %0;" :: "n"({builtin} / 32)); }}\n'
    messages = [f.message for f in lint_text(text, select=("PTX010",))]
    assert len(messages) == 1 and f"uses '{builtin.split('.')[0]}'" in messages[0]


@pytest.mark.parametrize("builtin", _BUILTINS)
def test_a_builtin_inside_sizeof_is_a_constant(builtin: str) -> None:
    text = f'__device__ void f() {{ asm volatile("bar.sync %0;" :: "n"(sizeof({builtin}))); }}\n'
    assert lint_text(text, select=("PTX010",)) == []


@pytest.mark.parametrize(("expression", "builtin"), [
    ("threadIdx.x + sizeof(float)", "threadIdx"),  # sizeof's operand alone is unevaluated
    ("alignof(float) * warpSize", "warpSize"),
    ("::blockDim.x / 32", "blockDim"),  # the global scope's name is the built-in
    ("4 /* not threadIdx.x */", None),  # a comment
    ("Cfg::blockDim", None),  # another scope's name
    ("sizeof(threadIdx) / 4", None),
])
def test_a_builtin_is_reported_where_it_is_evaluated(expression: str,
                                                     builtin: str | None) -> None:
    text = ('template <class Cfg> __device__ void f() {\n'
            f'  asm volatile("bar.sync %0;" :: "n"({expression}));\n}}\n')
    messages = [f.message for f in lint_text(text, select=("PTX010",))]
    assert messages == ([] if builtin is None else [
        f'"n" operand 0 ({expression}) uses \'{builtin}\', which is only known at run time; '
        "pass it in a register ('r') instead"])


def test_each_n_operand_of_a_statement_is_judged_on_its_own() -> None:
    text = (
        "template <int kScale>\n"
        "__device__ void f(int stages, float* p) {\n"
        "  const int local = stages + 1;\n"
        "  constexpr int kept = 4;\n"
        '  asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, %1; }"\n'
        '               :: "n"(kScale), "n"(stages), "n"(kept), "n"(local), "n"(threadIdx.x),\n'
        '                  "n"(int(kScale) + 1), "n"(16));\n'
        "}\n"
    )
    found = {f.message.split(" ")[2]: f.message for f in lint_text(text, select=("PTX010",))}
    assert sorted(found) == ["1", "3", "4"], found
    assert "a function parameter" in found["1"]
    assert "const local initialised from a function parameter 'stages'" in found["3"]
    assert "uses 'threadIdx'" in found["4"]


def test_an_n_output_is_ptx006_s_and_an_n_input_is_judged() -> None:
    """An output under "n" is one defect, the letter (PTX006: an output needs a register);
    PTX010 judges the "n" input alone."""
    text = (
        "__device__ void f(int stages) {\n"
        "  int x = 0;\n"
        '  asm volatile("mov.u32 %0, %1;" : "=n"(x) : "n"(stages));\n'
        "}\n"
    )
    found = sorted(f.message.split(" ")[2] for f in lint_text(text, select=("PTX010",)))
    assert found == ["1"]
    assert [f.rule for f in lint_text(text, select=("PTX006",))] == ["PTX006"]


@pytest.mark.parametrize(("expression", "names"), [
    ("sizeof(T)", ()),
    ("N * sizeof(int32_t)", ("N",)),
    ("alignof(T) + decltype(k){}", ()),
    ("(int32_t)k + uint32_t{j}", ("k", "j")),
    ("(float)f + (double)(d)", ("f", "d")),
    ("int32_t(scale)", ("scale",)),
    # where the words of the text were read: a hex literal's digits, a function named with
    # template arguments, the right of a `<`, a comment
    ("0x0000ffff", ()),
    ("Cfg::kTile + f<N>(k)", ("k",)),
    ("N < kMax ? N : kMax", ("N", "kMax", "N", "kMax")),
    ("k /* stages */", ("k",)),
])
def test_a_type_or_an_unevaluated_operator_is_never_looked_up_as_a_variable(
    expression: str, names: tuple[str, ...]
) -> None:
    # `(int32_t)k`: a type in a cast (a variable of that name would not parse there);
    # `sizeof`, `float`: keywords, which no declaration names
    assert evaluated_names(expression) == names
    assert names_variables(expression) is bool(names)


def test_a_hex_literal_is_no_name_even_where_a_parameter_spells_its_digits() -> None:
    text = '__device__ void f(int xffff) { asm volatile("bar.sync %0;" :: "n"(0xffff)); }\n'
    assert lint_text(text, select=("PTX010",)) == []


def test_a_parameter_cast_to_a_fixed_width_type_is_reported_and_the_type_is_not() -> None:
    text = (
        "#include <cstdint>\n"
        "__device__ void f(int stages) {\n"
        '  asm volatile("bar.sync %0;" :: "n"((int32_t)stages + sizeof(int32_t)));\n'
        "}\n"
    )
    [message] = [f.message for f in lint_text(text, select=("PTX010",))]
    assert "uses 'stages', a function parameter" in message
