"""The inline_ptx probe's reading, without a compiler: the PTX as the user wrote it, and which
kernel parameter each register of the inline asm came from."""

from __future__ import annotations

from ptxlint.frontends.python import extract_python
from ptxlint.model import SourceFile
from ptxlint.ptx.parser import parse_template
from ptxlint.verify import inline_ptx_probe

CALL = (
    "import cutlass.cute as cute\nfrom cutlass import Int32\n"
    "def k(a, b):\n"
    "    cute.arch.inline_ptx(f'sub.s32 {{$rw0}}, {{$rw0}}, {{$r0}};', read_write_args=[Int32(a)],\n"
    "                         read_only_args=[Int32(b)])\n"
)
PTX = """
	ld.param.u32 	%r1, [probe_param_1];
	ld.param.u32 	%r2, [probe_param_0];
	// begin inline asm
	sub.s32 %r1, %r1, %r2;
	// end inline asm
"""


def statement():
    (s,) = extract_python(SourceFile("k.py", CALL), parse_template).statements
    return s


def test_the_probe_writes_the_placeholders_back() -> None:
    assert inline_ptx_probe.written_ptx(statement()) == "sub.s32 {$rw0}, {$rw0}, {$r0};"
    program, which = inline_ptx_probe.script(statement(), "python")
    assert which == {("rw", 0): 0, ("r", 0): 1}
    assert "read_write_args=[a0]" in program and "read_only_args=[a1]" in program


def test_registers_are_traced_to_the_parameters_they_were_loaded_from() -> None:
    s = statement()
    assert inline_ptx_probe.sources(PTX) == {"%r1": 1, "%r2": 0}
    assert inline_ptx_probe.registers(s, PTX) == {0: "%r1", 1: "%r2"}
    _, which = inline_ptx_probe.script(s, "python")
    wrong = inline_ptx_probe._misread(s, PTX, which, None)
    assert len(wrong) == 2 and "loaded from read_only_args[0]" in wrong[0]
