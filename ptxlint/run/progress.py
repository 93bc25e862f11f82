"""Progress of a long run on stderr: a bar on a terminal, a line now and then in a CI log.

Never on stdout, where the report (and machine-readable formats) go. Without a terminal nothing
is printed for runs shorter than ``QUIET_SECONDS``, then one line every ``EVERY_SECONDS``.
Files are linted while discovery is still walking, so until it ends the total is the files
found so far, shown with a ``+``.
"""

from __future__ import annotations

import time
from typing import TextIO

QUIET_SECONDS = 10.0
EVERY_SECONDS = 10.0


class Progress:
    def __init__(self, stream: TextIO, terminal: bool) -> None:
        self.stream = stream
        self.terminal = terminal
        self.started = time.monotonic()
        self._next_line = self.started + QUIET_SECONDS
        self._last_bar = 0.0
        self._drawn = False

    def update(self, done: int, total: int, walking: bool = False) -> None:
        """``walking``: discovery has not ended, ``total`` may still grow."""
        now = time.monotonic()
        more = "+" if walking else ""
        if self.terminal:
            # redraw at most 20 times a second: a terminal is slow next to a cached file
            if (done == total and not walking) or now - self._last_bar >= 0.05:
                self._last_bar = now
                self._bar(done, total, more)
        elif now >= self._next_line and (done < total or walking):
            self._next_line = now + EVERY_SECONDS
            share = "" if walking else f" ({100 * done // total if total else 100}%)"
            self.stream.write(
                f"ptxlint: {done}/{total}{more} files{share}, {now - self.started:.0f} s\n"
            )
            self.stream.flush()

    def _bar(self, done: int, total: int, more: str = "") -> None:
        width = 30
        filled = int(width * done / total) if total else width
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}{more} files"
        )
        self.stream.flush()
        self._drawn = True

    def finish(self) -> None:
        if self._drawn:
            self.stream.write("\r\033[K")
            self.stream.flush()
