"""End a ``check`` process without the interpreter freeing every object one by one.

When ``ptxlint check`` returns, all it had to do is done: the report is written, the result
cache and its index are saved, the pool's workers are joined. The interpreter's own exit then
clears every module and frees, one by one, each object the run kept (its memos, the outcomes,
their packed texts): work that nothing can observe. Measured from the last ``atexit``
callback to the end of the process, over the CUDA 13 headers and CUTLASS's include/ on the
16-core device host: 47 ms against 11 ms at ``-j 1``, 15-20 ms against 2.5-4 ms at ``-j 16``;
on a 2-core machine, the CUDA headers at ``-j 1`` 26-41 ms against 6.5-12 ms, one small file
6-12 ms against 1.4-6.5 ms. mypy ends its command line the same way.

What the interpreter's exit does that a user could observe is done here first: a thread that
is not a daemon would be waited for, so with one alive the exit is left to the interpreter;
both standard streams are flushed, and where one cannot be (its reader went away) the
interpreter's exit reports that as it always has; the ``atexit`` callbacks run (a library's
or a rule plugin's; ptxlint registers none) and what they wrote is flushed. Where the
interpreter offers no way to run the ``atexit`` callbacks now, its exit is left to it too, and
so it is under a profiler or a tracer (``python -m cProfile -m ptxlint``, a debugger, coverage
measurement): they report after the program returns, which ending here would lose.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading


def leave(code: int) -> int:
    """End the process with ``code`` now. Returns ``code`` (for the caller to return to the
    interpreter, whose exit then runs as usual) where ending now could lose something."""
    run_callbacks = getattr(atexit, "_run_exitfuncs", None)  # CPython's, since Python 2
    if run_callbacks is None or _observed() or _waited_for() or not _flushed():
        return code
    run_callbacks()  # they run once: the interpreter's exit finds none left
    if not _flushed():  # what a callback wrote
        return code
    os._exit(code)


def _flushed() -> bool:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            return False
    return True


def _observed() -> bool:
    """Whether a profiler or tracer watches this process (it writes its report once the
    program returns: cProfile's output file, a coverage data file)."""
    return sys.getprofile() is not None or sys.gettrace() is not None


def _waited_for() -> bool:
    """Whether a thread the interpreter's exit would join is still running."""
    main = threading.main_thread()
    return any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate())
