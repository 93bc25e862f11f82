"""Find and read ``compile_commands.json`` (the JSON compilation database CMake writes).

Each entry names a file, the folder the command runs in, and the command as ``arguments`` (a list)
or ``command`` (one shell string). Relative paths are relative to ``directory``, which is itself
absolute in CMake's output; a relative ``directory`` is taken relative to the JSON file's folder
so that a database checked into a project works from any checkout location.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

# Finding the file is apart (ptxlint.tier2.locate): every check looks for one, few read one.
from ptxlint.tier2.locate import DB_NAME, CompileDbError, locate
from ptxlint.value_class import value_class

__all__ = ["DB_NAME", "CompileCommand", "CompileDb", "CompileDbError", "load", "locate",
           "project_include_dirs"]


@value_class(slots=False)
class CompileCommand:
    """One entry of ``compile_commands.json``: a file, the folder its command runs in, and the
    command."""

    file: str  # absolute, normalised
    directory: str  # absolute
    arguments: tuple[str, ...]  # argv, compiler first


@value_class(slots=False)
class CompileDb:
    """A ``compile_commands.json``, read: where it is and its commands."""

    path: str
    commands: tuple[CompileCommand, ...]

    def for_file(self, path: str) -> CompileCommand | None:
        """The command compiling ``path``: the first entry naming it (CMake lists one per TU)."""
        wanted = _norm(path)
        for command in self.commands:
            if command.file == wanted:
                return command
        return None


def _norm(path: str) -> str:
    return os.path.realpath(os.path.abspath(path))


def load(path: Path) -> CompileDb:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CompileDbError(f"cannot read {path}: {exc}") from exc
    if not isinstance(raw, list):
        raise CompileDbError(f"{path}: expected a JSON array of compile commands")
    base = path.resolve().parent
    commands = []
    for entry in raw:
        command = _entry(entry, base)
        if command is not None:
            commands.append(command)
    return CompileDb(str(path), tuple(commands))


def _entry(entry: object, base: Path) -> CompileCommand | None:
    if not isinstance(entry, dict):
        return None
    file, directory = entry.get("file"), entry.get("directory", ".")
    if not isinstance(file, str) or not isinstance(directory, str):
        return None
    folder = Path(directory) if os.path.isabs(directory) else base / directory
    arguments = entry.get("arguments")
    if isinstance(arguments, list) and all(isinstance(a, str) for a in arguments):
        argv = tuple(arguments)
    elif isinstance(entry.get("command"), str):
        try:
            argv = tuple(shlex.split(entry["command"]))
        except ValueError:
            return None
    else:
        return None
    return CompileCommand(_norm(str(folder / file)), _norm(str(folder)), argv)


def project_include_dirs(db: CompileDb, roots: list[str]) -> tuple[str, ...]:
    """The ``-I``/``-iquote`` folders of the database's commands that lie inside one of
    ``roots`` (a project's own include folders: ``#include <project/x.h>`` resolves there;
    system and toolkit folders are left out). Existing folders only, in first-seen order."""
    bases = [_norm(r) for r in roots]
    out: dict[str, None] = {}
    for command in db.commands:
        args = command.arguments
        for i, arg in enumerate(args):
            folder = _include_flag(arg, args[i + 1] if i + 1 < len(args) else None)
            if folder is None:
                continue
            path = _norm(os.path.join(command.directory, folder))
            if path in out or not os.path.isdir(path):
                continue
            if any(path == b or path.startswith(b.rstrip(os.sep) + os.sep) for b in bases):
                out[path] = None
    return tuple(out)


def _include_flag(arg: str, following: str | None) -> str | None:
    """The folder of an include flag (``-I dir``, ``-Idir``, ``-iquote dir``, nvcc's
    ``--include-path=dir``), else None."""
    if arg in ("-I", "-iquote", "--include-path"):
        return following
    for flag in ("--include-path=", "-iquote", "-I"):
        if arg.startswith(flag) and len(arg) > len(flag):
            return arg[len(flag) :]
    return None
