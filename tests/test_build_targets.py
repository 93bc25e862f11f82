"""Where no ``arch`` is configured, a file in the compile database is judged for the targets
its compile command builds it for (one nvcc pass per virtual architecture)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ptxlint.cli import main
from ptxlint.config import RuleSelector
from ptxlint.rule import RuleContext
from ptxlint.run.runner import _settings_for
from ptxlint.tier2.build_targets import applied, command_targets

WGMMA_KERNEL = ('__device__ void k() {\n'
                '  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");\n'
                '}\n')
GENCODE = ["-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90a,code=sm_90a"]


def _tree(tmp_path: Path, database: bool = True) -> Path:
    (tmp_path / "k.cu").write_text(WGMMA_KERNEL)
    (tmp_path / "k.cuh").write_text(WGMMA_KERNEL)
    if database:
        (tmp_path / "compile_commands.json").write_text(json.dumps([{
            "directory": str(tmp_path),
            "arguments": ["nvcc", *GENCODE, "-c", "k.cu", "-o", "k.o"],
            "file": "k.cu",
        }]))
    return tmp_path


def _ptx401(capsys: pytest.CaptureFixture[str], *args: str) -> list[tuple[str, str]]:
    main(["check", "--isolated", "--no-cache", "--select", "PTX401", "--format", "json", *args])
    doc = json.loads(capsys.readouterr().out)
    return [(Path(f["path"]).name, f["message"]) for f in doc["findings"]]


def test_the_compile_command_targets_judge_the_file(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(_tree(tmp_path))
    ((name, message),) = _ptx401(capsys, "k.cu")
    assert name == "k.cu" and message.endswith("compiled for sm_80 (compile_commands.json)")


def test_without_the_database_nothing_changes(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(_tree(tmp_path, database=False))
    assert _ptx401(capsys, "k.cu") == []


def test_a_configured_arch_wins(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(_tree(tmp_path))
    assert _ptx401(capsys, "--arch", "sm_90a", "k.cu") == []
    ((_, message),) = _ptx401(capsys, "--arch", "sm_75", "k.cu")
    assert message.endswith("compiled for sm_75 (--arch)")


def test_no_compile_commands_reads_no_targets(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(_tree(tmp_path))
    assert _ptx401(capsys, "--no-compile-commands", "k.cu") == []


def test_a_file_without_an_entry_is_unchanged(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(_tree(tmp_path))
    assert _ptx401(capsys, "k.cuh") == []
    # the same run holds both: only the translation unit is judged for its targets
    assert [name for name, _ in _ptx401(capsys, ".")] == ["k.cu"]


def test_show_settings_names_the_database(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(_tree(tmp_path))
    assert main(["check", "--isolated", "--show-settings", "k.cu"]) == 0
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("arch")]
    assert line.startswith('arch = ["sm_80", "sm_90a"]  # from ')
    assert line.endswith("compile_commands.json")
    assert main(["check", "--isolated", "--show-settings", "k.cuh"]) == 0
    assert "arch = (none: every target)" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "expected"), [
    (["nvcc", *GENCODE], ("sm_80", "sm_90a")),
    (["nvcc", "-arch=sm_90a"], ("sm_90a",)),
    (["nvcc", "-arch", "compute_80"], ("sm_80",)),
    # one pass per virtual architecture: its PTX is what sm_86's code is assembled from
    (["nvcc", "--generate-code=arch=compute_80,code=[compute_80,sm_86]"], ("sm_80",)),
    (["nvcc", "-gencode=arch=compute_90,code=sm_90", "-gencode=arch=compute_80,code=sm_80",
      "-gencode=arch=compute_90,code=compute_90"], ("sm_80", "sm_90")),
    (["clang++", "--cuda-gpu-arch=sm_75", "--offload-arch=sm_80"], ("sm_75", "sm_80")),
    # values the tables do not know are left out, not an error
    (["nvcc", "-arch=native", "-gencode", "arch=compute_999,code=sm_999"], ()),
    (["g++", "-c", "host.cpp"], ()),
])
def test_command_targets(argv: list[str], expected: tuple[str, ...]) -> None:
    assert command_targets(argv) == expected


def test_worker_settings_apply_the_targets(tmp_path) -> None:
    path = str(tmp_path.resolve() / "k.cu")
    build = {path: ("sm_80", "sm_90a")}
    selector = RuleSelector.__new__(RuleSelector)
    _, context = _settings_for(path, selector, RuleContext(), None, build)
    assert context.targets == ((80, ""), (90, "a")) and context.arch is None
    assert applied(RuleContext(arch=75, targets=((75, ""),)), build, path).targets == ((75, ""),)
    assert applied(RuleContext(), build, str(tmp_path / "k.cuh")) == RuleContext()


def test_the_language_server_reads_the_same_targets(tmp_path, monkeypatch) -> None:
    from ptxlint.lsp.linting import Linter

    monkeypatch.chdir(_tree(tmp_path))
    linter = Linter(warm_up=False)

    def ptx401(name: str) -> list[str]:
        path = str(tmp_path / name)
        return [f.message for f in linter.lint(path, WGMMA_KERNEL).findings if f.rule == "PTX401"]

    (message,) = ptx401("k.cu")
    assert "sm_80" in message
    assert ptx401("k.cuh") == []
    (tmp_path / "ptxlint.toml").write_text('arch = "sm_90a"\n')
    linter.invalidate()
    assert ptx401("k.cu") == []
