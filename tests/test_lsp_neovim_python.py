"""A real editor on Python: headless Neovim attaches ``ptxlint lsp`` to a Triton ``.py`` buffer,
gets the diagnostic, and its quick fix removes it (the same driver as the .cu test).

Needs ``nvim`` 0.7 or newer on PATH (Debian: ``apt-get install -y neovim``); skipped without it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("pygls", reason="the lsp extra (pygls) is not installed")

from tests.conftest import ROOT  # noqa: E402

NVIM = shutil.which("nvim")
SCRIPT = os.path.join(ROOT, "tests", "data", "lsp", "nvim_attach.lua")

TRITON = '''\
import triton
import triton.language as tl


@triton.jit
def kernel(X, BLOCK: tl.constexpr):
    t = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [],
                                  dtype=tl.int64, is_pure=True, pack=1)
    tl.store(X + tl.arange(0, BLOCK), t)
'''


@pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed")
def test_neovim_lints_a_triton_buffer_and_applies_the_fix(tmp_path) -> None:
    assert NVIM is not None
    source = tmp_path / "kernel.py"
    source.write_text(TRITON, encoding="utf-8")
    out = tmp_path / "result.json"
    env = {
        **os.environ,
        "PYTHONPATH": ROOT,
        "PTXLINT_NVIM_CMD": json.dumps([sys.executable, "-m", "ptxlint.lsp"]),
        "PTXLINT_NVIM_FILE": str(source),
        "PTXLINT_NVIM_OUT": str(out),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    subprocess.run([NVIM, "--headless", "--clean", "-n", "-u", SCRIPT], env=env, cwd=tmp_path,
                   stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    result = json.loads(out.read_text())
    assert "error" not in result, result
    (diagnostic,) = result["diagnostics"]
    assert diagnostic["source"] == "ptxlint" and diagnostic["lnum"] == 6
    assert "is_pure=True" in diagnostic["message"]
    assert any("is_pure=False" in title for title in result["actions"]), result["actions"]
    assert result["after_fix"] == 0
