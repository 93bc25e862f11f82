"""The temporary files ``--fix`` writes beside a source and ``--output`` beside the report
(``.ptxlint-*.tmp``), and removing the ones a killed run left behind.

The new text is written beside the file and renamed over it: a rename is atomic only within one
file system, so the temporary file cannot live in a temporary folder elsewhere. A ``kill -9``
between the two leaves it there, visible to ``git status``. So the writer holds an exclusive
``flock`` on it from creation to rename; the kernel releases that lock when the writer dies,
however it dies. Any later run that walks the folder (``check``, ``stats``, ``--show-files``,
``--fix``) removes a file of that name whose lock it can take: nobody is writing it. Where
``flock`` does not exist (Windows) a leftover is removed once it is ``UNLOCKABLE_AGE_S`` old.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from typing import IO

PREFIX, SUFFIX = ".ptxlint-", ".tmp"
# A file is created before it is locked: one younger than this may be a writer's, not yet locked.
GRACE_S = 30.0
UNLOCKABLE_AGE_S = 600.0  # no flock: a younger one may belong to a run still going on

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

_cleaned: set[str] = set()


def is_leftover_name(name: str) -> bool:
    return name.startswith(PREFIX) and name.endswith(SUFFIX)


def create(folder: str, kind: str = "") -> tuple[IO[bytes], str]:
    """A new temporary file in ``folder`` (``.ptxlint-{kind}*.tmp``), open for writing and locked
    until it is closed."""
    import tempfile  # only --fix and --output write: kept out of every run's start-up

    fd, path = tempfile.mkstemp(prefix=PREFIX + kind, suffix=SUFFIX, dir=folder)
    if fcntl is not None:
        # a file system without locks: the age rule of remove_if_abandoned still applies
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return os.fdopen(fd, "wb"), path


def remove_if_abandoned(path: str, now: float | None = None) -> bool:
    """Remove ``path``, a ``.ptxlint-*.tmp``, when no running ptxlint is writing it."""
    now = time.time() if now is None else now
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode):
        return False
    age = now - info.st_mtime
    if age < GRACE_S:
        return False
    if fcntl is None:
        if age < UNLOCKABLE_AGE_S:
            return False
        return _unlink(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # held: its writer is alive, however old the file looks
        except OSError:
            return age >= UNLOCKABLE_AGE_S and _unlink(path)  # no locks on this file system
        return _unlink(path)
    finally:
        os.close(fd)


def _unlink(path: str) -> bool:
    try:
        os.unlink(path)
    except OSError:
        return False
    return True


def clean_folder(folder: str) -> int:
    """Remove the abandoned temporary files in ``folder``, once per folder per process; how many
    went."""
    key = os.path.realpath(folder)
    if key in _cleaned:
        return 0
    _cleaned.add(key)
    try:
        names = [name for name in os.listdir(folder) if is_leftover_name(name)]
    except OSError:
        return 0
    now = time.time()
    return sum(remove_if_abandoned(os.path.join(folder, name), now) for name in names)
