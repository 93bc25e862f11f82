"""The pre-commit hook on Python: it blocks a Triton file with a defect, passes its clean twin,
and Python files that mention no asm API are never parsed (ptxlint's byte prefilter).

The first tests run the hook's entry exactly as pre-commit does (the staged files that match
``files`` appended to ``entry``). The last runs pre-commit itself against this repository's
committed HEAD (it builds the hook's virtualenv from the package index, about 40 s), when
PTXLINT_TEST_PRECOMMIT=1 and pre-commit (the dev extra) and git are installed; CI sets it.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ptxlint.cli import main

ROOT = Path(__file__).resolve().parent.parent

BAD = '''\
import triton
import triton.language as tl


@triton.jit
def kernel(X, BLOCK: tl.constexpr):
    t = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [],
                                  dtype=tl.int64, is_pure=True, pack=1)
    tl.store(X + tl.arange(0, BLOCK), t)
'''
CLEAN = BAD.replace("is_pure=True", "is_pure=False")  # the twin: the side effect declared
UNRELATED = "def helper(x):\n    return x + 1  # no asm API here\n"


def _hook() -> dict:
    (only,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    return only


def _run_entry(folder: Path, staged: list[str]) -> subprocess.CompletedProcess[str]:
    hook = _hook()
    files = [name for name in staged if re.search(hook["files"], name)]
    argv = shlex.split(hook["entry"])
    assert argv[0] == "ptxlint"
    return subprocess.run([sys.executable, "-m", "ptxlint", *argv[1:], *files], cwd=folder,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_hook_entry_blocks_a_triton_defect(tmp_path) -> None:
    (tmp_path / "kernel.py").write_text(BAD)
    done = _run_entry(tmp_path, ["kernel.py"])
    assert done.returncode == 1, done.stderr
    assert "kernel.py:7:48: PTX505" in done.stdout


def test_hook_entry_passes_the_clean_twin_and_unrelated_python(tmp_path) -> None:
    (tmp_path / "kernel.py").write_text(CLEAN)
    (tmp_path / "helper.py").write_text(UNRELATED)
    done = _run_entry(tmp_path, ["kernel.py", "helper.py", "README.md"])
    assert done.returncode == 0, done.stdout + done.stderr


def test_python_files_without_an_asm_api_are_not_parsed(tmp_path, monkeypatch, capsys) -> None:
    import ptxlint.frontends.python as python_frontend

    parsed: list[str] = []
    real = python_frontend.extract_python

    def counting(source, *args, **kwargs):
        parsed.append(os.path.basename(source.path))
        return real(source, *args, **kwargs)

    # the engine imports the front end's entry point by name when it meets a .py file
    monkeypatch.setattr(python_frontend, "extract_python", counting)
    (tmp_path / "kernel.py").write_text(BAD)
    (tmp_path / "helper.py").write_text(UNRELATED)
    assert main(["check", "--force-exclude", "--no-cache", "--no-progress", "--jobs", "1",
                 str(tmp_path / "kernel.py"), str(tmp_path / "helper.py")]) == 1
    assert parsed == ["kernel.py"]
    capsys.readouterr()


@pytest.mark.skipif(
    os.environ.get("PTXLINT_TEST_PRECOMMIT") != "1"
    or importlib.util.find_spec("pre_commit") is None or shutil.which("git") is None,
    reason="set PTXLINT_TEST_PRECOMMIT=1 with pre-commit (the dev extra) and git installed: "
    "pre-commit builds the hook's virtualenv from the package index (about 40 s)",
)
def test_pre_commit_blocks_a_triton_defect_and_passes_its_clean_twin(tmp_path) -> None:
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()
    repo = tmp_path / "user-repo"
    repo.mkdir()
    (repo / "bad.py").write_text(BAD)
    (repo / "clean.py").write_text(CLEAN)
    (repo / "helper.py").write_text(UNRELATED)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {head}\n    hooks:\n      - id: ptxlint\n"
    )
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
    subprocess.run([*git, "add", "."], cwd=repo, check=True)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}

    def pre_commit(*files: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--files", *files],
                              cwd=repo, env=env,
                              capture_output=True, text=True, timeout=600)

    blocked = pre_commit("bad.py")
    assert blocked.returncode == 1, blocked.stdout + blocked.stderr
    assert "bad.py:7:48: PTX505" in blocked.stdout
    passed = pre_commit("clean.py", "helper.py")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "ptxlint" in passed.stdout and "Passed" in passed.stdout
