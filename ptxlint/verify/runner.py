"""Run one compile in a scratch folder, cached by the hash of everything that decides its output."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import TypeVar

from ptxlint.run.cache import prune_folder, touch_if_stale, write_quietly
from ptxlint.value_class import value_class

CACHE_VERSION = "1"
TIMEOUT_S = 120
# The outcomes folder is bounded: a compile's outcome holds its tools' output and, for a job
# that produces files, those files (PTX, SASS), and every edit of a verified statement makes
# new keys. ``prune_cache`` cuts it back after a run, least recently used first.
MAX_CACHE_BYTES = 128 * 1024 * 1024
# The outcomes this process read or wrote (compiles run in a thread pool: a set's add is one
# step under the GIL), pruned last; and whether it wrote any.
_used: set[str] = set()
_wrote = threading.Event()
# Characters a POSIX shell still expands inside double quotes, plus line breaks and NUL. nvcc's
# driver runs its sub-commands through ``sh -c`` with every name in double quotes (the input
# file's name not even escaped), so no argument of ours that reaches nvcc may hold one.
_SHELL_ACTIVE = re.compile(r'[$`"\\\n\r\x00]')


def shell_inert(arg: str) -> bool:
    """Whether ``arg`` means the same to ``sh -c "... \"arg\" ..."`` as to us."""
    return _SHELL_ACTIVE.search(arg) is None


class UnsafeArgument(ValueError):
    """A path or flag that nvcc's driver would hand to a shell holds shell syntax."""

class NotRun(Exception):
    """A compile a verdict needs did not run: the --verify-timeout passed first."""


class DeadlineReached(Exception):
    """The run's overall deadline (``--verify-timeout``) passed before this compile finished."""


class Cancelled(Exception):
    """Verification is being stopped (SIGINT, SIGTERM): no compile starts or counts any more."""


# Compiles running now, by process group; read by ``stop_compiles`` from a signal handler, so
# no lock: a compile registers itself and then looks at ``_stopping``, the handler sets
# ``_stopping`` and then kills what is registered, and one of the two always sees the other.
_live: set[int] = set()
_stopping = threading.Event()


def stop_compiles() -> None:
    """Kill every compile's process group and let no new compile start (until ``resume``)."""
    _stopping.set()
    for group in list(_live):
        _kill(group)


def resume() -> None:
    _stopping.clear()


