"""The macro expander: what the C preprocessor would produce, with every character's source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx.defines import INEXACT, MAX_NESTING
from ptxlint.frontends.cxx.lexer import tokens
from ptxlint.frontends.cxx.macros import Expander, ExpansionError, MacroTable, from_source, lay_out
from ptxlint.model import SourceFile
from tests.conftest import lint_text


def _expand(text: str, use: str, path: str = "t.cu") -> tuple[str, tuple[tuple[int, int], ...]]:
    at = text.rindex(use)
    toks = list(tokens(text, at, at + len(use)))
    out = Expander(MacroTable(path, text), at).expand(from_source(text, toks))
    laid = lay_out(out)
    return laid.text, laid.spans


def test_stringify_paste_and_nested_expansion() -> None:
    text = """
#define STR_(x) #x
#define STR(x) STR_(x)
#define SPACE global
#define CAT(a, b) a##b
USE: STR(SPACE) STR_(SPACE) CAT(u, 32) STR(CAT(u, 32))
"""
    out, _ = _expand(text, "STR(SPACE) STR_(SPACE) CAT(u, 32) STR(CAT(u, 32))")
    assert out == '"global" "SPACE" u32 "u32"'


def test_variadic_forms() -> None:
    text = """
#define V(fmt, ...) f(fmt, ##__VA_ARGS__)
#define W(...) g(__VA_OPT__(1,) __VA_ARGS__)
USE: V(a) V(a, b) W() W(z)
"""
    out, _ = _expand(text, "V(a) V(a, b) W() W(z)")
    assert out.replace(" ", "") == "f(a)f(a,b)g()g(1,z)"


def test_stringified_literal_is_escaped_and_self_reference_stops() -> None:
    text = '#define S(x) #x\n#define LOOP LOOP + 1\nUSE: S("a\\n" b) LOOP'
    out, _ = _expand(text, 'S("a\\n" b) LOOP')
    assert out == '"\\"a\\\\n\\" b" LOOP + 1'


def test_argument_characters_map_to_the_arguments() -> None:
    text = '#define LD(SPACE) "ld." #SPACE\nUSE: LD(shared)'
    out, spans = _expand(text, "LD(shared)")
    k = out.index("shared")
    assert [text[a:b] for a, b in spans[k : k + 6]] == list("shared")
    assert text[spans[out.index("ld")][0]] == "l"  # from the body, in this file


def test_undef_and_position_decide_the_definition() -> None:
    text = '#define OP "add"\nA: OP\n#undef OP\nB: OP\n#define OP "sub"\nC: OP\n'
    table = MacroTable("t.cu", text)
    assert table.lookup("OP", text.index("A:")).body[0].text == '"add"'
    assert table.lookup("OP", text.index("B:")) is None
    assert table.lookup("OP", text.index("C:")).body[0].text == '"sub"'


def test_two_live_definitions_that_differ_do_not_expand() -> None:
    text = '#ifdef FAST\n#define OP "add"\n#else\n#define OP "sub"\n#endif\nUSE: OP\n'
    assert MacroTable("t.cu", text).lookup("OP", len(text) - 1) is None
    # a branch no 64-bit Linux build takes is not a candidate
    text = '#ifdef _WIN32\n#define P "r"\n#else\n#define P "l"\n#endif\n'
    assert MacroTable("t.cu", text).lookup("P", len(text)).body[0].text == '"l"'


def _bodies(defs: list) -> list[str]:
    return [" ".join(t.text for t in d.body) for d in defs]


def test_alternatives_are_every_definition_that_may_be_in_force() -> None:
    text = ('#ifdef FAST\n#define OP "add"\n#else\n#define OP "sub"\n#endif\nA: OP\n'
            '#ifdef _WIN32\n#define P "r"\n#else\n#define P "l"\n#endif\n'
            '#undef OP\nB: OP\n#define OP "mul"\nC: OP\n')
    table = MacroTable("t.cu", text)
    assert _bodies(table.alternatives("OP", text.index("A:"))) == ['"add"', '"sub"']
    assert table.alternatives("OP", text.index("B:")) == []  # #undef'd here
    assert _bodies(table.alternatives("OP", text.index("C:"))) == ['"mul"']
    assert _bodies(table.alternatives("P", len(text))) == ['"l"']  # no build takes _WIN32
    assert table.alternatives("OP", 0) == []  # before any definition, and no header has one
    assert table.alternatives("NONE", len(text)) == []


def test_alternatives_of_a_name_only_headers_define(tmp_path: Path) -> None:
    (tmp_path / "w.h").write_text("#if WIDE\n#define W 16\n#else\n#define W 8\n#endif\n")
    text = '#include "w.h"\nUSE: W\n'
    table = MacroTable(str(tmp_path / "k.cu"), text)
    assert table.lookup("W", len(text)) is None
    assert _bodies(table.alternatives("W", len(text))) == ["16", "8"]


def test_headers_included_by_relative_path_are_read(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "m.cuh").write_text('#include "n.cuh"\n#define LD(T) "ld." #T\n')
    (tmp_path / "inc" / "n.cuh").write_text("#define T32 u32\n")
    kernel = tmp_path / "k.cu"
    text = '#include "inc/m.cuh"\nUSE: LD(T32)\n'
    kernel.write_text(text)
    out, spans = _expand(text, "LD(T32)", str(kernel))
    assert out == '"ld." "T32"'
    assert spans[0] == INEXACT  # spelled in the header: no position in this file


def test_pathological_input_never_crashes() -> None:
    for text in (
        "#define A(x) A(x) B\n#define B A(\nUSE: A(1)",
        "#define X(a, b) a ## b\nUSE: X(+, -) X(,)",
        "#define F(x) #\nUSE: F(1) F(",
        "#define E(...) __VA_OPT__(\nUSE: E(1)",
    ):
        extract_statements(SourceFile("t.cu", text + '\n__device__ void f() { asm("trap;"); }'))



def _chain(depth: int, use: str = "USE: M{last}") -> str:
    links = "".join(f"#define M{i} M{i - 1}\n" for i in range(1, depth))
    return f'#define M0 "mov.u32 %0, %5;"\n{links}' + use.format(last=depth - 1)


_ASM_USE = '__device__ void f(unsigned a) {{ unsigned v; asm(M{last} : "=r"(v) : "r"(a)); }}'


def test_a_chain_of_macros_expands_to_its_last_link_up_to_the_nesting_bound() -> None:
    out, _ = _expand(_chain(300), "M299")
    assert out == '"mov.u32 %0, %5;"'
    # the template's %5 names no operand: found through 600 links
    assert any(f.rule == "PTX001" for f in lint_text(_chain(600, _ASM_USE)))


def test_a_chain_nested_past_the_bound_stops_instead_of_growing_quadratically() -> None:
    # Each token carries the set of macros it came from, made anew at each level: without
    # the bound, 16,000 links cost 4 s (16 times the 0.22 s of 4,000).
    with pytest.raises(ExpansionError, match=f"more than {MAX_NESTING} deep"):
        _expand(_chain(MAX_NESTING + 2), f"M{MAX_NESTING + 1}")
    # an asm statement whose template is such a chain is left unread, never a crash
    extract_statements(SourceFile("t.cu", _chain(MAX_NESTING + 2, _ASM_USE)))


def test_invocation_in_code_is_linted_with_the_expansion_named() -> None:
    text = (
        '#define LOAD(T, SPACE, out, p) asm volatile("ld." #SPACE "." #T " %0, [%1];"'
        ' : "=r"(out) : "l"(p) : "memory")\n'
        "__device__ unsigned f(unsigned *p) {\n"
        "  unsigned v;\n"
        "  LOAD(u32, global, v, p);\n"
        "  LOAD(u32, globl, v, p);\n"
        "  return v;\n"
        "}\n"
    )
    (finding,) = lint_text(text, "k.cu")
    assert finding.rule == "PTX204"
    assert finding.expansion is not None
    assert str(finding.expansion) == "in expansion of LOAD(u32, globl, v, p)"
    assert text[finding.span.start : finding.span.end] == "LOAD(u32, globl, v, p)"
    assert finding.expansion.defined_at == "k.cu:1"


def test_a_finding_the_body_and_an_argument_spell_together_keeps_the_bodys_characters(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # '%laneid' is the body's '%' and the argument's 'laneid': reported at each invocation,
    # and tied to the '%' of the body that every expansion shares (a fix of the body mends all)
    text = (
        "#define SREG(name) __device__ unsigned name() { unsigned r; \\\n"
        '  asm volatile("mov.u32 %0, %" #name ";" : "=r"(r)); return r; }\n'
        "SREG(laneid)\n"
        "SREG(warpid)\n"
    )
    found = [f for f in lint_text(text, "k.cu") if f.rule == "PTX008"]
    assert [text[f.span.start:f.span.end] for f in found] == ["SREG(laneid)", "SREG(warpid)"]
    percent = text.index('%" #name')
    for finding in found:
        assert finding.spelled_at is not None
        assert (finding.spelled_at.start, finding.spelled_at.end) == (percent, percent + 1)
    # a modifier made of the body's '.' and the argument's 'globl': the body's '.'
    load = (
        '#define LOAD(T, SPACE, out, p) asm volatile("ld." #SPACE "." #T " %0, [%1];"'
        ' : "=r"(out) : "l"(p) : "memory")\n'
        "__device__ unsigned f(unsigned *p) { unsigned v; LOAD(u32, globl, v, p); return v; }\n"
    )
    (finding,) = lint_text(load, "k.cu")
    assert finding.rule == "PTX204" and finding.spelled_at is not None
    assert finding.spelled_at.start == load.index('." #SPACE') and \
        finding.spelled_at.end == finding.spelled_at.start + 1
    from ptxlint.cli import main

    kernel = tmp_path / "k.cu"
    kernel.write_text(text)
    main(["check", str(kernel), "--select", "PTX008"])
    assert "note: in expansion of SREG(laneid) (spelled at line 2, column 29)" in \
        capsys.readouterr().out


def test_a_defect_of_the_body_is_reported_once_at_the_body() -> None:
    text = (
        '#define SPIN(out, p) asm("ld.volatile.global.u32 %0, [%1];" : "=r"(out) : "l"(p))\n'
        "__device__ unsigned f(unsigned *p) { unsigned v; SPIN(v, p); SPIN(v, p); return v; }\n"
    )
    findings = [f for f in lint_text(text, "k.cu") if f.rule == "PTX102"]
    assert len(findings) == 1 and findings[0].expansion is None
    assert findings[0].fix is not None  # the body's own fix, applied once


def test_a_body_defect_whose_message_names_the_arguments_is_reported_once() -> None:
    # PTX001's message names the operand by its expression: the body says "(d)", each
    # invocation its own argument; the defect is the body's all the same
    text = (
        '#define SHFL(v, d) asm volatile("shfl.sync.down.b32 %0, %0, %2, 0x1f, 0xffffffff;"'
        ' : "+r"(v) : "r"(d))\n'
        "__device__ int f(int v) { SHFL(v, 16); SHFL(v, 8); SHFL(v, 4); return v; }\n"
    )
    (finding,) = [f for f in lint_text(text, "k.cu") if f.rule == "PTX001"]
    assert finding.expansion is None and "(d)" in finding.message


def test_an_argument_defect_is_reported_at_each_invocation_it_is_in() -> None:
    text = (
        '#define LD(out, p) asm volatile("ld.global.u32 %0, [%1];" : "=r"(out) : "l"(p))\n'
        "__device__ unsigned f(unsigned *p, unsigned short h, unsigned short g, unsigned u) {\n"
        "  LD(h, p); LD(g, p); LD(u, p); return h + g + u; }\n"
    )
    found = [f for f in lint_text(text, "k.cu") if f.rule == "PTX004"]
    assert [text[f.span.start:f.span.end] for f in found] == ["LD(h, p)", "LD(g, p)"]


def test_fixes_never_edit_a_macro_body_from_an_invocation() -> None:
    text = (
        '#define LD(out, p) asm volatile("ld.global.u32 %0, [%1];" : "=r"(out) : "l"(p))\n'
        "__device__ unsigned f(unsigned *p, unsigned short h) { LD(h, p); return h; }\n"
    )
    (finding,) = [f for f in lint_text(text, "k.cu") if f.rule == "PTX004"]
    assert finding.expansion is not None and finding.fix is None


def test_json_and_sarif_name_the_expansion(tmp_path: Path, capsys) -> None:
    from ptxlint.cli import main

    kernel = tmp_path / "k.cu"
    kernel.write_text(
        '#define FMA(T, d, a) asm("fma.rn." #T " %0, %1, %1, %1;" : "=f"(d) : "f"(a))\n'
        "__device__ float f(float x) { float r; FMA(f23, r, x); return r; }\n"
    )
    main(["check", str(kernel), "--format", "json", "--select", "PTX204"])
    document = json.loads(capsys.readouterr().out)
    (finding,) = document["findings"]
    assert finding["rule"] == "PTX204" and finding["line"] == 2
    assert finding["expansion"]["invocation"] == "FMA(f23, r, x)"
    assert finding["expansion"]["macro"] == "FMA"
    assert document["stats"]["statements_from_macros"] == 1
    main(["check", str(kernel), "--format", "sarif", "--select", "PTX204"])
    sarif = json.loads(capsys.readouterr().out)
    (result,) = sarif["runs"][0]["results"]
    assert result["properties"]["expansion"]["invocation"] == "FMA(f23, r, x)"
    assert "in expansion of FMA(f23, r, x)" in result["message"]["text"]
    main(["check", str(kernel), "--select", "PTX204"])
    assert "note: in expansion of FMA(f23, r, x)" in capsys.readouterr().out


def test_stats_reports_a_macro_never_expanded_once(tmp_path: Path, capsys) -> None:
    from ptxlint.cli import main

    (tmp_path / "m.cuh").write_text(
        '#define ST(T, p, v) asm volatile("st.global." #T " [%0], %1;" :: "l"(p), "r"(v))\n'
        '#define LD(T, v, p) asm volatile("ld.global." #T " %0, [%1];" : "=r"(v) : "l"(p))\n'
    )
    (tmp_path / "k.cu").write_text(
        '#include "m.cuh"\n__device__ unsigned f(unsigned *p) { unsigned v; LD(u32, v, p); return v; }\n'
    )
    main(["stats", "--list-skipped", str(tmp_path)])
    out = capsys.readouterr().out
    assert "asm macros never expanded:  1" in out
    assert "opaque: macro ST(T, p, v) is never expanded" in out
    assert "LD(T, v, p)" not in out
    assert "from macro invocations: 1" in out


def test_tier2_types_an_expansion_and_clangs_template_wins_where_it_differs(
    tmp_path: Path,
) -> None:
    import os

    from ptxlint.tier2 import Tier2Types, annotate
    from ptxlint.tier2.libclang_types import AsmRecord, MacroSite, OperandType

    kernel = tmp_path / "k.cu"
    text = (
        '#define LD(T, out, p) asm volatile("ld.global." #T " %0, [%1];" : "=r"(out) : "l"(p))\n'
        "__device__ unsigned f(unsigned *p) { unsigned v; LD(u32, v, p); return v; }\n"
    )
    kernel.write_text(text)
    source = SourceFile(str(kernel), text)
    (body, use) = extract_statements(source).statements
    site = text.index("LD(u32")
    real = os.path.realpath(str(kernel))
    u32 = OperandType("unsigned int", "integer", 4)
    ptr = OperandType("unsigned int *", "pointer", 8)

    def record(template: str | None) -> AsmRecord:
        macro = MacroSite(real, 0, text.index("\n"), 0, 1, "k.cu:2")
        return AsmRecord(real, site, (u32, ptr), None, macro, (), template)

    # libclang 18 has no template API: types only, ptxlint's own expansion stays
    (typed,) = annotate([use], Tier2Types([record(None)]))
    assert [o.ctype.tier for o in typed.operands] == [2, 2]
    assert typed.template.text == "ld.global.u32 %0, [%1];"
    # LLVM 21+ says what the preprocessor produced: where it differs, clang's text is used
    (taken,) = annotate([use], Tier2Types([record("ld.global.u64 %0, [%1];")]))
    assert taken.template.text == "ld.global.u64 %0, [%1];"
    assert taken.ptx.instructions[0].mnemonic == "ld.global.u64"
    assert taken.template.source_span(0, 2).start == site
    (same,) = annotate([use], Tier2Types([record("ld.global.u32 %0, [%1];")]))
    assert same.template is use.template  # agreement keeps the exact source map


def test_angle_includes_of_the_project_are_found_above_the_file(tmp_path: Path) -> None:
    (tmp_path / "include" / "proj" / "common").mkdir(parents=True)
    (tmp_path / "include" / "proj" / "common" / "assert.cuh").write_text(
        '#define TRAP_IF(c) do { if (c) asm volatile("trap;"); } while (0)\n'
    )
    kernel = tmp_path / "include" / "proj" / "k.cuh"
    text = (
        "#include <proj/common/assert.cuh>\n#include <vector>\n"
        "__device__ void f(int x) { TRAP_IF(x < 0); }\n"
    )
    kernel.write_text(text)
    (s,) = extract_statements(SourceFile(str(kernel), text)).statements
    assert s.template.text == "trap;" and s.context.expansion is not None


def test_a_file_named_relative_to_the_working_directory_finds_headers_above_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ``ptxlint check k.cu`` inside a subfolder: the header lies in the folder above the working
    # directory, which a search from the folder as spelled ("") never reached
    (tmp_path / "proj" / "sub").mkdir(parents=True)
    (tmp_path / "proj" / "hdr.h").write_text(
        '#define LOADX(p, v) asm("ld.shared.u32 %0, [%1];" : "=r"(v) : "l"(p))\n'
    )
    text = '#include "hdr.h"\n__device__ void f(int *p) { int v; LOADX(p, v); }\n'
    (tmp_path / "proj" / "sub" / "k.cu").write_text(text)
    monkeypatch.chdir(tmp_path / "proj" / "sub")
    (s,) = extract_statements(SourceFile("k.cu", text)).statements
    assert s.template.text == "ld.shared.u32 %0, [%1];"
    assert s.context.expansion is not None
    assert s.context.expansion.defined_at == f"{tmp_path / 'proj' / 'hdr.h'}:1"


def test_of_a_device_and_a_host_definition_the_one_with_asm_expands() -> None:
    # CUTLASS_NOT_IMPLEMENTED: brkpt on the device, assert on the host.
    text = """
