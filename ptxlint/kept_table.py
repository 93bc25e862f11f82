"""A table the command line keeps in the cache folder from one run to the next, valid for one
interpreter build only: the compiled code of ``dataclasses``' methods (``dataclass_code``) and
of regular expressions (``regex_code``).

Each table is one ``marshal`` file named by a checksum of the interpreter, so that two Pythons
sharing the cache folder (a pre-commit venv and a project's) do not replace each other's table
at every run. Inside, the interpreter's full description is checked again. Any trouble reading a
table means an empty one; writing is atomic and silently skipped where the folder cannot be
written (``cache.write_quietly``).
"""

from __future__ import annotations

import marshal
import sys
import zlib  # already loaded by shutil, which argparse imports
from pathlib import Path
from typing import Any


def interpreter() -> str:
    """What a table is valid for: this interpreter build and its optimisation level (-O)."""
    return f"{sys.version}|{sys.flags.optimize}"


def file_name(prefix: str) -> str:
    return f"{prefix}-{zlib.crc32(interpreter().encode()):08x}.marshal"


def read(folder: str | None, prefix: str) -> dict[Any, Any]:
    """The table ``prefix`` kept in ``folder``, or an empty one (None: nothing is read)."""
    if folder is None:
        return {}
    try:
        with open(Path(folder) / file_name(prefix), "rb") as handle:
            # loads of the bytes: marshal.load reads a file object piece by piece, 10x slower
            version, table = marshal.loads(handle.read())
    except (OSError, EOFError, ValueError, TypeError):
        return {}  # no table yet, or one this interpreter cannot read
    return table if version == interpreter() and isinstance(table, dict) else {}


def write(
    folder: str, prefix: str, table: dict[Any, Any], used: set[Any], max_kept: int
) -> bool:
    """Keep ``table`` in ``folder``; False where it could not be written (nor marshalled: a
    table is an optimisation, never a reason for a run to fail). Upgrades leave entries behind
    that no run asks for again, and every start reads them: a table of more than ``max_kept``
    entries keeps only those this run ``used``."""
    from ptxlint.cache import write_quietly

    if len(table) > max_kept:
        table = {k: table[k] for k in used if k in table}
    try:
        data = marshal.dumps((interpreter(), table))
    except ValueError:
        return False
    return write_quietly(Path(folder) / file_name(prefix), data)
