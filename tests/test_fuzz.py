"""A short seeded fuzz run in CI (the long runs: tests/fuzz/run.py --inputs N --workers W)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fuzz.run import campaign  # noqa: E402


def test_a_short_seeded_fuzz_run_finds_nothing(tmp_path):
    figures = campaign(inputs=150, workers=1, seed=13, hang_s=30, out=str(tmp_path),
                       progress=False)
    saved = sorted(p.name for p in tmp_path.iterdir()) if tmp_path.exists() else []
    assert figures["crash"] + figures["failure"] + figures["hang"] == 0, saved
    assert figures["inputs"] == 150


REGRESSIONS = sorted((Path(__file__).parent / "fuzz" / "regressions").glob("*.*"))


def test_fuzz_regressions_replay_clean():
    """Inputs a long campaign once broke (mutations of our own fixtures), replayed as-is."""
    import random

    from tests.fuzz.targets import Checker

    assert REGRESSIONS, "tests/fuzz/regressions/ is empty"
    checker = Checker()
    for case in REGRESSIONS:
        checker.check(case.read_bytes(), f"fuzz{case.suffix}", random.Random(0))


def test_fix_is_idempotent_on_the_regression_inputs():
    """--fix twice changes nothing the second time (one of these, #if inside an operand list,
    once had its fixes tried one at a time at stale offsets, and a rejection that outlived the
    context it was made in)."""
    from tests.fuzz.targets import Checker

    checker = Checker()
    for case in REGRESSIONS:
        if case.suffix != ".py":
            checker.check_fix(f"fuzz{case.suffix}", case.read_bytes().decode("utf-8", "replace"))
