"""The language server's linting, in child processes it can stop.

A document that takes too long (a 14 MB generated header, a pathological input) must not hold
every other document's diagnostics, and a Python thread cannot be stopped: so lints run in a
small pool of worker processes, each call with a deadline. A call past its deadline kills the
pool (the other calls in it are retried once in a fresh one) and is reported to the editor.

``lint_document`` is the one call the server makes per lint: the place to make linting
incremental (each worker keeps its ``Linter`` and its caches between calls).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from ptxlint.engine import FileResult
from ptxlint.fix import FixOutcome
from ptxlint.lsp.linting import Linter

DEFAULT_DEADLINE_S = 20.0
STARTUP_S = 120.0  # a worker's imports on a loaded machine
WORKERS = 2

# --------------------------------------------------------------------------- in the worker

_STATE: dict[str, Any] = {"linter": None, "generation": -1, "problems": []}


def _linter(generation: int) -> Linter:
    linter = _STATE["linter"]
    if linter is None:
        linter = Linter(report=_STATE["problems"].append)
        _STATE["linter"] = linter
    if generation != _STATE["generation"]:  # a configuration file changed since
        linter.invalidate()
        _STATE["generation"] = generation
    return linter


def lint_document(linter: Linter, path: str, text: str) -> FileResult:
    """Lint one document's text (``path`` chooses its configuration)."""
    return linter.lint(path, text)


@dataclass(frozen=True)
class Reply:
    value: Any
    problems: tuple[str, ...] = ()  # configuration or plugin problems, to show once


def _warm(generation: int) -> int:
    """Start-up (imports, rules, the first configuration): not counted against a deadline."""
    _linter(generation)
    return os.getpid()


def _call(kind: str, generation: int, path: str, text: str, unsafe: bool) -> Reply:
    problems: list[str] = _STATE["problems"]
    problems.clear()
    linter = _linter(generation)
    value: FileResult | FixOutcome
    if kind == "lint":
        value = lint_document(linter, path, text)
    else:
        value = linter.fix_all(path, text, unsafe)
    return Reply(value, tuple(problems))


# --------------------------------------------------------------------------- in the server


class LintTimeout(Exception):
    """The call did not finish within its deadline; its worker was stopped."""


@dataclass
class LintService:
    deadline_s: float = DEFAULT_DEADLINE_S
    workers: int = WORKERS
    generation: int = 0
    _pool: ProcessPoolExecutor | None = field(default=None, repr=False)
    _ready: list[Any] = field(default_factory=list, repr=False)

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn: the server runs threads (stdin reader, pygls's pool); fork would copy
            # their locks mid-use
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=context)
            self._ready = [self._pool.submit(_warm, self.generation)
                           for _ in range(self.workers)]
        return self._pool

    async def _started(self, pool: ProcessPoolExecutor) -> None:
        ready = [asyncio.wrap_future(f) for f in self._ready]
        if ready:
            await asyncio.wait_for(asyncio.gather(*ready), STARTUP_S)

    def invalidate(self) -> None:
        self.generation += 1

    async def lint(self, path: str, text: str) -> Reply:
        return await self._run("lint", path, text, False)

    async def fix_all(self, path: str, text: str, unsafe: bool = False) -> Reply:
        return await self._run("fix", path, text, unsafe)

    async def _run(self, kind: str, path: str, text: str, unsafe: bool) -> Reply:
        for attempt in (1, 2):
            pool = self._executor()
            try:
                await self._started(pool)
                future = pool.submit(_call, kind, self.generation, path, text, unsafe)
            except (BrokenProcessPool, RuntimeError, asyncio.TimeoutError):
                self._discard(pool)
                continue
            try:
                return await asyncio.wait_for(asyncio.wrap_future(future), self.deadline_s)
            except asyncio.TimeoutError:
                self._discard(pool)
                raise LintTimeout(f"linting stopped after {self.deadline_s:g} s") from None
            except BrokenProcessPool:
                # killed for another document's deadline, or crashed: once more, fresh
                self._discard(pool)
                if attempt == 2:
                    raise
        raise BrokenProcessPool("the lint workers could not be started")

    def _discard(self, pool: ProcessPoolExecutor) -> None:
        if self._pool is pool:
            self._pool = None
        processes = list((getattr(pool, "_processes", None) or {}).values())
        for process in processes:
            with contextlib.suppress(OSError, AttributeError, ValueError):
                process.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        if self._pool is not None:
            self._discard(self._pool)


def cpu_workers() -> int:
    return max(1, min(WORKERS, os.cpu_count() or 1))
