"""A file that is not UTF-8 is linted but never rewritten: the summary offers no fix for it,
and --fix, --diff and --add-noqa each say they left it alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.cli import main

# PTX008 and PTX101 (both with safe fixes) on the clock read, a byte that is not UTF-8 after
TEXT = (b'__device__ int f() { int y; asm("mov.u32 %0, %clock;" : "=r"(y));'
        b' /* caf\xe9 */ return y; }\n')


@pytest.fixture
def kernel(tmp_path: Path) -> Path:
    path = tmp_path / "k.cu"
    path.write_bytes(TEXT)
    return path


def test_summary_offers_no_fix_for_it(kernel: Path, capsys) -> None:
    assert main(["check", str(kernel), "--no-cache", "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert "PTX008" in out and "fixable with" not in out
    good = kernel.with_name("good.cu")
    good.write_bytes(TEXT.replace(b"\xe9", b"e"))
    assert main(["check", str(good), "--no-cache", "--no-progress"]) == 1
    assert "2 fixable with `ptxlint check --fix` (" in capsys.readouterr().out


@pytest.mark.parametrize("option,says", [
    ("--fix", "not fixed: the file is not valid UTF-8"),
    ("--diff", "no diff: --fix leaves a file that is not valid UTF-8 unchanged"),
    ("--add-noqa", "not changed: the file is not valid UTF-8 (2 findings left)"),
])
def test_each_fixing_mode_says_it_left_the_file_alone(kernel: Path, capsys, option: str,
                                                       says: str) -> None:
    main(["check", str(kernel), option, "--no-cache", "--no-progress"])
    assert f"ptxlint: note: {kernel}: {says}" in capsys.readouterr().err
    assert kernel.read_bytes() == TEXT
