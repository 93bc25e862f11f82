"""The same checks driven by atheris (coverage-guided), where it installs:

    pip install atheris && python tests/fuzz/atheris_target.py -max_total_time=600 fixtures/rules
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import atheris  # noqa: E402

with atheris.instrument_imports():
    from tests.fuzz.targets import Checker  # noqa: E402

CHECKER = Checker(fix_every=4)


def test_one_input(data: bytes) -> None:
    CHECKER.check(data, "fuzz.cu", random.Random(len(data)))


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
