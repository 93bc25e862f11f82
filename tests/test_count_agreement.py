"""ptxlint's count of asm statements equals an independent, tree-sitter-free count."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from ptxlint.config import Config, RuleSelector
from ptxlint.rule import RuleContext
from ptxlint.run.discover import CXX_EXTENSIONS
from ptxlint.run.runner import run
from tests.conftest import FIXTURES, ROOT


def _cuda_include() -> str | None:
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var) and os.path.isdir(os.path.join(os.environ[var], "include")):
            return os.path.join(os.environ[var], "include")
    if shutil.which("nvcc") is None:
        return None
    # `nvcc --dryrun` names the toolkit root as TOP, wherever the nvcc on PATH lives.
    out = subprocess.run(
        ["nvcc", "--dryrun", "-c", "-x", "cu", "/dev/null", "-o", "/dev/null"],
        capture_output=True,
        text=True,
        check=False,
    ).stderr
    for line in out.splitlines():
        if line.startswith("#$ TOP="):
            include = os.path.join(line.split("=", 1)[1].strip(), "include")
            return include if os.path.isdir(include) else None
    return None


def _independent(path: str) -> dict:
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "count_asm.py"), "--json", path],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)


def _ptxlint(path: str):
    # count_asm.py counts C++ asm statements; the .py fixtures hold Python calls
    config = Config(extensions=CXX_EXTENSIONS)
    return run([path], config, RuleSelector(config, []), [], RuleContext(), jobs=2)


@pytest.mark.parametrize("where", ["fixtures", "cuda"])
def test_statement_count_matches_independent_count(where: str) -> None:
    path = FIXTURES if where == "fixtures" else _cuda_include()
    if path is None:
        pytest.skip("no CUDA toolkit headers found (CUDA_HOME, CUDA_PATH or nvcc on PATH)")
    independent = _independent(path)
    assert independent["total"] > (3500 if where == "cuda" else 0)
    result = _ptxlint(path)
    # statements read from macro invocations are extra readings of #define bodies
    # and a statement with #if inside is read once per branch
    written = result.statements - result.expansion_statements - result.branch_variants
    assert written + result.skipped_statements == independent["total"]
    assert result.asm_labels == independent["labels"]
