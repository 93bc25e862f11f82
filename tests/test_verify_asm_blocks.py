"""The one reader of the inline asm blocks in a compiler's PTX (``// begin inline asm`` ...
``// end inline asm``): the spellings nvcc and LLVM's NVPTX backend write, the template lines and
their PTX line numbers, and the code outside them."""

from __future__ import annotations

import pytest

from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.verify import differential, harness, inline_ptx_probe, triton_probe
from ptxlint.verify.asm_blocks import asm_blocks, block_at, is_begin, outside_blocks

NVCC = (
    ".visible .entry k(\n"
    ")\n"
    "{\n"
    "\tld.global.u32 \t%r1, [%rd1];\n"
    "\t// begin inline asm\n"
    "\tadd.u32 %r2, %r1, 1;\n"
    "\tmov.u32 %r3, %r2;\n"
    "\t// end inline asm\n"
    "\tst.global.u32 \t[%rd1], %r3;\n"
    "}\n"
)


@pytest.mark.parametrize("begin, end", [
    ("\t// begin inline asm", "\t// end inline asm"),  # nvcc, LLVM's NVPTX backend
    ("//begin inline asm", "//end inline asm"),
    ("  //   begin  inline asm  ", "// end inline asm\t"),
])
def test_a_marker_is_read_whatever_its_spacing(begin: str, end: str) -> None:
    ptx = f"mov.u32 %r0, 0;\n{begin}\nadd.u32 %r2, %r1, 1;\n{end}\nret;\n"
    [block] = asm_blocks(ptx)
    assert block.lines == ("add.u32 %r2, %r1, 1;",)
    assert (block.begin, block.first, block.end) == (2, 3, 4)
    assert is_begin(begin) and not is_begin(end)


def test_crlf_line_endings_are_read_like_lf() -> None:
    assert [b.lines for b in asm_blocks(NVCC.replace("\n", "\r\n"))] == [
        b.lines for b in asm_blocks(NVCC)]


def test_a_marker_inside_an_instruction_line_is_no_marker() -> None:
    ptx = "add.u32 %r2, %r1, 1; // begin inline asm\nmov.u32 %r1, 0;\n\t// end inline asm\n"
    assert asm_blocks(ptx) == []


def test_a_begin_without_an_end_opens_no_block() -> None:
    ptx = "\t// begin inline asm\nbar.sync 0;\n" + NVCC
    [block] = asm_blocks(ptx)
    assert block.text == "\tadd.u32 %r2, %r1, 1;\n\tmov.u32 %r3, %r2;"
    assert asm_blocks("\t// begin inline asm\n\tmov.u32 %r1, 0;\n") == []


def test_a_line_is_mapped_to_the_block_that_holds_it() -> None:
    [block] = asm_blocks(NVCC)
    assert block.first == 6
    assert [block_at([block], n) is block for n in range(4, 10)] == [
        False, True, True, True, True, False]


def test_outside_is_the_compilers_own_code() -> None:
    outside = outside_blocks(NVCC)
    assert "ld.global.u32" in outside and "st.global.u32" in outside
    assert "add.u32" not in outside and "inline asm" not in outside


def test_every_probe_reads_the_same_blocks() -> None:
    # the differential check counts the copies, the carry check finds their function, the
    # Triton probe reads the registers: each sees the block a spacing variant marks
    ptx = NVCC.replace("\t// begin", "//begin").replace("\t// end", "//end")
    assert differential.asm_copies(ptx, "add.u32") == 1
    assert differential.asm_copies(ptx, "st.global") == 0
    [(begin, text, function)] = differential._blocks(ptx.splitlines())
    assert (begin, function) == (4, "k") and "mov.u32 %r3" in text
    source = ("import triton.language as tl\n\n\ndef k(x):\n"
              "    return tl.inline_asm_elementwise('add.u32 $0, $1, 1;\\n\\tmov.u32 $2, $0;',"
              " '=r,r,=r', [x], dtype=tl.int32, is_pure=True, pack=1)\n")
    (statement,) = extract_statements(SourceFile("k.py", source)).statements
    assert triton_probe.operand_registers(ptx, statement, 1) == ["%r1"]
    assert inline_ptx_probe.registers(statement, ptx) == {0: "%r2", 1: "%r1", 2: "%r3"}
    assert harness._accesses(ptx) == ["ld.global.u32", "st.global.u32"]
