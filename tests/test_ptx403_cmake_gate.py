"""PTX403 and a folder that CMake builds only with a newer toolkit than the project's oldest:
a CMakeLists.txt whose every command lies inside ``if(CUDA_VERSION VERSION_GREATER_EQUAL X)``
adds no target and no subdirectory with an older toolkit, so nothing under it is compiled by
one (ptxlint.ptx.versions.cmake_toolkit_gate, ptxlint.file_traits.toolkit_gate). A project
whose top-level CMakeLists.txt asks for CUDA 11.8 but gates a vendored TensorRT-LLM folder on
CUDA 12.8 was told that its wgmma and st.async there break the 11.8 build."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ptxlint.cli import main
from ptxlint.ptx.versions import cmake_toolkit_gate

_GATED = """\
# Copyright
if(${CUDA_VERSION} VERSION_GREATER_EQUAL "12.8")
    add_subdirectory(common)
    if (SM STREQUAL "90" OR SM STREQUAL "90a")
        cc_test(t SRCS t.cu DEPS common)
    endif()
endif()
"""


@pytest.mark.parametrize(("text", "gate"), [
    (_GATED, (12, 8)),
    ("if(CUDAToolkit_VERSION VERSION_GREATER_EQUAL 12.4)\n add_library(x x.cu)\nendif()\n",
     (12, 4)),
    ('if(NOT CMAKE_CUDA_COMPILER_VERSION VERSION_LESS "12.0")\nadd_subdirectory(a)\nendif()',
     (12, 0)),
    # the bound AND-ed with other conditions still holds; OR-ed, it does not
    ('if ((SM STREQUAL "90" OR SM STREQUAL "90a") AND ${CUDA_VERSION} VERSION_GREATER_EQUAL '
     '"12.8")\n  add_library(x x.cu)\nendif()\n', (12, 8)),
    ('if (SM STREQUAL "90" OR ${CUDA_VERSION} VERSION_GREATER_EQUAL "12.8")\n'
     '  add_library(x x.cu)\nendif()\n', None),
    # an older toolkit builds something here: the other branch, a command outside the `if`
    (_GATED.replace("    add_subdirectory(common)\n", "    add_subdirectory(common)\nelse()\n"),
     None),
    (_GATED + "add_subdirectory(always)\n", None),
    ("add_subdirectory(always)\n" + _GATED, None),
    # not a lower bound on the toolkit
    (_GATED.replace("VERSION_GREATER_EQUAL", "VERSION_LESS"), None),
    (_GATED.replace("${CUDA_VERSION}", "${CMAKE_VERSION}"), None),
    ("add_subdirectory(a)\n", None),
])
def test_a_cmakelists_gates_its_folder_only_when_all_of_it_needs_the_toolkit(
        text: str, gate: tuple[int, int] | None) -> None:
    assert cmake_toolkit_gate(text) == gate


_HEADER = """\
__device__ void f(unsigned bar, unsigned dst, unsigned v) {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDACC_VER_MAJOR__ >= 12
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
               :: "r"(dst), "r"(v), "r"(bar) : "memory");
