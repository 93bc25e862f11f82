"""A real editor: headless Neovim attaches ``ptxlint lsp`` to a .cu buffer.

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

from tests.conftest import FIXTURES, ROOT  # noqa: E402

NVIM = shutil.which("nvim")
SCRIPT = os.path.join(ROOT, "tests", "data", "lsp", "nvim_attach.lua")


def _nvim_version(nvim: str) -> tuple[int, int]:
    first = subprocess.run([nvim, "--version"], capture_output=True, text=True, timeout=30)
    numbers = first.stdout.split()[1].lstrip("v").split(".")  # "NVIM v0.7.2"
    return int(numbers[0]), int(numbers[1])


@pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed")
def test_neovim_gets_diagnostics_and_code_actions(tmp_path) -> None:
    assert NVIM is not None
    if _nvim_version(NVIM) < (0, 7):
        pytest.skip("Neovim older than 0.7 has no vim.lsp.start_client/buf_attach_client we use")
    source = tmp_path / "k.cu"
    with open(os.path.join(FIXTURES, "rules", "PTX006_bad.cu"), encoding="utf-8") as handle:
        source.write_text(handle.read(), encoding="utf-8")
    out = tmp_path / "result.json"
    env = {
        **os.environ,
        "PYTHONPATH": ROOT,
        "PTXLINT_NVIM_CMD": json.dumps([sys.executable, "-m", "ptxlint.lsp"]),
        "PTXLINT_NVIM_FILE": str(source),
        "PTXLINT_NVIM_OUT": str(out),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),  # no user config, plugins or state
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    subprocess.run(
        [NVIM, "--headless", "--clean", "-n", "-u", SCRIPT],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
    )
    result = json.loads(out.read_text())
    assert "error" not in result, result
    assert result["diagnostics"] and {d["source"] for d in result["diagnostics"]} == {"ptxlint"}
    assert result["diagnostics"][0]["lnum"] == 2
    titles = result["actions"]
    assert any("PTX006" in t and "Suppress" not in t for t in titles), titles
    assert "Suppress PTX006 on this line" in titles
    assert result["after_fix"] == len(result["diagnostics"]) - 1
