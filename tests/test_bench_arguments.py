"""benchmarks/bench.py refuses a tree it cannot read before it measures anything: a mistyped
path was measured as an empty tree (a row of 0 MB and a ratio against nothing)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench.py"), *args],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )


def test_a_tree_that_is_not_a_folder_is_an_error_before_any_row(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-include"
    a_file = tmp_path / "file.h"
    a_file.write_text("int x;\n")
    done = _bench("--only-given", "--cuda", str(missing), "--cutlass", str(a_file))
    assert done.returncode == 2
    assert f"not a folder: {missing}, {a_file}" in done.stderr
    assert "ptxlint benchmark" not in done.stdout  # nothing was measured


def test_a_missing_flashinfer_source_is_an_error(tmp_path: Path) -> None:
    done = _bench("--only-given", "--flashinfer", str(tmp_path / "flashinfer.tar.gz"))
    assert done.returncode == 2
    assert "flashinfer.tar.gz: no such file or folder" in done.stderr
