"""#if conditions read with the file's own object-like macros (sm_20_intrinsics.hpp's
``__CVTA_PTR_64``); names ptxlint cannot resolve stay unknown, never 0."""

from __future__ import annotations

from pathlib import Path

from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx import preproc
from ptxlint.model import GuardMacro, SourceFile
from tests.conftest import lint_text


def _statements(text: str, path: str = "k.cu") -> list[tuple[str, bool | None]]:
    """Each statement's template, and whether a 64-bit Linux build compiles it."""
    out = []
    for s in extract_statements(SourceFile(path, text)).statements:
        c = s.context
        out.append((s.template.text, preproc.evaluate_guards(c.guards, macros=c.guard_macros)))
    return out


def test_values_come_from_the_last_definition_that_certainly_holds() -> None:
    lp64 = GuardMacro("PTR64", "1", ("defined(__LP64__) || defined(_WIN64)",))
    assert preproc.evaluate_guards(("!(PTR64)",), macros=(lp64,)) is False
    assert preproc.evaluate_guards(("defined(PTR64)",), macros=(lp64,)) is True
    # a definition that may or may not hold leaves the name unknown
    maybe = GuardMacro("PTR64", "1", ("defined(USE_PTR64)",))
    assert preproc.evaluate_guards(("!(PTR64)",), macros=(maybe,)) is None
    # none holds: the build may still define it (-D), so unknown, not 0
    never = GuardMacro("PTR64", "1", ("defined(_MSC_VER)",))
    assert preproc.evaluate_guards(("PTR64",), macros=(never,)) is None
    # nested, redefined, self-referential
    nested = (GuardMacro("A", "(B + 1)"), GuardMacro("B", "2"), GuardMacro("B", "3"))
    assert preproc.evaluate_guards(("A == 4",), macros=nested) is True
    assert preproc.evaluate_guards(("C",), macros=(GuardMacro("C", "C + 1"),)) is None
    # what the target fixes is not the file's to change
    assert preproc.evaluate_guards(("__LP64__",), macros=(GuardMacro("__LP64__", "0"),)) is True


def test_a_definition_guarded_against_one_before_it_defines_the_name_where_it_holds() -> None:
    # `#if __CUDA_ARCH__ >= 300 && !defined(USE_SYNC)` / `#define USE_SYNC`: defined either way
    sync = GuardMacro("USE_SYNC", "", ("__CUDA_ARCH__ >= 300 && !defined(USE_SYNC)",))
    sm70 = {**preproc.DEFAULT_TARGET, "__CUDA_ARCH__": 700}
    assert preproc.evaluate_guards(("defined(USE_SYNC)",), sm70, (sync,)) is True
    assert preproc.evaluate_guards(("!(defined(USE_SYNC))",), sm70, (sync,)) is False
    # where the condition does not hold, a -D may still define it
    host = {**preproc.DEFAULT_TARGET, "__CUDA_ARCH__": None}
    assert preproc.evaluate_guards(("defined(USE_SYNC)",), host, (sync,)) is None


def test_the_cvta_ptr_64_branch_is_32_bit_only() -> None:
    text = """
#if !defined(__CUDA_ARCH__) || (__CUDA_ARCH__ >= 700)
#if (defined(_MSC_VER) && defined(_WIN64)) || defined(__LP64__) || defined(__CUDACC_RTC__)
#define CVTA_PTR_64 1
#endif
__device__ size_t to_param(const void *ptr) {
#if CVTA_PTR_64
  unsigned long long ret;
  asm("cvta.to.param.u64 %0, %1;" : "=l"(ret) : "l"(ptr));
#else
  unsigned ret;
  asm("cvta.to.param.u32 %0, %1;" : "=r"(ret) : "r"(ptr));
#endif
  return (size_t)ret;
}
#undef CVTA_PTR_64
#endif
"""
    assert _statements(text) == [
        ("cvta.to.param.u64 %0, %1;", None),  # __CUDA_ARCH__ is for PTX401 to decide
        ("cvta.to.param.u32 %0, %1;", False),
    ]
    assert lint_text(text, select=("PTX204", "PTX004")) == []


def test_a_definition_after_the_directive_or_after_an_undef_does_not_count() -> None:
    text = """
#ifndef GUARD_H
#define GUARD_H
__device__ void f() { asm volatile("trap;"); }
#endif
#define M 0
#undef M
#if !M
__device__ void g() { asm volatile("exit;"); }
#endif
"""
    # (were the #define before the #ifndef counted, the include guard would hide the file)
    assert _statements(text, "guard.h") == [("trap;", None), ("exit;", None)]


def test_definitions_from_a_header_included_by_relative_path(tmp_path: Path) -> None:
    (tmp_path / "config.h").write_text(
        "#ifndef CONFIG_H\n#define CONFIG_H\n#define WIDE 1\n#endif\n", encoding="utf-8"
    )
    text = '#include "config.h"\n#if WIDE\n#else\n__device__ void f() { asm("trap;"); }\n#endif\n'
    path = tmp_path / "k.cu"
    path.write_text(text, encoding="utf-8")
    assert _statements(text, str(path)) == [("trap;", False)]


