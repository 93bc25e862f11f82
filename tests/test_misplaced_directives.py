"""PTX204 on directives a function body cannot hold: an asm statement's template is pasted into
the body of the function nvcc writes, so a module's or a function header's directive, a
variable with linkage, a texture variable or a declaration without a state space is a ptxas
error there (ptxlint/ptx/directives.py); and on a directive name the PTX ISA does not have
(``.regg``). Each verdict is checked against ptxas 13.0 itself."""

from __future__ import annotations

from subprocess import CompletedProcess

import pytest

from ptxlint.ptx.directives import DIRECTIVES
from tests.conftest import lint_text
from tests.toolchain_cache import INPUT, PTXAS, needs_ptxas, run_cached

# (directive as written in a template, whether PTX204 flags it); every flagged one ptxas
# rejects in a kernel's body, every other one but the last two it assembles
CASES = [
    (".extern .shared .align 16 .b8 smem[];", True),
    (".visible .global .b32 counter;", True),
    (".version 8.0;", True),
    (".address_size 64;", True),
    (".maxnreg 32;", True),
    (".surfref surf;", True),
    (".b32 x;", True),
    (".pred p;", True),
    (".align 16 .b8 buf[16];", True),
    # what a body holds
    (".reg .b32 r;", False),
    (".reg .pred q;", False),
    (".local .align 8 .b32 spill[4];", False),
    (".shared .align 16 .b8 tile[64];", False),
    (".param .b32 arg;", False),
    ('.pragma "nounroll";', False),
    (".extern .func helper;", False),  # a function's prototype
    (".global .b32 counter;", False),
    (".const .b32 table[4];", False),
    (".loc 1 12 3", False),  # the module's .file 1
    (".func g2;\n\t.alias g2, f;", False),
    (".attribute(.managed) .global .b32 m;", False),
    ("proto: .callprototype _ (.param .b32 _);", False),
    ("targets: .calltargets helper;", False),
    # header directives ISA 9.x added to the table's
    (".maxnctapersm 1;", True),
    (".blocksareclusters", True),
    (".abi_preserve_control 8;", True),
    (".sreg .b32 s;", True),  # the special registers' state space declares nothing
    # names the PTX ISA does not have
    (".foo 1;", True),
    (".regg .b32 r;", True),
    (".shraed .b32 x;", True),
    (".REG .b32 r;", True),
    (".managed .global .b32 m;", True),  # an attribute's word, not a directive
    (".L1: membar.gl;", True),  # a PTX identifier cannot start with '.'
    # a known name ptxlint does not judge (ptxas rejects it with ';', but .target without
    # ';' it assembles): silence over guessing
    (".target sm_90;", False),
]
UNJUDGED = {".target sm_90;"}


def _flagged(directive: str) -> bool:
    text = ('__device__ void f() {\n'
            f'  asm volatile("{_c_string(directive)}\\n\\tmembar.gl;" ::: "memory");\n'
            '}\n')
    return any(f.rule == "PTX204" for f in lint_text(text, select=("PTX204",)))


@pytest.mark.parametrize(("directive", "rejected"), CASES)
def test_a_directive_a_body_cannot_hold_is_flagged(directive: str, rejected: bool) -> None:
    assert _flagged(directive) == rejected


def test_another_assemblers_directive_is_left_alone() -> None:
    # host x86 asm: its .align is no PTX declaration
    text = ('void spin() {\n'
            '  asm volatile(".align 16\\n\\tpause" ::: "memory");\n'
            '}\n')
    assert not [f for f in lint_text(text, "host.cpp", select=("PTX204",))]


def test_the_finding_points_at_the_directive_and_says_why() -> None:
    text = ('__device__ void f() {\n'
            '  asm volatile(".extern .shared .align 128 .b8 dynamic_smem[];\\n\\tmembar.gl;");\n'
            '}\n')
    [found] = lint_text(text, select=("PTX204",))
    assert text[found.span.start:found.span.end] == ".extern"
    assert "'.extern .shared' declares a variable with linkage" in found.message


def test_a_triton_template_is_held_to_the_same_body() -> None:
    text = ('import triton.language as tl\n'
            'def smem_base():\n'
            '    return tl.inline_asm_elementwise(\n'
            '        ".extern .shared .align 128 .b8 dynamic_smem[];\\n'
            'cvta.shared.u64 $0, dynamic_smem;", "=l", [], dtype=tl.int64, is_pure=True,'
            ' pack=1)\n')
    assert [f.rule for f in lint_text(text, "k.py", select=("PTX204",))] == ["PTX204"]


@needs_ptxas
@pytest.mark.parametrize(("directive", "rejected"),
                         [case for case in CASES if case[0] not in UNJUDGED])
def test_ptxas_agrees(directive: str, rejected: bool) -> None:
    assert PTXAS is not None
    run = _ptxas(directive)
    assert (run.returncode != 0) == rejected, run.stderr
    if rejected and directive in UNKNOWN:
        assert f"Parsing error near '{directive.split()[0].rstrip(':')}'" in run.stderr


def _ptxas(directive: str) -> CompletedProcess[str]:
    """ptxas 13.0 on a kernel whose body holds ``directive``, in a module with a .file, a
    device function ``f`` and a prototype ``helper`` for the directives that name them."""
    assert PTXAS is not None
    module = (".version 8.0\n.target sm_90\n.address_size 64\n.file 1 \"k.cu\"\n"
              ".extern .func helper;\n.visible .func f()\n{\n\tret;\n}\n"
              ".visible .entry k()\n{\n\t" + directive + "\n\tmembar.gl;\n\tret;\n}\n")
    return run_cached(PTXAS, ["-arch=sm_90", INPUT, "-o", "/dev/null"], module,
                      filename="case.ptx")