#endif
}
"""


def _findings(root: Path, capsys: pytest.CaptureFixture[str]) -> list[tuple[str, str]]:
    out = root / "out.json"
    main(["check", str(root), "--no-cache", "--no-progress", "--select", "PTX403",
          "--fail-on", "never", "--output-format", "json", "-o", str(out)])
    capsys.readouterr()
    found = json.loads(out.read_text())["findings"]
    return sorted((Path(f["path"]).name, f["message"]) for f in found)


def test_a_folder_cmake_builds_only_with_a_newer_toolkit_is_held_to_that_toolkit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".ptxlint.toml").write_text("preview = true\n")
    (tmp_path / "CMakeLists.txt").write_text("find_package(CUDA 11.8 REQUIRED)\n")
    (tmp_path / "old.cuh").write_text(_HEADER)
    gated = tmp_path / "dev"
    (gated / "common").mkdir(parents=True)
    (gated / "CMakeLists.txt").write_text(_GATED)
    (gated / "common" / "new.cuh").write_text(_HEADER)
    found = _findings(tmp_path, capsys)
    # CUDA 11.8 builds old.cuh: wgmma (PTX ISA 8.0) breaks it, and the guard's CUDA 12.0 does
    # not take st.async (8.1); CUDA 12.8 (PTX ISA 8.7), dev/'s oldest, takes both
    assert [(name, "min-cuda-version is 11.8" in m or "admit CUDA 12.0" in m)
            for name, m in found] == [("old.cuh", True), ("old.cuh", True)]


def test_a_gated_folder_is_still_held_to_its_own_toolkit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".ptxlint.toml").write_text("preview = true\n")
    (tmp_path / "CMakeLists.txt").write_text("find_package(CUDAToolkit 11.8 REQUIRED)\n")
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "CMakeLists.txt").write_text(
        _GATED.replace('"12.8"', '"12.0"'))
    (tmp_path / "dev" / "new.cuh").write_text(_HEADER)
    [(name, message)] = _findings(tmp_path, capsys)
    assert name == "new.cuh" and "st.async" in message
    assert "CMakeLists.txt builds this folder from CUDA 12.0 on" in message


def test_a_cached_result_is_not_kept_past_an_edit_of_the_folder_gate(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    """The gate is read from a CMakeLists.txt, neither the file nor a header of it: the result
    cache's key holds it, and each run reads the CMakeLists.txt files again."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "CMakeLists.txt").write_text("find_package(CUDA 11.8 REQUIRED)\n")
    gated = tmp_path / "dev"
    gated.mkdir()
    (gated / "CMakeLists.txt").write_text(_GATED)
    (gated / "new.cuh").write_text(_HEADER)
    out = tmp_path / "out.json"

    def cached_run() -> list[str]:
        main(["check", str(gated), "--no-progress", "--select", "PTX403", "--fail-on", "never",
              "--output-format", "json", "-o", str(out)])
        capsys.readouterr()
        return [f["rule"] for f in json.loads(out.read_text())["findings"]]

    assert cached_run() == []  # CUDA 12.8 builds dev/: both instructions are in its PTX ISA
    assert cached_run() == []  # from the cache
    (gated / "CMakeLists.txt").write_text("add_subdirectory(common)\n")  # 11.8 builds it now
    assert cached_run() == ["PTX403", "PTX403"]


def test_the_language_server_reads_a_changed_cmakelists_after_it_is_told(
        tmp_path: Path) -> None:
    from ptxlint.lsp.linting import Linter, is_config_file

    (tmp_path / "CMakeLists.txt").write_text("find_package(CUDA 11.8 REQUIRED)\n")
    gated = tmp_path / "dev"
    gated.mkdir()
    (gated / "CMakeLists.txt").write_text(_GATED)
    path = str(gated / "new.cuh")
    linter = Linter(report=lambda message: None)
    assert [f.rule for f in linter.lint(path, _HEADER).findings] == []
    (gated / "CMakeLists.txt").write_text("add_subdirectory(common)\n")
    assert is_config_file(str(gated / "CMakeLists.txt"))
    linter.invalidate()  # what a watched file's change or a save of it calls
    found = linter.lint(path, _HEADER).findings
    assert found and all(f.rule == "PTX403" for f in found)


def test_a_files_gate_is_read_once_and_again_after_the_gates_are_forgotten(
        tmp_path: Path) -> None:
    from ptxlint.file_traits import forget_toolkit_gates, toolkit_gate
    from ptxlint.model import SourceFile

    gated = tmp_path / "dev"
    gated.mkdir()
    (gated / "CMakeLists.txt").write_text(_GATED)
    forget_toolkit_gates()
    source = SourceFile(str(gated / "k.cuh"), _HEADER)
    assert toolkit_gate(source) == ((12, 8), "CMakeLists.txt")
    (gated / "CMakeLists.txt").write_text("add_subdirectory(common)\n")
    assert toolkit_gate(source) == ((12, 8), "CMakeLists.txt")  # the file's, kept
    forget_toolkit_gates()  # what a run's start and the language server's invalidate call
    assert toolkit_gate(source) is None
    other = SourceFile(str(tmp_path / "k.cuh"), _HEADER)
    assert toolkit_gate(other) is None
    assert toolkit_gate(source) is None
