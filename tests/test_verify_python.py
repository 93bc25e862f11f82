"""--verify on PTX in Python: ptxas judges the PTX of LLVM-syntax statements (``$N`` substituted,
``%`` verbatim, placed twice), Triton (where installed) the claims LLVM decides."""

from __future__ import annotations

import os
import shutil

import pytest

from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.verify import discover, ptx_probe, triton_probe, verifier
from ptxlint.verify.runner import Outcome
from tests.test_verify_toolchain import lint

HEADER = "import triton.language as tl\n\n\ndef k(x, c):\n"


def statement(body: str):
    (found,) = extract_statements(SourceFile("k.py", HEADER + body)).statements
    return found


def test_llvm_probe_substitutes_dollars_and_keeps_percent_verbatim() -> None:
    s = statement(
        "    return tl.inline_asm_elementwise('{ mov.b32 $0, ${1}; @%p bra L${:uid}; L${:uid}: }"
        " // $1 %%x', '=r,0', [x], tl.int32, True, 1)\n"
    )
    text = "".join(piece for piece, _ in ptx_probe.substitute(s, 3))
    assert text == "{ mov.b32 %plr0, %plr0; @%p bra L3; L3: } // %plr0 %%x"


def test_triton_probe_script_rebuilds_the_call() -> None:
    s = statement(
        "    h = x.to(tl.float16)\n"
        "    return tl.inline_asm_elementwise('neg.f16x2 $0, $1;', '=r,r', [h],\n"
        "                                     dtype=tl.float16, is_pure=True, pack=2)\n"
    )
    text = triton_probe.script(s)
    compile(text, "probe.py", "exec")  # valid Python
    assert "ASM = tl.constexpr('neg.f16x2 $0, $1;')" in text
    assert "CONSTRAINTS = tl.constexpr('=r,r')" in text
    assert "[a0], dtype=tl.float16, is_pure=True, pack=2)" in text
    assert "'A0': '*fp16'" in text and "tl.store(R0 + offs, out)" in text
    unused = triton_probe.script(s, use_result=False, is_pure=False)
    assert "is_pure=False" in unused and "tl.store" not in unused


def test_triton_probe_refuses_what_it_cannot_rebuild() -> None:
    s = statement(
        "    return tl.inline_asm_elementwise('mov.b32 $0, $1;', '=r,r', [x], x.dtype, True, 1)\n"
    )
    with pytest.raises(ptx_probe.NotProbeable, match="result element types"):
        triton_probe.script(s)


def test_triton_probe_counts_effects_outside_comments() -> None:
    ptx = "atom.global.add.u32 %r1, [%rd1], 1;\n// atom.global.add.u32\natom.global.add.u32x"
    assert triton_probe.count(ptx, "atom.global.add.u32") == 1


class _FakeRun:
    """Stands in for the child process: LLVM's abort for the as-written probe, PTX for the
    purity pair (the pure compile lost the atomic)."""

    def __init__(self, real):
        self.real = real

    def __call__(self, job, tool, use_cache=True, deadline=None):
        if triton_probe.PROBE_FILE not in dict(job.files):
            return self.real(job, tool, use_cache, deadline=deadline)  # ptxas probes run for real
        script = dict(job.files)[triton_probe.PROBE_FILE]
        if "tl.store" in script:
            return Outcome(
                -6,
                "",
                "LLVM ERROR: Failure value returned from cantFail wrapped call\n"
                "number of input constraints does not match number of parameters\n",
            )
        pure = "is_pure=True" in script
        ptx = "" if pure else "atom.global.add.u32 %r1, [%rd1], 1;"
        return Outcome(0, "", "", ((triton_probe.PTX_OUTPUT, ptx),))