UNKNOWN = {".foo 1;", ".regg .b32 r;", ".shraed .b32 x;", ".REG .b32 r;",
           ".managed .global .b32 m;", ".L1: membar.gl;"}


@pytest.mark.parametrize(("directive", "nearest"), [
    (".regg .b32 r;", ".reg"), (".shraed .b32 x;", ".shared"), (".loacl .b32 l;", ".local"),
    (".pragme 1;", ".pragma"), (".REG .b32 r;", ".reg"), (".foo 1;", None),
])
def test_an_unknown_directive_gets_the_nearest_known_name(directive: str,
                                                          nearest: str | None) -> None:
    text = ('__device__ void f() {\n'
            f'  asm volatile("{directive}\\n\\tmembar.gl;" ::: "memory");\n'
            '}\n')
    [found] = lint_text(text, select=("PTX204",))
    name = directive.split()[0]
    assert text[found.span.start:found.span.end] == name
    assert found.severity.value == "error"
    assert f"'{name}' is not a PTX directive" in found.message
    assert ("did you mean" in found.message) == (nearest is not None)
    if nearest is not None:
        assert f"did you mean '{nearest}'" in found.message


def test_a_host_function_in_a_cuda_file_keeps_its_assemblers_directives() -> None:
    # x86 asm in a .cu file's host function: .p2align and the .L1 label are the GNU
    # assembler's, not PTX typos
    text = ('void spin() {\n'
            '  asm volatile(".p2align 4\\n.L1:\\n\\tpause\\n\\tjmp .L1" ::: "memory");\n'
            '}\n')
    assert lint_text(text, "spin.cu", select=("PTX204",)) == []
    # the same name in a device function's PTX is one ptxas rejects
    device = ('__device__ void spin() {\n'
              '  asm volatile(".p2align 4;\\n\\tmembar.gl;" ::: "memory");\n'
              '}\n')
    [found] = lint_text(device, "spin.cu", select=("PTX204",))
    assert "'.p2align' is not a PTX directive" in found.message


def test_a_dsl_name_built_by_a_field_is_not_a_directive_yet() -> None:
    # '.sha{kind}': the f-string field completes the name; '.shraed' is a typo as written
    template = ('import triton.language as tl\n'
                'def k(x, kind):\n'
                '    return tl.inline_asm_elementwise(\n'
                '        f"{{ .sha{kind} .b32 t; mov.b32 t, $1; mov.b32 $0, t; }}", "=r,r",'
                ' [x], dtype=tl.int32, is_pure=True, pack=1)\n')
    assert lint_text(template, "k.py", select=("PTX204",)) == []
    typo = template.replace("f\"{{ .sha{kind}", "\"{ .shraed").replace("t; }}\"", "t; }\"")
    [found] = lint_text(typo, "k.py", select=("PTX204",))
    assert "'.shraed' is not a PTX directive" in found.message


# a form of each directive of the ISA as a kernel's body would hold it
_BODY_FORMS = {
    ".address_size": ".address_size 64;", ".alias": ".func g2;\n\t.alias g2, f;",
    ".align": ".align 4 .b8 x[4];", ".branchtargets": "bt: .branchtargets L0;\nL0:",
    ".callprototype": "p: .callprototype _ (.param .b32 _);",
    ".calltargets": "ct: .calltargets helper;", ".common": ".common .global .b32 c;",
    ".const": ".const .b32 c;", ".entry": ".entry e2 {}",
    ".explicitcluster": ".explicitcluster", ".extern": ".extern .func helper;",
    ".file": '.file 2 "b.cu";', ".func": ".func g3;\n\t.alias g3, f;", ".global": ".global .b32 g;",
    ".loc": ".loc 1 2 3", ".local": ".local .b32 l;", ".maxclusterrank": ".maxclusterrank 2",
    ".maxnctapersm": ".maxnctapersm 1", ".maxnreg": ".maxnreg 32", ".maxntid": ".maxntid 32",
    ".minnctapersm": ".minnctapersm 1", ".noreturn": ".noreturn", ".param": ".param .b32 p;",
    ".pragma": '.pragma "nounroll";', ".reg": ".reg .b32 r;",
    ".reqnctapercluster": ".reqnctapercluster 2", ".reqntid": ".reqntid 32",
    ".section": ".section .debug_info {}", ".shared": ".shared .b32 s;",
    ".sreg": ".sreg .b32 s;", ".target": ".target sm_90", ".tex": ".tex .u64 t;",
    ".version": ".version 8.0", ".visible": ".visible .global .b32 v;",
    ".weak": ".weak .global .b32 w;", ".abi_preserve": ".abi_preserve 8",
    ".abi_preserve_control": ".abi_preserve_control 8",
    ".blocksareclusters": ".blocksareclusters",
    ".attribute": ".attribute(.managed) .global .b32 m;",
}


def test_every_directive_of_the_isa_has_a_body_form() -> None:
    assert set(_BODY_FORMS) == DIRECTIVES


@needs_ptxas
@pytest.mark.parametrize("name", sorted(_BODY_FORMS))
def test_a_known_directive_is_flagged_exactly_where_ptxas_rejects_it(name: str) -> None:
    """Never 'not a PTX directive' for a name of the ISA; flagged as misplaced only where
    ptxas 13.0 rejects the form in a kernel's body."""
    form = _BODY_FORMS[name]
    text = ('__device__ void f() {\n'
            f'  asm volatile("{_c_string(form)}\\n\\tmembar.gl;" ::: "memory");\n'
            '}\n')
    found = lint_text(text, select=("PTX204",))
    assert not [f for f in found if "not a PTX directive" in f.message]
    assert bool(found) == (_ptxas(form).returncode != 0)


def _c_string(ptx: str) -> str:
    return ptx.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
