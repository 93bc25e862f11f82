"""The words the C++ front end writes into ``AsmStatement.problems`` are the words the later
stages test for (``frontends.statement_problems``): ``--fix``, branch splitting and the
language server's incremental re-read each read one of them."""

from __future__ import annotations

from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx import extract as ex
from ptxlint.frontends.statement_problems import directive_inside, spells_offsets, unterminated
from ptxlint.model import AsmStatement, SourceFile


def _statement(body: str) -> AsmStatement:
    text = f"__device__ void f(unsigned a, unsigned b) {{\n{body}\n}}\n"
    [statement] = extract_statements(SourceFile("t.cu", text)).statements
    return statement


def test_a_statement_without_its_closing_parenthesis_is_unterminated() -> None:
    statement = _statement('  asm volatile("add.u32 %0, %0, 1;" : "+r"(a) ;')
    assert unterminated(statement.problems)
    assert not unterminated(_statement('  asm volatile("add.u32 %0, %0, 1;" : "+r"(a));').problems)


def test_a_missing_comma_between_operands_spells_its_offset() -> None:
    statement = _statement('  asm volatile("add.u32 %0, %1, %2;" : "=r"(a) : "r"(a) "r"(b));')
    assert spells_offsets(statement.problems) and statement.missing_commas


def test_a_directive_inside_the_statement_is_named() -> None:
    # the token reader's words, which extraction reads to split the statement by its branches
    text = ('asm volatile("add.u32 %0, %0, 1;"\n#if 1\n  : "+r"(a)\n#else\n  : "+r"(b)\n'
            "#endif\n  );")
    source = SourceFile("t.cu", text)
    raw = ex.StatementReader(source, ex.code_tokens(text, 0), ex.MacroPieces(source), False).read()
    assert raw is not None and directive_inside(raw.problems)
