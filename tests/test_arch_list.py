"""``arch`` as a list: a build that compiles for several targets (nvcc's -gencode list).

Each listed target the statement's guards compile it for is judged, as nvcc compiles the
statement once per target; a need is reported for the lowest listed target without it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ptxlint.analysis.statement import analysis_of
from ptxlint.config import Config, ConfigError, arch_fields, merge_cli, parse_table
from ptxlint.engine import extract_statements
from ptxlint.model import SourceFile
from ptxlint.rule import RuleContext
from tests.conftest import lint_text
from tests.toolchain_marks import needs_cuda

CP_ASYNC = 'asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(s), "l"(g) : "memory");'
WGMMA = 'asm volatile("wgmma.fence.sync.aligned;" ::: "memory");'
SHFL = 'asm volatile("shfl.idx.b32 %0, %1, 0, 31;" : "=r"(r) : "r"(s));'


def _kernel(body: str) -> str:
    return f"__device__ void k(unsigned s, const void* g) {{\nunsigned r;\n{body}\n}}\n"


def _context(*targets: str) -> RuleContext:
    return RuleContext(**arch_fields(merge_cli(Config(), arch=list(targets)).arch))


def _found(body: str, *targets: str, select: tuple[str, ...] = ("PTX401",)
           ) -> list[tuple[str, str]]:
    return [(f.severity.value, f.message)
            for f in lint_text(_kernel(body), select=select, context=_context(*targets))]


# --------------------------------------------------------------------------- configuration


def test_a_string_is_a_one_target_list() -> None:
    assert parse_table({"arch": "sm_90a"}, "ptxlint.toml", is_pyproject=False).arch == ("sm_90a",)
    assert parse_table({"arch": 80}, "ptxlint.toml", is_pyproject=False).arch == ("sm_80",)


def test_a_list_is_normalized_folded_and_ordered() -> None:
    config = parse_table({"arch": ["sm_90a", "compute_80", "90", "sm_80", "sm_90"]}, "ptxlint.toml", is_pyproject=False)
    assert config.arch == ("sm_80", "sm_90", "sm_90a")


def test_a_bad_entry_is_named() -> None:
    with pytest.raises(ConfigError, match="sm_8x") as info:
        parse_table({"arch": ["sm_80", "sm_8x"]}, "ptxlint.toml", is_pyproject=False)
    assert "arch" in str(info.value)
    with pytest.raises(ConfigError, match="'a' targets exist from sm_90a on"):
        parse_table({"arch": ["sm_90a", "sm_80a"]}, "ptxlint.toml", is_pyproject=False)
    with pytest.raises(ConfigError, match="array of them"):
        parse_table({"arch": ["sm_80", True]}, "ptxlint.toml", is_pyproject=False)
    with pytest.raises(ConfigError, match="names no target"):
        parse_table({"arch": []}, "ptxlint.toml", is_pyproject=False)


def test_the_command_line_takes_a_comma_list() -> None:
    merged = merge_cli(parse_table({"arch": "sm_75"}, "ptxlint.toml", is_pyproject=False), arch="sm_90a, sm_80,sm_90a")
    assert merged.arch == ("sm_80", "sm_90a")
    with pytest.raises(ConfigError, match=r"--arch: .*'sm_999'"):
        merge_cli(Config(), arch="sm_80,sm_999")


def test_context_fields_keep_one_target_as_before() -> None:
    assert arch_fields(("sm_90a",)) == {"arch": 90, "arch_suffix": "a", "targets": ((90, "a"),)}
    several = arch_fields(("sm_80", "sm_90a"))
    assert several == {"arch": None, "arch_suffix": "", "targets": ((80, ""), (90, "a"))}
    assert RuleContext(**several).listed_targets == ((80, ""), (90, "a"))
    assert RuleContext(arch=90, arch_suffix="a").listed_targets == ((90, "a"),)
    assert RuleContext().listed_targets == ()


def test_one_arch_is_the_lowest_listed_target_the_statement_is_compiled_for() -> None:
    source = _kernel(f"#if __CUDA_ARCH__ >= 900\n{WGMMA}\n#endif\n{SHFL}")
    guarded, bare = extract_statements(SourceFile("k.cu", source)).statements
    context = _context("sm_80", "sm_90a")
    assert context.one_arch(analysis_of(guarded)) == 90
    assert context.one_arch(analysis_of(bare)) == 80
    assert _context("sm_100").one_arch(analysis_of(guarded)) == 100  # one target: as given


# --------------------------------------------------------------------------- PTX401


def test_a_guard_that_keeps_the_older_build_out_is_silent() -> None:
    body = f"#if __CUDA_ARCH__ >= 900\n{WGMMA}\n#endif"
    assert _found(body, "sm_80", "sm_90a") == []
    # without arch the guard also admits sm_90, and the rule says so
    [(severity, message)] = [(f.severity.value, f.message)
                             for f in lint_text(_kernel(body), select=("PTX401",))]
    assert severity == "warning" and "also admit sm_90" in message


def test_a_listed_target_without_the_feature_is_reported_once() -> None:
    fence_commit = ('asm volatile("wgmma.fence.sync.aligned;\\n"\n'
                    '             "wgmma.commit_group.sync.aligned;" ::: "memory");')
    body = f"#if __CUDA_ARCH__ >= 900\n{fence_commit}\n#endif"
    [(severity, message)] = _found(body, "sm_90", "sm_90a", "sm_100")
    assert severity == "error"
    assert "compiled for sm_90 (--arch)" in message


def test_an_unguarded_instruction_fails_at_the_lowest_listed_target() -> None:
    [(severity, message)] = _found(CP_ASYNC, "sm_75", "sm_90")
    assert severity == "error"
    assert "'cp.async.ca.shared.global' needs sm_80 or newer" in message
    assert "compiled for sm_75 (--arch)" in message
    assert _found(CP_ASYNC, "sm_80", "sm_90") == []


def test_each_need_is_reported_for_its_own_lowest_target() -> None:
    # cp.async fails at sm_75 only; wgmma at sm_75 too: one finding per need, both at sm_75
    body = f"{CP_ASYNC}\n{WGMMA}"
    messages = [m for _, m in _found(body, "sm_75", "sm_90")]
    assert len(messages) == 2 and all("compiled for sm_75" in m for m in messages)


def test_a_single_target_list_is_the_single_target() -> None:
    body = f"#if __CUDA_ARCH__ >= 900\n{WGMMA}\n#endif\n{CP_ASYNC}"
    for target in ("sm_75", "sm_90", "sm_90a"):
        number, suffix = int(target[3:5]), target[5:]
        assert _found(body, target) == [
            (f.severity.value, f.message)
            for f in lint_text(_kernel(body), select=("PTX401",),
                               context=RuleContext(arch=number, arch_suffix=suffix))]


# --------------------------------------------------------------------------- PTX402


def test_deprecated_form_is_an_error_when_a_listed_build_removes_it() -> None:
    old = 'asm volatile("shfl.idx.b32 %0, %1, 0, 31;" : "=r"(r) : "r"(s));'
    [(severity, _)] = _found(old, "sm_60", "sm_80", select=("PTX402",))
    assert severity == "error"
    [(severity, _)] = _found(old, "sm_60", "sm_61", select=("PTX402",))
    assert severity == "warning"
    guarded = f"#if __CUDA_ARCH__ < 700\n{old}\n#endif"
    [(severity, _)] = _found(guarded, "sm_60", "sm_80", select=("PTX402",))
    assert severity == "warning"  # the sm_80 build does not compile it


# --------------------------------------------------------------------------- end to end


def _check(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ptxlint", "check", "--isolated", "--no-cache", *args],
        capture_output=True, text=True, cwd=tmp_path, check=False)


def test_cli_comma_list(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text(_kernel(CP_ASYNC))
    run = _check(tmp_path, "k.cu", "--select", "PTX401", "--format", "json",
                 "--arch", "sm_90,sm_75")
    [finding] = json.loads(run.stdout)["findings"]
    assert "compiled for sm_75 (--arch)" in finding["message"]
    bad = _check(tmp_path, "k.cu", "--arch", "sm_75,sm_77")
    assert bad.returncode == 2 and "sm_77" in bad.stderr


def test_configuration_list_and_show_settings(tmp_path: Path) -> None:
    (tmp_path / "ptxlint.toml").write_text('arch = ["sm_90a", "sm_80"]\n')
    (tmp_path / "k.cu").write_text(_kernel(f"#if __CUDA_ARCH__ >= 900\n{WGMMA}\n#endif"))
    run = subprocess.run([sys.executable, "-m", "ptxlint", "check", "--no-cache", "k.cu",
                          "--select", "PTX401", "--format", "json"],
                         capture_output=True, text=True, cwd=tmp_path, check=False)
    assert json.loads(run.stdout)["findings"] == []
    shown = subprocess.run([sys.executable, "-m", "ptxlint", "check", "--show-settings", "k.cu"],
                           capture_output=True, text=True, cwd=tmp_path, check=False)
    assert 'arch = ["sm_80", "sm_90a"]' in shown.stdout
    # --config KEY=VALUE: an unquoted comma list is the string, which lists the targets
    override = subprocess.run([sys.executable, "-m", "ptxlint", "check", "--show-settings",
                               "--config", "arch=sm_90,sm_75", "k.cu"],
                              capture_output=True, text=True, cwd=tmp_path, check=False)
    assert 'arch = ["sm_75", "sm_90"]' in override.stdout, override.stderr
    one = subprocess.run([sys.executable, "-m", "ptxlint", "check", "--show-settings",
                          "--arch", "sm_90a", "k.cu"],
                         capture_output=True, text=True, cwd=tmp_path, check=False)
    assert "arch = 'sm_90a'" in one.stdout  # one target is shown as before


# --------------------------------------------------------------------------- --verify


def test_verify_compiles_each_statement_at_a_listed_target_its_guards_admit() -> None:
    from ptxlint.verify.verifier import VerifyOptions

    source = _kernel(f"#if __CUDA_ARCH__ >= 900\n{WGMMA}\n#endif\n{SHFL}\n{CP_ASYNC}")
    guarded, bare, copy = extract_statements(SourceFile("k.cu", source)).statements
    several = VerifyOptions(archs=("sm_75", "sm_90", "sm_90a"))
    assert several.explicit_arch
    # the guard admits sm_90 and sm_90a; wgmma has only the second
    assert several.arch_for(guarded) == "sm_90a"
    assert several.arch_for(bare) == "sm_75"
    # cp.async is not on sm_75: its other findings compile where ptxas gets past it
    assert several.arch_for(copy) == "sm_90"
    one = VerifyOptions(arch="sm_75")
    assert one.arch_for(guarded) == "sm_75" and VerifyOptions().arch_for(guarded) is None


def test_verify_options_take_the_configured_list() -> None:
    import argparse

    from ptxlint.verify.cli import options_from_args

    args = argparse.Namespace(nvcc=None, ptxas=None, verify_jobs=None, no_verify_cache=True,
                              cuda_flags=None, build_dir=None)
    assert options_from_args(args, ("sm_90a",)).arch == "sm_90a"
    both = options_from_args(args, ("sm_80", "sm_90a"))
    assert both.arch is None and both.archs == ("sm_80", "sm_90a")
    assert options_from_args(args, ()).arch is None


def test_native_is_resolved_inside_a_list(tmp_path: Path) -> None:
    from ptxlint.verify.toolchain import resolve_arch

    smi = tmp_path / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho 9.0\n")
    smi.chmod(0o755)
    assert resolve_arch("sm_80, native", str(smi)) == "sm_80,sm_90"
    assert resolve_arch("native", str(smi)) == "sm_90"
    assert resolve_arch("sm_80,sm_90a", str(smi)) == "sm_80,sm_90a"


@needs_cuda
def test_verify_compiles_each_finding_where_the_list_says(tmp_path: Path) -> None:
    """A PTX401 finding is compiled at the target it names (ptxas refuses cp.async for sm_75);
    another finding at the lowest listed target its statement compiles for (sm_90 of sm_90 and
    sm_100a: nvcc declares "f" a .f32 register there, and ptxas refuses it in add.u32)."""
    (tmp_path / "k.cu").write_text(_kernel(
        f"{CP_ASYNC}\n"
        'asm volatile("add.u32 %0, %1, %2;" : "=r"(r) : "f"(1.0f), "r"(s));'))
    run = _check(tmp_path, "k.cu", "--select", "PTX401,PTX206", "--format", "json",
                 "--verify", "--no-verify-cache", "--arch", "sm_100a,sm_75,sm_90")
    found = {f["rule"]: f for f in json.loads(run.stdout)["findings"]}
    assert set(found) == {"PTX401", "PTX206"}, run.stdout
    assert "compiled for sm_75 (--arch)" in found["PTX401"]["message"]
    assert found["PTX401"]["verification"]["status"] == "confirmed"
    assert found["PTX401"]["verification"]["arch"] == "sm_75"
    assert found["PTX206"]["verification"]["status"] == "confirmed"
    assert found["PTX206"]["verification"]["arch"] == "sm_75"
    again = _check(tmp_path, "k.cu", "--select", "PTX206", "--format", "json",
                   "--verify", "--no-verify-cache", "--arch", "sm_100a,sm_90")
    [finding] = json.loads(again.stdout)["findings"]
    assert finding["verification"]["arch"] == "sm_90"
    assert finding["verification"]["status"] == "confirmed"


# --------------------------------------------------------------------------- language server


def test_the_language_server_reads_the_list(tmp_path: Path) -> None:
    from ptxlint.lsp.linting import Linter

    source = tmp_path / "k.cu"
    (tmp_path / "ptxlint.toml").write_text('arch = ["sm_90", "sm_75"]\ncuda-version = "13.0"\n')
    told: list[str] = []
    linter = Linter(report=told.append)
    assert linter.setup(str(source)).context.listed_targets == ((75, ""), (90, ""))
    found = linter.lint(str(source), _kernel(CP_ASYNC)).findings
    assert [f.message for f in found if f.rule == "PTX401"] == [
        "'cp.async.ca.shared.global' needs sm_80 or newer, but the statement is compiled for "
        "sm_75 (--arch)"]
    assert told == []
    # each listed target the toolkit cannot compile for is told, as one target is
    (tmp_path / "ptxlint.toml").write_text('arch = ["sm_70", "sm_90"]\ncuda-version = "13.1"\n')
    Linter(report=told.append).lint(str(source), _kernel(CP_ASYNC))
    assert len(told) == 1 and "does not compile for sm_70" in told[0]
    (tmp_path / "ptxlint.toml").write_text('arch = ["sm_90", "sm_8x"]\n')
    told.clear()
    Linter(report=told.append).lint(str(source), _kernel(CP_ASYNC))
    assert any("sm_8x" in t for t in told)


def test_a_folder_built_for_fewer_targets_names_them(tmp_path: Path) -> None:
    (tmp_path / "ptxlint.toml").write_text('arch = ["sm_80", "sm_90a"]\n')
    (tmp_path / "hopper").mkdir()
    (tmp_path / "hopper" / "ptxlint.toml").write_text(
        'extend = "../ptxlint.toml"\narch = "sm_90a"\n')
    (tmp_path / "hopper" / "k.cu").write_text(_kernel(WGMMA))
    (tmp_path / "k.cu").write_text(_kernel(WGMMA))
    run = subprocess.run([sys.executable, "-m", "ptxlint", "check", "--no-cache", ".",
                          "--select", "PTX401", "--format", "json"],
                         capture_output=True, text=True, cwd=tmp_path, check=False)
    [finding] = json.loads(run.stdout)["findings"]
    assert "hopper" not in finding["path"]
    assert "compiled for sm_80 (--arch)" in finding["message"]