#if defined(__CUDA_ARCH__)
#define NOT_IMPLEMENTED() { printf("not implemented\\n"); asm volatile("brkpt;\\n"); }
#else
#define NOT_IMPLEMENTED() assert(0)
#endif
__device__ void f() { NOT_IMPLEMENTED(); }
"""
    result = extract_statements(SourceFile("k.cu", text))
    (statement,) = [s for s in result.statements if s.context.expansion is not None]
    assert statement.template.text == "brkpt;\n"
    assert "defined(__CUDA_ARCH__)" in statement.context.guards
    # two definitions that both hold asm and differ: each is expanded where it may be in force
    # (tests/test_macro_alternatives.py), but the host pass's is in no device build
    both = text.replace("assert(0)", 'asm volatile("trap;")')
    result = extract_statements(SourceFile("k.cu", both))
    (statement,) = [s for s in result.statements if s.context.expansion is not None]
    assert statement.template.text == "brkpt;\n"
    assert result.skipped_invocations == []


def test_a_templates_characters_map_back_as_their_spans_do() -> None:
    from ptxlint.frontends.cxx.macro_uses import Remap
    from ptxlint.frontends.cxx.macros import VirtualText
    from ptxlint.model import Span, Template, TemplatePiece

    # laid-out characters spelled in the invocation [100, 120), in a body [10, 20), outside
    # both (a header's line at 50), nowhere (INEXACT), and one past the laid-out text
    spans = ((101, 102), (15, 16), (50, 51), INEXACT, (119, 120), (10, 11))
    remap = Remap(VirtualText("abcdef", spans), Span(100, 120), [Span(10, 20)])
    starts = (0, 1, 2, 3, 4, 5, 6, 0, 1)
    ends = (1, 2, 3, 4, 5, 6, 7, 2, 6)  # single characters, then wider runs
    template = Template("abcdefgxy", starts, ends, (TemplatePiece("string", Span(0, 6), 0, 9),))
    mapped = remap.template(template)
    one_by_one = [remap.span(Span(a, max(a + 1, b))) for a, b in zip(starts, ends, strict=True)]
    assert list(mapped.char_starts) == [s.start for s in one_by_one]
    assert list(mapped.char_ends) == [s.end for s in one_by_one]
    assert list(zip(mapped.char_starts, mapped.char_ends, strict=True))[:7] == [
        (101, 102), (15, 16), (100, 120), (100, 120), (119, 120), (10, 11), (100, 120),
    ]  # fmt: skip
    # the pieces, made when first read, are mapped as the whole expansion's spans map them
    assert mapped.pieces == (TemplatePiece("string", remap.span(Span(0, 6)), 0, 9),)
    within = remap.template(template, 0, 7)  # the statement's own bounds, as extraction gives
    assert within.pieces == mapped.pieces
    assert list(within.char_starts) == list(mapped.char_starts)
    assert list(within.char_ends) == list(mapped.char_ends)


def test_headers_are_followed_breadth_first_to_the_include_depth(tmp_path: Path) -> None:
    from ptxlint.frontends.cxx.defines import MAX_INCLUDE_DEPTH
    from ptxlint.frontends.cxx.headers import forget_headers

    deepest = MAX_INCLUDE_DEPTH + 2
    for k in range(1, deepest + 1):
        follow = f'#include "h{k + 1}.h"\n' if k < deepest else ""
        (tmp_path / f"h{k}.h").write_text(f"{follow}#define M{k} {k}\n", encoding="utf-8")
    # the last header of the chain is also included directly: read at depth 1, and once
    (tmp_path / "k.cu").write_text("", encoding="utf-8")
    text = f'#include "h1.h"\n#include "h{deepest}.h"\n'
    forget_headers()
    table = MacroTable(str(tmp_path / "k.cu"), text)
    read = [Path(h.path).name for h in table.headers]
    assert read == ["h1.h", f"h{deepest}.h", *(f"h{k}.h" for k in range(2, MAX_INCLUDE_DEPTH + 1))]
    assert table.lookup(f"M{MAX_INCLUDE_DEPTH}") is not None
    assert table.lookup(f"M{MAX_INCLUDE_DEPTH + 1}") is None  # one deeper than the limit


def test_a_definitions_line_counts_the_newlines_before_it() -> None:
    from ptxlint.frontends.cxx.defines import collect

    text = "\n#define A 1\r\n\n\n  #define B 2\n#define C 3"  # CRLF, blank lines, no final newline
    found = collect("k.cu", text)
    for name in "ABC":
        (d,) = found.defines[name]
        assert d.line == text.count("\n", 0, d.start) + 1


def test_a_headers_definitions_give_their_guards_and_lines_in_either_order(
    tmp_path: Path,
) -> None:
    # a header's text is read again when one of its definitions is first asked about: for its
    # guards, then for its line (or the other way round), each worked out from that text
    from ptxlint.frontends.cxx.defines import collect
    from ptxlint.frontends.cxx.headers import forget_headers

    text = (
        "#ifndef H\n#define H\n\n#if defined(__CUDA_ARCH__)\n#define DEV 1\n#else\n"
        "#define HOST 1\n#endif\n#endif\n"
    )
    header = tmp_path / "h.h"
    header.write_text(text, encoding="utf-8")
    forget_headers()
    first, second = (collect(str(header), text, keep_text=False) for _ in range(2))
    (dev,) = first.defines["DEV"]
    (host,) = first.defines["HOST"]
    assert dev.guards == ("!defined(H)", "defined(__CUDA_ARCH__)")
    assert host.guards == ("!defined(H)", "!(defined(__CUDA_ARCH__))")
    assert (dev.line, host.line) == (5, 7)
    (dev2,) = second.defines["DEV"]
    (host2,) = second.defines["HOST"]
    assert (host2.line, dev2.line) == (7, 5)
    assert dev2.guards == dev.guards and host2.guards == host.guards


def test_an_expansions_template_map_is_made_when_read_and_points_at_argument_and_body() -> None:
    from ptxlint.frontends.cxx.macro_uses import ExpansionMap
    from ptxlint.model import source_map

    text = (
        '#define LD(T, out, p) asm volatile("ld.global." #T " %0, [%1];" : "=r"(out) : "l"(p))\n'
        "__device__ unsigned f(unsigned *p) { unsigned v; LD(u32, v, p); LD(s32, v, p);"
        " return v; }\n"
    )
    result = extract_statements(SourceFile("k.cu", text))
    first, second = [s for s in result.statements if s.context.expansion is not None]
    assert isinstance(source_map(first.template), ExpansionMap)
    for statement, argument in ((first, "u32"), (second, "s32")):
        template = statement.template
        at = template.text.index(argument)
        spelled = [text[a:b] for a, b in zip(
            template.char_starts[at : at + 3], template.char_ends[at : at + 3], strict=True
        )]  # fmt: skip
        assert spelled == list(argument)
        use = text.index(f"LD({argument}")
        assert use < template.char_starts[at] < text.index(";", use)  # in this use's arguments
        k = template.text.index("ld.")
        assert text[template.char_starts[k] : template.char_ends[k]] == "l"
        assert template.char_starts[k] < text.index("\n")  # in the body, on line 1


def test_a_bodys_tokens_serve_every_use_with_that_uses_arguments_and_hide_set() -> None:
    text = """
