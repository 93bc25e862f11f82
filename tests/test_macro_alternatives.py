"""A macro defined differently in each ``#if`` arm: each definition that may be in force at a
use is expanded there as its own statement, under its definition's guards and the use's."""

from __future__ import annotations

from pathlib import Path

from ptxlint.engine import extract_statements
from ptxlint.model import AsmStatement, SourceFile
from tests.conftest import lint_text

SHFL = """\
#if __CUDA_ARCH__ >= 700
#define SHFL_DOWN(v, d) asm volatile("shfl.sync.down.b32 %0, %0, %1, 0x1f, 0xffffffff;" \\
                                     : "+r"(v) : "r"(d))
#else
#define SHFL_DOWN(v, d) asm volatile("shfl.down.b32 %0, %0, %1, 0x1f;" : "+r"(v) : "r"(d))
#endif
"""


def _expanded(text: str, path: str = "k.cu") -> list[AsmStatement]:
    result = extract_statements(SourceFile(path, text))
    return [s for s in result.statements if s.context.expansion is not None]


def test_each_alternative_is_expanded_at_the_use_under_its_guards() -> None:
    text = SHFL + "__device__ int f(int v) {\n  SHFL_DOWN(v, 16);\n  return v;\n}\n"
    result = extract_statements(SourceFile("k.cu", text))
    sync, old = [s for s in result.statements if s.context.expansion is not None]
    assert sync.template.text == "shfl.sync.down.b32 %0, %0, %1, 0x1f, 0xffffffff;"
    assert old.template.text == "shfl.down.b32 %0, %0, %1, 0x1f;"
    assert "__CUDA_ARCH__ >= 700" in sync.context.guards
    assert "!(__CUDA_ARCH__ >= 700)" in old.context.guards
    assert "!(__CUDA_ARCH__ >= 700)" in old.context.local_guards
    # both at the use, each naming its own #define
    use = text.index("SHFL_DOWN(v, 16)")
    assert sync.span.start == old.span.start == use
    assert sync.context.expansion is not None and old.context.expansion is not None
    assert sync.context.expansion.defined_at == "k.cu:2"
    assert old.context.expansion.defined_at == "k.cu:5"
    assert [o.expression for o in old.operands] == ["v", "16"]
    assert result.skipped_invocations == []
    assert result.unexpanded_macros == []  # both bodies took part


def test_an_ifdef_else_pair() -> None:
    text = (
        "#ifdef FAST\n"
        '#define SET(v) asm("mov.u32 %0, 1;" : "=r"(v))\n'
        "#else\n"
        '#define SET(v) asm("mov.u32 %0, 2;" : "=r"(v))\n'
        "#endif\n"
        "__device__ void f(unsigned v) { SET(v); }\n"
    )
    fast, slow = _expanded(text)
    assert (fast.template.text, fast.context.guards) == ("mov.u32 %0, 1;", ("defined(FAST)",))
    assert (slow.template.text, slow.context.guards) == ("mov.u32 %0, 2;", ("!(defined(FAST))",))


def test_a_definition_no_target_compiles_is_dropped() -> None:
    # under the use's own #if, the pre-sync definition cannot be in force
    text = SHFL + (
        "__device__ int f(int v) {\n#if __CUDA_ARCH__ >= 800\n  SHFL_DOWN(v, 16);\n#endif\n"
        "  return v;\n}\n"
    )
    (only,) = _expanded(text)
    assert only.template.text.startswith("shfl.sync.down")
    # a definition for the host pass alone, or for a build no 64-bit Linux target is, neither
    text = (
        "#if defined(_WIN32)\n"
        '#define NOP() asm volatile("nop;")\n'
        "#elif defined(__CUDA_ARCH__)\n"
        '#define NOP() asm volatile("membar.gl;")\n'
        "#else\n"
        '#define NOP() asm volatile("pause")\n'
        "#endif\n"
        "__device__ void g() { NOP(); }\n"
    )
    (only,) = _expanded(text)
    assert only.template.text == "membar.gl;"
    assert "defined(__CUDA_ARCH__)" in only.context.guards


def test_a_definition_no_supported_build_takes_for_a_file_macro_is_dropped() -> None:
    # the file defines USE_SYNC for every target from CUDA 9 on: the #else is for none
    text = (
        "#if (__CUDACC_VER_MAJOR__ >= 9 && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 300) \\\n"
        "    && !defined(USE_SYNC)\n"
        "#define USE_SYNC\n"
        "#endif\n"
    ) + SHFL.replace("#if __CUDA_ARCH__ >= 700", "#ifdef USE_SYNC") + (
        "__device__ int f(int v) {\n  SHFL_DOWN(v, 16);\n  return v;\n}\n"
    )
    (only,) = _expanded(text)
    assert only.template.text.startswith("shfl.sync.down")
    assert "defined(USE_SYNC)" in only.context.guards
    # without that definition either may be in force
    assert len(_expanded(text.replace("#define USE_SYNC\n", ""))) == 2


def test_a_macro_with_several_definitions_inside_one_with_a_single_one() -> None:
    text = SHFL + (
        "#define REDUCE(v) do { SHFL_DOWN(v, 16); SHFL_DOWN(v, 8); } while (0)\n"
        "__device__ int f(int x) {\n  REDUCE(x);\n  return x;\n}\n"
    )
    statements = _expanded(text)
    assert [s.template.text.split()[0] for s in statements] == [
        "shfl.sync.down.b32", "shfl.sync.down.b32", "shfl.down.b32", "shfl.down.b32"
    ]
    assert [s.operands[1].expression for s in statements] == ["16", "8", "16", "8"]
    for s in statements:
        assert s.context.expansion is not None
        assert s.context.expansion.invocation == "REDUCE(x)"
    # the note names the definition this statement took
    assert {s.context.expansion.defined_at for s in statements[:2]} == {"k.cu:2"}
    assert {s.context.expansion.defined_at for s in statements[2:]} == {"k.cu:5"}
    assert "!(__CUDA_ARCH__ >= 700)" in statements[2].context.guards


