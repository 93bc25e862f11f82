"""What the command line loads before it knows it must lint: ``--version`` and ``--help`` load
neither the model nor the engine (pre-commit hooks and editors probe ptxlint this way)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

PROBE = """
import contextlib, io, sys
from ptxlint.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main(sys.argv[1:])
print(sorted(m for m in ("ptxlint.model", "ptxlint.engine", "ptxlint.frontends.cxx.extract", "ptxlint.run.runner")
             if m in sys.modules))
"""


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["check", "--help"]])
def test_probing_the_command_line_loads_no_model(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], cwd=ROOT, capture_output=True, text=True,
        timeout=300, check=True,
    )
    assert done.stdout.splitlines()[-1] == "[]"


def test_checking_one_small_file_starts_no_pool_machinery(tmp_path) -> None:
    """One small file is linted in the process: neither multiprocessing (a pool that is never
    started) nor platformdirs (the cache folder, worked out directly on Linux) is imported, nor
    shutil (argparse's way to the terminal's width, given it by ``ptxlint.cli.parser``)."""
    (tmp_path / "k.cu").write_text(
        '__device__ unsigned f(unsigned a) { unsigned d;\n'
        '  asm("add.u32 %0, %1, 1;" : "=r"(d) : "r"(a)); return d; }\n'
    )
    probe = (
        "import sys\nfrom ptxlint.cli import main\n"
        "main(['check', sys.argv[1], '--no-cache', '--quiet'])\n"
        "print(sorted(m for m in ('multiprocessing', 'concurrent.futures', 'platformdirs', 'shutil')"
        " if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "k.cu")], cwd=ROOT, capture_output=True,
        text=True, timeout=300, check=True,
    )
    expected = [] if sys.platform.startswith("linux") else ["platformdirs"]
    assert done.stdout.splitlines()[-1] == str(expected)


def test_the_version_probe_loads_no_parser() -> None:
    """``ptxlint --version`` (how editors and hooks find ptxlint) prints before anything builds
    a parser: neither argparse nor the parser's module, nor --verify's arguments."""
    probe = (
        "import sys\nfrom ptxlint.cli import main\nmain(['--version'])\n"
        "print(sorted(m for m in ('argparse', 'ptxlint.cli.parser', 'ptxlint.verify.cli')"
        " if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("ptxlint ") and lines[-1] == "[]"
