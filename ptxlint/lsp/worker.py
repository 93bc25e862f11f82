"""The language server's linting, in child processes it can stop.

A document that takes too long (a 14 MB generated header, a pathological input) must not hold
every other document's diagnostics, and a Python thread cannot be stopped: so lints run in a
few worker processes, each call with a deadline. A call past its deadline kills its worker
(the other calls queued on it are retried once in a fresh one) and is reported to the editor.

Each worker keeps its ``Linter`` and each document's last lint between calls, so that an edit
is re-linted incrementally (ptxlint.lsp.incremental): a document goes to the worker that linted it
last unless that one is busy. The workers start with the server (``start``), not at the first
document, and a lint's reply leaves the statements in the worker (they are most of its pickled
size); hover asks the worker for the instruction under the cursor (``instruction``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import os
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ptxlint.run import orphan_guard
from ptxlint.value_class import value_class

# Only the standard library at import: the server imports this module, and starts the first
# worker, before it imports pygls (``ptxlint.lsp.run_from_args``), and without the engine where
# no early lint loaded it. The worker, a fresh interpreter, imports the engine in its first call
# (``_warm``).
if TYPE_CHECKING:
    import asyncio

    from ptxlint.engine import FileResult
    from ptxlint.fix import FixOutcome
    from ptxlint.lsp.linting import Linter
    from ptxlint.model import Fix, PtxInstruction

DEFAULT_DEADLINE_S = 20.0
STARTUP_S = 120.0  # a worker's imports on a loaded machine
SPARE_AFTER_S = 2.0  # quiet time before the workers beyond the first start
WORKERS = 2

# --------------------------------------------------------------------------- in the worker

_STATE: dict[str, Any] = {
    "linter": None, "generation": -1, "problems": [], "texts": OrderedDict()
}


def _linter(generation: int) -> Linter:
    linter = _STATE["linter"]
    if linter is None:
        from ptxlint.lsp.linting import Linter

        linter = Linter(report=_STATE["problems"].append)
        _STATE["linter"] = linter
    if generation != _STATE["generation"]:  # a configuration file changed since
        linter.invalidate()
        _STATE["generation"] = generation
    return linter


def lint_document(linter: Linter, path: str, text: str) -> FileResult:
    """Lint one document's text (``path`` chooses its configuration)."""
    return linter.lint(path, text)


def _reply_result(result: FileResult) -> FileResult:
    """The result as the server needs it: the findings, their statements without the text
    (the server has it), no statements list. Statements and the text were most of the
    pickled reply, several pipe buffers for a large file."""
    from ptxlint.model import AsmStatement, SourceFile

    light = SourceFile(result.path, "")
    bare: dict[int, AsmStatement] = {}
    findings = []
    for finding in result.findings:
        statement = finding.statement
        if statement is not None:
            if id(statement) not in bare:
                bare[id(statement)] = statement.with_source(light)
            finding = dataclasses.replace(finding, statement=bare[id(statement)])
        findings.append(finding)
    return dataclasses.replace(result, findings=findings, statements=[], source=None)


@value_class(slots=False)
class Reply:
    """A lint worker's answer to one call, with the configuration or plugin problems it met."""

    value: Any
    problems: tuple[str, ...] = ()  # configuration or plugin problems, to show once
    resend: bool = False  # the worker lacked the text an edit applies to: send it whole


# A document's text goes to a worker whole once; after that as the one range that changed,
# applied to the text the worker holds: a keystroke in a large file does not copy the file
# through the pipe. Each text sent is numbered, and an edit names the number of the text it
# applies to: (base number, number, start, old end, new characters).
Edit = tuple[int, int, int, int, str]
MAX_TEXTS = 32


def _text_of(path: str, payload: tuple[int, str] | Edit) -> str | None:
    texts: OrderedDict[str, tuple[int, str]] = _STATE["texts"]
    if len(payload) == 2:
        number, text = payload
    else:
        base_number, number, start, old_end, new = payload
        number_held, base = texts.get(path, (-1, ""))
        if number_held != base_number:
            return None
        text = base[:start] + new + base[old_end:]
    texts[path] = (number, text)
    texts.move_to_end(path)
    while len(texts) > MAX_TEXTS:
        texts.popitem(last=False)
    return text


def _warm(generation: int) -> int:
    """Start-up (imports, rules, the first configuration): not counted against a deadline."""
    _linter(generation)
    return os.getpid()