def test_definitions_that_do_not_read_one_invocation_alike_are_skipped() -> None:
    text = (
        "#ifdef A\n"
        '#define FENCE() asm volatile("fence.sc.gpu;")\n'
        "#else\n"
        '#define FENCE asm volatile("membar.gl;")\n'
        "#endif\n"
        "__device__ void f() { FENCE(); }\n"
    )
    result = extract_statements(SourceFile("k.cu", text))
    assert [s for s in result.statements if s.context.expansion is not None] == []
    ((_, reason),) = result.skipped_invocations
    assert "some of its definitions here take arguments" in reason


def _header_project(tmp_path: Path, header: str, kernel: str) -> str:
    (tmp_path / "shfl.cuh").write_text(header)
    (tmp_path / "k.cu").write_text(kernel)
    return str(tmp_path / "k.cu")


def test_rules_read_each_alternatives_guards_and_report_at_the_use(tmp_path: Path) -> None:
    header = SHFL.replace("%0, %0, %1, 0x1f, 0xffffffff", "%0, %0, %2, 0x1f, 0xffffffff")
    kernel = (
        '#include "shfl.cuh"\n'
        "__device__ int f(int v) {\n  SHFL_DOWN(v, 16);\n  SHFL_DOWN(v, 8);\n  return v;\n}\n"
    )
    path = _header_project(tmp_path, header, kernel)
    findings = lint_text(kernel, path)
    # shfl without .sync, only where __CUDA_ARCH__ < 700: nothing to say (PTX401-403)
    assert [f for f in findings if f.rule.startswith("PTX40")] == []
    # the sync definition's wrong operand index, at each use, the definition named
    wrong = [f for f in findings if f.rule == "PTX001"]
    assert [kernel[f.span.start : f.span.end] for f in wrong] == [
        "SHFL_DOWN(v, 16)", "SHFL_DOWN(v, 8)"
    ]
    for f in wrong:
        assert f.expansion is not None
        assert f.expansion.defined_at == f"{tmp_path / 'shfl.cuh'}:2"


def test_an_alternative_that_holds_for_new_targets_too_is_reported_once(tmp_path: Path) -> None:
    # an #ifdef that says nothing of the target: the pre-sync definition is for sm_70+ too
    header = SHFL.replace("#if __CUDA_ARCH__ >= 700", "#ifdef USE_SYNC_SHFL")
    kernel = (
        '#include "shfl.cuh"\n'
        "__device__ int f(int v) {\n  SHFL_DOWN(v, 16);\n  SHFL_DOWN(v, 8);\n  return v;\n}\n"
    )
    path = _header_project(tmp_path, header, kernel)
    (old,) = [f for f in lint_text(kernel, path) if f.rule == "PTX402"]
    assert kernel[old.span.start : old.span.end] == "SHFL_DOWN(v, 16)"  # the first use
    assert old.expansion is not None
    assert old.expansion.defined_at == f"{tmp_path / 'shfl.cuh'}:5"


# A macro argument is macro-replaced before it is substituted (C11 6.10.3.1), so a `#` of the
# macro it is passed on to stringifies its value: `ST_BASE(v, p, REG)` below has the
# constraint "h" or "r" (nvcc -E), never "REG", though `ST(v, p, REG)` has "REG".
_REG_ARMS = """\
#ifdef FAST
  #define REG h
#else
  #define REG r
#endif
#define ST(v, p, mod) asm volatile("st.global.u16 [%0], %1;" : : "l"(p), #mod(v))
#define ST_BASE(v, p, mod) ST(v, p, mod)
#define STR(x) #x
#define XSTR(x) STR(x)
"""


def test_a_stringified_argument_takes_each_definition_of_its_macro() -> None:
    text = _REG_ARMS + "__device__ void f(short v, short* p) { ST_BASE(v, p, REG); }\n"
    fast, slow = _expanded(text)
    assert [o.constraint.text for o in fast.operands] == ["l", "h"]
    assert [o.constraint.text for o in slow.operands] == ["l", "r"]
    assert "defined(FAST)" in fast.context.guards
    assert "!(defined(FAST))" in slow.context.guards
    assert lint_text(text, select=("PTX002", "PTX003")) == []


def test_a_name_stringified_as_written_stays_the_name() -> None:
    text = _REG_ARMS + "__device__ void f(short v, short* p) { ST(v, p, REG); }\n"
    assert {f.rule for f in lint_text(text, select=("PTX002", "PTX003"))} == {"PTX002", "PTX003"}


def test_a_string_made_of_a_macro_with_several_definitions_is_not_read_as_its_name() -> None:
    text = _REG_ARMS + ('__device__ void f(short v, short* p) {\n'
                        '  asm volatile("st.global.u16 [%0], %1;" : : "l"(p), XSTR(REG)(v));\n}\n')
    assert lint_text(text, select=("PTX002", "PTX003")) == []


def test_an_include_guarded_header_keeps_its_alternatives() -> None:
    # the header's own `#define H` before the use does not make its `#ifndef H` false there
    text = "#ifndef K_H\n#define K_H\n" + SHFL + (
        "__device__ int f(int v) {\n  SHFL_DOWN(v, 16);\n  return v;\n}\n#endif\n")
    templates = sorted(s.template.text for s in _expanded(text, "k.cuh"))
    assert templates == ["shfl.down.b32 %0, %0, %1, 0x1f;",
                         "shfl.sync.down.b32 %0, %0, %1, 0x1f, 0xffffffff;"]
