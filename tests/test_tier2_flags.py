"""Tier 2 without libclang: compile database reading and nvcc flag translation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ptxlint.tier2.compile_db import CompileDbError, load, locate
from ptxlint.tier2.flags import is_cuda_command, parse_extra, translate


def test_nvcc_flags_keep_paths_and_defines_and_drop_codegen() -> None:
    argv = [
        "nvcc", "-O3", "-Iinc", "-I", "/abs", "-isystem", "sys", "-DX=1", "-D", "Y",
        "-gencode", "arch=compute_80,code=sm_80", "--expt-relaxed-constexpr",
        "-Xcompiler", "-fPIC", "-std=c++20", "-c", "a.cu", "-o", "a.o",
    ]  # fmt: skip
    flags = translate(argv, "/proj", "/proj/a.cu")
    args = list(flags.args)
    assert flags.arch == "sm_80"
    assert "--cuda-gpu-arch=sm_80" in args and "-std=c++20" in args
    assert args[args.index("-I") + 1] == "/proj/inc"
    assert "/abs" in args and "/proj/sys" in args and "-DX=1" in args and "-DY" in args
    for gone in ("-O3", "--expt-relaxed-constexpr", "-fPIC", "a.cu", "a.o", "-c"):
        assert gone not in args


def test_architectures_newer_than_libclang_parse_as_sm_90() -> None:
    assert translate(["nvcc", "-arch=sm_100a"], "/p").arch == "sm_90"
    assert translate(["nvcc", "--gpu-architecture", "compute_90a"], "/p").arch == "sm_90a"
    assert translate(["nvcc"], "/p").arch == "sm_90"


def test_clang_args_are_appended_verbatim() -> None:
    extra = parse_extra("-DMODE=2 -I 'dir with space'")
    args = translate(["nvcc"], "/p", extra=extra).args
    assert args[-3:] == ("-DMODE=2", "-I", "dir with space")


def test_host_commands_are_not_cuda() -> None:
    assert is_cuda_command(["nvcc", "-c", "x.cpp"], "/p/x.cpp")
    assert is_cuda_command(["clang++", "-x", "cuda", "x.cpp"], "/p/x.cpp")
    assert not is_cuda_command(["g++", "-c", "x.cpp"], "/p/x.cpp")


def test_relative_directory_is_relative_to_the_database(tmp_path: Path) -> None:
    (tmp_path / "build").mkdir()
    db_file = tmp_path / "build" / "compile_commands.json"
    db_file.write_text(
        json.dumps(
            [
                {"directory": "..", "command": "nvcc -Iinc -c src/k.cu", "file": "src/k.cu"},
                {"directory": str(tmp_path), "arguments": ["nvcc", "b.cu"], "file": "b.cu"},
                {"file": 3},
            ]
        )
    )
    assert locate(None, str(tmp_path)) == db_file  # auto-discovered in build/
    assert locate(str(tmp_path / "build"), None) == db_file  # a folder names its database
    db = load(db_file)
    assert len(db.commands) == 2
    k = db.for_file(str(tmp_path / "src" / "k.cu"))
    assert k is not None and k.directory == str(tmp_path.resolve())
    assert k.arguments == ("nvcc", "-Iinc", "-c", "src/k.cu")


def test_missing_or_broken_database_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CompileDbError):
        locate(str(tmp_path / "nope"))
    bad = tmp_path / "compile_commands.json"
    bad.write_text("{not json")
    with pytest.raises(CompileDbError):
        load(bad)
