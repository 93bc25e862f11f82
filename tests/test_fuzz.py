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


def test_the_nesting_mutator_reaches_deep_and_large_inputs_that_lint_clean():
    """nest_or_grow wraps a region hundreds of levels deep (#if blocks, braces, namespaces,
    lambdas...), makes long #elif chains and repeats regions to kilobytes; the checks pass."""
    import random

    from tests.fuzz.mutate import (
        _WRAPS,
        MAX_DEPTH,
        MAX_GROWN,
        MAX_INPUT,
        nest_or_grow,
        seeds,
    )
    from tests.fuzz.targets import Checker

    pool = [data for suffix, data in seeds(python=False)]
    rng = random.Random(34)
    # 200 draws: the seeds are the fixtures, so a new fixture shifts every draw; with 60 two
    # seeds in twelve fell short of the depth or the #elif chain, and with 120 the fixtures of
    # PTX616 made seed 34 fall short of the depth (156 of 256; 564 with 200)
    inputs = [nest_or_grow(pool[rng.randrange(len(pool))][:MAX_INPUT], rng) for _ in range(200)]
    assert max(len(i) for i in inputs) > MAX_GROWN // 2
    assert all(len(i) <= MAX_GROWN + 2 * MAX_INPUT for i in inputs)
    openers = [o for o, _ in _WRAPS if len(o) > 2]  # not "(" or "[": any C++ has many
    assert max(i.count(o) for i in inputs for o in openers) > MAX_DEPTH // 4
    assert max(i.count(b"#elif C") for i in inputs) > 100
    checker = Checker()
    for data in inputs:
        checker.check(data, "fuzz.cu", random.Random(0))


def test_an_input_spinning_past_the_cpu_budget_counts_as_a_hang():
    """--hang-s is CPU time of the fuzzing process (a loaded machine's waits are not hangs)."""
    import signal

    from tests.fuzz.run import HANG_SIGNAL, _alarm, one

    class Spinning:
        def check(self, *args: object) -> None:
            while True:
                pass

    previous = signal.signal(HANG_SIGNAL, _alarm)
    try:
        problem = one(Spinning(), "fuzz.cu", b"", 0, 0.3)  # type: ignore[arg-type]
    finally:
        signal.signal(HANG_SIGNAL, previous)
    assert problem is not None and problem.startswith("hang: over 0.3 s of CPU")
