"""The analysis's guards: a header's classic include guard binds nothing, so ``--arch`` checks the
code under it, once for every rule that reads the targets (PTX401 and PTX402)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from ptxlint.analysis.include_guard import include_guard, is_include_guard_condition
from ptxlint.analysis.statement import analysis_of
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.rule import RuleContext
from tests.conftest import FIXTURES, lint_text

ANALYSIS = os.path.join(FIXTURES, "analysis")
SM80 = RuleContext(arch=80)
_EXPECT = re.compile(r"expect:\s*((?:PTX\d{3}[ ,]*)+)")


def _read(name: str) -> tuple[str, str]:
    path = os.path.join(ANALYSIS, name)
    return path, Path(path).read_text(encoding="utf-8")


def _lines(text: str, path: str, context: RuleContext) -> set[tuple[int, str]]:
    source = SourceFile(path, text)
    return {
        (source.line_col(f.span.start).line, f.rule)
        for f in lint_text(text, path, select=("PTX401", "PTX402"), context=context)
    }


def _expected(text: str) -> set[tuple[int, str]]:
    found = set()
    for number, line in enumerate(text.splitlines(), 1):
        m = _EXPECT.search(line)
        if m:
            found |= {(number, rule) for rule in re.findall(r"PTX\d{3}", m.group(1))}
    return found


def test_code_under_an_include_guard_is_checked_for_the_arch() -> None:
    path, text = _read("include_guard_bad.cuh")
    assert _expected(text)  # the fixture marks what it expects
    assert _lines(text, path, SM80) == _expected(text)


@pytest.mark.parametrize("name", ["include_guard_clean.cuh", "config_guard_clean.cuh"])
def test_guarded_twins_are_silent_for_the_arch(name: str) -> None:
    path, text = _read(name)
    assert _lines(text, path, SM80) == set()


def test_an_undecided_configuration_guard_still_leaves_the_arch_unchecked() -> None:
    path, text = _read("config_guard_clean.cuh")
    # the same statement with the configuration guard taken away is flagged
    unguarded = text.replace("#ifdef USE_ELECT\n", "").replace("#endif\n", "", 2)
    unguarded = unguarded.replace("#define ELECT_WIDTH 32\n", "").replace("#ifndef ELECT_WIDTH\n", "")
    assert {rule for _, rule in _lines(unguarded, path, SM80)} == {"PTX401"}


def test_the_include_guard_is_left_out_of_the_binding_guards() -> None:
    path, text = _read("include_guard_bad.cuh")
    source = SourceFile(path, text)
    statement = extract_statements(source).statements[0]
    assert statement.context.guards == ("!defined(INCLUDE_GUARD_BAD_CUH)",)
    analysis = analysis_of(statement)
    assert analysis.guards == ()
    assert analysis_of(statement) is analysis  # computed once per statement


def test_the_targets_lacking_a_requirement_are_the_admitted_ones_without_it() -> None:
    """PTX401's question, answered per chain of guards and requirement: the admitted targets,
    in order, that ``available`` says lack the requirement."""
    from ptxlint.ptx.instructions import Requirement
    from ptxlint.ptx.targets import available

    body = 'asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(s), "l"(g));'
    text = ("__device__ void f(unsigned s, const void *g) {\n#if __CUDA_ARCH__ >= 700\n"
            f"{body}\n#endif\n}}\n")
    [statement] = extract_statements(SourceFile("k.cu", text)).statements
    analysis = analysis_of(statement)
    assert analysis.admitted_targets
    for need in (Requirement(80, 70, "", "cp.async"), Requirement(90, 80, "a", "wgmma", (90,)),
                 Requirement(70), Requirement(100, 86, "f", "tcgen05", (100, 103))):
        expected = tuple(t for t in analysis.admitted_targets if not available(need, t))
        assert analysis.lacking(need) == expected
        assert analysis.lacking(need) is analysis.lacking(need)
    assert [t.sm for t in analysis.lacking(Requirement(80))] == sorted(
        {t.sm for t in analysis.admitted_targets if t.sm < 80})


HEADER = "#ifndef A_H\n#define A_H\nint f();\n#endif\n"


@pytest.mark.parametrize(
    "text",
    [
        HEADER,
        "// license\n/* more */\n" + HEADER,
        "#pragma once\n" + HEADER,
        "#if !defined(A_H)\n#define A_H 1\nint f();\n#endif\n",
        "#if ! defined A_H\n#define A_H\nint f();\n#endif /* A_H */\n",
        # cuda_runtime.h: helper macros undefined after the guarded block
        HEADER + "#if defined(UNDEF_A)\n#undef B\n#endif\n",
        "#ifndef A_H\n#define A_H\n#if X\nint g();\n#else\nint h();\n#endif\n#endif\n",
        # directives in comments are none; the closing #endif may end the file, indented
        "#ifndef A_H\n#define A_H\n/* #endif */\nint f(); // #else\n#endif",
        "#ifndef A_H\n#define A_H\n#if B /* x\n#endif ** */\n#endif\n  #  endif\n",
        "#ifndef A_H\n#define A_H\n/** doc ***/ int f();\n/*\n * #else\n */\n#endif\n",
        # lines of a comment after the #endif are no code
        HEADER + "/* notes:\n   int g();\n*/\n// int h();\n",
        "#ifndef A_H // guard\n#define /**/ A_H\nint f();\n#endif\n",
    ],
)
def test_include_guards_are_recognised(text: str) -> None:
    assert include_guard(text) == "A_H"


@pytest.mark.parametrize(
    "text",
    [
        "int before();\n" + HEADER,  # code outside the block
        HEADER + "int after();\n",
        "#ifndef A_H\n#define B_H\nint f();\n#endif\n",  # defines another macro
        "#ifndef A_H\nint f();\n#define A_H\n#endif\n",  # code before the define
        "#ifndef A_H\n#define A_H\nint f();\n#else\nint g();\n#endif\n",  # the guard's own #else
        "#ifdef A_H\n#define A_H\nint f();\n#endif\n",
        "#ifndef A_H\n#define A_H\nint f();\n",  # never closed
        "int f();\n",
    ],
)
def test_other_shapes_are_not_include_guards(text: str) -> None:
    assert include_guard(text) is None


def test_the_include_guard_is_read_from_the_walk_the_statements_guards_come_from() -> None:
    from ptxlint.frontends.cxx.guards import guards_of

    text = "".join(list(HEADER))  # a text of its own: nothing remembered of it
    walk = guards_of(text)
    assert walk._branches is None
    assert include_guard(text) == "A_H"
    assert walk._branches is not None and guards_of(text) is walk


def test_only_the_guards_own_condition_is_the_include_guard() -> None:
    assert is_include_guard_condition("!defined(A_H)", "A_H")
    assert is_include_guard_condition("! defined ( A_H )", "A_H")
    assert not is_include_guard_condition("!defined(A_H) && __CUDA_ARCH__ >= 900", "A_H")
    assert not is_include_guard_condition("defined(A_H)", "A_H")
    assert not is_include_guard_condition("!defined(A_HX)", "A_H")


_ERRORS_BELOW_SM70 = """\
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
#error "needs sm_70"
#endif
__device__ int lane_value(int x, int lane) {
  int v;
  asm volatile("shfl.idx.b32 %0, %1, %2, 0x1f;" : "=r"(v) : "r"(x), "r"(lane));
  return v;
}
"""


def test_a_file_that_errors_below_sm70_is_compiled_only_where_shfl_without_sync_is_removed() -> None:
    # every build that gets past the #error is sm_70 or newer: the same error as under an
    # `#if __CUDA_ARCH__ >= 700` guard, not the warning of code also built for older targets
    (finding,) = lint_text(_ERRORS_BELOW_SM70, "k.cu", select=("PTX402",))
    assert finding.severity.value == "error"
    guarded = _ERRORS_BELOW_SM70.replace("#error", "#define OLD_TARGET //")
    (warning,) = lint_text(guarded, "k.cu", select=("PTX402",))
    assert warning.severity.value == "warning"
    # with --arch, a target the file #errors for is never compiled: nothing to report
    assert lint_text(_ERRORS_BELOW_SM70, "k.cu", select=("PTX402",),
                     context=RuleContext(arch=60)) == []