#define ID(x) x
#define TWICE(x) ID(x) ID(x)
#define SELF SELF ID(1)
USE: TWICE(a) TWICE(b) SELF SELF
"""
    out, spans = _expand(text, "TWICE(a) TWICE(b) SELF SELF")
    assert out == "a a b b SELF 1 SELF 1"
    a_first, b_first = out.index("a"), out.index("b")
    assert text[spans[a_first][0]] == "a" and text[spans[b_first][0]] == "b"
    # the body's own characters map to the body in either use
    s1, s2 = out.index("SELF"), out.rindex("SELF")
    assert spans[s1] == spans[s2] and text[spans[s1][0] : spans[s1][0] + 4] == "SELF"


def test_a_name_only_a_header_defines_has_one_answer_wherever_it_is_asked(tmp_path: Path) -> None:
    from ptxlint.frontends.cxx.headers import forget_headers

    forget_headers()
    (tmp_path / "h.h").write_text("#define FROM_HEADER 1\n#if 0\n#define DEAD 2\n#endif\n")
    text = '#include "h.h"\n#define OWN 3\nint a;\n#undef OWN\nint b;\n'
    table = MacroTable(str(tmp_path / "k.cu"), text)
    starts = [0, text.index("int a"), text.index("int b"), len(text)]

    def body(name: str, at: int) -> str | None:
        found = table.lookup(name, at)
        return None if found is None else " ".join(t.text for t in found.body)

    assert [body("FROM_HEADER", at) for at in starts] == ["1"] * 4
    assert [body("DEAD", at) for at in starts] == [None] * 4
    # the file's own definitions still depend on where they are asked
    assert [body("OWN", at) for at in starts] == [None, "3", None, None]


def test_a_collected_definition_is_the_one_its_constructor_makes() -> None:
    import dataclasses

    from ptxlint.frontends.cxx.defines import MacroDef, collect

    text = "#define A(x, ...) x + __VA_ARGS__\n#define B 1\n"
    for made in (d for defs in collect("t.h", text).defines.values() for d in defs):
        # every field filled (an empty slot raises here), and equal to the constructor's
        values = {f.name: getattr(made, f.name) for f in dataclasses.fields(MacroDef)}
        assert made == MacroDef(**values) and hash(made) == hash(MacroDef(**values))


def test_an_expanded_macro_is_named_by_the_real_path_of_its_header(tmp_path: Path) -> None:
    from ptxlint.frontends.cxx.headers import forget_headers

    forget_headers()
    real = tmp_path / "real"
    real.mkdir()
    (real / "m.cuh").write_text(
        '#define LD(T, v, p) asm volatile("ld.global." #T " %0, [%1];" : "=r"(v) : "l"(p))\n'
    )
    (tmp_path / "linked").symlink_to(real)
    text = '#include "m.cuh"\n__device__ unsigned f(unsigned *p) { unsigned v; LD(u32, v, p); return v; }\n'
    result = extract_statements(SourceFile(str(tmp_path / "linked" / "k.cu"), text))
    assert result.expanded_macros == {f"{(real / 'm.cuh').resolve()}:1"}


def test_a_tables_header_definitions_come_from_its_own_headers_in_their_order(
    tmp_path: Path,
) -> None:
    from ptxlint.frontends.cxx.headers import forget_headers

    forget_headers()
    (tmp_path / "a.h").write_text('#include "b.h"\n#define BOTH 1\n#define ONLY_A 2\n')
    (tmp_path / "b.h").write_text("#define BOTH 3\n")
    (tmp_path / "c.h").write_text("#define ONLY_C 4\n#define BOTH 5\n")
    first = MacroTable(str(tmp_path / "k.cu"), '#include "c.h"\n')  # reads c.h first
    second = MacroTable(str(tmp_path / "l.cu"), '#include "a.h"\n')

    def spelled(table: MacroTable, name: str) -> list[str]:
        return [" ".join(t.text for t in d.body) for d in table.definitions(name)]

    assert spelled(second, "BOTH") == ["1", "3"]  # a.h, then what it includes
    assert spelled(second, "ONLY_C") == [] and spelled(second, "ONLY_A") == ["2"]
    assert spelled(first, "BOTH") == ["5"] and spelled(first, "ONLY_A") == []
