"""An operand that invokes a function-like macro has the type of its expansion
(``frontends/cxx/macro_operands``): the file's own macros, its headers', and, for the second
half of a header (``cuda_bf16.hpp``, included at the end of ``cuda_bf16.h``), its
companion's at the ``#include`` (``frontends/cxx/companion``)."""

from __future__ import annotations

import json

from ptxlint.cli import main
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from tests.conftest import lint_text

AS_US = "#define AS_US(v) *(reinterpret_cast<unsigned short *>(&(v)))\n"
RAW = "struct __align__(2) raw { unsigned short x; };\n"


def _use(letter: str, operand: str = "AS_US(h)") -> str:
    return (
        "__device__ void f(raw h) {\n"
        f'  asm("mov.b16 %0, %0;" : "+{letter}"({operand}));\n'
        "}\n"
    )


def _types(text: str, path: str = "k.cu") -> list[str | None]:
    statements = extract_statements(SourceFile(path, text)).statements
    return [
        None if o.ctype is None else o.ctype.spelling for s in statements for o in s.operands
    ]


def _ptx004(text: str, path: str = "k.cu") -> list[str]:
    return [f.rule for f in lint_text(text, path, select=("PTX004",))]


def test_own_macro_invocation_has_its_expansions_type() -> None:
    assert _types(RAW + AS_US + _use("h")) == ["unsigned short"]


def test_own_macro_invocation_under_r_is_flagged() -> None:
    # nvcc 13: "asm operand type size(2) does not match type/size implied by constraint 'r'"
    assert _ptx004(RAW + AS_US + _use("r")) == ["PTX004"]


def test_own_macro_invocation_under_h_is_clean() -> None:
    assert _ptx004(RAW + AS_US + _use("h")) == []


def test_the_arguments_are_typed_where_the_invocation_is() -> None:
    text = "#define ID(x) (x)\n__device__ void f(float g) {\n" \
        '  asm("mov.b32 %0, %0;" : "+f"(ID(g)));\n}\n'
    assert _types(text) == ["float"]


def test_the_definition_in_force_at_each_invocation_decides() -> None:
    one = "#define ID(x) (x)\n__device__ void f(float g) {\n" \
        '  asm("mov.b32 %0, %0;" : "+f"(ID(g)));\n}\n'
    two = "#undef ID\n#define ID(x) (int)(x)\n__device__ void k(float g) {\n" \
        '  asm("mov.b32 %0, %0;" : "+r"(ID(g)));\n}\n'
    assert _types(one + two) == ["float", "int"]


def test_a_macro_defined_differently_under_if_arms_stays_unknown() -> None:
    text = RAW + "#if A\n" + AS_US + "#else\n#define AS_US(v) (v).x\n#endif\n" + _use("h")
    assert _types(text) == [None]


def test_an_unknown_name_called_stays_unknown() -> None:
    assert _types(RAW + _use("h", "TO_US(h)")) == [None]


def test_a_macro_in_a_define_body_stays_unknown() -> None:
    # the macro in force is the one where the outer macro expands, not where it is defined
    text = RAW + AS_US + '#define OUT(h) asm("mov.b16 %0, %0;" : "+h"(AS_US(h)))\n'
    assert _types(text) == [None]


# --------------------------------------------------------------------------- companions

COMPANION = "#pragma once\n" + RAW + AS_US + '#include "half.hpp"\n#undef AS_US\n'


def _half(tmp_path, companion: str, half: str) -> str:
    """The path of ``half.hpp``, written with ``half`` beside ``half.h`` (``companion``)."""
    (tmp_path / "half.h").write_text(companion)
    (tmp_path / "half.hpp").write_text(half)
    return str(tmp_path / "half.hpp")


def test_a_second_half_reads_its_companions_macros(tmp_path) -> None:
    assert _types(_use("h"), _half(tmp_path, COMPANION, _use("h"))) == ["unsigned short"]


def test_a_second_half_under_r_is_flagged_and_under_h_clean(tmp_path) -> None:
    assert _ptx004(_use("r"), _half(tmp_path, COMPANION, _use("r"))) == ["PTX004"]
    assert _ptx004(_use("h"), _half(tmp_path, COMPANION, _use("h"))) == []


def test_a_header_no_companion_includes_stays_unknown(tmp_path) -> None:
    other = COMPANION.replace('"half.hpp"', '"other.hpp"')
    assert _types(_use("h"), _half(tmp_path, other, _use("h"))) == [None]


def test_a_name_the_half_undefines_first_stays_unknown(tmp_path) -> None:
    text = "#undef AS_US\n" + _use("h")
    assert _types(text, _half(tmp_path, COMPANION, text)) == [None]


def test_a_companion_that_includes_it_twice_is_none(tmp_path) -> None:
    twice = COMPANION.replace('#include "half.hpp"\n', '#include "half.hpp"\n' * 2)
    assert _types(_use("h"), _half(tmp_path, twice, _use("h"))) == [None]


def test_editing_the_companion_invalidates_the_cached_result(
    tmp_path, capsys, cache_dir, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "half.h").write_text(COMPANION)
    (tmp_path / "half.hpp").write_text(_use("r"))

    def rules() -> list[str]:
        main(["check", "half.hpp", "--select", "PTX004", "--format", "json",
              "--no-compile-commands", "--fail-on", "never"])
        return [f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]]

    assert rules() == ["PTX004"]
    # a 32-bit result now: the same operand fits "r"
    (tmp_path / "half.h").write_text(COMPANION.replace("unsigned short *", "unsigned int *  "))
    assert rules() == []
