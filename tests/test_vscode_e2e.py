"""The VS Code extension in a real VS Code: code-server in headless Chromium (playwright-core).

The extension is packaged (``vsce package``) from a copy of editors/vscode and installed into a
fresh code-server profile; ``editors/vscode/e2e/run.ts`` then opens a workspace holding
``fixtures/example/tile_copy.cu`` and ``fixtures/example-triton/triton_kernels.py``, waits for
ptxlint's diagnostics in the Problems panel, shows a rule's documentation with the extension's
command, applies a quick fix to the ``.cu`` file and the extension's fix-all command to the
``.py`` file, saves both, and this test reads the saved text. Last, pointed at a Python
without ptxlint, the extension offers ``pip install ptxlint[lsp]``; accepted, it runs that
environment's pip.
The server runs from this interpreter (``ptxlint.interpreter``), which has ptxlint[lsp].

What it needs, found or installed in this order; where none works the test skips with the reason:

* Chromium: ``$PTXLINT_E2E_CHROMIUM``, ``chromium`` on PATH; else, as root with apt-get,
  ``apt-get install chromium``.
* code-server: ``$PTXLINT_CODE_SERVER``, ``code-server`` on PATH, or ``code-server@4.100.3``
  (the last release that runs on Node.js 20) installed with npm into the tests' cache folder
  once. Its native modules need a compiler and the Kerberos headers (``libkrb5-dev``), and its
  ripgrep is taken from ``rg`` on PATH (Debian's ``ripgrep``) instead of GitHub; both installed
  with apt-get as root where missing.

``PTXLINT_E2E_INSTALL=0`` turns the installs off. The screenshot of the Problems panel goes to
``$PTXLINT_E2E_SCREENSHOT`` (default: ``ptxlint-vscode-e2e.png`` in the temporary folder).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.test_vscode_extension import ROOT, vscode_build  # noqa: F401 (the shared fixture)

CODE_SERVER_VERSION = "4.100.3"
# code-server 4.100.3's VS Code depends on @vscode/ripgrep 1.15.11, whose install script downloads
# ripgrep 13.0.0 from GitHub's API unless its cache folder already holds the archive.
RIPGREP_PACKAGE, RIPGREP_RELEASE = "1.15.11", "v13.0.0-10"
RIPGREP_TARGETS = {"x86_64": "x86_64-unknown-linux-musl", "aarch64": "aarch64-unknown-linux-musl"}
INSTALL = os.environ.get("PTXLINT_E2E_INSTALL", "1") != "0"


def _tail(done: subprocess.CompletedProcess[str], size: int = 600) -> str:
    return (done.stdout + done.stderr).strip()[-size:]


def _apt_install(*packages: str) -> str | None:
    """Install Debian packages when running as root with apt-get; None, or why not."""
    if not INSTALL:
        return "PTXLINT_E2E_INSTALL=0"
    if not hasattr(os, "getuid") or os.getuid() != 0 or shutil.which("apt-get") is None:
        return "not root with apt-get"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    try:
        for command in (["apt-get", "update", "-qq"],
                        ["apt-get", "install", "-y", "-qq", *packages]):
            done = subprocess.run(command, capture_output=True, text=True, timeout=900, env=env)
            if done.returncode != 0:
                return f"{' '.join(command)} failed: {_tail(done, 300)}"
    except subprocess.TimeoutExpired:
        return f"apt-get install {' '.join(packages)} took over 15 minutes"
    return None


def find_chromium() -> str:
    given = os.environ.get("PTXLINT_E2E_CHROMIUM")
    if given:
        return given
    names = ("chromium", "chromium-browser")
    found = next((path for name in names if (path := shutil.which(name))), None)
    if found:
        return found
    why = _apt_install("chromium")
    found = shutil.which("chromium")
    if found is None:
        pytest.skip(f"Chromium is not installed and could not be ({why or 'not found after apt-get'})")
    return found


def find_code_server(npm: str) -> str:
    given = os.environ.get("PTXLINT_CODE_SERVER") or shutil.which("code-server")
    if given:
        return given
    prefix = Path(os.environ["PTXLINT_TEST_CACHE"]) / f"code-server-{CODE_SERVER_VERSION}"
    binary = prefix / "node_modules" / ".bin" / "code-server"
    if binary.exists():
        return str(binary)
    if not INSTALL:
        pytest.skip("code-server not found (PTXLINT_E2E_INSTALL=0)")
    # Its native modules (kerberos) build against the Kerberos headers.
    if not Path("/usr/include/gssapi/gssapi.h").exists():
        _apt_install("libkrb5-dev", "build-essential")
    staging = prefix.with_name(prefix.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    # As root, code-server's postinstall refuses to run without unsafe-perm.
    # node-pty's install script runs `npx node-gyp`, which asks before fetching it.
    env = {**os.environ, "npm_config_unsafe_perm": "true", "npm_config_yes": "true",
           "TMPDIR": str(seed_ripgrep(staging / "tmp"))}
    try:
        done = subprocess.run(
            [npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund",
             f"code-server@{CODE_SERVER_VERSION}"],
            capture_output=True, text=True, timeout=1800, env=env)
    except subprocess.TimeoutExpired:
        pytest.skip("installing code-server with npm took over 30 minutes")
    if done.returncode != 0:
        pytest.skip(f"code-server could not be installed with npm: {_tail(done)}")
    shutil.rmtree(staging / "tmp", ignore_errors=True)
    # whole or not at all: a later run never finds half an install
    shutil.rmtree(prefix, ignore_errors=True)
    staging.rename(prefix)
    return str(binary)


def seed_ripgrep(tmp: Path) -> Path:
    """A temporary folder whose ripgrep download cache holds this machine's ``rg`` (ripgrep
    13.0.0 from Debian: the same release), so that installing code-server needs only the npm
    registry, not GitHub."""
    import platform
    import tarfile

    tmp.mkdir(parents=True, exist_ok=True)
    target = RIPGREP_TARGETS.get(platform.machine())
    rg = shutil.which("rg")
    if rg is None and target is not None:
        _apt_install("ripgrep")
        rg = shutil.which("rg")
    if rg is None or target is None:
        return tmp  # the install script downloads it, where GitHub can be reached
    cache = tmp / f"vscode-ripgrep-cache-{RIPGREP_PACKAGE}"
    cache.mkdir(exist_ok=True)
    with tarfile.open(cache / f"ripgrep-{RIPGREP_RELEASE}-{target}.tar.gz", "w:gz") as archive:
        archive.add(rg, arcname="rg")
    return tmp


def test_vscode_extension_in_code_server(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    if sys.platform != "linux":
        pytest.skip("the end-to-end test drives code-server and Chromium on Linux")
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("Node.js/npm not installed: the VS Code extension's tests need them")
    chromium = find_chromium()
    code_server = find_code_server(npm)
    # asked for here, not as an argument: a skip above comes before the minute npm ci takes
    npm, folder = request.getfixturevalue("vscode_build")

    for command in ([npm, "run", "package"], [npm, "exec", "--", "tsc", "-p", "e2e"]):
        built = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=600)
        assert built.returncode == 0, _tail(built, 3000)
    vsix = folder / "ptxlint.vsix"
    assert vsix.is_file()

    # a Python without ptxlint, for the offer to install it
    bare = tmp_path / "bare-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True,
                   timeout=120)
    bare_python = bare / "bin" / "python"

    screenshot = os.environ.get("PTXLINT_E2E_SCREENSHOT") or os.path.join(
        tempfile.gettempdir(), "ptxlint-vscode-e2e.png")
    work = tmp_path / "e2e"
    done = subprocess.run(
        ["node", str(folder / "out" / "e2e" / "run.js"),
         "--code-server", code_server, "--chromium", chromium, "--vsix", str(vsix),
         "--python", sys.executable, "--fixtures", str(ROOT / "fixtures"),
         "--work", str(work), "--screenshot", screenshot, "--bare-python", str(bare_python)],
        capture_output=True, text=True, timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    result = json.loads(lines[-1]) if lines else {}
    server_log = work / "code-server.log"
    assert done.returncode == 0 and result.get("ok"), (
        f"{result.get('error', '')}\n--- driver ---\n{done.stderr[-3000:]}\n--- code-server ---\n"
        + (server_log.read_text(errors="replace")[-3000:] if server_log.exists() else ""))

    # The Problems panel showed ptxlint's findings on both files.
    assert "PTX101" in result["cuProblem"] and "ptxlint" in result["cuProblem"]
    assert "PTX505" in result["pyProblem"] and "ptxlint" in result["pyProblem"]
    assert Path(result["screenshot"]).stat().st_size > 10_000
    # "Show rule documentation" on the finding under the cursor rendered `ptxlint rule PTX101`
    assert result["ruleDocs"] == "PTX101 missing-volatile"

    # Pointed at a Python without ptxlint, the extension offers to install it there.
    assert result["installOffer"] == (
        f"ptxlint is not installed in {bare_python}. Install ptxlint[lsp] there with pip?")
    # Accepted, it runs that environment's pip (which it lacks: no network is needed) and the
    # output channel shows the command and pip's answer.
    assert f"> {bare_python} -m pip install ptxlint[lsp]" in result["installOutput"]
    assert any("No module named pip" in line for line in result["installOutput"])

    # The fixes reached the disk through VS Code's save, and nothing else changed.
    workspace = work / "workspace"
    cu_before = (ROOT / "fixtures" / "example" / "tile_copy.cu").read_text()
    cu_after = (workspace / "tile_copy.cu").read_text()
    assert cu_after == cu_before.replace('asm("mov.u32 %0, %clock;"',
                                         'asm volatile("mov.u32 %0, %clock;"')
    py_after = (workspace / "triton_kernels.py").read_text()
    assert "is_pure=False" in py_after and "%%laneid" not in py_after
    # fix-all in the editor applies what `ptxlint check --fix` applies, no more, no less
    reference = tmp_path / "reference" / "triton_kernels.py"
    reference.parent.mkdir()
    shutil.copy2(ROOT / "fixtures" / "example-triton" / "triton_kernels.py", reference)
    subprocess.run([sys.executable, "-m", "ptxlint", "check", "--fix", "--no-cache", str(reference)],
                   capture_output=True, text=True, timeout=120)
    assert py_after == reference.read_text()
