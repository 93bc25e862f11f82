"""What every worker needs is made once before a pool forks its workers (``ptxlint.run.prefork``,
``pool.Feed``'s ``prepare``), never where they are spawned, and a forked worker lints with it."""

from __future__ import annotations

import gc
import os
import sys
from concurrent.futures import Future
from typing import Any

import pytest

from ptxlint.registry import load_rules
from ptxlint.run import pool, prefork, runner


class _Recording:
    """An executor that records when it was made and runs each batch at once."""

    events: list[str] = []
    frozen_at_start: list[int] = []

    def __init__(self, workers: int, initializer: Any, initargs: tuple[Any, ...]) -> None:
        _Recording.events.append("executor")
        _Recording.frozen_at_start.append(gc.get_freeze_count())

    def submit(self, fn: Any, batch: list[Any]) -> Future[list[Any]]:
        _Recording.events.append("submit")
        future: Future[list[Any]] = Future()
        future.set_result(fn(batch))
        return future

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


class _Job:
    def __init__(self, size: int) -> None:
        self.size = size


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> type[_Recording]:
    _Recording.events, _Recording.frozen_at_start = [], []
    monkeypatch.setattr(pool, "_executor", _Recording)
    return _Recording


def _feed() -> pool.Feed[_Job, int]:
    return pool.Feed(2, print, (), lambda batch: [j.size for j in batch], lambda job: -1,
                     list, 1, lambda: _Recording.events.append("prepare"))


def test_prepare_runs_once_before_forked_workers_start_and_the_objects_come_back(
    recording: type[_Recording], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool, "forks", lambda: True)
    before = gc.get_freeze_count()
    feed = _feed()
    for size in (5, 6, 7):
        feed.add(_Job(size))
    drained = feed.finish()
    assert drained is not None and sorted(o for _, o in [*feed.poll(), *drained]) == [5, 6, 7]
    assert recording.events[:3] == ["prepare", "executor", "submit"]
    assert recording.events.count("prepare") == 1
    # set aside while the workers fork, given back to this process's collector after
    assert recording.frozen_at_start[0] > before
    assert gc.get_freeze_count() == before


def test_nothing_is_prepared_where_workers_are_spawned(
    recording: type[_Recording], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pool, "forks", lambda: False)
    feed = _feed()
    for size in (5, 6):
        feed.add(_Job(size))
    drained = feed.finish()
    assert drained is not None and len(list(drained)) + len(feed.poll()) >= 1
    assert "prepare" not in recording.events
    assert recording.frozen_at_start == [gc.get_freeze_count()]


def test_the_rules_made_before_the_fork_are_the_ones_a_forked_worker_lints_with() -> None:
    ids = tuple(r.id for r in load_rules().rules)[:5]
    prefork.warm(ids)
    made = prefork.rules_for(ids)
    assert made is not None and [r.id for r in made] == list(ids)
    assert prefork.rules_for(ids[:2]) is None  # made for other rules: not these
    pid = os.fork()
    if pid == 0:  # the worker: its initializer takes the inherited rules, made nothing
        code = 1
        try:
            from ptxlint.config import Config, RuleSelector
            from ptxlint.rule import RuleContext

            config = Config()
            runner._init_worker(config, RuleSelector(config, []), ids, RuleContext(),
                                runner.Tier2Settings())
            code = 0 if runner._WORKER["rules"] is made else 2
        finally:
            sys.stdout.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
