"""PTX204 on directives a function body cannot hold: an asm statement's template is pasted into
the body of the function nvcc writes, so a module's or a function header's directive, a
variable with linkage, a texture variable or a declaration without a state space is a ptxas
error there (ptxlint/ptx/directives.py). Each verdict is checked against ptxas 13.0 itself."""

from __future__ import annotations

import pytest

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
    # names ptxlint does not judge (ptxas rejects both here, but .target without ';' it
    # assembles, and an unknown name may be a newer ptxas's): silence over guessing
    (".target sm_90;", False),
    (".foo 1;", False),
]
UNJUDGED = {".target sm_90;", ".foo 1;"}


def _flagged(directive: str) -> bool:
    text = ('__device__ void f() {\n'
            f'  asm volatile("{directive}\\n\\tmembar.gl;" ::: "memory");\n'
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
    module = (".version 8.0\n.target sm_90\n.address_size 64\n.extern .func helper;\n"
              ".visible .entry k()\n{\n\t" + directive + "\n\tmembar.gl;\n\tret;\n}\n")
    run = run_cached(PTXAS, ["-arch=sm_90", INPUT, "-o", "/dev/null"], module,
                     filename="case.ptx")
    assert (run.returncode != 0) == rejected, run.stderr