def _call(
    kind: str, generation: int, path: str, payload: tuple[int, str] | Edit, argument: Any
) -> Reply:
    problems: list[str] = _STATE["problems"]
    problems.clear()
    text = _text_of(path, payload)
    if text is None:
        return Reply(None, resend=True)
    linter = _linter(generation)
    value: FileResult | FixOutcome | PtxInstruction | list[str | None] | None
    if kind == "lint":
        value = _reply_result(lint_document(linter, path, text))
    elif kind == "instruction":
        from ptxlint.lsp.hover import instruction_at

        value = instruction_at(lint_document(linter, path, text).statements, argument)
    elif kind == "refusals":
        value = linter.refusals(path, text, argument)
    else:
        value = linter.fix_all(path, text, bool(argument))
    return Reply(value, tuple(problems))


# --------------------------------------------------------------------------- in the server


class LintTimeout(Exception):
    """The call did not finish within its deadline; its worker was stopped."""


@dataclass
class _Worker:
    """One worker process (an executor of one), started with its warm-up call."""

    pool: ProcessPoolExecutor
    ready: Any  # the warm-up's future
    calls: list[str] = field(default_factory=list)  # paths of the calls in flight


@dataclass
class LintService:
    """The language server's lint worker processes: starts them, sends each document's calls to
    one, and stops a worker whose call runs past its deadline."""

    deadline_s: float = DEFAULT_DEADLINE_S
    workers: int = WORKERS
    generation: int = 0
    _slots: list[_Worker | None] = field(default_factory=list, repr=False)
    _home: dict[str, int] = field(default_factory=dict, repr=False)  # path -> slot
    # the last text sent to each worker per path: the next call sends what changed
    _sent: dict[tuple[int, str], tuple[int, str]] = field(default_factory=dict, repr=False)
    _numbers: int = 0
    spare_after_s: float = SPARE_AFTER_S
    on_all_ready: Callable[[int], None] | None = None  # told once every worker has loaded
    _spare_timer: asyncio.TimerHandle | None = field(default=None, repr=False)
    _tasks: set[asyncio.Future[None]] = field(default_factory=set, repr=False)

    def start(self) -> None:
        """Start the first worker now (imports, rules, grammars), so the first document does
        not wait for it. The others start once no call has been in flight for ``SPARE_AFTER_S``
        (``_spares_later``), or when a call finds every running worker busy with another
        document: started with the first, they share its cores while it loads and while the
        first document's lints and keystrokes run."""
        if not self._slots:
            self._slots = [None] * max(1, self.workers)
        self._worker(0)

    async def started(self, timeout_s: float = STARTUP_S) -> None:
        """Wait until the first worker has loaded (at most ``timeout_s``); never raises: a
        worker that could not start is started again by the first call that needs it."""
        import asyncio  # here: the early reader answers before this process needs a loop

        first = self._slots[0] if self._slots else None
        if first is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.wrap_future(first.ready), timeout_s)
        self._spares_later()

    def _spares_later(self) -> None:
        """Start the other workers after a quiet moment (each call pushes it back)."""
        if all(w is not None for w in self._slots):
            return
        import asyncio

        if self._spare_timer is not None:
            self._spare_timer.cancel()
        loop = asyncio.get_running_loop()
        self._spare_timer = loop.call_later(self.spare_after_s, self._start_spares)

    def _start_spares(self) -> None:
        self._spare_timer = None
        if any(w is not None and w.calls for w in self._slots):
            self._spares_later()
            return
        started = [self._worker(slot) for slot in range(len(self._slots))]
        if self.on_all_ready is not None:
            import asyncio

            report = self.on_all_ready
            ready = [asyncio.wrap_future(w.ready) for w in started]

            async def tell() -> None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.gather(*ready), STARTUP_S)
                    report(len(started))

            self._tasks.add(task := asyncio.ensure_future(tell()))
            task.add_done_callback(self._tasks.discard)

    def _worker(self, slot: int) -> _Worker:
        worker = self._slots[slot]
        if worker is None:
            # spawn: the server runs threads (stdin reader, pygls's pool); fork would copy
            # their locks mid-use
            context = multiprocessing.get_context("spawn")
            pool = ProcessPoolExecutor(
                max_workers=1, mp_context=context, initializer=orphan_guard.watch_parent
            )
            worker = _Worker(pool, pool.submit(_warm, self.generation))
            self._slots[slot] = worker
        return worker

    def _slot_for(self, path: str) -> int:
        """The worker that linted ``path`` last (it holds that lint), unless it is busy and
        another is idle."""
        if not self._slots:
            self._slots = [None] * max(1, self.workers)
        home = self._home.get(path)
        if home is not None and home < len(self._slots):
            worker = self._slots[home]
            # busy with this document's previous text: the re-lint after it is quick there
            if worker is None or not worker.calls or path in worker.calls:
                return home
        idle = [i for i, w in enumerate(self._slots) if w is not None and not w.calls]
        idle += [i for i, w in enumerate(self._slots) if w is None]  # to start
        if idle:
            return idle[0]
        return home if home is not None else len(self._home) % len(self._slots)

    def invalidate(self) -> None:
        self.generation += 1

    async def lint(self, path: str, text: str) -> Reply:
        return await self._run("lint", path, text, None)

    async def fix_all(self, path: str, text: str, unsafe: bool = False) -> Reply:
        return await self._run("fix", path, text, unsafe)

    async def refusals(self, path: str, text: str, fixes: list[Fix]) -> Reply:
        """Why ``--fix`` would refuse each of ``fixes`` (None: it would not), for quick fixes."""
        return await self._run("refusals", path, text, fixes)

    async def instruction(self, path: str, text: str, offset: int) -> Reply:
        """The PTX instruction whose opcode is at ``offset`` (None: none), for hover."""
        return await self._run("instruction", path, text, offset)

    async def _run(self, kind: str, path: str, text: str, argument: Any) -> Reply:
        import asyncio

        for attempt in (1, 2):
            slot = self._slot_for(path)
            worker = self._worker(slot)
            worker.calls.append(path)
            try:
                try:
                    await asyncio.wait_for(asyncio.wrap_future(worker.ready), STARTUP_S)
                    future = worker.pool.submit(
                        _call, kind, self.generation, path, self._payload(slot, path, text),
                        argument,
                    )
                except (BrokenProcessPool, RuntimeError, asyncio.TimeoutError):
                    self._discard(slot, worker)
                    continue
                self._home[path] = slot
                try:
                    reply = await asyncio.wait_for(asyncio.wrap_future(future), self.deadline_s)
                    if reply.resend:  # the worker did not hold the text (never in order)
                        self._sent.pop((slot, path), None)
                        future = worker.pool.submit(
                            _call, kind, self.generation, path, self._payload(slot, path, text),
                            argument,
                        )
                        reply = await asyncio.wait_for(
                            asyncio.wrap_future(future), self.deadline_s
                        )
                    return reply
                except asyncio.TimeoutError:
                    self._discard(slot, worker)
                    raise LintTimeout(f"linting stopped after {self.deadline_s:g} s") from None
                except BrokenProcessPool:
                    # killed for another document's deadline, or crashed: once more, fresh
                    self._discard(slot, worker)
                    if attempt == 2:
                        raise
            finally:
                worker.calls.remove(path)
                self._spares_later()
        raise BrokenProcessPool("the lint workers could not be started")

    def _payload(self, slot: int, path: str, text: str) -> tuple[int, str] | Edit:
        """What to send for ``text``: the range that changed since the last text sent there,
        or the whole text."""
        self._numbers += 1
        number = self._numbers
        previous = self._sent.get((slot, path))
        self._sent[(slot, path)] = (number, text)
        if previous is None or len(text) < 4096:
            return (number, text)
        from ptxlint.lsp.incremental import changed_range  # a keystroke in a large file

        edit = changed_range(previous[1], text)
        return (previous[0], number, edit.start, edit.old_end, text[edit.start : edit.new_end])

    def forget(self, path: str) -> None:
        """The document was closed: its text need not be kept for the next call."""
        for key in [k for k in self._sent if k[1] == path]:
            del self._sent[key]

    def _discard(self, slot: int, worker: _Worker) -> None:
        for key in [k for k in self._sent if k[0] == slot]:
            del self._sent[key]
        if slot < len(self._slots) and self._slots[slot] is worker:
            self._slots[slot] = None
        processes = list((getattr(worker.pool, "_processes", None) or {}).values())
        for process in processes:
            with contextlib.suppress(OSError, AttributeError, ValueError):
                process.kill()
        worker.pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        if self._spare_timer is not None:
            self._spare_timer.cancel()
            self._spare_timer = None
        for slot, worker in enumerate(self._slots):
            if worker is not None:
                self._discard(slot, worker)


def cpu_workers() -> int:
    return max(1, min(WORKERS, os.cpu_count() or 1))
