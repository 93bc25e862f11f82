"""Where ptxlint looks for the programs it runs, and how it starts child interpreters: never in
the working folder, a linted folder or through a relative PATH, PYTHONPATH or CUDA_HOME entry."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ptxlint import program_search, start_path
from ptxlint.program_search import Distrusted, which
from ptxlint.verify import toolchain, triton_probe

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX programs")


def _tool(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V13.0.88'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def layout(tmp_path, monkeypatch):
    """A checkout (the working folder) with tools in its root and bin/, and a trusted folder
    outside it."""
    checkout = tmp_path / "checkout"
    trusted = tmp_path / "opt" / "cuda" / "bin"
    for folder in (checkout, checkout / "bin"):
        _tool(folder, "nvcc")
    _tool(trusted, "nvcc")
    monkeypatch.chdir(checkout)
    for var in ("CUDA_HOME", "CUDA_PATH"):
        monkeypatch.delenv(var, raising=False)
    return checkout, trusted


@pytest.mark.parametrize("entry", ["", ".", "bin", "./bin", "../checkout/bin"])
def test_a_relative_or_empty_path_entry_is_never_searched(layout, monkeypatch, entry):
    checkout, trusted = layout
    monkeypatch.setenv("PATH", os.pathsep.join([entry, str(trusted)]))
    assert which("nvcc") == str(trusted / "nvcc")
    assert entry in program_search.skipped_path_hits("nvcc", Distrusted.here())


def test_an_absolute_entry_inside_the_working_folder_or_a_linted_folder_is_refused(
        layout, monkeypatch, tmp_path):
    checkout, trusted = layout
    monkeypatch.setenv("PATH", os.pathsep.join([str(checkout / "bin"), str(trusted)]))
    assert which("nvcc") == str(trusted / "nvcc")
    # linted from elsewhere: the linted folder is refused, the working folder no longer matters
    elsewhere = tmp_path / "home"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert which("nvcc", Distrusted.here()) == str(checkout / "bin" / "nvcc")
    assert which("nvcc", Distrusted.here([str(checkout)])) == str(trusted / "nvcc")
    # a linted *file* names no tree: its folder may be the home folder with ~/.local/bin
    (checkout / "k.cu").write_text("")
    assert which("nvcc", Distrusted.here([str(checkout / "k.cu")])) == str(
        checkout / "bin" / "nvcc")


def test_the_environment_ptxlint_runs_from_is_trusted_only_when_it_lies_in_the_tree(tmp_path):
    tree = str(tmp_path / "project")
    venv = os.path.join(tree, ".venv")
    inside_env = Distrusted((tree,), venv)
    assert not inside_env.refuses(os.path.join(venv, "bin"))
    assert inside_env.refuses(os.path.join(tree, "bin"))
    # a checkout under the environment's prefix (/usr/src/x with sys.prefix /usr) gains nothing
    under_env = Distrusted((os.path.join(str(tmp_path), "usr", "src", "x"),),
                           os.path.join(str(tmp_path), "usr"))
    assert under_env.refuses(os.path.join(str(tmp_path), "usr", "src", "x", "bin"))
    assert not under_env.refuses(os.path.join(str(tmp_path), "usr", "bin"))


def test_toolchain_discovery_ignores_a_relative_cuda_home_and_the_working_folder(
        layout, monkeypatch):
    checkout, trusted = layout
    _tool(checkout / "nvidia" / "cu13" / "bin", "nvcc")
    monkeypatch.setenv("CUDA_HOME", ".")
    monkeypatch.setenv("CUDA_PATH", "nvidia/cu13")
    monkeypatch.setenv("PATH", os.pathsep.join(["", "bin", "nvidia/cu13/bin"]))
    monkeypatch.syspath_prepend(str(checkout))  # as `python -m` would
    found = toolchain._discover.__wrapped__(None, None, Distrusted.here())
    for tool in (found.nvcc, found.ptxas):
        assert tool is None or not tool.path.startswith(str(checkout)), tool
    assert any("not used" in p for p in found.problems)
    # the same folder named by the user is used as given
    mine = toolchain._discover.__wrapped__(str(checkout / "bin" / "nvcc"), None,
                                           Distrusted.here())
    assert mine.nvcc is not None and mine.nvcc.found_by == "--nvcc"
    # an absolute CUDA_HOME is the user's choice
    monkeypatch.setenv("CUDA_HOME", str(trusted.parent))
    found = toolchain._discover.__wrapped__(None, None, Distrusted.here())
    assert found.nvcc is not None and found.nvcc.path == str(trusted / "nvcc")


def test_the_wheel_is_looked_for_only_in_the_environments_site_packages(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    folders = program_search.environment_site_folders()
    assert folders and all(os.path.isabs(f) for f in folders)
    assert str(tmp_path) not in folders and "" not in folders


def test_the_triton_version_check_runs_isolated_in_a_folder_of_its_own(tmp_path, monkeypatch):
    marker = tmp_path / "imported"
    (tmp_path / "triton.py").write_text(
        f"open({str(marker)!r}, 'w').write('x')\n__version__ = '6.6.6'\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # -I ignores it too
    version = triton_probe.triton_version.__wrapped__(sys.executable)
    assert version != "6.6.6" and not marker.exists()


def test_triton_probe_jobs_run_python_isolated(tmp_path, monkeypatch):
    command = triton_probe.command(sys.executable, "{dir}/triton_probe.py")
    assert command[:2] == (sys.executable, "-I")
    monkeypatch.chdir(tmp_path)
    assert triton_probe.interpreter("venv/bin/python") == str(tmp_path / "venv/bin/python")
    monkeypatch.setenv("PATH", os.pathsep.join(["", str(Path(sys.executable).parent)]))
    (tmp_path / "python3").write_text("#!/bin/sh\n")
    (tmp_path / "python3").chmod(0o755)
    assert triton_probe.interpreter("python3") != "python3"
    assert not triton_probe.interpreter("python3").startswith(str(tmp_path))


@pytest.mark.parametrize(("argv", "ours"), [
    (["python", "-m", "ptxlint", "check"], True),
    (["python", "-I", "-m", "ptxlint.lsp"], True),
    (["python", "-Im", "ptxlint"], True),
    (["python", "-X", "importtime", "-m", "ptxlint"], True),
    (["python", "-Ximporttime", "-mptxlint"], True),
    (["python", "-m", "mytool"], False),
    (["python", "-m", "ptxlintish"], False),
    (["python", "script.py", "-m", "ptxlint"], False),
    (["python", "-c", "pass", "-m", "ptxlint"], False),
])
def test_only_ptxlints_own_start_changes_sys_path(argv, ours):
    assert start_path.started_as_ptxlint(argv) is ours


def test_isolate_drops_the_working_folder_and_relative_entries(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), "", "rel", *sys.path[1:4]])
    monkeypatch.setenv("PYTHONSAFEPATH", "")  # restored (absent) after the test
    if sys.flags.isolated or getattr(sys.flags, "safe_path", False):
        pytest.skip("this interpreter already keeps the working folder off sys.path")
    start_path.isolate()
    assert str(tmp_path) not in sys.path and "" not in sys.path and "rel" not in sys.path
    assert os.environ["PYTHONSAFEPATH"] == "1"


def test_a_child_interpreter_started_by_ptxlint_ignores_its_working_folder(tmp_path):
    if sys.version_info < (3, 11):
        pytest.skip("PYTHONSAFEPATH needs Python 3.11")
    marker = tmp_path / "imported"
    (tmp_path / "json.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    code = ("from ptxlint import start_path; start_path.isolate(); import subprocess, sys; "
            "subprocess.run([sys.executable, '-c', 'import json'], check=True)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"}
    subprocess.run([sys.executable, "-I", "-c", code], cwd=tmp_path, env=env, check=True,
                   timeout=60)
    assert not marker.exists()


def test_libclang_is_never_loaded_from_a_relative_folder(tmp_path):
    import types

    from ptxlint.tier2 import libclang_types

    native = tmp_path / "clang" / "native"
    native.mkdir(parents=True)

    class Config:
        loaded = False
        library_file: str | None = None
        library_path: str | None = "lib"  # LIBCLANG_LIBRARY_PATH=lib: ./lib/libclang.so

    cindex = types.SimpleNamespace(Config=Config, __file__=str(tmp_path / "clang" / "cindex.py"))
    libclang_types._pin_library(cindex)
    assert Config.library_path == str(native)
    Config.library_path = "/opt/llvm/lib"  # absolute: the user's choice, kept
    libclang_types._pin_library(cindex)
    assert Config.library_path == "/opt/llvm/lib"


def test_no_toolchain_error_names_the_path_entries_passed_over(layout, monkeypatch):
    checkout, _ = layout
    monkeypatch.setenv("PATH", os.pathsep.join(["bin", str(checkout / "bin")]))
    monkeypatch.setattr(toolchain, "WHEEL_BIN_DIRS", ())
    found = toolchain._discover.__wrapped__(None, None, Distrusted.here())
    with pytest.raises(toolchain.ToolchainError, match="no CUDA toolchain found") as caught:
        toolchain.require(found)
    assert "'bin'" in str(caught.value) and repr(str(checkout / "bin")) in str(caught.value)
    assert "problem: nvcc in PATH entry 'bin' not used" in toolchain.doctor_report(found)
