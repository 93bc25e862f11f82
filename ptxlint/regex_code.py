"""The compiled programs of regular expressions, kept from one run of the command line to the
next.

ptxlint's modules compile about 150 regular expressions as they load (the PTX lexer and
grammar, the C++ scanners, the rules). ``re`` parses each pattern and assembles it into a
program for its matching engine: 14 ms of the 95 ms that ``ptxlint check`` took on one small
file. The program depends only on the pattern, the flags and the interpreter.

So the command-line process gives ``re`` a compiling step of its own (``install``): the
program of a pattern compiled before is taken from a table (``kept_table``) that ``save`` writes
to the cache folder when the run assembled something new, and handed to the engine as ``re``
itself hands it over. A run after the first assembles nothing. The table is valid for the exact
interpreter build only, since the programs' format is the engine's own.

This leans on ``re``'s internal steps (``re._compiler.compile``: the parse, the assembly, and
``_sre.compile``), the same in Python 3.11, 3.12 and 3.13. Where they are not there
(3.10), nothing is installed; a bytes pattern or ``re.DEBUG`` goes to ``re``'s own step; and
should the steps take other arguments (a new interpreter's first run: the table is per
interpreter), the first failure gives ``re`` its own step back for the rest of the run. Only
the command line's own process installs it (``cli.main``): a host that imports ptxlint keeps
its ``re`` untouched.

Cost of a run: reading the table (about 160 programs, under 1 ms) and a dictionary look-up per
pattern compiled (``re`` caches compiled patterns itself, so once per distinct pattern).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ptxlint import kept_table

PREFIX = "regex-code"
MAX_KEPT = 2048  # as dataclass_code.MAX_KEPT: past this many, a save keeps what its run used

# (pattern, flags) -> the arguments of _sre.compile after the pattern
_Program = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]

_programs: dict[tuple[str, int], _Program] = {}
_used: set[tuple[str, int]] = set()
_assembled = 0  # patterns assembled in this process
_original: Callable[..., Any] | None = None  # re's own step, while ours is installed
_steps_in_use: tuple[Any, Any, Any, Any] | None = None  # _steps(), while ours is installed


def _steps() -> tuple[Any, Any, Any, Any] | None:
    """``re``'s internal steps (the compiler module, its parse, its assembly, the engine's
    constructor), or None where this interpreter has other ones."""
    try:
        import _sre

        compiler = re._compiler  # type: ignore[attr-defined]
        steps = (compiler, re._parser.parse, compiler._code, _sre.compile)  # type: ignore[attr-defined]
    except (ImportError, AttributeError):
        return None
    return steps if all(callable(step) for step in steps[1:]) else None


def _compile(pattern: object, flags: int = 0) -> Any:
    """``re._compiler.compile(pattern, flags)``, the program of a pattern seen before taken
    from the table."""
    global _assembled
    assert _original is not None and _steps_in_use is not None
    if not isinstance(pattern, str) or flags & re.DEBUG:
        return _original(pattern, flags)
    _compiler, parse, assemble, engine = _steps_in_use
    key = (pattern, int(flags))
    program = _programs.get(key)
    try:
        if program is None:
            program = _program(pattern, flags, parse, assemble)
            _programs[key] = program
            _assembled += 1
        compiled = engine(pattern, *program)
    except re.error:
        raise  # the pattern's own error, as re reports it
    except Exception:  # noqa: BLE001 - re's internals are not what this module knows
        original = _original
        _give_up()
        return original(pattern, flags)
    _used.add(key)
    return compiled


def _program(pattern: str, flags: int, parse: Any, assemble: Any) -> _Program:
    """What ``re._compiler.compile`` hands the engine after the pattern, step by step."""
    parsed = parse(pattern, flags)
    code = assemble(parsed, flags)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    # int(): the assembly's opcodes are an int subclass, which marshal cannot write
    return (int(flags | parsed.state.flags), [int(c) for c in code],
            parsed.state.groups - 1, groupindex, tuple(indexgroup))


def _give_up() -> None:
    """``re`` gets its own step back for the rest of the process, and no table is written: a
    new interpreter whose internals take other arguments than these costs one failed try."""
    global _assembled
    uninstall()
    _programs.clear()
    _assembled = 0


def install(folder: str | None) -> None:
    """Give ``re`` the table's compiling step, with the table kept in ``folder`` (None: an
    empty table, nothing read). A second call does nothing."""
    global _original, _steps_in_use
    steps = _steps()
    if _original is not None or steps is None:
        return
    for key, program in kept_table.read(folder, PREFIX).items():
        if _is_program(key, program):
            _programs[key] = program
    compiler = steps[0]
    _original, _steps_in_use = compiler.compile, steps
    compiler.compile = _compile


def _is_program(key: object, program: object) -> bool:
    return (
        isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], str)
        and isinstance(key[1], int) and isinstance(program, tuple) and len(program) == 5
        and isinstance(program[1], list)
    )


def uninstall() -> None:
    """Give ``re`` back its own step (tests)."""
    global _original, _steps_in_use
    if _original is not None and _steps_in_use is not None:
        _steps_in_use[0].compile = _original
    _original = _steps_in_use = None


def save(folder: str | None) -> None:
    """Write the table to ``folder`` when this process assembled a pattern it did not hold;
    atomically, and silently not at all where the folder cannot be written. A table grown past
    ``MAX_KEPT`` keeps only what this process used."""
    global _assembled
    if folder is None or not _assembled:
        return
    if kept_table.write(folder, PREFIX, _programs, _used, MAX_KEPT):
        _assembled = 0


def file_name() -> str:
    return kept_table.file_name(PREFIX)
