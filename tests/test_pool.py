"""The process pool fed while discovery walks (``ptxlint.run.pool``): workers start before the walk
ends, the biggest file held goes first, a file whose only way to asm is an included header's
macro is judged in a worker, and the findings are those of one process."""

from __future__ import annotations

import json
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ptxlint.cli import main
from ptxlint.run import pool, prefilter, runner

BAD = '__device__ unsigned f(unsigned a) {\n  unsigned d;\n  asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a));\n  return d;\n}\n'  # noqa: E501
ADD_H = '#pragma once\n#define PROJ_ADD(d, a) asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a))\n'
USES = '#include "add.cuh"\n__device__ unsigned g(unsigned a) { unsigned d; PROJ_ADD(d, a); return d; }\n'  # noqa: E501
PLAIN = '#include "add.cuh"\n__device__ int h(int n) { return n + 1; }\n'


@dataclass(frozen=True)
class _J:
    name: str
    size: int
    weight: int | None = None  # its cost, where that is not its bytes

    @property
    def cost(self) -> int:
        return self.size if self.weight is None else self.weight


class _Inline:
    """An executor that runs each batch when it is submitted, recording the order."""

    submitted: list[list[str]] = []
    started: list[int] = []

    def __init__(self, workers: int, initializer: Any, initargs: tuple[Any, ...]) -> None:
        _Inline.started.append(workers)

    def submit(self, fn: Any, batch: list[_J]) -> Future[list[str]]:
        _Inline.submitted.append([j.name for j in batch])
        future: Future[list[str]] = Future()
        future.set_result(fn(batch))
        return future

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


@pytest.fixture
def inline(monkeypatch: pytest.MonkeyPatch) -> type[_Inline]:
    _Inline.submitted, _Inline.started = [], []
    monkeypatch.setattr(pool, "_executor", _Inline)
    return _Inline


def _feed(workers: int, start_bytes: int) -> pool.Feed[_J, str]:
    return pool.Feed(workers, print, (), lambda batch: [j.name for j in batch],
                     lambda job: "died", lambda jobs: sorted(jobs, key=lambda j: -j.cost),
                     start_bytes)


def test_workers_start_before_discovery_ends_and_take_the_biggest_held_first(inline):
    feed = _feed(2, start_bytes=10)
    feed.add(_J("k0", 1))
    assert not feed.started  # one job: not enough for two workers
    feed.add(_J("k1", 50))
    assert feed.started and inline.started == [2]
    assert inline.submitted == [["k1"], ["k0"]]  # held while starting: the biggest first
    feed.add(_J("k2", 3))  # a worker may hold one batch beyond the one it is on
    feed.add(_J("k3", 1000))  # in flight is full: held, and overtakes k4 found before it
    feed.add(_J("k4", 2))
    assert inline.submitted == [["k1"], ["k0"], ["k2"]]
    assert [name for _, name in feed.poll()] == ["k1", "k0", "k2"]
    assert inline.submitted[3:] == [["k3"], ["k4"]]
    drained = feed.finish()
    assert drained is not None and [name for _, name in drained] == ["k3", "k4"]


def test_the_costliest_job_goes_first_and_bytes_start_the_pool(inline):
    feed = _feed(2, start_bytes=100)
    feed.add(_J("dense", 10, weight=5000))  # few bytes, many asm statements
    feed.add(_J("big", 60))
    assert not feed.started  # 70 bytes held: the cost does not start a pool
    feed.add(_J("sparse", 40))
    assert inline.submitted == [["dense"], ["big"], ["sparse"]]
    dense = [_J(f"d{k}", 1, weight=1000) for k in range(10)]
    sparse = [_J(f"s{k}", 1000, weight=1) for k in range(10)]
    cut = pool.batches(dense + sparse, 2, head=0)  # cut by cost, not bytes
    assert cut == [[j] for j in dense] + [sparse]