def test_triton_verdicts_confirm_llvm_aborts_and_deleted_pure_asm(tmp_path, monkeypatch) -> None:
    if discover().ptxas is None:
        pytest.skip("no ptxas: --verify needs a CUDA toolchain")
    path = tmp_path / "k.py"
    path.write_text(
        HEADER
        + "    offs = tl.arange(0, 128)\n"
        + "    a = tl.inline_asm_elementwise('add.f32 $0, $1, $2;', '=r,r', [x, x],\n"
        + "                                  dtype=tl.float32, is_pure=True, pack=1)\n"
        + "    tl.inline_asm_elementwise('atom.global.add.u32 $0, [$1], 1;', '=r,l', [c + offs],\n"
        + "                              dtype=tl.uint32, is_pure=True, pack=1)\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(triton_probe, "triton_version", lambda python=None: "3.6.0")
    monkeypatch.setattr(verifier, "run", _FakeRun(verifier.run))
    from ptxlint.verify import VerifyOptions, verify

    result = verify(lint([str(path)], "--select", "PTX501,PTX505"), VerifyOptions(use_cache=False))
    verdicts = {f.rule: result.verdict(f) for f in result.findings}
    assert verdicts["PTX501"] is not None and verdicts["PTX501"].status == "confirmed"
    assert "number of input constraints" in verdicts["PTX501"].evidence
    assert "aborted" in verdicts["PTX501"].evidence
    assert verdicts["PTX505"] is not None and verdicts["PTX505"].status == "confirmed"
    assert "0 'atom.global.add.u32'" in verdicts["PTX505"].evidence


def test_without_triton_the_llvm_claims_are_unverifiable_and_say_why(tmp_path, monkeypatch) -> None:
    if discover().ptxas is None:
        pytest.skip("no ptxas: --verify needs a CUDA toolchain")
    path = tmp_path / "k.py"
    path.write_text(
        HEADER
        + "    return tl.inline_asm_elementwise('mov.b32 $0, $1;', 'r,=r', [x], tl.int32, True, 1)\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(triton_probe, "triton_version", lambda python=None: None)
    from ptxlint.verify import VerifyOptions, verify

    result = verify(lint([str(path)], "--select", "PTX502"), VerifyOptions(use_cache=False))
    (finding,) = result.findings
    verdict = result.verdict(finding)
    assert verdict is not None and verdict.status == "unverifiable"
    assert "Triton is not installed" in verdict.evidence


@pytest.mark.skipif(
    shutil.which("ptxas") is None and not os.environ.get("CUDA_HOME"), reason="needs ptxas"
)
def test_ptxas_confirms_python_fixtures_and_finds_nothing_else(tmp_path) -> None:
    if discover().ptxas is None:
        pytest.skip("no ptxas")
    path = tmp_path / "k.py"
    path.write_text(
        HEADER
        + "    a = tl.inline_asm_elementwise('mov.u32 $0, %%laneid;', '=r', [], tl.int32, True, 1)\n"
        + "    b = tl.inline_asm_elementwise('.reg .b32 t; mov.b32 t, $1; mov.b32 $0, t;', '=r,r',\n"
        + "                                  [x], tl.int32, True, 1)\n"
        + "    c = tl.inline_asm_elementwise('{ .reg .pred p; setp.ne.b32 p, $1, 0; @p bra L${:uid};\n"
        + "                                  'mov.b32 $0, 1; L${:uid}: }', '=r,0', [x], tl.int32, True, 1)\n",
        encoding="utf-8",
    )
    from ptxlint.verify import VerifyOptions, verify

    result = verify(lint([str(path)]), VerifyOptions(arch="sm_90"))
    verdicts = {f.rule: result.verdict(f) for f in result.findings}
    assert verdicts["PTX008"] is not None and verdicts["PTX008"].status == "confirmed"
    assert verdicts["PTX201"] is not None and verdicts["PTX201"].status == "confirmed"
    assert "toolchain-error" not in verdicts


def test_triton_probe_passes_a_bare_tensor_for_ptx507() -> None:
    s = statement("    return tl.inline_asm_elementwise('neg.f32 $0, $1;', '=r,r', x.to(tl.float32), tl.float32, True, 1)\n")
    text = triton_probe.script(s, bare_args=True)
    assert "CONSTRAINTS, a0, dtype=tl.float32" in text


def test_probe_isa_follows_the_ptxas_that_assembles_it() -> None:
    from ptxlint.verify.toolchain import Tool, Toolchain

    nvcc = Tool("nvcc", "/x/nvcc", "PATH", "13.0.88")
    older = Tool("ptxas", "/triton/ptxas", "--ptxas", "12.8.93")
    assert Toolchain(nvcc, older).ptx_isa == Toolchain(None, older).ptx_isa
    assert Toolchain(nvcc, older).ptx_isa != Toolchain(nvcc, None).ptx_isa
