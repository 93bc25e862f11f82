"""Fuzz ptxlint's pure functions in-process (see targets.py for what is checked).

    python tests/fuzz/run.py --inputs 1000000 --workers 16        # a long campaign
    python tests/fuzz/run.py --inputs 2000 --seed 7                 # a quick look

Inputs are mutations of the repository's fixtures (mutate.py), derived from ``--seed`` and
their index alone: a failure is replayed with ``--replay FILE`` (every failure is saved under
``--out`` with its traceback). An input that takes more than ``--hang-s`` seconds of CPU counts
as a hang (CPU, not wall time: on a shared, loaded machine a one-core campaign waited over 5 s
for inputs that take 50 ms).
Prints inputs per second; exits 1 when anything failed. Needs only ptxlint's own dependencies;
with atheris installed, ``tests/fuzz/atheris_target.py`` drives the same checks.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import signal
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.mutate import mutate, seeds  # noqa: E402
from tests.fuzz.targets import Checker, Failure  # noqa: E402

SEED_STRIDE = 1_000_003
# CPU seconds of this process (user and system), with the signal they raise
HANG_TIMER, HANG_SIGNAL = signal.ITIMER_PROF, signal.SIGPROF


class Hang(BaseException):  # not Exception: lint_source must not swallow it
    pass


def _alarm(signum: int, frame: object) -> None:
    raise Hang


def make_input(seed: int, index: int, pool: list[tuple[str, bytes]]) -> tuple[str, bytes, int]:
    """(path, bytes, rng seed of the checks) of input ``index``: the same on every machine."""
    rng = random.Random(seed * SEED_STRIDE + index)
    suffix, data = pool[rng.randrange(len(pool))]
    other = pool[rng.randrange(len(pool))][1]
    return f"fuzz{suffix}", mutate(data, rng, other), rng.randrange(1 << 30)


def one(checker: Checker, path: str, data: bytes, rng_seed: int, hang_s: float) -> str | None:
    """None, or what went wrong ("crash"/"failure"/"hang" and the traceback)."""
    signal.setitimer(HANG_TIMER, hang_s)
    try:
        checker.check(data, path, random.Random(rng_seed))
        return None
    except Hang:
        return f"hang: over {hang_s} s of CPU\n{traceback.format_exc()}"
    except Failure:
        return f"failure\n{traceback.format_exc()}"
    except RecursionError:
        return f"crash\n{traceback.format_exc()[-4000:]}"
    except Exception:
        return f"crash\n{traceback.format_exc()}"
    finally:
        signal.setitimer(HANG_TIMER, 0)


_DONE: dict[str, object] = {}


def _share(done: object) -> None:
    _DONE["value"] = done  # a shared counter reaches pool workers only through inheritance


def worker(args: tuple[int, int, int, int, float, str, bool],
           ) -> tuple[int, int, dict[str, int]]:
    first, count, stride, seed, hang_s, out, python = args
    done = _DONE["value"]
    signal.signal(HANG_SIGNAL, _alarm)
    pool = seeds(python)
    checker = Checker()
    started = time.perf_counter()
    kinds: dict[str, int] = {}
    ran = 0
    for n in range(count):
        index = first + n * stride
        path, data, rng_seed = make_input(seed, index, pool)
        problem = one(checker, path, data, rng_seed, hang_s)
        ran += 1
        if problem is not None:
            kind = problem.split("\n", 1)[0].split(":")[0]
            kinds[kind] = kinds.get(kind, 0) + 1
            save(Path(out), seed, index, path, data, problem)
        if ran % 50 == 0:
            with done.get_lock():  # type: ignore[attr-defined]
                done.value += 50  # type: ignore[attr-defined]
            if stride == 1 and _DONE.get("progress") and ran % 10_000 == 0:
                # one worker runs in this process, with no pool to report for it
                print(f"  {ran}/{count} inputs, {ran / (time.perf_counter() - started):.0f}/s",
                      file=sys.stderr, flush=True)
    with done.get_lock():  # type: ignore[attr-defined]
        done.value += ran % 50  # type: ignore[attr-defined]
    return first, ran, kinds


def save(out: Path, seed: int, index: int, path: str, data: bytes, problem: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"seed{seed}-input{index}"
    stem.with_suffix(os.path.splitext(path)[1]).write_bytes(data)
    stem.with_suffix(".txt").write_text(problem)


def campaign(inputs: int, workers: int, seed: int, hang_s: float = 5.0, out: str = "fuzz-out",
             progress: bool = True, python: bool = True) -> dict[str, float]:
    """Run ``inputs`` inputs over ``workers`` processes; returns the figures."""
    workers = max(1, min(workers, inputs))
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    done = context.Value("q", 0)
    per = [(w, len(range(w, inputs, workers)), workers, seed, hang_s, out, python)
           for w in range(workers)]
    _share(done)
    _DONE["progress"] = progress
    started = time.perf_counter()
    kinds: dict[str, int] = {}
    if workers == 1:
        results = [worker(per[0])]
    else:
        with context.Pool(workers, initializer=_share, initargs=(done,)) as pool:
            pending = pool.map_async(worker, per)
            while not pending.ready():
                pending.wait(10)
                if progress:
                    elapsed = time.perf_counter() - started
                    print(f"  {done.value}/{inputs} inputs, {done.value / elapsed:.0f}/s",
                          file=sys.stderr, flush=True)
            results = pending.get()
    seconds = time.perf_counter() - started
    ran = 0
    for _, count, found in results:
        ran += count
        for kind, n in found.items():
            kinds[kind] = kinds.get(kind, 0) + n
    return {"inputs": ran, "seconds": seconds, "per_second": ran / seconds,
            "per_second_per_worker": ran / seconds / workers, "workers": workers,
            "crash": kinds.get("crash", 0), "failure": kinds.get("failure", 0),
            "hang": kinds.get("hang", 0)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hang-s", type=float, default=5.0)
    parser.add_argument("--out", default="fuzz-out", help="where failing inputs are saved")
    parser.add_argument("--replay", metavar="FILE", help="check one saved input and exit")
    parser.add_argument("--no-python", dest="python", action="store_false",
                        help="leave out the Python fixtures (Triton, CuTe DSL front end)")
    args = parser.parse_args(argv)
    if args.replay:
        signal.signal(HANG_SIGNAL, _alarm)
        data = Path(args.replay).read_bytes()
        suffix = ".py" if args.replay.endswith(".py") else ".cu"
        problem = one(Checker(), f"fuzz{suffix}", data, 0, args.hang_s)
        print(problem or "no problem")
        return 1 if problem else 0
    figures = campaign(args.inputs, args.workers, args.seed, args.hang_s, args.out,
                       python=args.python)
    print(f"inputs: {figures['inputs']:.0f}  seconds: {figures['seconds']:.1f}  "
          f"inputs/s: {figures['per_second']:.0f} ({figures['per_second_per_worker']:.0f} per "
          f"worker, {figures['workers']:.0f} workers)  crashes: {figures['crash']:.0f}  "
          f"failures: {figures['failure']:.0f}  hangs: {figures['hang']:.0f}"
          + (f"  (inputs saved under {args.out}/)" if figures["crash"] + figures["failure"]
             + figures["hang"] else ""))
    return 1 if figures["crash"] + figures["failure"] + figures["hang"] else 0


if __name__ == "__main__":
    sys.exit(main())
