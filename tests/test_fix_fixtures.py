"""`--fix` on every bad fixture: safe fixes apply, the rule re-lints clean of them, a second
`--fix` changes nothing, and what compiled with nvcc before still compiles after."""

from __future__ import annotations

import glob
import os
import shutil
from pathlib import Path

import pytest

from ptxlint.cli import main
from tests.conftest import FIXTURES, lint_text

BAD = sorted(glob.glob(os.path.join(FIXTURES, "rules", "PTX*_bad.cu")))


def _rule(path: str) -> str:
    return os.path.basename(path).split("_")[0]


def _safe_fixable(text: str, path: str, rule: str) -> int:
    return sum(
        1 for f in lint_text(text, path, select=(rule,))
        if f.rule == rule and f.fix is not None and f.fix.safe
    )


@pytest.mark.parametrize("fixture", BAD, ids=[_rule(p) for p in BAD])
def test_fix_applies_every_safe_fix_once(fixture: str, tmp_path) -> None:
    rule = _rule(fixture)
    original = Path(fixture).read_text(encoding="utf-8")
    if _safe_fixable(original, fixture, rule) == 0:
        pytest.skip(f"{rule} offers no safe fix on its fixture")
    target = tmp_path / os.path.basename(fixture)
    shutil.copy(fixture, target)
    args = ["check", str(target), "--fix", "--select", rule, "--fail-on", "never", "-q",
            "--no-compile-commands"]
    assert main(args) == 0
    fixed = target.read_text(encoding="utf-8")
    assert fixed != original
    assert _safe_fixable(fixed, str(target), rule) == 0
    assert main(args) == 0
    assert target.read_text(encoding="utf-8") == fixed  # a second --fix is a no-op
    _still_compiles(original, fixed)


def _still_compiles(before: str, after: str) -> None:
    if shutil.which("nvcc") is None:
        return  # the fix itself is checked above; the compile check needs the toolchain
    from tests.test_optimizer_evidence import compile_many

    (was_ok, _), (now_ok, error) = compile_many([(before, "c"), (after, "c")])
    assert now_ok or not was_ok, f"compiled before the fix, not after: {error[-500:]}"
