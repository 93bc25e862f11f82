"""PTX401/PTX402 target reasoning: --arch, #if guards, NV_IF_TARGET, and the CLI end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ptxlint.ptx.targets import Target, compiled_for, lowest_target
from ptxlint.rule import RuleContext
from tests.conftest import lint_text

CP_ASYNC = 'asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(s), "l"(g) : "memory");'


def _kernel(body: str) -> str:
    return f"__device__ void k(unsigned s, const void* g) {{\n{body}\n}}\n"


def test_cli_arch_sm70_flags_unguarded_cp_async_only(tmp_path: Path) -> None:
    bare = tmp_path / "bare.cu"
    bare.write_text(_kernel(CP_ASYNC))
    guarded = tmp_path / "guarded.cu"
    guarded.write_text(_kernel(f"#if __CUDA_ARCH__ >= 800\n{CP_ASYNC}\n#endif"))
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "ptxlint",
            "check",
            str(bare),
            str(guarded),
            "--arch",
            "sm_70",
            "--select",
            "PTX401",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
    )
    findings = json.loads(run.stdout)["findings"]
    assert [(Path(f["path"]).name, f["rule"]) for f in findings] == [("bare.cu", "PTX401")]
    assert run.returncode == 1


def test_arch_context_and_guards() -> None:
    sm70 = RuleContext(arch=70)
    assert [f.rule for f in lint_text(_kernel(CP_ASYNC), select=("PTX401",), context=sm70)] == [
        "PTX401"
    ]
    assert lint_text(_kernel(CP_ASYNC), select=("PTX401",)) == []  # no target known
    sm80 = RuleContext(arch=80)
    assert lint_text(_kernel(CP_ASYNC), select=("PTX401",), context=sm80) == []


def test_wgmma_needs_the_a_target_with_arch() -> None:
    text = _kernel('asm volatile("wgmma.fence.sync.aligned;" ::: "memory");')
    assert lint_text(text, select=("PTX401",), context=RuleContext(arch=90, arch_suffix="a")) == []
    assert lint_text(text, select=("PTX401",), context=RuleContext(arch=90)) != []
    assert lint_text(text, select=("PTX401",), context=RuleContext(arch=100, arch_suffix="a")) != []


def test_nv_if_target_is_read() -> None:
    text = _kernel(
        "NV_IF_ELSE_TARGET(NV_PROVIDES_SM_80,\n"
        f"  ({CP_ASYNC}),\n"
        '  (asm volatile("ld.global.u32 %0, [%1];" : "=r"(s) : "l"(g));))'
    )
    assert lint_text(text, select=("PTX401",), context=RuleContext(arch=75)) == []
    assert lint_text(text, select=("PTX401",), context=RuleContext(arch=80)) == []


def test_guard_evaluation() -> None:
    assert lowest_target(("__CUDA_ARCH__ >= 800",)) == Target(80)
    assert lowest_target(("defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900",)) == Target(90)
    assert lowest_target(("!(__CUDA_ARCH__ >= 900)",)) is None  # an upper bound only
    assert lowest_target(("defined(__CUDA_ARCH__)",)) is None
    assert lowest_target(("defined(USE_FOO)",)) is None
    assert lowest_target(("defined(__CUDA_ARCH_FEAT_SM90_ALL)",)) == Target(90, "a")
    # An unknown macro beside the arch test (CCCL's `_CCCL_CUDA_COMPILER(NVHPC) || ...`).
    guard = ("_CCCL_CUDA_COMPILER(NVHPC) || __CUDA_ARCH__ >= 900",)
    assert not compiled_for(guard, Target(80))
    assert compiled_for(guard, Target(90))
    assert compiled_for(("__cccl_ptx_isa >= 800",), Target(70))


def test_ptx402_severity_follows_target() -> None:
    shfl = 'asm volatile("shfl.idx.b32 %0, %1, 0, 0x1f;" : "=r"(s) : "r"(s));'
    [warning] = lint_text(_kernel(shfl), select=("PTX402",))
    assert warning.severity.value == "warning"
    [error] = lint_text(_kernel(shfl), select=("PTX402",), context=RuleContext(arch=80))
    assert error.severity.value == "error"
    assert error.fix is not None and not error.fix.safe
    old_only = _kernel(f"#if __CUDA_ARCH__ < 700\n{shfl}\n#endif")
    assert lint_text(old_only, select=("PTX402",)) == []
