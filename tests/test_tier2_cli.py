"""--compile-commands end to end: Tier 2 finds what Tier 1 cannot see."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from ptxlint.cli import main
from tests.conftest import FIXTURES

pytest.importorskip("clang.cindex", reason="the libclang wheel (ptxlint[clang]) is not installed")


def test_compile_commands_turn_on_tier2(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("PTXLINT_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "project"
    shutil.copytree(os.path.join(FIXTURES, "tier2"), project)
    monkeypatch.chdir(project)
    assert main(["check", "kernel.cu", "--select", "PTX004", "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert [f["line"] for f in doc["findings"]] == [6]  # found through compile_commands.json
    assert main(["check", "kernel.cu", "--select", "PTX004", "--no-compile-commands"]) == 0


def test_missing_database_is_a_usage_error(tmp_path, capsys) -> None:
    code = main(["check", str(tmp_path), "--compile-commands", str(tmp_path / "nope")])
    assert code == 2
    assert "no compile database" in capsys.readouterr().err


def test_finding_names_the_instantiation_that_breaks(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("PTXLINT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "k.cu").write_text(
        "template <typename T>\n"
        "__device__ unsigned widen(T v) {\n"
        "  unsigned r;\n"
        '  asm("mov.b32 %0, %1;" : "=r"(r) : "r"(v));\n'
        "  return r;\n"
        "}\n"
        "__global__ void k(unsigned* out, unsigned a, unsigned long long b) {\n"
        "  out[0] = widen(a);\n"
        "  out[1] = widen(b);\n"
        "}\n"
    )
    (tmp_path / "compile_commands.json").write_text(json.dumps([{
        "directory": str(tmp_path), "file": "k.cu",
        "arguments": ["nvcc", "-arch=sm_90", "-c", "k.cu"],
    }]))
    monkeypatch.chdir(tmp_path)
    assert main(["check", "k.cu", "--select", "PTX004", "--format", "json"]) == 1
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert finding["line"] == 4
    assert "unsigned long long" in finding["message"] and "widen" in finding["message"]
    assert "widen<unsigned int>" not in finding["message"]


def test_stats_count_operands_per_tier(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("PTXLINT_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "project"
    shutil.copytree(os.path.join(FIXTURES, "tier2"), project)
    monkeypatch.chdir(project)
    assert main(["stats", "kernel.cu"]) == 0
    out = capsys.readouterr().out
    tier2 = int(out.split("from libclang (tier 2):")[1].split()[0])
    tier1 = int(out.split("from this file (tier 1):")[1].split()[0])
    assert tier2 >= 4 and tier2 > tier1


def _widen_project(tmp_path, folder: str):
    (tmp_path / "k.cu").write_text(
        "template <typename T>\n"
        "__device__ unsigned widen(T v) {\n"
        "  unsigned r;\n"
        '  asm("mov.b32 %0, %1;" : "=r"(r) : "r"(v));\n'
        "  return r;\n"
        "}\n"
        "__global__ void k(unsigned* out, unsigned long long b) { out[0] = widen(b); }\n"
    )
    build = tmp_path / folder
    build.mkdir()
    (build / "compile_commands.json").write_text(json.dumps([{
        "directory": str(tmp_path), "file": "k.cu",
        "arguments": ["nvcc", "-arch=sm_90", "-c", "k.cu"],
    }]))


def test_p_names_the_build_folder_for_the_types_as_clang_tidy_does(tmp_path, capsys,
                                                                     monkeypatch) -> None:
    monkeypatch.setenv("PTXLINT_CACHE_DIR", str(tmp_path / "cache"))
    _widen_project(tmp_path, "gpu-build")  # not a folder ptxlint looks in by itself
    monkeypatch.chdir(tmp_path)
    assert main(["check", "k.cu", "--select", "PTX004"]) == 0
    capsys.readouterr()
    assert main(["check", "k.cu", "--select", "PTX004", "-p", "gpu-build", "--format", "json"]) == 1
    (finding,) = json.loads(capsys.readouterr().out)["findings"]
    assert "unsigned long long" in finding["message"]


def test_p_and_compile_commands_must_agree(tmp_path, capsys, monkeypatch) -> None:
    _widen_project(tmp_path, "out")
    _widen_project(tmp_path / "out", "other")
    monkeypatch.chdir(tmp_path)
    code = main(["check", "k.cu", "-p", "out", "--compile-commands", "out/other"])
    assert code == 2
    assert "different compile databases" in capsys.readouterr().err
    assert main(["check", "k.cu", "-p", "nope"]) == 2
    assert "no compile database" in capsys.readouterr().err


def test_verify_reads_the_database_compile_commands_names(tmp_path) -> None:
    from ptxlint.cli import build_parser
    from ptxlint.verify.cli import options_from_args

    args = build_parser().parse_args(["check", "k.cu", "--compile-commands", "out"])
    assert options_from_args(args, None).build_dir == "out"
    args = build_parser().parse_args(["check", "k.cu", "-p", "build2"])
    assert options_from_args(args, None).build_dir == "build2"
