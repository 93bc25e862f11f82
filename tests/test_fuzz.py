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
