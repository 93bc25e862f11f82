"""``pip install 'ptxlint[verify]'`` is a complete toolchain: in a fresh virtual environment
with ``PATH`` and ``CUDA_HOME`` cleared, ``--verify`` finds nvcc and ptxas in the wheels and
confirms a finding. It needs the package index (the nvidia-cuda-nvcc, -nvvm, -cuda-crt and
-cuda-runtime wheels, some 150 MB) and skips with a reason when the index cannot be reached.
About 1-2 min on 2 cores the first time, mostly downloads and installs; pip's cache makes a
second run quicker."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _pinned() -> list[str]:
    """The verify extra's requirements, as pyproject.toml lists them."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(project["project"]["optional-dependencies"]["verify"])


def test_the_extra_pins_every_wheel_nvcc_needs_to_one_series() -> None:
    pins = {re.split(r"[<>=!~ ]", r, maxsplit=1)[0]: r for r in _pinned()}
    assert set(pins) == {"nvidia-cuda-nvcc", "nvidia-nvvm", "nvidia-cuda-crt",
                         "nvidia-cuda-runtime"}
    series = {re.search(r"<\s*([\d.]+)", r)[1] for r in pins.values()}  # type: ignore[index]
    assert len(series) == 1, pins  # one upper bound: nvcc and cicc of one release


@pytest.fixture(scope="module")
def verify_env(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("verify-extra")
    probe = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "index", "versions",
         "nvidia-nvvm"], capture_output=True, text=True, timeout=120)
    if probe.returncode != 0 or "nvidia-nvvm" not in probe.stdout:
        pytest.skip("the package index cannot be reached (pip index versions nvidia-nvvm: "
                    f"{(probe.stderr.strip().splitlines() or ['no answer'])[-1]})")
    venv.create(where / "venv", with_pip=True)
    python = where / "venv" / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "--disable-pip-version-check", "install", "-q",
         f"{ROOT}[verify]"], capture_output=True, text=True, timeout=1200)
    assert installed.returncode == 0, installed.stderr[-3000:]
    return python


def test_verify_runs_with_only_the_wheels(verify_env: Path, tmp_path: Path) -> None:
    source = tmp_path / "k.cu"
    source.write_text('__device__ unsigned f(unsigned a) {\n  unsigned d;\n'
                      '  asm("shr.u23 %0, %1, 1;" : "=r"(d) : "r"(a));\n  return d;\n}\n')
    env = {key: value for key, value in os.environ.items()
           if key not in ("PATH", "CUDA_HOME", "CUDA_PATH", "PTXLINT_NVCC", "PTXLINT_PTXAS")}
    env["PATH"] = str(verify_env.parent)  # the venv's bin only: no system CUDA, no g++
    env["PTXLINT_CACHE_DIR"] = str(tmp_path / "cache")
    # outside the checkout: its rules/ folder must not shadow the installed packages
    checked = subprocess.run(
        [str(verify_env), "-m", "ptxlint", "check", "--verify", "--arch", "sm_90", "--format",
         "json", "--no-progress", str(source)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    assert checked.returncode == 1, checked.stderr[-2000:]
    document = json.loads(checked.stdout)
    [finding] = [f for f in document["findings"] if f["rule"] == "PTX204"]
    verdict = finding["verification"]
    assert verdict["status"] == "confirmed", verdict
    assert verdict["tool"].startswith("ptxas 13.0"), verdict
    assert document["verification"]["confirmed"] >= 1


def test_nvcc_from_the_wheels_compiles_with_a_host_compiler(verify_env: Path,
                                                             tmp_path: Path) -> None:
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("no g++: nvcc needs a host compiler for its .cu probes")
    folder = os.path.dirname(gxx)
    if any(os.path.exists(os.path.join(folder, tool)) for tool in ("nvcc", "ptxas")):
        pytest.skip(f"{folder} holds a CUDA toolkit: the run would not be the wheels' alone")
    env = {key: value for key, value in os.environ.items()
           if key not in ("PATH", "CUDA_HOME", "CUDA_PATH")}
    env["PATH"] = os.pathsep.join((str(verify_env.parent), folder))
    env["PTXLINT_CACHE_DIR"] = str(tmp_path / "cache")
    checked = subprocess.run(
        [str(verify_env), "-m", "ptxlint", "check", "--verify", "--arch", "sm_90", "--format",
         "json", "--no-progress", str(ROOT / "tests" / "data" / "blog_pipeline.cu")],
        capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    assert checked.returncode == 1, checked.stderr[-2000:]
    verdicts = {f["rule"]: f["verification"] for f in json.loads(checked.stdout)["findings"]}
    # the seed's two errors: nvcc's front end (cudafe++, cicc from nvidia-nvvm, the headers of
    # nvidia-cuda-crt) and the wheel's ptxas
    assert verdicts["PTX004"]["status"] == "confirmed", verdicts
    assert verdicts["PTX004"]["tool"].startswith("nvcc 13.0"), verdicts
    assert verdicts["PTX207"]["status"] == "confirmed", verdicts
