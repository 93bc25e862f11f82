"""Worker processes end when the process that started them is gone.

A pool's workers wait on its queue for work. When the main process is killed outright (a CI
job's timeout sends SIGKILL, an editor kills its language server), nothing tells them: forked
siblings hold the queue's write end open, so the wait never ends, and the workers stay behind
for good, holding their memory. Each worker therefore watches its parent from a daemon thread
and exits as soon as the parent is gone: on POSIX by polling ``os.getppid`` (an orphan is
re-parented), on Windows by waiting on the parent's process handle.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

POLL_S = 0.5

_watching = False


def watch_parent() -> None:
    """In a ``multiprocessing`` child (a pool's ``initializer``): end this process when its
    parent is gone. Nothing happens in a process that is no such child, or on a second call."""
    global _watching
    # Imported here: the runner imports this module, and a one-file run starts no process.
    import multiprocessing

    parent = multiprocessing.parent_process()
    if parent is None or _watching or parent.pid is None:
        return
    _watching = True
    target = _wait_for_handle if sys.platform == "win32" else _poll_parent
    threading.Thread(
        target=target, args=(parent,), name="ptxlint-orphan-guard", daemon=True
    ).start()


def _poll_parent(parent: BaseProcess) -> None:
    while os.getppid() == parent.pid:
        time.sleep(POLL_S)
    os._exit(1)  # no cleanup to run: the results had nowhere to go


def _wait_for_handle(parent: BaseProcess) -> None:
    from multiprocessing.connection import wait

    wait([parent.sentinel])
    os._exit(1)
