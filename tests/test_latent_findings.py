"""Latent versus live (ptxlint.analysis.latent): a finding in code that no build of its file
compiles carries the reason (``latent`` in JSON and SARIF, ``[latent]`` in text), and one in
code the build compiles does not. The toolchain is the judge of what "no build compiles"
means: nvcc accepts a file whose only defect sits in a dead branch, an uninstantiated template
or an uncalled inline helper, and rejects the same defect once the code is used."""

from __future__ import annotations

import json

import pytest

from ptxlint.model import SourceFile
from ptxlint.registry import load_rules
from ptxlint.report import concise_format, json_format, sarif_format
from ptxlint.report.run_result import RunResult
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, NVCC, OUTPUT, needs_nvcc, run_cached

# `mul.lo.u23` is no PTX instruction (PTX204); ptxas rejects it wherever it is compiled.
BAD = 'asm volatile("mul.lo.u23 %0, %0, 3;" : "+r"(*p));'

LATENT = {
    "dead-branch": f"#if 0\n__global__ void k(int *p) {{ {BAD} }}\n#endif\n",
    # C++ reads `false` as 0 in #if, whatever the build defines
    "dead-branch-false": f"#if defined(X) && false\n__global__ void k(int *p) {{ {BAD} }}\n#endif\n",
    "template": f"template <int N> __device__ void t(int *p) {{ {BAD} }}\n",
    "static-helper": f"static __device__ void h(int *p) {{ {BAD} }}\n",
    "inline-helper": f"__forceinline__ __device__ void h(int *p) {{ {BAD} }}\n",
    "class-template-member": (
        f"template <class T> struct S {{ __device__ void f(int *p) {{ {BAD} }} }};\n"
    ),
    # an explicit specialization is no template: its member is a helper, latent while uncalled
    "specialization-member": (
        "template <class T> struct S {};\n"
        f"template <> struct S<int> {{ __device__ void f(int *p) {{ {BAD} }} }};\n"
    ),
    # a translation unit's macro that nothing invokes: no other file sees it
    "uninvoked-macro": f"#define MUL3(p) {BAD[:-1]}\n__global__ void k(int *p) {{ }}\n",
}
LIVE = {
    "kernel": f"__global__ void k(int *p) {{ {BAD} }}\n",
    "instantiated-template": (
        f"template <int N> __device__ void t(int *p) {{ {BAD} }}\n"
        "__global__ void k(int *p) { t<1>(p); }\n"
    ),
    "called-helper": (
        f"static __device__ void h(int *p) {{ {BAD} }}\n"
        "__global__ void k(int *p) { h(p); }\n"
    ),
    "live-else-of-dead-if": f"#if 0\n#else\n__global__ void k(int *p) {{ {BAD} }}\n#endif\n",
    "live-if-true": f"#if defined(X) || true\n__global__ void k(int *p) {{ {BAD} }}\n#endif\n",
    "invoked-macro": f"#define MUL3(p) {BAD[:-1]}\n__global__ void k(int *p) {{ MUL3(p); }}\n",
    # `OP_ ## x` may spell the macro's name: an invocation no whole-word search sees
    "pasted-macro": (
        f"#define OP_MUL3(p) {BAD[:-1]}\n#define OP(x, p) OP_ ## x(p)\n"
        "__global__ void k(int *p) { OP(MUL3, p); }\n"
    ),
}


def _ptx204(text: str, path: str = "k.cu") -> list[str]:
    return [f.latent for f in lint_text(text, path=path, select=("PTX204",))]


@pytest.mark.parametrize("case", sorted(LATENT))
def test_defect_in_code_no_build_compiles_is_marked_latent_with_its_reason(case: str) -> None:
    [reason] = _ptx204(LATENT[case])
    assert reason, case
    word = {"dead-branch": "dead #if", "dead-branch-false": "dead #if", "template": "instantiates",
            "class-template-member": "instantiates", "uninvoked-macro": "invokes"}.get(
        case, "calls")
    assert word in reason


@pytest.mark.parametrize("case", sorted(LIVE))
def test_defect_in_code_the_build_compiles_is_live(case: str) -> None:
    assert _ptx204(LIVE[case]) == [""]