def test_a_branch_64_bit_windows_takes_is_not_32_bit_only() -> None:
    # `!defined(__LP64__)` is also 64-bit Windows (LLP64): .u32 addressing is wrong there.
    text = """
__device__ unsigned f(unsigned p) {
  unsigned r;
#if !defined(__LP64__)
  asm("cvta.to.param.u32 %0, %1;" : "=r"(r) : "r"(p));
#endif
#if !defined(__LP64__) && !defined(_WIN64)
  asm("cvta.to.param.u32 %0, %1;" : "=r"(r) : "r"(p));
#endif
  return r;
}
"""
    findings = lint_text(text, select=("PTX204",))
    assert [f.message.startswith("a .u32 address conversion") for f in findings] == [True]
    assert findings[0].span.start < text.index("_WIN64")


def test_branches_of_one_condition_each_read_the_definitions_before_them() -> None:
    # the same condition four times: before any definition, after one, after its #undef, and
    # nested in a branch that encloses a later definition (whose own guard it then shares)
    text = """
#if WIDE
__device__ void a() { asm volatile("trap;"); }
#endif
#define WIDE 0
#if WIDE
__device__ void b() { asm volatile("trap;"); }
#endif
#if WIDE
__device__ void c() { asm volatile("trap;"); }
#endif
#undef WIDE
#if WIDE
__device__ void d() { asm volatile("trap;"); }
#endif
#if defined(OUTER)
#define WIDE 1
#if WIDE
__device__ void e() { asm volatile("trap;"); }
#endif
#endif
#if WIDE
__device__ void f() { asm volatile("trap;"); }
#endif
"""
    known = [
        [(m.name, m.body, m.conditions) for m in s.context.guard_macros]
        for s in extract_statements(SourceFile("k.cu", text)).statements
    ]
    assert known == [
        [],
        [("WIDE", "0", ())],
        [("WIDE", "0", ())],
        [],
        [("WIDE", "1", ())],  # OUTER encloses both the definition and the branch
        [("WIDE", "1", ("defined(OUTER)",))],
    ]
    assert [v for _, v in _statements(text)] == [None, False, False, None, None, None]


def test_branches_alike_read_the_definitions_before_each_whichever_is_asked_first() -> None:
    # the two inner branches spell the same conditions under the same outer one, but V is
    # redefined between them: each reads its own definition, in either order of asking
    from ptxlint.frontends.cxx.guard_macros import GuardMacros
    from ptxlint.frontends.cxx.guards import FileGuards
    from ptxlint.frontends.cxx.macros import MacroTable

    text = (
        "#define V 1\n#if A\n#if V\nx\n#endif\n#undef V\n#define V 0\n#if V\ny\n#endif\n"
        "#if V\nz\n#endif\n#endif\n"
    )
    table = MacroTable("k.cu", text, follow_includes=False)
    x, y, z = (text.index(f"\n{m}\n") + 1 for m in "xyz")
    for order in ((x, y, z), (z, y, x)):
        known = GuardMacros(FileGuards(text), lambda: table)
        got = {at: known.at(at) for at in order}
        assert [m.body for m in got[x]] == ["1"]
        assert [m.body for m in got[y]] == ["0"] and got[z] == got[y]


# CUB 1.x (util_arch.cuh, util_ptx.cuh): the macro that picks `shfl.sync` is defined for CUDA 9
# and newer inside `#ifndef DOXYGEN_SHOULD_SKIP_THIS`.
_CUB_SHFL = """
#ifndef SKIP
#if (__CUDACC_VER_MAJOR__ >= 9) && !defined(USE_CG)
#define USE_CG
#endif
#endif
__device__ unsigned up(unsigned word, int offset, int flags, unsigned mask) {
#ifdef USE_CG
  asm volatile("shfl.sync.up.b32 %0, %1, %2, %3, %4;"
               : "=r"(word) : "r"(word), "r"(offset), "r"(flags), "r"(mask));
#else
  asm volatile("shfl.up.b32 %0, %1, %2, %3;" : "=r"(word) : "r"(word), "r"(offset), "r"(flags));
#endif
  return word;
}
"""


def test_a_documentation_generators_macro_is_undefined_in_a_compile() -> None:
    """Doxygen's PREDEFINED macros are defined by the documentation run, never by a build:
    CUB's old-toolkit `#else` (`shfl` without `.sync`) is then no supported build's, while the
    same shape under a project's own option, which a build may define, is still reported."""
    assert preproc.evaluate_guards(("!defined(DOXYGEN_SHOULD_SKIP_THIS)",)) is True
    assert preproc.evaluate_guards(("defined(_CCCL_DOXYGEN_INVOKED)",)) is False
    assert preproc.evaluate_guards(("EIGEN_PARSED_BY_DOXYGEN",)) is False
    # a file that defines one itself is read as it defines it
    own = GuardMacro("DOXYGEN_ONLY", "1")
    assert preproc.evaluate_guards(("DOXYGEN_ONLY",), macros=(own,)) is True
    assert preproc.evaluate_guards(("PROJECT_OPTION",)) is None  # any other name stays unknown

    cub = _CUB_SHFL.replace("#ifndef SKIP", "#ifndef DOXYGEN_SHOULD_SKIP_THIS")
    assert lint_text(cub, select=("PTX402",)) == []
    option = _CUB_SHFL.replace("#ifndef SKIP", "#ifndef NO_COOPERATIVE_GROUPS")
    assert [f.rule for f in lint_text(option, select=("PTX402",))] == ["PTX402"]
