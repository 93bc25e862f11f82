"""Workers do not outlive a killed main process (ptxlint.run.orphan_guard): a CI job's timeout
sends SIGKILL, and the pool's workers used to wait on their queue for good."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ptxlint.run.runner import PARALLEL_MIN_BYTES, default_jobs

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc and sends SIGKILL"
)

ROOT = str(Path(__file__).resolve().parents[1])


def _alive(pid: int) -> bool:
    """Running or sleeping; a zombie (exited, not yet reaped by init) counts as gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _children(pid: int) -> list[int]:
    try:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(p) for p in found]


def _gone_within(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(_alive(p) for p in pids):
            return True
        time.sleep(0.1)
    return False


def _kill(process: subprocess.Popen[bytes], workers: list[int]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait()
    try:
        assert _gone_within(workers, 10), f"workers {workers} outlived their killed parent"
    finally:
        for pid in workers:  # never leave them behind, whatever the outcome
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_pool_workers_exit_when_their_parent_is_killed() -> None:
    script = textwrap.dedent(
        """
        import multiprocessing, os, sys, time
        from concurrent.futures import ProcessPoolExecutor
        from ptxlint.run.orphan_guard import watch_parent

        if __name__ == "__main__":
            pool = ProcessPoolExecutor(
                2, mp_context=multiprocessing.get_context("fork"), initializer=watch_parent
            )
            pids = {pool.submit(time.sleep, 0.3) and pool.submit(os.getpid).result()
                    for _ in range(20)}
            print(" ".join(map(str, sorted(set(pool._processes)))), flush=True)
            time.sleep(60)
        """
    )
    env = {**os.environ, "PYTHONPATH": ROOT}
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, env=env, cwd=ROOT
    )
    assert process.stdout is not None
    workers = [int(p) for p in process.stdout.readline().split()]
    assert workers and all(_alive(p) for p in workers)
    _kill(process, workers)


def test_check_leaves_no_worker_behind_when_killed(tmp_path: Path) -> None:
    if default_jobs() < 2:
        pytest.skip("one core: ptxlint check starts no worker processes")
    # over PARALLEL_MIN_BYTES, so that the run starts workers, and enough statements that they
    # are still busy when it is killed
    body = "".join(
        f'  asm volatile("add.u32 %0, %1, {i};" : "=r"(v) : "r"(v));\n' for i in range(200)
    )
    for n in range(100):
        (tmp_path / f"k{n}.cu").write_text(
            f"__device__ unsigned f{n}(unsigned v) {{\n{body}  return v;\n}}\n"
        )
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) >= PARALLEL_MIN_BYTES
    env = {**os.environ, "PYTHONPATH": ROOT}
    process = subprocess.Popen(
        [sys.executable, "-m", "ptxlint", "check", str(tmp_path), "-j", "2", "--no-cache",
         "--no-progress"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and process.poll() is None:
        workers = _children(process.pid)
        if len(workers) >= 2:
            break
        time.sleep(0.05)
    if process.poll() is not None:
        pytest.skip("the run ended before its workers could be seen")
    assert len(workers) >= 2
    _kill(process, workers)
