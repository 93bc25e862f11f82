"""A kernel declared through a macro: a function is a ``__global__`` kernel where a macro
before its declarator expands, in every configuration the front end reads and through other
macros, to specifiers holding ``__global__`` (``SpecifierMacros.kernel``; CUTLASS's
``#define CUTLASS_GLOBAL __global__ static``). A macro it cannot see, or one some
configuration leaves without ``__global__``, declares no kernel."""

from __future__ import annotations

import pytest

from ptxlint.analysis.function_flow import FileFlows
from ptxlint.engine import extract_statements
from ptxlint.frontends.cxx.function_recovery import FunctionRecovery, recovered_kernel
from ptxlint.frontends.cxx.macros import MacroTable
from ptxlint.frontends.cxx.specifier_macros import SpecifierMacros
from ptxlint.frontends.syntax_tree import parse
from ptxlint.model import SourceFile
from tests.conftest import lint_text

DEFINES = """#define MY_GLOBAL __global__ static
#define MY_KERNEL MY_GLOBAL
#define MY_DEVICE __forceinline__ __device__
#define MY_TYPED __global__ void
#if defined(HOST_ONLY_PARSE)
#define MAYBE_GLOBAL
#else
#define MAYBE_GLOBAL __global__
#endif
int use;
"""


@pytest.mark.parametrize(("name", "kernel"), [
    ("MY_GLOBAL", True),       # __global__ with another specifier
    ("MY_KERNEL", True),       # through another macro
    ("MY_DEVICE", False),      # device code, no kernel
    ("MY_TYPED", False),       # a type word: no specifier macro
    ("MAYBE_GLOBAL", False),   # one configuration is empty
    ("UNSEEN_GLOBAL", False),  # defined nowhere ptxlint sees
])
def test_which_macros_declare_a_kernel(name: str, kernel: bool) -> None:
    judge = SpecifierMacros(lambda: MacroTable("t.cu", DEFINES))
    assert judge.kernel(name, DEFINES.index("int use")) is kernel


HELPERS = r"""
#include <cstdint>
__device__ __forceinline__ void mma(float (&d)[4], uint64_t a, uint64_t b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, 1, 1, 1, 0, 0;"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(a), "l"(b));
}
"""


def _first_wgmma(head: str) -> list[str]:
    text = DEFINES + HELPERS + f"""
template <int N>
{head} k(float* out, uint64_t a, uint64_t b) {{
  float d[4];
  mma(d, a, b);
  out[threadIdx.x] = d[0];
}}
"""
    return [f.message for f in lint_text(text, select=("PTX607",))]


@pytest.mark.parametrize("head", ["__global__ void", "MY_GLOBAL void", "MY_KERNEL void"])
def test_a_kernel_declared_through_a_macro_reaches_its_first_wgmma(head: str) -> None:
    assert len(_first_wgmma(head)) == 1


@pytest.mark.parametrize("head", ["MY_DEVICE void", "MAYBE_GLOBAL void", "UNSEEN_GLOBAL void"])
def test_no_kernel_where_a_macro_may_say_otherwise(head: str) -> None:
    assert _first_wgmma(head) == []


def test_a_file_without_asm_judges_its_kernel_macros(tmp_path) -> None:
    """A kernel file with no asm of its own (its wgmma in a project header's helper) is parsed
    for the helper calls with the file's macros judged, as extraction parses one with asm."""
    (tmp_path / "helpers.cuh").write_text(DEFINES + HELPERS)
    kernel = tmp_path / "kernel.cu"
    text = """#include "helpers.cuh"
MY_GLOBAL void k(float* out, uint64_t a, uint64_t b) {
  float d[4];
  mma(d, a, b);
  out[threadIdx.x] = d[0];
}
"""
    kernel.write_text(text)
    found = lint_text(text, path=str(kernel), select=("PTX607",))
    assert len(found) == 1


def test_a_kernel_macro_makes_its_template_an_entry_point() -> None:
    """A kernel template is instantiated where it is launched, in this file or another: a
    finding in one is no latent one (not "nothing in this file instantiates"), whether
    ``__global__`` is spelled or a macro says it."""
    for head in ("__global__ void", "MY_GLOBAL void", "MY_KERNEL void"):
        text = DEFINES + f"""template <int N>
{head} k(unsigned* p) {{
  asm volatile("bogus.instr %0;" :: "r"(N));
}}
"""
        found = lint_text(text, select=("PTX204",))
        assert [f.latent for f in found] == [""], head


# A macro call with no `;` makes the next definition part of an expression: the tree shows no
# function there, and the C++ front end reads it from the text (``function_recovery``).
LOST = DEFINES + """#define DEFINE_OP(op) __device__ int apply(int a, int b) { return a op b; }
DEFINE_OP(+)
HEAD void k(unsigned* p) {
  asm volatile("st.global.u32 [%0], 1;" :: "l"(p) : "memory");
}
"""


@pytest.mark.parametrize(("head", "words"), [
    ("__global__", ("__global__",)),
    ("MY_GLOBAL", ("__global__",)),   # the judge of the tree's functions says so
    ("MY_KERNEL", ("__global__",)),
    ("MY_DEVICE", ("__device__",)),   # device code, no kernel
    ("MAYBE_GLOBAL", ()),  # one configuration is empty: no kernel, nor known device code
])
def test_a_function_the_tree_lost_is_a_kernel_by_the_same_judge(
        head: str, words: tuple[str, ...]) -> None:
    text = LOST.replace("HEAD", head)
    parsed = parse("k.cu", text, SpecifierMacros(lambda: MacroTable("k.cu", text)))
    at = parsed.to_byte(text.index("asm volatile"))
    found, _ = FunctionRecovery(parsed).around(at)
    assert found is not None and found.name == "k"
    assert recovered_kernel(parsed, found) is (words == ("__global__",))
    (statement,) = extract_statements(SourceFile("k.cu", text)).statements
    assert statement.context.function_specifiers[-1:] == words


@pytest.mark.parametrize(("head", "kernel"), [
    ("__global__", True), ("MY_GLOBAL", True), ("MY_KERNEL", True),
    ("MY_DEVICE", False), ("MAYBE_GLOBAL", False),
])
def test_the_flow_of_a_function_the_tree_lost_is_a_kernel_by_the_same_judge(
        head: str, kernel: bool) -> None:
    """The protocol rules' whole-kernel checks (PTX601, PTX607, PTX609, PTX611) read the
    function flow's ``kernel``: a recovered ``MY_GLOBAL`` function is one, as a parsed one is."""
    text = LOST.replace("HEAD", head)
    extracted = extract_statements(SourceFile("k.cu", text))
    flows = FileFlows(extracted.parsed, tuple(extracted.statements), "k.cu")
    flow = flows.function_at(extracted.parsed.to_byte(text.index("asm volatile")))
    assert flow is not None and flow.name == "k"
    assert flow.recovered is (head != "__global__")  # the tree keeps a spelled one
    assert flow.kernel is kernel
