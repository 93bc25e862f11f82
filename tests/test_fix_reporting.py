"""Fix reporting that adds up: the summary's "N fixable", --diff's "Would fix N", --fix's
"Fixed N" and --show-fixes count the same findings; --fix-only, --unfixable/--extend-fixable,
--exit-non-zero-on-fix."""

from __future__ import annotations

import io
import re
import shutil
import sys
from pathlib import Path

import pytest

from ptxlint.cli import main
from tests.conftest import FIXTURES

EXAMPLE = Path(FIXTURES) / "example" / "tile_copy.cu"


@pytest.fixture
def example(tmp_path: Path) -> Path:
    target = tmp_path / "tile_copy.cu"
    shutil.copy(EXAMPLE, target)
    return target


def _number(pattern: str, text: str) -> int:
    match = re.search(pattern, text)
    assert match, (pattern, text)
    return int(match.group(1))


def test_the_counts_agree_on_the_example(example, capsys, monkeypatch) -> None:
    assert main(["check", str(example), "--no-progress"]) == 1
    fixable = _number(r"(\d+) fixable with", capsys.readouterr().out)
    assert fixable >= 4

    assert main(["check", str(example), "--diff", "--show-fixes"]) == 1
    err = capsys.readouterr().err
    would = _number(r"Would fix (\d+) findings\.", err)
    listed = sum(int(n) for n in re.findall(r"(\d+) × PTX", err))

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(EXAMPLE.read_bytes())))
    main(["check", "-", "--stdin-filename", "k.cu", "--fix", "--no-progress"])
    from_stdin = _number(r"Fixed (\d+) findings\.", capsys.readouterr().err)

    assert main(["check", str(example), "--fix", "--no-progress", "--show-fixes"]) == 1
    err = capsys.readouterr().err
    fixed = _number(r"Fixed (\d+) findings\.", err)
    assert fixable == would == listed == from_stdin == fixed
    assert "1 × PTX101 (missing-volatile)" in err


def test_fix_only_and_exit_non_zero_on_fix(example, capsys) -> None:
    assert main(["check", str(example), "--fix-only"]) == 0  # PTX001 is left, but not reported
    out, err = capsys.readouterr()
    assert out == "" and "Fixed 4 findings." in err
    shutil.copy(EXAMPLE, example)
    assert main(["check", str(example), "--fix-only", "--exit-non-zero-on-fix"]) == 1
    capsys.readouterr()
    assert main(["check", str(example), "--fix-only", "--exit-non-zero-on-fix"]) == 0  # nothing left
    capsys.readouterr()
    clean = example.parent / "clean.cu"
    clean.write_text('__device__ unsigned f() { unsigned t; asm("mov.u32 %0, %%clock;" : "=r"(t)); return t; }\n')
    assert main(["check", str(clean), "--fix", "--exit-non-zero-on-fix", "-q"]) == 1
    assert "volatile" in clean.read_text()


def test_unfixable_and_extend_fixable(example, capsys) -> None:
    original = example.read_text()
    assert main(["check", str(example), "--fix", "--unfixable", "PTX1,PTX0", "-q"]) == 1
    capsys.readouterr()
    fixed = example.read_text()
    assert "asm volatile(\"mov.u32" not in fixed  # PTX101's fix was not applied
    assert "%clock" in fixed and "%%clock" not in fixed  # nor PTX008's
    assert "__cvta_generic_to_shared" in fixed  # PTX301's was
    example.write_text(original)
    assert main(["check", str(example), "--fix", "--fixable", "PTX3", "--extend-fixable",
                 "PTX008", "-q"]) == 1
    capsys.readouterr()
    fixed = example.read_text()
    assert "%%clock" in fixed and "asm volatile(\"mov.u32" not in fixed
    # PTX004's fix was not among them
    assert main(["check", str(example), "--unfixable", "PTX101,PTX004", "--no-progress"]) == 1
    assert "fixable with" not in capsys.readouterr().out  # nothing fixable is left