def _kill(group: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(group, signal.SIGKILL)


T = TypeVar("T")
R = TypeVar("R")


@value_class(slots=False)
class Compile:
    """One command over input files written to a fresh folder; ``{dir}`` in args is that folder."""

    args: tuple[str, ...]
    files: tuple[tuple[str, str], ...]  # (name, text) written before running
    outputs: tuple[str, ...] = ()  # files read back after running
    # commands run after ``args``, each only when the one before it succeeded (nvcc -ptx, then
    # ptxas on its output); the outcome's return code and messages are those of all that ran
    then: tuple[tuple[str, ...], ...] = ()
    # (name, target): symbolic links made in the folder, e.g. to the user's source folder when
    # its path is not shell-inert and so cannot be passed to nvcc as ``-I path``
    links: tuple[tuple[str, str], ...] = ()
    # files that must exist after a run that exits 0 (not read back: a cubin), else exit 0 is
    # no evidence that the tool accepted anything
    produces: tuple[str, ...] = ()


@value_class(slots=False)
class Outcome:
    """What one compile returned: its exit status, its messages and the output files read back."""

    returncode: int
    stdout: str
    stderr: str
    outputs: tuple[tuple[str, str], ...] = ()  # (name, text), "" when not produced
    cached: bool = False

    @property
    def messages(self) -> str:
        return (self.stderr + ("\n" if self.stderr and self.stdout else "") + self.stdout).strip()

    def output(self, name: str) -> str:
        return dict(self.outputs).get(name, "")


def cache_dir() -> Path:
    """``verify/`` in ptxlint's cache folder (``$PTXLINT_CACHE_DIR`` or the user cache)."""
    from ptxlint.run.cache import location

    return location("verify")


def _key(job: Compile, tool_identity: str) -> str:
    fields = asdict(job)
    if not job.then:
        del fields["then"]  # single-command keys stay what they were: existing caches still hit
    if not job.links:
        del fields["links"]
    if not job.produces:
        del fields["produces"]
    payload = json.dumps([CACHE_VERSION, tool_identity, fields], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def run(job: Compile, tool_identity: str, use_cache: bool = True,
        deadline: float | None = None) -> Outcome | None:
    """Run ``job`` (or read its cached outcome). ``tool_identity`` names the binaries and their
    versions, so a toolchain upgrade misses the cache. None when ``deadline`` (a
    ``time.monotonic()`` value) passes before the compile is done: it proves nothing then.
    Raises Cancelled once ``stop_compiles`` was called."""
    path = cache_dir() / "outcomes" / f"{_key(job, tool_identity)}.json"
    if use_cache:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            cached = Outcome(data["returncode"], data["stdout"], data["stderr"],
                             tuple((n, t) for n, t in data["outputs"]), cached=True)
            touch_if_stale(path, path.stat().st_mtime)
            _used.add(path.name)
            return cached
        except (OSError, ValueError, KeyError, TypeError):
            pass
    try:
        outcome = _execute(job, deadline)
    except DeadlineReached:
        return None
    if use_cache and outcome.returncode != -9:  # timeouts are not facts about the code
        # a temporary file of its own per write (compiles run in a thread pool, and two may
        # share a key); a read-only cache only costs time
        stored = {"returncode": outcome.returncode, "stdout": outcome.stdout,
                  "stderr": outcome.stderr, "outputs": [list(o) for o in outcome.outputs]}
        if write_quietly(path, json.dumps(stored).encode()):
            _used.add(path.name)
            _wrote.set()
    return outcome


def prune_cache() -> int:
    """After a run that wrote outcomes: cut the folder back under ``MAX_CACHE_BYTES``, what
    this process used last; how many entries went."""
    if not _wrote.is_set():
        return 0
    _wrote.clear()
    return prune_folder(cache_dir() / "outcomes", MAX_CACHE_BYTES, set(_used))


def _execute(job: Compile, deadline: float | None = None) -> Outcome:
    if _stopping.is_set():
        raise Cancelled
    with tempfile.TemporaryDirectory(prefix="ptxlint-verify-") as scratch:
        for name, text in job.files:
            written = Path(scratch, name)
            written.parent.mkdir(parents=True, exist_ok=True)  # a header under its include name
            written.write_text(text, encoding="utf-8")
        for name, target in job.links:
            os.symlink(target, os.path.join(scratch, name))
        returncode, stdout, stderr = 0, "", ""
        for command in (job.args, *job.then):
            args = [a.replace("{dir}", scratch) for a in command]
            unsafe = [a for a in args[1:] if not shell_inert(a)]
            if unsafe:  # the last line of defence: the planners never build such a command
                return Outcome(-1, "", f"refused to run {os.path.basename(args[0])}: argument "
                                       f"{unsafe[0]!r} holds characters a shell expands")
            timeout = float(TIMEOUT_S)
            if deadline is not None:
                timeout = min(timeout, deadline - time.monotonic())
                if timeout <= 0:
                    raise DeadlineReached
            try:
                done = _run_group(args, scratch, timeout)
            except subprocess.TimeoutExpired:
                if timeout < TIMEOUT_S:
                    raise DeadlineReached from None
                return Outcome(-9, "", f"timed out after {TIMEOUT_S}s: {' '.join(args)}")
            except OSError as exc:
                return Outcome(-1, "", f"could not run {args[0]}: {exc}")
            returncode = done.returncode
            stdout += done.stdout
            stderr += done.stderr
            if returncode != 0:
                break
        outputs = []
        missing = []
        for name in job.produces:
            if not os.path.isfile(os.path.join(scratch, name)):
                missing.append(name)
        for name in job.outputs:
            try:
                outputs.append((name, Path(scratch, name).read_text(encoding="utf-8",
                                                                     errors="replace")))
            except OSError:
                outputs.append((name, ""))
                missing.append(name)
        if returncode == 0 and missing:
            # success without its output is no evidence of anything (a wrapper script, a
            # full disk): never let it read as "compiles cleanly"
            returncode = -2
            stderr += f"\n{os.path.basename(job.args[0])} exited 0 but wrote no {missing[0]}"
        # scratch paths vary run to run; keep messages stable for the cache and for users
        clean = lambda s: s.replace(scratch + os.sep, "").replace(scratch, ".")  # noqa: E731
        return Outcome(returncode, clean(stdout), clean(stderr), tuple(outputs))


def _run_group(args: list[str], cwd: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """``subprocess.run`` in a process group of its own: a timeout or a stop kills nvcc's
    children (cicc, ptxas, the host compiler) too, not only the driver."""
    process = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, errors="replace", start_new_session=True)
    _live.add(process.pid)
    try:
        if _stopping.is_set():  # stopped between our check and the start: never let it run
            _kill(process.pid)
        stdout, stderr = process.communicate(timeout=timeout)
    except BaseException:  # a timeout, Ctrl-C, SIGTERM: leave no orphan behind
        _kill(process.pid)
        process.wait()
        raise
    finally:
        _live.discard(process.pid)
    if _stopping.is_set():
        raise Cancelled  # killed by the stop: its exit status says nothing about the code
    return subprocess.CompletedProcess(args, process.returncode, stdout, stderr)


def parallel_map(fn: Callable[[T], R], items: Iterable[T], jobs: int | None = None) -> list[R]:
    """``fn`` over ``items`` in threads (the work is in child processes), results in order."""
    seq: Sequence[T] = list(items)
    cores = os.cpu_count() or 2
    workers = max(1, min(jobs or cores, cores * 4, len(seq) or 1))  # threads waiting on compiles
    if workers == 1:
        return [fn(x) for x in seq]
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        return list(pool.map(fn, seq))
    except BaseException:
        # Ctrl-C, SIGTERM, an error: the compiles not started yet never start, and the threads
        # still running (their compiles killed by stop_compiles) clean their scratch folders up
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)
