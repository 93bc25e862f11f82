"""Stop verification promptly, and leave nothing behind, on SIGINT and SIGTERM.

Every compile runs in a process group of its own (a timeout must kill nvcc's children too), so
the terminal's Ctrl-C never reaches it: with Python's default handlers the running compiles,
and every queued one, would run to the end (minutes) before the run stops, and SIGTERM would
end the process at once with the scratch folders left in the temporary folder. While
verification runs, either signal kills the running compiles' groups, lets no new one start,
lets their threads remove their scratch folders, and ends the run: exit 130 on SIGINT (a
KeyboardInterrupt, as everywhere else in the CLI), 128 + 15 on SIGTERM.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from ptxlint.verify import runner

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Terminated(BaseException):
    """SIGTERM arrived during verification (BaseException: no ``except Exception`` eats it)."""


def _handler(signum: int, frame: FrameType | None) -> None:
    runner.stop_compiles()
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Verification's signal handling for the duration of the ``with`` block (main thread only:
    elsewhere Python allows no handler, and the block runs unchanged)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    runner.resume()
    previous = {number: signal.signal(number, _handler) for number in SIGNALS}
    try:
        yield
    except Terminated:
        raise SystemExit(128 + signal.SIGTERM) from None
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
        runner.resume()