def test_in_a_header_an_uninstantiated_template_is_latent_and_a_helper_is_not() -> None:
    # a template compiles per instantiation wherever it is; a header's helper is for the
    # files that include it, which may call it
    assert _ptx204(LATENT["template"], path="k.cuh") != [""]
    assert _ptx204(LATENT["static-helper"], path="k.h") == [""]
    assert _ptx204(LATENT["dead-branch"], path="k.cuh") != [""]
    # a header's macro is for its includers, as its helpers are
    assert _ptx204(LATENT["uninvoked-macro"], path="k.cuh") == [""]


def test_other_definitions_of_an_overload_set_are_no_use_of_it() -> None:
    text = (f"template <int N> __device__ void t(int *p) {{ {BAD} }}\n"
            "template <int N> __device__ void t(float *p) { }\n")
    assert _ptx204(text, path="k.cuh") != [""]
    assert _ptx204(text + "__global__ void k(float *p) { t<1>(p); }\n") == [""]


def test_each_member_of_an_overload_set_is_judged_by_the_uses_outside_itself() -> None:
    """The members ask about one name in turn (the uses found are kept for the file): a call
    inside one member's own body is a use for the others, and none for that member."""
    text = (f"template <int N> __device__ void t(int *p) {{ {BAD} }}\n"
            f"template <int N> __device__ void t(float *p) {{ {BAD} t<1>((int *)p); }}\n"
            f"template <int N> __device__ void t(double *p) {{ {BAD} }}\n")
    assert [bool(r) for r in _ptx204(text, path="k.cuh")] == [False, True, False]
    unused = text.replace("t<1>((int *)p);", "")
    assert all(_ptx204(unused, path="k.cuh"))
    called = unused + "__global__ void k(int *p) { t<1>(p); }\n"
    assert _ptx204(called, path="k.cuh") == ["", "", ""]


def test_a_qualified_or_nested_definition_of_the_overload_set_is_no_use_of_it() -> None:
    text = (f"namespace n {{ namespace m {{ template <int N> __device__ void t(int *p) {{ {BAD} }} }}\n"
            "template <int N> __device__ void m::t(float *p) { } }\n"
            "template <int N> __device__ void n:: m::t(double *p) { }\n")
    assert _ptx204(text, path="k.cuh") != [""]
    assert _ptx204(text + "__global__ void k(int *p) { n::m::t<1>(p); }\n", path="k.cuh") == [""]


@pytest.mark.parametrize("mention", [
    # an overload's asm template spells the name between two dots: the compiler never reads it
    'template <int N> __device__ void st(float *p) {{ asm("multimem.st.global.v2.f32 [%0];" :: "l"(p)); }}',
    "// st<1>(p) would instantiate it",
    "/* st<1>(p); */",
    'const char *name = "st";',
    "#include <st>",
])
def test_a_name_in_a_string_literal_or_a_comment_is_no_use_of_it(mention: str) -> None:
    template = f"template <int N> __device__ void st(int *p) {{ {BAD} }}\n"
    reason = "in template 'st', which nothing in this file instantiates: it breaks once instantiated"
    assert _ptx204(template + mention.replace("{{", "{").replace("}}", "}") + "\n",
                   path="k.cuh") == [reason]
    assert _ptx204(template + "__global__ void k(int *p) { st<1>(p); }\n", path="k.cuh") == [""]


@pytest.mark.parametrize("result", ["int& h(int *p)", "void (*h(int *p))(float)"])
def test_an_uncalled_helper_named_inside_its_results_declarator_is_latent(result: str) -> None:
    text = f"static __device__ {result} {{ {BAD} return 0; }}\n"
    assert _ptx204(text) == ["in helper 'h', which nothing in this file calls"]
    assert _ptx204(text + "__global__ void k(int *p) { h(p); }\n") == [""]


def test_a_definition_named_inside_its_results_declarator_is_no_use_of_its_overload_set() -> None:
    text = (f"template <int N> __device__ void t(int *p) {{ {BAD} }}\n"
            "template <int N> __device__ int& t(float *p) { return *(int *)p; }\n"
            "template <int N> __device__ void (*t(double *p))(float) { return 0; }\n")
    assert _ptx204(text, path="k.cuh") == [
        "in template 't', which nothing in this file instantiates: it breaks once instantiated"
    ]


