"""``--verify`` progress on a terminal: files prepared, probes done, compiles running.

A verify run spends its time in nvcc/ptxas, seconds each, so a silent terminal looks hung. The
line is redrawn in place (``\\r``), at most every 0.1 s, from the worker threads; it is drawn only
on a terminal (the CLI decides), and erased when the run ends.
"""

from __future__ import annotations

import threading
import time
from typing import TextIO


class VerifyProgress:
    def __init__(self, stream: TextIO, interval: float = 0.1) -> None:
        self.stream = stream
        self.interval = interval
        self._lock = threading.Lock()
        self._last = 0.0
        self.files_done = self.files_total = 0
        self.probes_done = self.probes_total = 0
        self.running = 0
        self.drawn = False

    def files(self, done: int, total: int) -> None:
        with self._lock:
            self.files_done, self.files_total = done, total
            self._draw(force=done == total)

    def planned(self, total: int) -> None:
        with self._lock:
            self.probes_total = total
            self._draw(force=True)

    def started(self) -> None:
        with self._lock:
            self.running += 1
            self._draw()

    def finished(self) -> None:
        with self._lock:
            self.running -= 1
            self.probes_done += 1
            self._draw(force=self.probes_done == self.probes_total)

    def line(self) -> str:
        return (
            f"verify: {self.files_done}/{self.files_total} files prepared, "
            f"{self.probes_done}/{self.probes_total} probes done, "
            f"{self.running} compile{'s' if self.running != 1 else ''} running"
        )

    def _draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last < self.interval:
            return
        self._last = now
        self.stream.write("\r\033[K" + self.line())
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        with self._lock:
            if self.drawn:
                self.stream.write("\r\033[K")
                self.stream.flush()