def test_grouped_jobs_go_in_batches_in_discovery_order(inline, monkeypatch):
    monkeypatch.setattr(pool, "GROUP_FILES", 3)
    feed = _feed(2, start_bytes=1)
    for k in range(7):
        feed.add(_J(f"g{k}", 1), grouped=True)
    drained = feed.finish()
    assert drained is not None
    assert sorted(name for _, name in [*feed.poll(), *drained]) == [f"g{k}" for k in range(7)]
    assert inline.submitted == [["g0", "g1", "g2"], ["g3", "g4", "g5"], ["g6"]]


def test_a_grouped_batch_ranks_as_a_sixteenth_of_its_bytes(inline, monkeypatch):
    monkeypatch.setattr(pool, "GROUP_FILES", 2)
    feed = _feed(1, start_bytes=1)
    feed.add(_J("lint", 200))  # one worker: started, and given this job and one more
    feed.add(_J("small", 10))
    feed.add(_J("g0", 1600), grouped=True)
    feed.add(_J("g1", 1600), grouped=True)  # a full group, ranked as 200 bytes
    feed.add(_J("big", 300))
    feed.add(_J("mid", 250))
    feed.add(_J("g2", 1600), grouped=True)  # left over at the end, ranked as 100 bytes
    drained = feed.finish()
    assert drained is not None and len([*feed.poll(), *drained]) == 7
    assert inline.submitted == [["lint"], ["small"], ["big"], ["mid"], ["g0", "g1"], ["g2"]]


def test_too_little_work_starts_no_process(inline):
    feed = _feed(4, start_bytes=100)
    feed.add(_J("a", 10))
    feed.add(_J("b", 20), grouped=True)
    assert feed.finish() is None and inline.started == []
    assert sorted(j.name for j in feed.held()) == ["a", "b"]


def test_a_pool_started_at_the_end_has_no_more_workers_than_jobs(inline):
    feed = _feed(16, start_bytes=10)
    for k in range(3):
        feed.add(_J(f"k{k}", 10))
    drained = feed.finish()
    assert drained is not None and len(list(drained)) == 3
    assert inline.started == [3]


def test_workers_are_capped_at_the_core_count(tmp_path, monkeypatch, inline):
    for k in range(8):
        (tmp_path / f"k{k}.cu").write_text(BAD)
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(runner, "default_jobs", lambda: 3)
    main(["check", str(tmp_path), "--jobs", "10000", "--no-cache", "--quiet", "--fail-on",
          "never"])
    assert inline.started == [3]


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    main(["check", "--format", "json", "--fail-on", "never", "--no-progress", *args])
    report = json.loads(capsys.readouterr().out)
    del report["stats"]["seconds"]
    return report


def test_an_included_asm_macro_is_judged_in_a_worker_with_the_same_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "add.cuh").write_text(ADD_H)
    (tmp_path / "uses.cu").write_text(USES)
    (tmp_path / "plain.cu").write_text(PLAIN)
    for k in range(4):
        (tmp_path / f"k{k}.cu").write_text(BAD)
    one = _json(capsys, str(tmp_path), "--jobs", "1", "--no-cache")
    assert any(f["path"].endswith("uses.cu") for f in one["findings"])
    asked: list[str] = []
    real = prefilter.uses_included_asm_macro

    def counting(path: str, data: bytes, included: list[str] | None = None) -> bool:
        asked.append(path)  # in this process: the workers are forked with this patch
        return real(path, data, included)

    monkeypatch.setattr(prefilter, "uses_included_asm_macro", counting)
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 1)
    two = _json(capsys, str(tmp_path), "--jobs", "2", "--no-cache")
    assert two == one
    assert asked == []  # the main process read no header


