"""--verify where no toolchain can be found (PATH without nvcc/ptxas, CUDA_HOME and CUDA_PATH
unset, no nvidia-cuda-nvcc wheel): one line saying so and where it looked, exit code 2, as
README.md and `check --help`'s exit codes say."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ptxlint.cli.help_text import EXIT_CODES


def _bare_env() -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items()
            if k in ("HOME", "LANG", "LC_ALL", "TMPDIR", "PTXLINT_CACHE_DIR")}
    return {**keep, "PATH": os.pathsep.join(("/usr/bin", "/bin"))}


def test_the_help_names_the_missing_toolchain():
    assert "2  usage or configuration error" in EXIT_CODES
    assert "no CUDA toolchain\n     for --verify" in EXIT_CODES


def test_no_toolchain_is_said_and_exits_2(tmp_path):
    env = _bare_env()
    doctor = subprocess.run([sys.executable, "-m", "ptxlint", "doctor"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    if "nvcc          not found" not in doctor.stdout:
        pytest.skip("a toolchain is found even without PATH and CUDA_HOME (a wheel, /usr/bin)")
    (tmp_path / "k.cu").write_text(
        '__device__ unsigned f() { unsigned s; asm("mov.u32 %0, %laneid;" : "=r"(s)); '
        "return s; }\n")
    done = subprocess.run([sys.executable, "-m", "ptxlint", "check", "--isolated", "--verify",
                           "k.cu"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("ptxlint: error: no CUDA toolchain found for --verify: looked at")
    assert "$CUDA_HOME/bin" in line and "PATH" in line
