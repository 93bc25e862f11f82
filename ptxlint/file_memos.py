"""Memos that keep one file's objects (its syntax tree, text, statements) for the next question
about the same file, and the one place a batch run lets go of them.

Several modules remember the last few files they were asked about, by identity: the language
server re-lints the same document after each edit, and the rules of one run ask the same
question of one file in turn. In a batch run a file is never asked about again once it is done,
yet such a memo kept up to four syntax trees and dozens of texts alive: a worker that had linted
flashinfer's 4 MB generated kernels held about 500 MB of them. ``release`` drops them all;
the runner calls it after each file (``register`` is called by each such module at import).

``trim`` hands the freed memory back to the system (glibc keeps it otherwise). The runner calls
it once, after reading every file of a run, before it starts worker processes; calling it after
every big file in the workers made them a fifth slower and lowered no peak.
"""

from __future__ import annotations

from collections.abc import Callable

_CLEARS: list[Callable[[], object]] = []


def register(clear: Callable[[], object]) -> None:
    """``clear`` forgets every file the calling module remembers."""
    _CLEARS.append(clear)


def release() -> None:
    """Forget every file any memo remembers (the next question about one recomputes it)."""
    for clear in _CLEARS:
        clear()


_TRIM: list[Callable[[int], int] | None] = []


def trim() -> None:
    """Return free heap memory to the system, where the C library can (glibc's
    ``malloc_trim``); elsewhere nothing happens."""
    if not _TRIM:
        try:
            import ctypes

            _TRIM.append(ctypes.CDLL("libc.so.6").malloc_trim)
        except (OSError, AttributeError):  # not glibc
            _TRIM.append(None)
    function = _TRIM[0]
    if function is not None:
        function(0)
