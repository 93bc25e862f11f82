"""Every fix ptxlint offers compiles: for each fixture, every fix (safe, and unsafe as
``--unsafe-fixes`` applies it) is applied, and each statement a fix changed is handed to the
verification machinery (ptxas on its PTX probe, nvcc on its .cu probe) at the target its guards
admit, before and after: the fixed statement may have no error the original did not have (a
fixture's statement can hold defects no fix covers, or use registers only nvcc's own function
declares, which a probe of the statement alone cannot have). The seed's cp.async example, fixed with
``--fix --unsafe-fixes``, compiles whole with nvcc and ptxas. Skips without the toolchain;
compiles go through --verify's cache, so a second run compiles nothing."""

from __future__ import annotations

import glob
import os
import re
import shutil
from pathlib import Path

import pytest

from ptxlint.cli import main
from ptxlint.engine import extract_statements
from ptxlint.fix import apply_edits
from ptxlint.model import AsmStatement, Fix, SourceFile
from ptxlint.verify import cu_probe, ptx_probe, runner, scratch, whole_file
from ptxlint.verify.diagnostics import parse
from ptxlint.verify.identity import probe_arch, ptxas_target, tool_id
from ptxlint.verify.stand_ins import value_sets
from ptxlint.verify.toolchain import discover
from tests.conftest import FIXTURES, lint_text

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "tests" / "data" / "blog_pipeline.cu"
FIXED_FIXTURES = sorted(
    glob.glob(os.path.join(FIXTURES, "rules", "PTX*_bad.cu"))
    + glob.glob(os.path.join(FIXTURES, "rules", "PTX*_bad.py"))
    + glob.glob(os.path.join(FIXTURES, "example", "*.cu"))
    + [str(SEED)]
)

# a register nvcc declares in every function it emits (`%r1`, `%p1`): a template that names one
# assembles in the real file but not in a probe of the statement alone
NVCC_REGISTER = re.compile(r"%%?(?:rd|rs|rq|fd|r|p|f|h)\d+\b")
toolchain = discover()
pytestmark = pytest.mark.skipif(
    toolchain.ptxas is None or toolchain.nvcc is None or shutil.which("g++") is None,
    reason="needs nvcc, ptxas and a host compiler (CUDA Toolkit not found)",
)


@pytest.fixture(autouse=True)
def verdict_cache(monkeypatch):
    # the tests' oracle cache: verdicts survive between runs, so CI compiles only what changed
    monkeypatch.setenv("PTXLINT_CACHE_DIR", os.environ.get(
        "PTXLINT_TEST_CACHE", os.path.expanduser("~/.cache/ptxlint-tests")))


def _changed(before: list[AsmStatement], after: list[AsmStatement]
             ) -> list[tuple[AsmStatement, AsmStatement]]:
    """(original, fixed) for the statements whose template, operands or clobbers a fix
    changed."""
    assert len(before) == len(after), "a fix added or removed an asm statement"

    def spelled(s: AsmStatement) -> str:
        return s.source.text[s.span.start:s.span.end]

    return [(old, new) for old, new in zip(before, after, strict=True)
            if spelled(old) != spelled(new)]


def _errors(statement: AsmStatement, arch: str) -> list[str]:
    errors = _ptx_errors(statement, arch)
    if statement.syntax != "llvm":
        errors += _cu_errors(statement, arch)
    return errors


def _ptx_errors(statement: AsmStatement, arch: str) -> list[str]:
    assert toolchain.ptxas is not None
    sets, exact = value_sets(statement)
    if not exact:
        return []  # a value the file does not fix: no verdict on it either way
    target = ptxas_target(arch, toolchain)
    if target is None:
        pytest.skip(f"{toolchain.label('ptxas')} does not know {arch}")
    out = []
    for values in sets:
        try:
            probe = ptx_probe.build([statement], arch, toolchain.ptx_isa, values=(values,))
        except ptx_probe.NotProbeable:
            return []
        job = runner.Compile((toolchain.ptxas.path, f"-arch={target}", "-o", "{dir}/probe.cubin",
                              f"{{dir}}/{ptx_probe.PROBE_FILE}"),
                             ((ptx_probe.PROBE_FILE, probe.text),), produces=("probe.cubin",))
        outcome = runner.run(job, tool_id(toolchain, "ptxas"))
        assert outcome is not None
        out += [f"{arch}: {d.message}" for d in parse(outcome.messages) if d.is_error]
    return out


def _cu_errors(statement: AsmStatement, arch: str) -> list[str]:
    assert toolchain.nvcc is not None
    try:
        text = cu_probe.build(statement)
    except cu_probe.NotProbeable:
        return []
    job = runner.Compile((toolchain.nvcc.path, f"-arch={arch.replace('sm_', 'compute_')}",
                          "-ptx", "-o", "{dir}/probe.ptx", f"{{dir}}/{cu_probe.PROBE_FILE}"),
                         ((cu_probe.PROBE_FILE, text),), produces=("probe.ptx",))
    outcome = runner.run(job, tool_id(toolchain, "nvcc"))
    assert outcome is not None
    first = statement.line
    last = statement.source.line_col(statement.span.end).line
    return [f"{arch}: {d.message}" for d in parse(outcome.messages) if d.is_error
            and scratch.same_source(d.file, statement.source.path)
            and first <= d.line <= last + 1]