def test_start_now_forks_the_workers_before_any_job_and_they_take_the_jobs_after(inline):
    feed = _feed(16, start_bytes=10**9)
    feed.start_now()
    assert feed.started and inline.started == [16]
    assert inline.submitted == [[]]  # an empty batch: the pool forks at its first submission
    feed.start_now()  # started once
    feed.add(_J("a", 1))
    feed.add(_J("b", 2))
    drained = feed.finish()
    assert drained is not None
    assert sorted(name for _, name in [*feed.poll(), *drained]) == ["a", "b"]
    assert inline.started == [16]


class _Recording(_Inline):
    """An inline executor that answers each job with an empty outcome (nothing is linted),
    recording when it started among discovery's files."""

    events: list[str] = []

    def __init__(self, workers: int, initializer: Any, initargs: tuple[Any, ...]) -> None:
        super().__init__(workers, initializer, initargs)
        _Recording.events.append("start")

    jobs: list[Any] = []

    def submit(self, fn: Any, batch: list[Any]) -> Future[list[Any]]:
        _Recording.jobs.extend(batch)
        future: Future[list[Any]] = Future()
        future.set_result([runner.FileOutcome(job.path) for job in batch])
        return future


_ADMIT = runner._Run.admit


def _wide_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> list[str]:
    _Recording.events, _Recording.jobs, _Inline.started = [], [], []
    monkeypatch.setattr(pool, "_executor", _Recording)
    monkeypatch.setattr(runner, "default_jobs", lambda: 16)
    monkeypatch.setattr(runner, "EARLY_START_BYTES", 4096)
    def admitting(self: Any, found: Any) -> None:
        _Recording.events.append("admit")
        _ADMIT(self, found)

    monkeypatch.setattr(runner._Run, "admit", admitting)
    main(["check", str(tmp_path), "--jobs", "16", "--quiet", "--fail-on", "never", *args])
    return _Recording.events


def test_a_wide_pool_starts_during_the_early_walk_once_it_met_enough_bytes(tmp_path, monkeypatch):
    for k in range(20):  # small files: no big one that the early walk would read
        (tmp_path / f"k{k:02}.cu").write_text(BAD * 8)
    events = _wide_run(tmp_path, monkeypatch, "--no-cache")
    assert events[0] == "start" and events.count("admit") == 20
    assert _Inline.started == [16]


def test_fewer_files_than_workers_start_no_worker_early(tmp_path, monkeypatch):
    for k in range(12):  # the bytes are there, but twelve files for sixteen workers
        (tmp_path / f"k{k:02}.cu").write_text(BAD * 8)
    events = _wide_run(tmp_path, monkeypatch, "--no-cache")
    assert "start" not in events and events.count("admit") == 12  # too little work for one


def test_files_the_file_index_knows_start_no_worker_early(tmp_path, monkeypatch, cache_dir):
    for k in range(20):
        (tmp_path / f"k{k:02}.cu").write_text(BAD * 8)
    _wide_run(tmp_path, monkeypatch)  # the index now holds every file
    events = _wide_run(tmp_path, monkeypatch)
    assert "start" not in events and events.count("admit") == 20


def test_a_job_costs_its_bytes_and_its_asm_keywords(tmp_path, monkeypatch):
    sparse = BAD + "// " + "x" * 20_000 + "\n"  # one statement, many bytes
    dense = BAD * 40  # a quarter of the bytes, forty statements
    for k in range(20):
        (tmp_path / f"k{k:02}.cu").write_text(sparse if k % 2 else dense)
    _wide_run(tmp_path, monkeypatch, "--no-cache")
    assert len(_Recording.jobs) == 20
    for job in _Recording.jobs:
        data = Path(job.path).read_bytes()
        assert job.size == len(data)
        assert job.cost == len(data) + runner.KEYWORD_BYTES * data.count(b"asm")
    costs = {Path(j.path).read_text() == dense: j.cost for j in _Recording.jobs}
    assert costs[True] > costs[False]  # the pool takes the dense files first
    jobs = sorted(_Recording.jobs, key=lambda j: j.path)
    assert runner.family_order(jobs)[:10] == [j for j in jobs if j.cost == costs[True]]