# The operand contract nvcc's front end checks: "=r" on a double.
CONTRACT = 'asm volatile("mov.b32 %0, 1;" : "=r"(*p));'


def test_nvccs_front_end_reads_an_uncalled_helper_but_not_an_uninstantiated_template() -> None:
    helper = f"static __device__ void h(double *p) {{ {CONTRACT} }}\n"
    template = f"template <int N> __device__ void t(double *p) {{ {CONTRACT} }}\n"
    [live] = lint_text(helper, path="k.cu", select=("PTX004",))
    [latent] = lint_text(template, path="k.cu", select=("PTX004",))
    assert live.latent == "" and "instantiates" in latent.latent


# a member of an explicit specialization, which nothing uses: no template, so nvcc reads it
SPECIALIZED_CONTRACT = ("template <class T> struct V {};\n"
                        f"template <> struct V<double> {{ __device__ void f(double *p) "
                        f"{{ {CONTRACT} }} }};\n")


def test_a_member_of_an_explicit_specialization_is_read_as_a_helper() -> None:
    [live] = lint_text(SPECIALIZED_CONTRACT, path="k.cu", select=("PTX004",))
    assert live.latent == ""


@needs_nvcc
def test_nvcc_rejects_the_helpers_contract_defect_and_not_the_templates() -> None:
    assert not _compiles(f"static __device__ void h(double *p) {{ {CONTRACT} }}\n")
    assert not _compiles(SPECIALIZED_CONTRACT)
    assert _compiles(f"template <int N> __device__ void t(double *p) {{ {CONTRACT} }}\n")


def test_latent_is_a_json_field_and_a_sarif_property_and_a_text_tag() -> None:
    text = LATENT["template"] + LIVE["kernel"]
    findings = lint_text(text, select=("PTX204",))
    result = RunResult(findings=findings, sources={"test.cu": SourceFile("test.cu", text)})
    rows = json.loads(json_format.render(result))["findings"]
    assert [(r["latent"], "latent_reason" in r) for r in rows] == [(True, True), (False, False)]
    sarif = json.loads(sarif_format.render(result, load_rules().rules))
    props = [r.get("properties") or {} for r in sarif["runs"][0]["results"]]
    assert [p.get("latent", False) for p in props] == [True, False]
    lines = concise_format.render(result, quiet=True).splitlines()
    assert ["[latent]" in line for line in lines] == [True, False]


def _compiles(text: str) -> bool:
    assert NVCC is not None
    return run_cached(NVCC, ["-arch=sm_90", "-c", INPUT, "-o", OUTPUT], text,
                      filename="k.cu").ok


@needs_nvcc
@pytest.mark.parametrize("case", sorted(LATENT))
def test_nvcc_builds_the_latent_defect_and_rejects_it_once_used(case: str) -> None:
    assert _compiles(LATENT[case]), case
    used = {
        "dead-branch": LIVE["kernel"],
        "dead-branch-false": LIVE["kernel"],
        "template": LIVE["instantiated-template"],
        "static-helper": LIVE["called-helper"],
        "inline-helper": LATENT["inline-helper"] + "__global__ void k(int *p) { h(p); }\n",
        "class-template-member": (
            LATENT["class-template-member"] + "__global__ void k(int *p) { S<int>().f(p); }\n"
        ),
        "uninvoked-macro": LIVE["invoked-macro"],
        "specialization-member": (
            LATENT["specialization-member"] + "__global__ void k(int *p) { S<int>().f(p); }\n"
        ),
    }[case]
    assert not _compiles(used), case


def test_a_guard_macro_built_from_names_the_build_sets_is_no_dead_branch() -> None:
    # IS_MLA reads HEAD_ELEMS, which the build passes with -D: undefined here, not 0 there
    text = ("#define IS_MLA (HEAD_ELEMS == 576)\n#if IS_MLA\n"
            f"__global__ void k(int *p) {{ {BAD} }}\n#endif\n")
    assert _ptx204(text) == [""]
