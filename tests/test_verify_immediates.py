"""The value an ``"n"`` operand takes from a ``#define``: the one the macro table says is in
force at the statement, so that a definition in a comment, under ``#if 0`` or after an
``#undef`` gives none, and each alternative of an ``#if``/``#else`` gives its own."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.verify import immediates
from ptxlint.verify.immediates import values

USE = """
__device__ void copy(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], %2;" :: "r"(dst), "l"(src), "n"(kBytes));
}
"""


def _values(text: str, path: str = "t.cu") -> tuple[int, ...]:
    [statement] = extract_statements(SourceFile(path, text)).statements
    return values(statement, statement.operands[2])


@pytest.mark.parametrize(("before", "found"), [
    ("#define kBytes 16\n", (16,)),
    ("#define kBytes (4 * 4) // bytes\n", (16,)),  # a trailing comment is no part of it
    ("/*\n#define kBytes 8\n*/\n", ()),
    ("#if 0\n#define kBytes 8\n#endif\n", ()),
    ("#define kBytes 8\n#undef kBytes\n", ()),
    ("#ifdef WIDE\n#define kBytes 16\n#else\n#define kBytes 8\n#endif\n", (16, 8)),
    # a macro hides the C++ constant it spells
    ("constexpr int kBytes = 4;\n#define kBytes 16\n", (16,)),
])
def test_a_define_gives_its_value_where_it_is_in_force(before: str, found: tuple[int, ...]
                                                       ) -> None:
    assert _values(before + USE) == found


def test_a_define_after_the_statement_gives_none() -> None:
    assert _values(USE + "#define kBytes 16\n") == ()


def test_a_define_of_an_own_header_gives_its_value(tmp_path: Path) -> None:
    (tmp_path / "sizes.h").write_text("#pragma once\n#define kBytes 16\n")
    assert _values('#include "sizes.h"\n' + USE, str(tmp_path / "k.cu")) == (16,)


def test_a_function_like_macro_leaves_the_name_to_cxx() -> None:
    assert _values("#define kBytes(x) x\nconstexpr int kBytes = 8;\n" + USE) == (8,)


def test_a_python_comment_spelled_like_a_define_gives_no_value() -> None:
    kernel = (
        "import triton\nimport triton.language as tl\n\n"
        "# define SHIFT 3\n"
        "@triton.jit\n"
        "def k(X, Y, SHIFT: tl.constexpr):\n"
        "    x = tl.load(X + tl.arange(0, 128))\n"
        "    y = tl.inline_asm_elementwise('shl.b32 $0, $1, $2;', '=r,r,n', [x, SHIFT],\n"
        "                                  dtype=tl.int32, is_pure=True, pack=1)\n"
    )
    [statement] = extract_statements(SourceFile("k.py", kernel)).statements
    [shift] = [o for o in statement.operands if o.expression == "SHIFT"]
    assert values(statement, shift) == ()


@pytest.mark.parametrize(("before", "found"), [
    ("constexpr int kBytes = 16;\n", (16,)),
    ("// constexpr int kBytes = 8;\nconstexpr int kBytes = 16;\n", (16,)),
    ("/*\nconstexpr int kBytes = 8;\n*/\n", ()),
    ("#if 0\nconstexpr int kBytes = 8;\n#endif\n", ()),
    ('const char* s = "const int kBytes = 8;";\n', ()),
    ("enum { kBytes = 16 /* bytes */ };\n", (16,)),
    ("enum { kWords = 4, /* kBytes = 8, */ kLast };\n", ()),
])
def test_a_cxx_constant_gives_its_value_where_the_compiler_sees_it(
        before: str, found: tuple[int, ...]) -> None:
    assert _values(before + USE) == found


def test_a_static_assert_in_a_comment_gives_no_value() -> None:
    text = ("template <int kBytes>\n__device__ void copy(unsigned dst, const void* src) {\n"
            "  // static_assert(kBytes == 8, \"\");\n"
            "  static_assert(kBytes == 16, \"\");\n"
            '  asm volatile("cp.async.cg.shared.global [%0], [%1], %2;" '
            ':: "r"(dst), "l"(src), "n"(kBytes));\n}\n')
    assert _values(text) == (16,)


def test_a_call_in_a_comment_or_under_if_0_instantiates_nothing() -> None:
    text = ("template <int kBytes>\n__device__ void copy(unsigned dst, const void* src) {\n"
            '  asm volatile("cp.async.cg.shared.global [%0], [%1], %2;" '
            ':: "r"(dst), "l"(src), "n"(kBytes));\n}\n'
            "__global__ void k(unsigned d, const float* s) {\n"
            "  copy<16>(d, s);\n"
            "  // copy<8>(d, s);\n"
            "#if 0\n  copy<4>(d, s);\n#endif\n"
            "}\n")
    assert _values(text) == (16,)


# (expression, the value nvcc 13.0 writes into the PTX for it as an "n" operand)
C_VALUES = [
    ("-7 / 2", -3),  # truncation toward zero
    ("-7 % 2", -1),  # the sign of the dividend, not Python's floored remainder
    ("7 % -2", 1),
    ("0x3fffffffffffffffll / 3", 1537228672809129301),  # exact, not through a float
    ("~0", -1),
    ("017", 15),  # octal
    ("(1 < 2) + (3 == 3) + !0", 3),
    ("-8 >> 1", -4),
    ("kBytes * 4u", 64),
    ("5 - 8u", -3),  # unsigned: 4294967293, written as a signed 32-bit number
    ("1ull << 63", -(1 << 63)),
]


def _operand(expression: str) -> str:
    return USE.replace('"n"(kBytes)', f'"n"({expression})')


@pytest.mark.parametrize(("expression", "found"), C_VALUES)
def test_a_cxx_expression_is_valued_with_cs_integer_rules(expression: str, found: int) -> None:
    assert _values("#define kBytes 16\n" + _operand(expression)) == (found,)


@pytest.mark.parametrize("expression", ["-1u / 2", "(0 - 7u) % 10", "-kBytes / 3u",
                                        "~0u >> 1", "-1 < 0u"])
def test_an_unsigned_operand_after_a_negation_under_a_division_shift_or_comparison_is_no_value(
        expression: str) -> None:
    # unsigned 32-bit arithmetic there differs from the evaluator's signed 64-bit
    assert _values("#define kBytes 16\n" + _operand(expression)) == ()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_the_values_are_the_ones_nvcc_writes(tmp_path: Path) -> None:
    calls = ", ".join(f'"n"({e})' for e, _ in C_VALUES)
    holes = " ".join(f"%{k}" for k in range(len(C_VALUES)))
    source = tmp_path / "v.cu"
    source.write_text("#define kBytes 16\n"
                      f'__global__ void k() {{ asm volatile("// {holes}" :: {calls}); }}\n')
    ptx = subprocess.run(["nvcc", "-arch=sm_90", "-ptx", str(source), "-o", "-"],
                         capture_output=True, text=True, check=True).stdout
    [line] = [x for x in ptx.splitlines() if x.strip().startswith("// ") and
              len(x.split()) == len(C_VALUES) + 1 and x.split()[1].lstrip("-").isdigit()]
    assert [int(v) for v in line.split()[1:]] == [v for _, v in C_VALUES]


@pytest.mark.parametrize(("before", "found"), [
    ("static constexpr unsigned kBytes = 16u;\n", (16,)),
    ("int const kBytes = 16;\n", (16,)),
    ("constexpr int kBytesX = 8;\nconstexpr int XkBytes = 4;\nconstexpr int kBytes = 16;\n", (16,)),
    ("constexpr int a = 1, kBytes = 2;\n", ()),  # a declarator list: not read
    ("int kBytes = 16;\n", ()),  # not a constant
    ("void f(const int kBytes = 8);\n", ()),  # a parameter's default
    ("int x_kBytes = 3\n;const int kBytes = 16;\n", (16,)),
    ("enum class E : int { kBytes = 16 };\n", (16,)),
])
def test_a_constant_is_read_from_its_own_declaration(before: str, found: tuple[int, ...]
                                                     ) -> None:
    assert _values(before + USE) == found


def test_only_the_asked_names_declarations_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    # a large header asks for a few names among thousands of constants
    others = "".join(f"constexpr int k{n} = {n};\n" for n in range(200))
    text = others + "constexpr int kBytes = 16;\n" + USE
    asked: list[int] = []
    seen = immediates._in_code

    def counted(source: str, offset: int) -> bool:
        asked.append(offset)
        return seen(source, offset)

    monkeypatch.setattr(immediates, "_in_code", counted)
    assert _values(text) == (16,)
    assert asked == [text.index("constexpr int kBytes")]
