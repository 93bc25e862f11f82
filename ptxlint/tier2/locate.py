"""Where ``compile_commands.json`` is: the part of ``ptxlint.tier2.compile_db`` every
``ptxlint check`` runs (it looks for a database under the project root), without the reading
of one, its classes and its imports (``shlex``), which only a run that found one needs.
"""

from __future__ import annotations

import os
from pathlib import Path

DB_NAME = "compile_commands.json"
# Where CMake users usually point CMAKE_BINARY_DIR; searched in this order under the project root.
_SEARCH = ("build", ".", "out", "cmake-build-debug", "cmake-build-release", "builddir")


class CompileDbError(Exception):
    """The database exists but cannot be read."""


def locate(explicit: str | None, root: str | None = None) -> Path | None:
    """The database file: ``explicit`` (a file or the folder holding it) or one found under root.

    An explicit path that does not exist raises ``CompileDbError``: the user asked for it.
    """
    if explicit:
        candidate = Path(explicit)
        if candidate.is_dir():
            candidate = candidate / DB_NAME
        if not candidate.is_file():
            raise CompileDbError(f"no compile database at {explicit}")
        return candidate
    base = Path(root or os.getcwd())
    for folder in _SEARCH:
        candidate = base / folder / DB_NAME
        if candidate.is_file():
            return candidate
    return None
