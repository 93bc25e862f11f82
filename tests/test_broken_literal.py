"""A string literal of an asm template that runs to the end of its line (its closing quote
missing) makes nvcc reject the file ("missing closing quote"): the statement is left out with
that reason, never linted from the lexer's guess at what it spells, and PTX014 reports it once,
at that literal. The usual cause is CUDA C++ held in a Python string that is not raw, where
each ``\\n`` of ``"...;\\n"`` becomes a line break: the finding then says so."""

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
    # no finding read from the garbled template: PTX014's alone, at the first literal ("{)
    ((finding,),) = [lint_text(broken)]
    assert finding.rule == "PTX014" and broken[finding.span.start : finding.span.end] == '"{'
    assert "missing closing quote" in finding.message and "Python" not in finding.message
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
    ((finding,),) = [lint_text(text, path="k.py")]
    assert finding.rule == "PTX014" and text[finding.span.start : finding.span.end] == '"{'
    assert text[finding.span.end : finding.span.end + 2] == "\\n"  # the escape it ran to
    assert "is not raw, so its '\\n' became a line break" in finding.message
    raw = extract_python(SourceFile("k.py", _py("r")), parse_template)
    assert len(raw.statements) == 1 and raw.skipped == []


def test_the_raw_form_named_is_that_of_the_string_as_it_opens() -> None:
    # an f-string's raw form is rf"..." (r"..." would print its fields as written), with the
    # string's own quotes; a plain string's is r"..."
    def message(prefix: str, quotes: str) -> str:
        cuda = _CUDA.replace("{", "{{").replace("}", "}}").replace("p[1]", "p[{N}]") \
            if "f" in prefix else _CUDA
        text = (
            "from torch.utils.cpp_extension import load_inline\nN = 1\n"
            f"SRC = {prefix}{quotes}\n{cuda}{quotes}\n"
            "mod = load_inline(name='m', cpp_sources='void k();', cuda_sources=SRC,\n"
            "                  functions=['k'])\n"
        )
        ((finding,),) = [lint_text(text, path="k.py")]
        assert finding.rule == "PTX014"
        return finding.message

    assert "a raw string (rf\"\"\"...\"\"\")" in message("f", '"""')
    assert "a raw string (rf'''...''')" in message("f", "'''")
    assert "a raw string (r\"\"\"...\"\"\")" in message("", '"""')


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


def test_what_keeps_each_literal_whole_draws_no_finding() -> None:
    # a raw Python string, "\\n" in one that is not raw, a splice and a raw C++ literal
    escaped = _py("").replace("\\n", "\\\\n")
    assert "\\\\n" in escaped
    spliced = 'void f(unsigned &r) { asm("mov.b32 %0, \\\n1;" : "=r"(r)); }\n'
    multi_line = 'void f(unsigned &r) { asm(R"(\n mov.b32 %0, 1;\n)" : "=r"(r)); }\n'
    for text, path in ((_py("r"), "k.py"), (escaped, "k.py"), (spliced, "k.cu"),
                       (multi_line, "k.cu")):
        assert [f.rule for f in lint_text(text, path=path) if f.rule == "PTX014"] == [], text


def test_a_line_break_the_python_string_holds_as_such_is_not_called_an_escape() -> None:
    # a raw triple-quoted string with a real line break inside a C++ literal: nvcc rejects it
    # as well, but no '\\n' of the Python string made the break
    text = (
        "from torch.utils.cpp_extension import load_inline\n"
        'SRC = r"""\nvoid f(unsigned &r) { asm("mov.b32 %0, 1;\n"" : "=r"(r)); }\n"""\n'
        "mod = load_inline(name='m', cpp_sources='', cuda_sources=SRC, functions=['f'])\n"
    )
    ((finding,),) = [lint_text(text, path="k.py")]
    assert finding.rule == "PTX014" and "Python" not in finding.message


def test_in_a_group_no_build_takes_the_finding_is_latent() -> None:
    # nvcc only warns in a skipped #if group ("missing terminating '\"' character")
    text = (
        "__global__ void k(unsigned *p) {\n#if 0\n"
        '  asm volatile("mov.b32 %0, 1;\n"" : "=r"(p[0]));\n'
        "#endif\n}\n"
    )
    ((finding,),) = [lint_text(text)]
    assert finding.rule == "PTX014" and finding.latent


def test_a_file_linted_in_parts_reports_it_as_its_whole_lint() -> None:
    from ptxlint.engine import lint_source
    from ptxlint.rule import RuleContext
    from tests.test_file_parts import _in_parts, _rules

    text = (
        'void f(unsigned &r) { asm volatile("mov.b32 %0, 1;" : "=r"(r)); }\n'
        + _CUDA.replace("\\n", "\n")
    )
    source = SourceFile("k.cu", text)
    rules = _rules()
    whole = lint_source(source, rules, RuleContext()).findings
    assert [f.rule for f in whole] == ["PTX014"]
    assert _in_parts(source, rules, 2) == whole
