"""The cyclic garbage collector, paused while one file is linted.

A lint allocates millions of objects that live until the file is done (syntax nodes, tokens,
statements, findings), and the collector traversed them again and again: a quarter of the CPU
time of CUTLASS's GMMA header and of flashinfer's sample. ``engine.lint_kept`` pauses for the
lint alone; ``runner.lint_path`` pauses until the file's objects are let go and then collects
the young generation once (``collect_young``), for the cycles among them. A file's lint leaves
none, the preview rules' included (tests/test_collector.py lints every rule fixture to check;
the preview rules' flows, ``analysis.function_flow``, refer back to each other and are emptied
when the file's memos are released), so a process that settles (below) runs that collection
only where a cycle still holds the file's syntax tree (``watch``); a host that lives on runs it
after each file.

What outlives a file is mostly the memos shared by the files after it (parsed templates,
verdicts: 1.5 million objects after the CUDA headers and CUTLASS). Each collection of an older
generation traversed them again: the middle generation's took 0.47 s of the 10.9 s that
`check -j 1` spends on those trees. A process that lints files and then ends
(``settle_after_each_file``: the command line's own and its workers) therefore sets the
survivors of each file aside (``gc.freeze``). Garbage made later of set-aside
objects (a memo entry in a cycle, evicted) is freed only by a full collection, so one runs, the
set-aside objects included, whenever they have doubled since the last and grown by two million.
That bounds memory; in practice such garbage is rare: after the CUDA headers, CUTLASS and two
flashinfer folders in one process with no full collection at all, 342 of the 1.08 million
set-aside objects were garbage.

The command line's own process also sets aside what its imports made (``keep_for_good``).

Measured again on the CUDA 13 headers (``check -j 1 --no-cache``, five runs each on a busy
2-core machine, whose CPU times vary by about 20%): with the pauses replaced by no-ops the
median CPU time was 17% higher (9.3 s against 8.0 s).
"""

from __future__ import annotations

import functools
import gc
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

# Objects set aside between two counts of the set-aside generation, at least (counting walks its
# list: 40-50 ms for the 700,000-800,000 a flashinfer worker holds; a full collection traverses
# them, several times as long).
_COUNT_EVERY = 250_000
# A full collection once the set-aside objects doubled, and grew by at least this many (some
# 200-300 MB, were they all garbage; a full collection of a million objects takes 0.1-0.4 s).
_FULL_AFTER_AT_LEAST = 2_000_000


class _Settling:
    """Whether this process sets aside what survives each file; how many objects were set aside
    just after the last full collection, and how many were added since they were last counted."""

    enabled = False
    after_full = 0
    counted = 0  # at the last count
    added = 0  # since the last count


def settle_after_each_file() -> None:
    """For a process that only lints files and then ends: after each file's young collection,
    set its survivors aside (see the module's docstring). Never for a host that lives on (the
    language server, a test run): it would keep whatever garbage is alive then until a full
    collection."""
    _Settling.enabled = True
    _Settling.after_full = _Settling.counted = gc.get_freeze_count()


def _settle() -> None:
    # After the young collection the file's survivors are in the middle generation, without it
    # in the young one; the oldest holds only what automatic collections between files
    # promoted since the last freeze. (``gc.freeze`` also sets the young generation's count of
    # allocations back to zero: no automatic collection follows from the file's.)
    _Settling.added += len(gc.get_objects(0)) + len(gc.get_objects(1)) + len(gc.get_objects(2))
    gc.freeze()
    limit = _Settling.after_full + max(_Settling.after_full, _FULL_AFTER_AT_LEAST)
    # Set-aside objects only leave the count (they die of their reference count), so the last
    # count plus what was added since bounds it: no walk of the list while that is below the
    # limit (a flashinfer worker never reaches it: ten walks, 1% of its CPU, saved).
    if _Settling.counted + _Settling.added <= limit or _Settling.added < _COUNT_EVERY:
        return
    frozen = _Settling.counted = gc.get_freeze_count()
    _Settling.added = 0
    if frozen > limit:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        _Settling.after_full = _Settling.counted = gc.get_freeze_count()


