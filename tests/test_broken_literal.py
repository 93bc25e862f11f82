"""A string literal of an asm template that runs to the end of its line (its closing quote
missing) makes nvcc reject the file ("missing closing quote"): the statement is left out with
that reason, never linted from the lexer's guess at what it spells. The usual cause is CUDA C++
held in a Python string that is not raw, where each ``\\n`` of ``"...;\\n"`` becomes a line
break."""

from __future__ import annotations

from ptxlint.engine import extract_statements
from ptxlint.frontends.python import extract_python
from ptxlint.model import SourceFile
from ptxlint.ptx.parser import parse_template
from tests.conftest import lint_text

# what load_inline hands nvcc when the CUDA source below is a plain (not raw) Python string
_CUDA = (
    "__global__ void k(unsigned *p) {\n"
    "  unsigned r;\n"
    "  asm volatile(\n"
    '    "{\\n"\n'
    '    ".reg .b32 t;\\n" // scratch\n'
    '    "mov.b32 t, %1;\\n"\n'
    '    "mov.b32 %0, t;\\n"\n'
    '    "}\\n"\n'
    '    : "=r"(r) : "r"(p[1]));\n'
    "  p[0] = r;\n"
    "}\n"
)


def _py(prefix: str) -> str:
    return (
        "from torch.utils.cpp_extension import load_inline\n"
        f'SRC = {prefix}"""\n{_CUDA}"""\n'
        "mod = load_inline(name='m', cpp_sources='void k();', cuda_sources=SRC,\n"
        "                  functions=['k'])\n"
    )


def test_a_literal_broken_by_a_line_end_leaves_the_statement_out() -> None:
    broken = _CUDA.replace("\\n", "\n")  # the text a non-raw Python string holds
    result = extract_statements(SourceFile("k.cu", broken))
    assert result.statements == []
    ((at, reason),) = result.skipped
    assert broken[at:].startswith("asm") and "missing closing quote" in reason
    assert lint_text(broken) == []  # no finding read from the garbled template
    # the same statement with its literals whole is linted as usual
    assert len(extract_statements(SourceFile("k.cu", _CUDA)).statements) == 1


def test_python_string_that_is_not_raw_breaks_the_literals() -> None:
    # before, the '// scratch' comment ended up inside the template ("// scratch" read as a PTX
    # comment to its end): PTX203 ('{' never closed) and PTX009 (%0, %1 never referenced)
    text = _py("")
    result = extract_python(SourceFile("k.py", text), parse_template)
    assert result.statements == []
    ((at, reason),) = result.skipped
    assert text[at:].startswith("asm") and "not raw" in reason
    assert lint_text(text, path="k.py") == []
    raw = extract_python(SourceFile("k.py", _py("r")), parse_template)
    assert len(raw.statements) == 1 and raw.skipped == []


def test_spliced_and_raw_literals_are_whole() -> None:
    # a backslash-newline splices the line (phase 2) and a raw literal may span lines: nvcc
    # compiles both, so both are read
    text = (
        "__global__ void k(unsigned *p) {\n"
        "  unsigned r;\n"
        '  asm volatile("mov.b32 %0, \\\n%1;" : "=r"(r) : "r"(p[1]));\n'
        '  asm volatile(R"(\n    mov.b32 %0, %1;\n  )" : "=r"(r) : "r"(p[2]));\n'
        "  p[0] = r;\n"
        "}\n"
    )
    result = extract_statements(SourceFile("k.cu", text))
    assert len(result.statements) == 2 and result.skipped == []
