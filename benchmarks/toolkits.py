"""Other CUDA toolkits' ptxas, for the verdicts that change between versions.

The tests and ``ptxas_agreement.py`` judge with the ptxas on PATH; the version rule (PTX403) and
the version-dependent verdicts (``toolkit=`` forms) are proven against older and newer ones too.
This script downloads the ``nvidia-cuda-nvcc`` wheel of a toolkit with pip (``--no-deps``: the
wheel alone) and keeps its ptxas under ``toolkits/<major.minor>/ptxas`` in the tests' cache
folder (``$PTXLINT_TEST_CACHE``, else ``~/.cache/ptxlint/tests``), where the tests find it:

    python benchmarks/toolkits.py 12.4 13.1     # fetch two
    python benchmarks/toolkits.py --list        # what is there

``$PTXLINT_TEST_PTXAS_<MAJOR>_<MINOR>`` (``PTXLINT_TEST_PTXAS_12_4``) names one elsewhere.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile


def cache_root() -> str:
    configured = os.environ.get("PTXLINT_TEST_CACHE")
    if configured:
        return os.path.join(configured, "toolkits")
    base = os.environ.get("PTXLINT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "ptxlint")
    return os.path.join(base, "tests", "toolkits")


def _package(version: str) -> str:
    # CUDA 12's wheels carry the major version in the name; CUDA 13's do not
    return "nvidia-cuda-nvcc-cu12" if version.startswith("12.") else "nvidia-cuda-nvcc"


def found() -> dict[str, str]:
    """``{"12.4": path}`` for every toolkit's ptxas the tests can use."""
    out: dict[str, str] = {}
    root = cache_root()
    if os.path.isdir(root):
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name, "ptxas")
            if os.access(path, os.X_OK):
                out[name] = path
    for key, value in os.environ.items():
        if key.startswith("PTXLINT_TEST_PTXAS_") and os.access(value, os.X_OK):
            major, _, minor = key[len("PTXLINT_TEST_PTXAS_"):].partition("_")
            out[f"{major}.{minor or 0}"] = value
    return out


def fetch(version: str) -> str:
    """Download CUDA ``version``'s nvcc wheel and keep its ptxas; returns the path."""
    target = os.path.join(cache_root(), version)
    os.makedirs(target, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
                        f"{_package(version)}=={version}.*", "-d", folder], check=True)
        [wheel] = [os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".whl")]
        with zipfile.ZipFile(wheel) as archive:
            [member] = [n for n in archive.namelist() if n.endswith("/bin/ptxas")]
            with archive.open(member) as source, open(os.path.join(target, "ptxas"),
                                                      "wb") as sink:
                shutil.copyfileobj(source, sink)
    path = os.path.join(target, "ptxas")
    os.chmod(path, 0o755)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("versions", nargs="*", help="CUDA versions, e.g. 12.4 13.1")
    parser.add_argument("--list", action="store_true", help="list the toolkits found")
    args = parser.parse_args(argv)
    for version in args.versions:
        print(f"{version}: {fetch(version)}")
    if args.list or not args.versions:
        for version, path in found().items():
            print(f"{version}\t{path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
