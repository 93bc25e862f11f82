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
print(sorted(m for m in ("ptxlint.model", "ptxlint.engine", "ptxlint.extract", "ptxlint.runner")
             if m in sys.modules))
"""


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["check", "--help"]])
def test_probing_the_command_line_loads_no_model(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv], cwd=ROOT, capture_output=True, text=True,
        timeout=300, check=True,
    )
    assert done.stdout.splitlines()[-1] == "[]"
