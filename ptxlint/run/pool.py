"""A process pool fed while the files are still being found.

``ptxlint check`` hands each file that needs a worker to ``Feed.add`` the moment discovery meets
it. The workers start as soon as the work held is worth their start-up (``start_bytes``), long
before the walk ends, and nothing is computed over the whole tree first: a file without an asm
keyword whose includes might still bring an asm macro is judged by a worker (``grouped``
jobs), not by the main process before the pool starts. That serial phase was 19% of the CUDA
headers' ``-j 1`` CPU. Measured over the CUDA 13 headers and CUTLASS's include/ together on a
16-core host, each pair in one run: ``-j 16`` took 3.18-3.83 s against 4.05-4.08 s, and
4.28-4.87 s against 4.86-6.37 s; the main process's CPU at ``-j 2`` fell from 1.36 to 0.73 s.
The run's biggest files, CUTLASS's GMMA headers, bounded ``-j 16``: one worker each, started
once the CUDA tree ahead of them on the command line had been read. They are now linted in
parts and handed over before discovery reads the tree (``ptxlint.run.file_parts``); on the
16-core host, with the parts but not yet the early hand-over, ``-j 16`` took 2.34-2.67 s
(workers' CPU 24-31 s, 1.8x the ``-j 1`` CPU: the 16 busy cores run slower, and each worker
reads again the headers its files include).

Order: the costliest file first, alone, so that no costly file starts last (a job's ``cost``:
its bytes and its asm keywords, ``runner.job_cost``); a worker is given at most one batch
beyond the one it is on (``workers + 1`` in flight), so a costly file found late still
overtakes the cheap ones found before it. Grouped jobs go in batches of ``GROUP_FILES``
in discovery order: a folder's files include the same headers, and a worker reads each header
once. Once discovery ends, what is left is cut by ``batches`` (guided: the workers finish
together, each batch a round trip), and every batch is submitted then, in that order: the
pool's own thread hands them out while this process merges the outcomes. With the cap kept
to the end, a worker that finished while this process merged (the first merge of a file
linted in parts imports the engine and the rules) had nothing queued: over the CUDA 13
headers and CUTLASS's include/ at ``-j 16`` on the 16-core host, 5 to 7 workers waited 50-90
ms at once, in each of three runs.

A worker that dies (a crash in a native parser, the OOM killer) breaks the whole pool: the
jobs without an outcome then go one per batch through a fresh pool, each death tried once more
alone and reported through ``died`` if it kills that worker too.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

if TYPE_CHECKING:  # concurrent.futures.process is imported by a run that starts processes
    from concurrent.futures import Future, ProcessPoolExecutor
    from queue import SimpleQueue

# Files per grouped batch: the first such file a worker judges reads the headers the folder's
# includes reach (much of the CUDA include graph), the rest are one scan each. Over the CUDA
# headers and CUTLASS's include/ at -j 16 the grouped batches took 5.1 s of CPU in all with 64
# files each, 1.8-2.1 s with 256 and 1.3 s with 1,024, for the same wall time.
GROUP_FILES = 1024
# A grouped batch ranks, against files to lint, as a sixteenth of its bytes: judging a file is
# a scan and header look-ups, not a parse (a batch of 1,024 CUDA headers, 0.4 s, must not go
# ahead of CUTLASS's 2.9 MB GMMA header, 2-3 s, the run's last file to finish at -j 16).
GROUP_WEIGHT = 16


def _executor(
    workers: int, initializer: Callable[..., None], initargs: tuple[Any, ...]
) -> ProcessPoolExecutor:
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, initializer=initializer, initargs=initargs)


class Job(Protocol):
    @property
    def size(self) -> int:
        """Its bytes: what ``start_bytes`` weighs."""

    @property
    def cost(self) -> int:
        """What running it costs, in bytes (its bytes where nothing else is known): what the
        work is ordered and cut into batches by."""


J = TypeVar("J", bound=Job)
O = TypeVar("O")  # noqa: E741 - the outcome type


class Feed(Generic[J, O]):
    """Jobs in, ``(job, outcome)`` out, in the order they finish.

    ``run_batch`` runs in a worker (``initializer(*initargs)`` ran there first) and returns one
    outcome per job. ``order`` arranges the jobs left when discovery ends (the runner keeps a
    folder's Python files together). Until ``start_bytes`` of work is held and there are jobs
    for every worker, nothing starts; ``finish`` then says whether a pool ever ran: if not, the
    caller lints ``held()`` in its own process (starting interpreters would cost more than the
    work).
    """

    def __init__(
        self,
        workers: int,
        initializer: Callable[..., None],
        initargs: tuple[Any, ...],
        run_batch: Callable[[list[J]], list[O]],
        died: Callable[[J], O],
        order: Callable[[Sequence[J]], list[J]],
        start_bytes: int,
    ) -> None:
        self.workers = workers
        self.initializer = initializer
        self.initargs = initargs
        self.run_batch = run_batch
        self.died = died
        self.order = order
        self.start_bytes = start_bytes
        self._pool: ProcessPoolExecutor | None = None
        self._heap: list[tuple[int, int, list[J]]] = []  # (-bytes, arrival, batch)
        self._group: list[J] = []
        self._arrivals = itertools.count()
        self._held_bytes = 0
        self._held_jobs = 0
        self._submitted = 0  # batches handed to the pool while discovery ran
        self._walking = True  # discovery goes on: at most ``workers + 1`` batches in flight
        self._inflight: dict[Future[list[O]], list[J]] = {}
        self._ready: list[tuple[J, O]] = []
        self._broken: list[J] = []
        # futures that ended, put there by their callback in the pool's own thread: ``poll``
        # takes what is there, ``_drain`` waits for the next one (made with the pool)
        self._completed: SimpleQueue[Future[list[O]]]

    @property
    def started(self) -> bool:
        return self._pool is not None

    def add(self, job: J, grouped: bool = False) -> None:
        if grouped:
            self._group.append(job)
            if len(self._group) >= GROUP_FILES:
                self._push(self._group, GROUP_WEIGHT)
                self._group = []
        else:
            self._push([job])
        self._held_bytes += job.size
        self._held_jobs += 1
        if self._pool is None and self._held_bytes >= self.start_bytes \
                and self._held_jobs >= self.workers:
            self._start(self.workers)
        self._fill()

    def start_now(self) -> None:
        """Start the workers now, before the work they will get is held: the caller knows
        the run will need them (``runner._Run.start_early``). A pool forks its processes at
        its first submission, so an empty batch goes in with it: each worker's start-up then
        runs while this process walks the tree."""
        if self._pool is not None:
            return
        self._start(self.workers)
        assert self._pool is not None
        future = self._pool.submit(self.run_batch, [])
        self._inflight[future] = []
        future.add_done_callback(self._completed.put)

    def poll(self) -> list[tuple[J, O]]:
        """The outcomes that arrived since the last call; never waits. The batches that ended
        are those their futures' callbacks queued (``_completed``): asking each future in flight
        whether it was done, at every file discovery met, took a lock per future and file
        (44,000 over the CUDA headers and CUTLASS at -j 16)."""
        if not self._completed.empty():
            self._reap(self._ended())
        self._fill()
        out, self._ready = self._ready, []
        return out

    def held(self) -> list[J]:
        """Every job given so far, when no pool started (see ``finish``)."""
        return [job for _, _, batch in self._heap for job in batch] + self._group

    def finish(self) -> Iterator[tuple[J, O]] | None:
        """Every outcome not yet returned by ``poll``, once discovery has ended; None when no
        pool was worth starting (the work held is below ``start_bytes``)."""
        if self._pool is None:
            if self._held_bytes < self.start_bytes or self._held_jobs < 2 or self.workers < 2:
                return None
            self._start(min(self.workers, self._held_jobs))
        return self._drain()

    # ------------------------------------------------------------------ inside

    def _push(self, batch: list[J], weight: int = 1) -> None:
        cost = sum(j.cost for j in batch) // weight
        heapq.heappush(self._heap, (-cost, next(self._arrivals), batch))

    def _start(self, workers: int) -> None:
        from queue import SimpleQueue

        self.workers = workers
        self._completed = SimpleQueue()
        self._pool = _executor(workers, self.initializer, self.initargs)

    def _fill(self) -> None:
        pool = self._pool
        if pool is None:  # a small run never starts one: it never loads multiprocessing
            return
        from concurrent.futures.process import BrokenProcessPool

        while pool is not None and self._heap and not self._broken \
                and (not self._walking or len(self._inflight) <= self.workers):
            batch = heapq.heappop(self._heap)[2]
            try:
                future = pool.submit(self.run_batch, batch)
            except BrokenProcessPool:
                self._broken.extend(batch)
                return
            self._inflight[future] = batch
            future.add_done_callback(self._completed.put)
            self._submitted += 1

    def _ended(self, wait: bool = False) -> list[Future[list[O]]]:
        """The batches in flight that ended since the last call; with ``wait``, at least one
        (there must be one in flight)."""
        completed = self._completed
        ended = [completed.get()] if wait else []
        while not completed.empty():
            ended.append(completed.get_nowait())
        return [f for f in ended if f in self._inflight]

    def _reap(self, done: Sequence[Future[list[O]]]) -> None:
        from concurrent.futures.process import BrokenProcessPool

        for future in done:
            batch = self._inflight.pop(future)
            try:
                outcomes = future.result()
            except BrokenProcessPool:
                self._broken.extend(batch)
                continue
            self._ready.extend(zip(batch, outcomes, strict=True))

    def _drain(self) -> Iterator[tuple[J, O]]:
        # What discovery left: one queue in the runner's order, cut into guided batches, each
        # grouped batch ahead of the first batch that costs less.
        singles = [batch[0] for _, _, batch in self._heap if len(batch) == 1]
        groups = [batch for _, _, batch in sorted(self._heap) if len(batch) > 1]
        if self._group:
            groups.append(self._group)
            self._group = []
        head = max(0, 4 * self.workers - self._submitted)
        queue = batches(self.order(singles), self.workers, head=head)
        for group in groups:
            cost = sum(j.cost for j in group) // GROUP_WEIGHT
            at = next((k for k, b in enumerate(queue) if sum(j.cost for j in b) < cost),
                      len(queue))
            queue.insert(at, group)
        self._heap = []
        for arrival, batch in enumerate(queue):  # the heap now keeps this order
            self._heap.append((0, arrival, batch))
        self._walking = False  # the order is final: all of it is submitted now
        try:
            self._fill()
            while self._inflight:
                yield from self._take_ready()
                self._reap(self._ended(wait=True))
                self._fill()
            yield from self._take_ready()
        finally:
            assert self._pool is not None
            self._pool.shutdown(wait=True, cancel_futures=True)
            while not self._completed.empty():  # held, they would hold their outcomes
                self._completed.get_nowait()
        if self._broken or self._heap:
            rest = self._broken + [job for _, _, batch in self._heap for job in batch]
            self._heap, self._broken = [], []
            yield from self._recover(rest)

    def _take_ready(self) -> Iterator[tuple[J, O]]:
        out, self._ready = self._ready, []
        yield from out

    def _recover(self, jobs: list[J]) -> Iterator[tuple[J, O]]:
        """Each job alone, in a fresh pool after every death (so that a death names its file),
        the job at the front of a broken pool tried once more by itself."""
        from concurrent.futures.process import BrokenProcessPool

        start, deaths = 0, 0
        while start < len(jobs):
            rest = jobs[start:]
            try:
                with _executor(self.workers, self.initializer, self.initargs) as pool:
                    for job, outcomes in zip(rest, pool.map(self.run_batch, [[j] for j in rest]),
                                             strict=True):
                        yield job, outcomes[0]
                        start, deaths = start + 1, 0
                return
            except BrokenProcessPool:
                suspect = jobs[start]
                try:
                    with _executor(1, self.initializer, self.initargs) as alone:
                        outcome = alone.submit(self.run_batch, [suspect]).result()[0]
                except BrokenProcessPool:
                    deaths += 1
                    if deaths >= 3:  # not one file's fault: the workers cannot start at all
                        raise RuntimeError(
                            "worker processes keep dying; run with --jobs 1"
                        ) from None
                    outcome = self.died(suspect)
                yield suspect, outcome
                start += 1


def batches(jobs: Sequence[J], workers: int, head: int | None = None) -> list[list[J]]:
    """``jobs`` cut, in order, into batches: each costs one round trip. The first ``head``
    (default ``4 * workers``: the costliest) go one per batch, so that no worker gets two of them
    (CUTLASS's two 2.7 MB GMMA headers were in one batch once, and one worker linted both
    while the other idled). Then batches of a sixteenth of a worker's share of the cost,
    shrinking to a quarter of that as the cost left runs out (guided scheduling: the workers
    finish together)."""
    head = min(len(jobs), workers * 4 if head is None else head)
    out: list[list[J]] = [[job] for job in jobs[:head]]
    left = sum(j.cost for j in jobs[head:])
    largest = max(1, left // (workers * 16))
    smallest = max(1, largest // 4)
    batch: list[J] = []
    cost = 0
    for job in jobs[head:]:
        batch.append(job)
        cost += job.cost
        if cost >= max(smallest, min(largest, left // (workers * 4))):
            out.append(batch)
            left -= cost
            batch, cost = [], 0
    if batch:
        out.append(batch)
    return out
