"""--verify compiles a Python DSL's call for the target a C++ statement's probes would get
(``llvm_probe.target``, which is ``identity.probe_arch``): an explicit --arch as given, else the
lowest target that has every instruction the call spells (``verify/target_choice.py``). The unit
tests need no toolchain; the compiles skip without ptxas or llvmlite and are cached in the test
cache."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

import pytest

from ptxlint.engine import extract_statements
from ptxlint.model import AsmStatement, SourceFile
from ptxlint.verify import dialect_probe, inline_ptx_probe, llvm_probe, runner, triton_probe
from ptxlint.verify.identity import probe_arch
from ptxlint.verify.verifier import VerifyOptions
from tests.toolchain_cache import oracle_cache_root
from tests.toolchain_marks import needs_cuda, toolchain

if TYPE_CHECKING:
    from ptxlint.verify.verifier import Verifier


def _llvmlite(template: str, constraints: str = "") -> AsmStatement:
    code = ("from llvmlite import ir\n\n\n"
            "def f(builder, fnty):\n"
            f"    asm = ir.InlineAsm(fnty, {template!r}, {constraints!r})\n"
            "    return builder.call(asm, [])\n")
    [statement] = extract_statements(SourceFile("k.py", code)).statements
    return statement


WGMMA_FENCE = "wgmma.fence.sync.aligned;"  # sm_90a
TCGEN05_FENCE = "tcgen05.fence::before_thread_sync;"  # sm_100a or the sm_100f family
CLOCK = "mov.u32 $0, %clock;"  # every target


def _verifier(arch: str | None = None, archs: tuple[str, ...] = ()) -> Verifier:
    """What ``llvm_probe.target`` reads of a verification: the user's --arch, ptxas's targets."""
    return cast("Verifier", SimpleNamespace(options=VerifyOptions(arch=arch),
                                            toolchain=SimpleNamespace(archs=archs)))


@pytest.mark.parametrize(("template", "constraints", "arch"), [
    (WGMMA_FENCE, "", "sm_90a"), (TCGEN05_FENCE, "", "sm_100a"), (CLOCK, "=r", "sm_90")])
def test_a_dsl_call_gets_the_target_its_instructions_need(template, constraints, arch):
    statement = _llvmlite(template, constraints)
    assert llvm_probe.target(_verifier(), statement) == arch
    assert probe_arch(statement, None) == arch  # the same choice a C++ statement gets


def test_an_explicit_arch_is_authoritative_for_a_dsl_call():
    statement = _llvmlite(TCGEN05_FENCE)
    assert llvm_probe.target(_verifier("sm_90"), statement) == "sm_90"
    assert llvm_probe.target(_verifier("sm_120a"), statement) == "sm_120a"


def test_a_target_ptxas_does_not_build_is_not_chosen_for_a_dsl_call():
    # a ptxas without sm_100a: the family target has every tcgen05 instruction too
    archs = ("sm_90", "sm_90a", "sm_100", "sm_100f")
    assert llvm_probe.target(_verifier(None, archs), _llvmlite(TCGEN05_FENCE)) == "sm_100f"


def test_each_dsl_probe_compiles_for_the_target_it_is_given():
    statement = _llvmlite(TCGEN05_FENCE)
    assert 'cpu="sm_100a"' in llvm_probe.llvmlite_script(statement, True, "python", False,
                                                          "sm_100a")
    assert 'cpu="sm_90"' in llvm_probe.llvmlite_script(statement, True, "python")
    assert triton_probe.capability("sm_100a") == 100 and triton_probe.capability("sm_90") == 90
    # CuTe DSL compiles for architecture-specific targets, which have every feature of the
    # plain and family ones
    assert [llvm_probe.arch_specific(a) for a in ("sm_90", "sm_90a", "sm_100f", "sm_120")] == [
        "sm_90a", "sm_90a", "sm_100a", "sm_120a"]


def test_cute_inline_ptx_is_compiled_for_the_architecture_specific_target():
    code = ("import cutlass.cute as cute\n\n\n"
            "@cute.jit\n"
            "def f(a: cutlass.Int32):\n"
            f"    cute.arch.inline_ptx({TCGEN05_FENCE!r}, write_only_types=[], "
            "read_only_args=[], read_write_args=[])\n")
    statements = extract_statements(SourceFile("k.py", code)).statements
    if len(statements) != 1 or statements[0].llvm is None:
        pytest.skip("this inline_ptx call is not read as one statement")
    program, _ = inline_ptx_probe.script(statements[0], "python", "sm_100")
    assert "--gpu-arch sm_100a" in program


# --------------------------------------------------------------------------- the compilers


@pytest.fixture
def cache_dir(monkeypatch):
    monkeypatch.setenv("PTXLINT_CACHE_DIR", oracle_cache_root())


def _llvmlite_or_skip() -> None:
    python = llvm_probe._python("llvmlite")
    if llvm_probe.version(python, "llvmlite") is None:
        pytest.skip(f"llvmlite is not installed for {python} (set PTXLINT_LLVMLITE_PYTHON)")


@needs_cuda
def test_an_architecture_specific_call_assembles_at_its_chosen_target(cache_dir):
    """At the fixed sm_90 the call fails in ptxas for its target, whatever its finding says; at
    the target chosen for it, llvmlite's PTX assembles."""
    _llvmlite_or_skip()
    assert toolchain.ptxas is not None
    statement = _llvmlite(WGMMA_FENCE)
    arch = llvm_probe.target(_verifier(None, toolchain.archs), statement)
    assert arch == "sm_90a"
    outcomes = {}
    for target in ("sm_90", arch):
        (plain, _), tool = dialect_probe.jobs(statement, toolchain.ptxas.path, target)
        outcome = runner.run(plain, tool)
        assert outcome is not None
        outcomes[target] = outcome
    assert outcomes["sm_90a"].returncode == 0, outcomes["sm_90a"].messages
    assert outcomes["sm_90"].returncode != 0
    assert "not supported on .target 'sm_90'" in outcomes["sm_90"].messages