@pytest.mark.parametrize("fixture", FIXED_FIXTURES, ids=lambda p: os.path.relpath(p, ROOT))
def test_every_fix_compiles(fixture: str) -> None:
    text = Path(fixture).read_text(encoding="utf-8")
    fixes = [f.fix for f in lint_text(text, fixture) if f.fix is not None and f.fix.edits]
    if not fixes:
        pytest.skip("no fix offered on this fixture")
    failures, checked = _fixed_errors(fixture, text, fixes)
    assert not failures, "errors the fixes brought in: " + "; ".join(failures)
    if not checked:
        pytest.skip("no fixed statement could be probed on its own")


def _fixed_errors(path: str, text: str, fixes: list[Fix]) -> tuple[list[str], int]:
    """The errors the fixes bring in, by line, and how many fixed statements were probed."""
    fixed, applied = apply_edits(text, fixes)
    assert applied
    before = list(extract_statements(SourceFile(path, text)).statements)
    after = list(extract_statements(SourceFile(path, fixed)).statements)
    failures = []
    checked = 0
    for old, new in _changed(before, after):
        if new.context.dialect != "ptx" or NVCC_REGISTER.search(new.template.text):
            continue
        arch = probe_arch(new, None)
        was = set(_errors(old, arch))
        now = _errors(new, arch)
        checked += 1
        added = [e for e in now if e not in was]
        if added:
            failures.append(f"line {new.line}: {added[0]}")
    return failures, checked


# PTX301's conversion over the ways a template uses the pointer: the shared-window address is
# passed 32-bit where only shared accesses take it, 64-bit where an instruction reads it as a
# 64-bit value (ptxas rejects a 32-bit register in `mov.b64`), and not at all where the operand
# also reaches an access in another space or an instruction with no type to judge by
_PTX301_SHAPES = {
    "direct": ('"ld.shared.f32 %0, [%1+8];" : "=f"(v) : "l"(sp)', '"r"(static_cast<unsigned>'),
    "mov.b64": ('"{ .reg .u64 a; mov.b64 a, %1; ld.shared.f32 %0, [a]; }" : "=f"(v) : "l"(sp)',
                '"l"(__cvta_generic_to_shared(sp))'),
    "add.u64": ('"{ .reg .u64 a; add.u64 a, %1, 16; ld.shared.f32 %0, [a]; }" : "=f"(v) : "l"(sp)',
                '"l"(__cvta_generic_to_shared(sp))'),
    "both widths": ('"{ .reg .u32 w; cvt.u32.u64 w, %1; ld.shared.f32 %0, [%1]; }" : "=f"(v) '
                    ': "l"(sp)', '"l"(__cvta_generic_to_shared(sp))'),
    "generic too": ('"{ ld.shared.f32 %0, [%1]; st.f32 [%1], %0; }" : "+f"(v) : "l"(sp)', None),
    "copy to global": ('"{ .reg .u64 a; mov.b64 a, %1; ld.shared.f32 %0, [%1]; '
                       'st.global.f32 [a], %0; }" : "+f"(v) : "l"(sp)', None),
    "isspacep": ('"{ .reg .pred p; isspacep.shared p, %1; @p ld.shared.f32 %0, [%1]; }" '
                 ': "+f"(v) : "l"(sp)', None),
}


@pytest.mark.parametrize("shape", sorted(_PTX301_SHAPES))
def test_ptx301_fix_fits_every_use(shape: str) -> None:
    asm, expected = _PTX301_SHAPES[shape]
    path = "ptx301_shape.cu"
    text = ("__global__ void k(float* out, int i) {\n  __shared__ float tile[256];\n"
            f"  float v = 0.f;\n  float* sp = &tile[i];\n  asm volatile({asm});\n"
            "  out[0] = v;\n}\n")
    found = [f for f in lint_text(text, path, select=("PTX301",)) if f.rule == "PTX301"]
    assert found, "PTX301 reports the generic pointer"
    fixes = [f.fix for f in found if f.fix is not None and f.fix.edits]
    if expected is None:
        assert not fixes
        return
    assert fixes
    fixed, _ = apply_edits(text, fixes)
    assert expected in fixed
    failures, checked = _fixed_errors(path, text, fixes)
    assert checked and not failures, failures


def test_the_seed_fixed_with_unsafe_fixes_compiles(tmp_path) -> None:
    target = tmp_path / "blog_pipeline.cu"
    shutil.copy(SEED, target)
    assert main(["check", str(target), "--fix", "--unsafe-fixes", "--fail-on", "never", "-q",
                 "--no-compile-commands", "--no-cache"]) == 0
    fixed = target.read_text(encoding="utf-8")
    assert "cp.async.ca.shared.global" in fixed and '"l"(src)' in fixed
    assert toolchain.nvcc is not None and toolchain.ptxas is not None
    job = whole_file.compile_job(toolchain.nvcc.path, toolchain.ptxas.path, "sm_90",
                                 str(target), fixed, "sm_90", ())
    outcome = runner.run(job, tool_id(toolchain, "nvcc") + "+" + tool_id(toolchain, "ptxas"))
    assert outcome is not None
    assert outcome.returncode == 0, outcome.messages
