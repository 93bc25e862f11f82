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


def tree_includes(path: str, linted: Sequence[str]) -> tuple[str, ...]:
    """``-I`` flags for the ``include/`` folders of the tree being linted around ``path``: every
    folder from the file's own up to the linted folder that holds it, if it is called
    ``include`` or has an ``include/`` beside the file's path (CUTLASS's ``include/cute/...``
    headers include ``<cute/...>``; flashinfer's ``csrc/`` includes ``<flashinfer/...>`` from
    the top-level ``include/``), or holds a folder of its own name that holds the file (CCCL's
    ``cub/cub/...``, included as ``<cub/...>``). Nearest first; never above the linted
    folder, so nothing outside what the user pointed at is read, and never a folder a shell
    would expand (nvcc passes flags through ``sh -c``). They go after the user's own flags,
    which win; the two variants of a differential get the same ones."""
    from ptxlint.verify.runner import shell_inert

    here = os.path.dirname(os.path.abspath(path))
    out: list[str] = []
    for root in linted:
        top = os.path.abspath(root)
        if os.path.isfile(top):
            top = os.path.dirname(top)
        elif not os.path.isdir(top):
            continue
        if os.path.commonpath([top, here]) != top:
            continue
        folder = here
        while True:
            name = os.path.basename(folder)
            for candidate in (folder, os.path.join(folder, "include")):
                if (os.path.basename(candidate) == "include" and os.path.isdir(candidate)
                        and candidate not in out and shell_inert(candidate)):
                    out.append(candidate)
            # CCCL's layout: cub/cub/..., thrust/thrust/... are included as <cub/...>
            nested = os.path.join(folder, name)
            if (name and os.path.commonpath([nested, here]) == nested and folder not in out
                    and shell_inert(folder)):
                out.append(folder)
            if folder == top or os.path.dirname(folder) == folder:
                break
            folder = os.path.dirname(folder)
        break
    return tuple(arg for folder in out for arg in ("-I", folder))
