"""Compiler flags for whole-file compiles: from ``--cuda-flags`` and/or ``compile_commands.json``.

From a database entry only what changes the meaning of the source is kept (include paths,
defines, the language standard, forced includes, nvcc language switches); outputs, dependency
files and targets are dropped, since verify picks its own output and ``--arch``.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from functools import lru_cache

from ptxlint.tier2 import compile_db

_WITH_VALUE = {"-I", "-isystem", "-D", "-U", "-include", "-std", "--std", "-x",
               "--include-path", "--define-macro", "--pre-include"}
_PATH_VALUE = {"-I", "-isystem", "-include", "--include-path", "--pre-include"}
_KEEP_ALONE = ("--expt-relaxed-constexpr", "--extended-lambda", "--expt-extended-lambda",
               "-std=", "--std=", "-I", "-isystem", "-D", "-U", "-fopenmp")


def split(text: str | None, option: str = "--cuda-flags") -> tuple[str, ...]:
    from ptxlint.config import ConfigError

    try:
        return tuple(shlex.split(text)) if text else ()
    except ValueError as exc:  # an unbalanced quote
        raise ConfigError(f"{option} {text!r}: {exc}") from exc


@lru_cache(maxsize=8)
def _database(build_dir: str) -> compile_db.CompileDb | None:
    found = compile_db.locate(build_dir)
    if found is None:
        return None
    try:
        return compile_db.load(found)
    except compile_db.CompileDbError:
        return None


def from_database(build_dir: str | None, path: str) -> tuple[str, ...]:
    """The meaning-changing flags of ``path``'s entry, with relative paths made absolute."""
    if not build_dir:
        return ()
    db = _database(build_dir)
    entry = db.for_file(path) if db is not None else None
    if entry is None:
        return ()
    return keep(entry.arguments[1:], entry.directory)


def keep(args: Sequence[str], directory: str) -> tuple[str, ...]:
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in _WITH_VALUE and i + 1 < len(args):
            value = args[i + 1]
            if arg in _PATH_VALUE:
                value = os.path.join(directory, value)
            out += [arg, value]
            i += 2
            continue
        for prefix in ("-I", "-isystem"):
            if arg.startswith(prefix) and len(arg) > len(prefix):
                arg = prefix + os.path.join(directory, arg[len(prefix):])
                break
        if arg.startswith(_KEEP_ALONE):
            out.append(arg)
        i += 1
    return tuple(out)
