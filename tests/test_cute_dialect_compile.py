"""The CuTe DSL dialect rules against the DSL's own compiler: each kernel below is linted, then
compiled with ``cute.compile`` (MLIR, NVVM, ptxas; no GPU needed) and the claim checked in what
it produces. Skipped unless ``PTXLINT_CUTE_PYTHON`` names an interpreter with nvidia-cutlass-dsl
(4.8.1 when these were written); the kernels are this test's own text, never a linted tree."""

from __future__ import annotations

import os
import re
import subprocess
import textwrap
from pathlib import Path

import pytest

from tests.conftest import lint_text

PYTHON = os.environ.get("PTXLINT_CUTE_PYTHON", "")
pytestmark = pytest.mark.skipif(
    not PYTHON, reason="PTXLINT_CUTE_PYTHON does not name an interpreter with CuTe DSL"
)

HEADER = "import cutlass\nimport cutlass.cute as cute\nfrom cutlass import Int32\n\n"
FOOTER = (
    "\n@cute.jit\ndef launch():\n    kernel().launch(grid=(1, 1, 1), block=(32, 1, 1))\n\n"
    "cute.compile(launch)\n"
)


def kernel(body: str) -> str:
    return HEADER + "@cute.kernel\ndef kernel():\n" + textwrap.indent(body, "    ") + FOOTER


def compile_(source: str, tmp_path: Path) -> tuple[int, str, str]:
    """(exit status, stderr, the kernel's PTX) of compiling ``source`` in a fresh process."""
    script = tmp_path / "k.py"
    script.write_text(source, encoding="utf-8")
    env = dict(os.environ, CUTE_DSL_ARCH="sm_90a", CUTE_DSL_KEEP_PTX="1")
    done = subprocess.run([PYTHON, str(script)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    ptx = "".join(
        p.read_bytes().replace(b"\0", b"").decode("utf-8", "replace")
        for p in tmp_path.glob("*.ptx")
    )
    return done.returncode, done.stderr, ptx


def rules_on(source: str) -> set[str]:
    return {f.rule for f in lint_text(source, "k.py")}


def register_of(ptx: str, addend: int) -> str:
    """The register that holds ``tid + addend``."""
    m = re.search(rf"add\.s32\s+(%r\d+), %r\d+, {addend};", ptx)
    assert m is not None, ptx
    return m.group(1)


def asm_line(ptx: str) -> str:
    m = re.search(r"// begin inline asm\s*\n\s*(.*)\n", ptx)
    assert m is not None, ptx
    return m.group(1)


def test_ptx508_constant_lowered_to_an_immediate_is_rejected_by_ptxas(tmp_path: Path) -> None:
    source = kernel(
        "v = cute.arch.thread_idx()[0]\nzero = Int32(0)\n"
        'cute.arch.inline_ptx("max.xorsign.abs.bf16x2 {$w0}, {$r0}, {$r1};",\n'
        "                     write_only_types=[Int32], read_only_args=[zero, v])\n"
    )
    assert "PTX508" in rules_on(source)
    status, stderr, _ = compile_(source, tmp_path)
    assert status != 0 and "Arguments mismatch for instruction 'max'" in stderr


def test_ptx510_an_unused_number_rebinds_the_placeholder(tmp_path: Path) -> None:
    source = kernel(
        "t = cute.arch.thread_idx()[0]\na = t + 1000\nb = t + 2000\n"
        'cute.arch.inline_ptx("add.s32 {$w0}, {$r1}, 7;", write_only_types=[Int32],\n'
        "                     read_only_args=[a, b])\n"
    )
    assert "PTX510" in rules_on(source)
    status, stderr, ptx = compile_(source, tmp_path)
    assert status == 0, stderr
    assert f", {register_of(ptx, 1000)}, 7;" in asm_line(ptx)  # {$r1} read a, not b


def test_ptx512_read_write_and_read_only_values_are_swapped(tmp_path: Path) -> None:
    source = kernel(
        "t = cute.arch.thread_idx()[0]\na = t + 1000\nb = t + 2000\n"
        'cute.arch.inline_ptx("sub.s32 {$rw0}, {$rw0}, {$r0};", read_write_args=[a],\n'
        "                     read_only_args=[b])\n"
    )
    assert "PTX512" in rules_on(source)
    status, stderr, ptx = compile_(source, tmp_path)
    assert status == 0, stderr
    a, b = register_of(ptx, 1000), register_of(ptx, 2000)
    assert asm_line(ptx).strip() == f"sub.s32 {b}, {b}, {a};"  # b - a, not a - b


def test_ptx501_a_constraint_without_an_operand_kills_the_compile(tmp_path: Path) -> None:
    source = kernel(
        "from cutlass._mlir.dialects import llvm\n"
        "v = Int32(cute.arch.thread_idx()[0]).ir_value()\n"
        'llvm.inline_asm(None, [v, v], "add.s32 $0, $1, $2;", "r,r,r", has_side_effects=True)\n'
    )
    assert "PTX501" in rules_on(source)
    status, _, _ = compile_(source, tmp_path)
    assert status != 0


def test_verify_confirms_the_inline_ptx_claims_by_compiling_them() -> None:
    """``--verify`` builds the same kind of kernel (verify/inline_ptx_probe.py) for the fixtures."""
    from ptxlint.cli import _configure, build_parser, run
    from ptxlint.verify import VerifyOptions, verify

    root = Path(__file__).parent.parent / "fixtures" / "rules"
    paths = [str(root / f"{rule}_bad.py") for rule in ("PTX508", "PTX510", "PTX512")]
    args = build_parser().parse_args(["check", *paths, "--select", "PTX508,PTX510,PTX512"])
    config, selector, rules, context = _configure(args)
    result = verify(run(args.paths, config, selector, rules, context),
                    VerifyOptions(files=tuple(paths)))
    verdicts = [result.verdict(f) for f in result.findings]
    assert len(verdicts) == 6
    assert all(v.status == "confirmed" for v in verdicts), [v.evidence for v in verdicts]
