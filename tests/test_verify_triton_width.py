"""--verify on PTX004 in a Triton call: the call compiled as written, the finding confirmed by
ptxas's 'Arguments mismatch' where the template's instruction then has the wrong register, else
by the register LLVM put for the operand in Triton's PTX (a 32-bit %r for an int64 under 'r'),
and refuted by a register of the value's own width. The child process is stood in for here; the
real Triton compile was checked on a GPU machine (see the commit)."""

from __future__ import annotations

import pytest

from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.verify import discover, triton_probe, verifier
from ptxlint.verify.runner import Outcome
from tests.test_verify_toolchain import lint

SOURCE = """import triton.language as tl


def k(x):
    y = x.to(tl.int64)
    return tl.inline_asm_elementwise('mov.b32 $0, $1;', '=r,r', [y], dtype=tl.int32,
                                     is_pure=True, pack=1)
"""
# Triton's PTX around the asm, as LLVM's NVPTX backend prints it
PTX = "\tcvt.u32.u64 \t%r1, %rd1;\n\t// begin inline asm\n\tmov.b32 {out}, {arg};\n" \
      "\t// end inline asm\n"


def test_the_operand_register_is_read_from_each_copy_of_the_asm() -> None:
    (s,) = extract_statements(SourceFile("k.py", SOURCE)).statements
    ptx = PTX.format(out="%r2", arg="%r1") + PTX.format(out="%r4", arg="%r3")
    assert triton_probe.operand_registers(ptx, s, 1) == ["%r1", "%r3"]
    assert triton_probe.operand_registers(ptx, s, 0) == ["%r2", "%r4"]
    assert triton_probe.operand_registers("mov.b32 %r2, %r1;", s, 1) is None  # no asm block
    assert [triton_probe.register_bits(r) for r in ("%rd3", "%r3", "%rs1", "%fd2", "%p1")] == [
        64, 32, 16, 64, None]


@pytest.mark.parametrize(("outcome", "status", "words"), [
    (Outcome(0, "", "", ((triton_probe.PTX_OUTPUT, PTX.format(out="%r2", arg="%r1")),)),
     "confirmed", "$1 in %r1, a 32-bit register, for the int64 (64 bits)"),
    (Outcome(0, "", "", ((triton_probe.PTX_OUTPUT, PTX.format(out="%r2", arg="%rd1")),)),
     "refuted", "$1 in %rd1, a 64-bit register"),
    (Outcome(1, "", "ptxas /tmp/x.ptx, line 30; error   : Arguments mismatch for instruction "
                    "'mov'\nRuntimeError: PTXAS error: Internal Triton PTX codegen error\n"),
     "confirmed", "Arguments mismatch"),
    (Outcome(1, "", "SyntaxError: something else\n"), "unverifiable", "another reason"),
])
def test_ptx004_verdict_from_the_triton_compile(tmp_path, monkeypatch, outcome: Outcome,
                                                status: str, words: str) -> None:
    if discover().ptxas is None:
        pytest.skip("no ptxas: --verify needs a CUDA toolchain")
    path = tmp_path / "k.py"
    path.write_text(SOURCE, encoding="utf-8")
    real = verifier.run

    def fake(job, tool, use_cache=True, deadline=None):
        if triton_probe.PROBE_FILE not in dict(job.files):
            return real(job, tool, use_cache, deadline=deadline)
        assert "tl.store" in dict(job.files)[triton_probe.PROBE_FILE]  # compiled as written
        return outcome

    monkeypatch.setattr(triton_probe, "triton_version", lambda python=None: "3.6.0")
    monkeypatch.setattr(verifier, "run", fake)
    from ptxlint.verify import VerifyOptions, verify

    result = verify(lint([str(path)], "--select", "PTX004"), VerifyOptions(use_cache=False))
    (finding,) = result.findings
    verdict = result.verdict(finding)
    assert verdict is not None and verdict.status == status, verdict
    assert words in verdict.evidence
