"""benchmarks/bench.py's scaling row alternates ``-j 1`` and the parallel run, round by round,
and reports each round's ratio: on a host whose speed drifts between runs, the best of three
``-j 1`` runs and the best of three parallel runs may come from different speeds."""

from __future__ import annotations

from tests.benchmark_module import load

bench = load("bench")


def test_the_rounds_alternate_one_job_and_many() -> None:
    order: list[str] = []

    def one() -> bench.Run:
        order.append("1")
        return bench.Run(seconds=6.0, peak_mib=0.0, code=0)

    def many() -> bench.Run:
        order.append("16")
        return bench.Run(seconds=1.0, peak_mib=0.0, code=0)

    ones, manys = bench.scaling_rounds(one, many, 3)
    assert order == ["1", "16", "1", "16", "1", "16"]
    assert len(ones) == len(manys) == 3


def test_each_round_is_read_against_its_own_parallel_run() -> None:
    # a host that slowed down after the first round: the best of each side (6 s and 1 s) would
    # say 6x, but no round ran that fast
    ones = [bench.Run(seconds=s, peak_mib=0.0, code=0) for s in (6.0, 12.0, 11.0)]
    manys = [bench.Run(seconds=s, peak_mib=0.0, code=0) for s in (1.2, 2.4, 1.0)]
    line = bench.round_ratios(ones, manys)
    assert "median 5.00x" in line  # 5.0, 5.0, 11.0
    assert "5.00x-11.00x" in line


def test_an_even_number_of_rounds_takes_the_middle_two() -> None:
    ones = [bench.Run(seconds=s, peak_mib=0.0, code=0) for s in (4.0, 6.0)]
    manys = [bench.Run(seconds=1.0, peak_mib=0.0, code=0) for _ in range(2)]
    assert "median 5.00x, 4.00x-6.00x" in bench.round_ratios(ones, manys)