class _Watched:
    """Weak references to the objects that stand for the file being linted (``watch``), while
    a pause that collects on the way out is open in a process that settles."""

    active = False
    refs: list[weakref.ref[object]] = []


def watch(sentinel: object) -> None:
    """``sentinel`` (a file's syntax tree, ``ParsedSource``) dies with the file's objects:
    if it is still alive when the file's pause ends, a reference cycle holds it, and the young
    collection runs to free it; if every sentinel is dead, the file's objects died of their
    reference counts, and a process that settles sets the survivors aside without that
    collection (see ``paused``). Outside such a pause, nothing is kept."""
    if _Watched.active:
        _Watched.refs.append(weakref.ref(sentinel))


def paused(collect_young: bool = False) -> _Pause:
    """No cyclic collection inside; a caller's own pause is left as it was (then nothing is
    collected on the way out either).

    ``collect_young``: the young generation is collected on the way out, to free the cycles
    the file's objects are in. In a process that settles (``settle_after_each_file``) only
    where one may be left: a sentinel of the file (``watch``) is still alive. Else the
    survivors are set aside as they are, with no collection to traverse them (a cycle that
    holds no syntax tree, none with the default rules, waits for a full one, ``_settle``).
    Once no file's lint left a cycle (``analysis.cxx_facts._Builder`` says which one there
    was), those collections found nothing, and every collection of ``check -j 1 --no-cache``
    took 0.07-0.13 s on CUTLASS's include/ (104 young ones, 70 of them after a file: 272,000
    objects traversed) and 0.07-0.11 s on the CUDA 13 headers (252 and 11 of the middle
    generation; 107 after a file: 277,000 objects); with them skipped, 0.003-0.007 s (34) and
    0.013-0.029 s (145 and 11), nearly all the prefilter's, whose include check ``runner``
    pauses for too now: 3 collections in all on either tree. Wall-clock, two runs each on a
    busy 2-core machine.

    A pause is a context manager, or a decorator that pauses each call of the function:
    written as a class, where ``contextlib.contextmanager`` made a generator and its wrapper
    per pause (2.3 against 0.7 microseconds a pause, ``timeit``): a ``check`` of the CUDA 13
    headers pauses twice per file it lints and once per file it drops, 12 M of its 17,555 M
    instructions (cachegrind).
    """
    return _Pause(collect_young)


_F = TypeVar("_F", bound=Callable[..., Any])


class _Pause:
    """``paused(collect_young)``."""

    __slots__ = ("collect_young", "enabled", "watching")

    def __init__(self, collect_young: bool) -> None:
        self.collect_young = collect_young
        self.enabled = False
        self.watching = False

    def __enter__(self) -> None:
        enabled = self.enabled = gc.isenabled()
        watching = self.watching = enabled and self.collect_young and _Settling.enabled
        if enabled:
            gc.disable()
        if watching:
            _Watched.active = True
            _Watched.refs = []

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            _resume(self.collect_young, self.watching)

    def __call__(self, function: _F) -> _F:
        collect_young = self.collect_young

        @functools.wraps(function)
        def paused_call(*args: Any, **kwargs: Any) -> Any:
            with _Pause(collect_young):  # one pause per call: a call inside may pause too
                return function(*args, **kwargs)

        return paused_call  # type: ignore[return-value]


def _resume(collect_young: bool, watching: bool) -> None:
    if watching:
        _Watched.active = False
        refs, _Watched.refs = _Watched.refs, []
        if not any(ref() is not None for ref in refs):
            # set aside before the collector is on again: the file's allocations would start
            # an automatic collection at the next one
            _settle()
            gc.enable()
            return
    gc.enable()
    if collect_young:
        gc.collect(0)
        if _Settling.enabled:
            _settle()


def keep_for_good() -> None:
    """Take every object alive now out of the collector's generations for the rest of the
    process (``gc.freeze``). The command line calls it once its modules and rules are loaded:
    their functions, classes and tables live until the process ends, yet every full
    collection traversed them again, the interpreter's own at exit included (10 to 15 ms of
    the 150 of `ptxlint check` on one small file). Only for a process that ends with the
    command: a host that lives on would keep whatever garbage is alive now."""
    gc.freeze()
