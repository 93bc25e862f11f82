"""PTX513: asm_dialect=AD_Intel on NVPTX makes LLVM print '.intel_syntax' and '.att_syntax'
around the template, and ptxas rejects them; AD_ATT (LLVM's default) changes nothing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import lint_text
from tests.toolchain_marks import toolchain

_CALL = '''\
from cutlass._mlir.dialects import llvm
from cutlass.cutlass_dsl import T


def mul(a, b):
    return llvm.inline_asm(T.i32(), [a, b], {template!r}, "=r,r,r"{dialect})
'''


def _findings(template: str, dialect: str = "AD_Intel"):
    keyword = f", asm_dialect=llvm.AsmDialect.{dialect}" if dialect else ""
    source = _CALL.format(template=template, dialect=keyword)
    return lint_text(source, path="mul.py", select=("PTX513",)), source


def test_intel_dialect_is_flagged_with_a_fix_that_removes_it() -> None:
    findings, source = _findings("mul.lo.u32 $0, $1, $2;")
    assert [f.rule for f in findings] == ["PTX513"]
    assert "'.intel_syntax'" in findings[0].message
    (edit,) = findings[0].fix.edits
    fixed = source[: edit.span.start] + edit.new_text + source[edit.span.end:]
    assert fixed == _CALL.format(template="mul.lo.u32 $0, $1, $2;", dialect="")


@pytest.mark.parametrize("template", ["mov.u32 $0, $$x;", "$(mov.u32 $0, 1;$|mov.u32 $0, 2;$)"])
def test_no_fix_where_the_dialects_print_the_template_differently(template: str) -> None:
    findings, _ = _findings(template)
    assert len(findings) == 1 and findings[0].fix is None


@pytest.mark.parametrize("dialect", ["AD_ATT", ""])
def test_the_default_dialect_is_not_flagged(dialect: str) -> None:
    assert _findings("{ .reg .u64 t; mul.wide.u32 t, $1, $2; cvt.u32.u64 $0, t; }",
                     dialect)[0] == []


_IR = '''\
target triple = "nvptx64-nvidia-cuda"
define void @k(i32* %p, i32 %a, i32 %b) {{
  %r = call i32 asm sideeffect {dialect}"{{\\0A.reg .u64 t;\\0Amul.wide.u32 t, $1, $2;\\0A\
cvt.u32.u64 $0, t;\\0A}}", "=r,r,r"(i32 %a, i32 %b)
  store i32 %r, i32* %p
  ret void
}}
!nvvm.annotations = !{{!0}}
!0 = !{{void (i32*, i32, i32)* @k, !"kernel", i32 1}}
'''


@pytest.mark.skipif(shutil.which("llc") is None or toolchain.ptxas is None,
                    reason="needs LLVM's llc and ptxas")
def test_llc_and_ptxas_agree(tmp_path: Path) -> None:
    """What the docs say the toolchain does: the Intel dialect's lines stop ptxas, the default
    dialect (which AD_ATT is: LLVM IR does not even spell it) assembles."""
    ptxas = toolchain.ptxas
    assert ptxas is not None
    verdicts = {}
    for dialect in ("", "inteldialect "):
        ir = tmp_path / f"k{len(dialect)}.ll"
        ir.write_text(_IR.format(dialect=dialect))
        ptx = ir.with_suffix(".ptx")
        subprocess.run(["llc", "-mcpu=sm_80", str(ir), "-o", str(ptx)], check=True,
                       capture_output=True)
        assert (".intel_syntax" in ptx.read_text()) == bool(dialect)
        done = subprocess.run([ptxas.path, "-arch=sm_80", str(ptx), "-o",
                               str(ptx.with_suffix(".cubin"))], capture_output=True, text=True)
        verdicts[dialect] = (done.returncode, done.stderr)
    assert verdicts[""][0] == 0
    assert verdicts["inteldialect "][0] != 0
    assert "Parsing error near '.intel_syntax'" in verdicts["inteldialect "][1]
