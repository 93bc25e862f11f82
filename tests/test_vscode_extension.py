"""The VS Code extension's own unit tests (editors/vscode, mocha), run from pytest.

``npm ci && npm test`` in a copy of the extension's sources (once per session, shared with the
end-to-end test), so that the run neither needs nor touches a ``node_modules`` in the working
tree. Skipped with the reason where Node.js/npm are
missing or the npm registry cannot be reached; any other failure fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = ROOT / "editors" / "vscode"
# What `npm test` needs; node_modules/, out/ and *.vsix are build outputs and stay behind.
SOURCES = ("package.json", "package-lock.json", "tsconfig.json", ".mocharc.json", "src", "e2e")
NETWORK_ERRORS = ("ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ECONNREFUSED", "ECONNRESET",
                  "ENETUNREACH", "network", "proxy")


def copy_sources(destination: Path) -> Path:
    destination.mkdir(parents=True, exist_ok=True)
    for name in SOURCES:
        source = EXTENSION / name
        if source.is_dir():
            shutil.copytree(source, destination / name)
        else:
            shutil.copy2(source, destination / name)
    return destination


def npm_ci(folder: Path) -> str:
    """``npm ci`` in ``folder``; skips the test when npm or its registry is unavailable."""
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("Node.js/npm not installed: the VS Code extension's tests need them")
    try:
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=folder,
                              capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        pytest.skip("npm ci took over 10 minutes: the npm registry is too slow or unreachable")
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip()[-800:]
        if any(word in tail for word in NETWORK_ERRORS):
            pytest.skip(f"npm registry unreachable: {tail[-300:]}")
        pytest.fail(f"npm ci failed:\n{tail}")
    return npm


@pytest.fixture(scope="session")
def vscode_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """npm and a copy of the extension with its dependencies installed, once per session: the
    unit tests and the end-to-end test (tests/test_vscode_e2e.py) share the minute npm ci takes."""
    folder = copy_sources(tmp_path_factory.mktemp("vscode-extension") / "vscode")
    for name in ("README.md", "CHANGELOG.md", "LICENSE", ".vscodeignore"):  # for vsce package
        shutil.copy2(EXTENSION / name, folder / name)
    return npm_ci(folder), folder


def test_extension_unit_tests(vscode_build: tuple[str, Path]) -> None:
    npm, folder = vscode_build
    # The probe test runs against this interpreter, which has ptxlint[lsp] (the dev extra).
    env = {**os.environ, "PTXLINT_TEST_PYTHON": sys.executable}
    done = subprocess.run([npm, "test"], cwd=folder, capture_output=True, text=True, timeout=600,
                          env=env)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert " passing" in output and " failing" not in output, output[-4000:]
    # mocha skips (pending) nothing when the interpreter is given
    assert " pending" not in output, output[-4000:]
