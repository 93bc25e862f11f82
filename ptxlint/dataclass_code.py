"""The compiled code of the methods ``dataclasses`` writes, kept from one run of the command
line to the next.

``@dataclass`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and, for
a frozen class, ``__setattr__`` and ``__delattr__`` as Python source and compiles it with
``exec``: about 0.45 ms a frozen class on Python 3.11, and ptxlint's modules hold about 100
classes. That compiling was 47 ms of the 130 ms that ``ptxlint check`` took on one small file,
more than anything else it does; the code it produces depends only on the source text and the
interpreter.

So the command-line process gives the ``dataclasses`` module an ``exec`` of its own
(``install``): the same call, with the code of each source text it has compiled before taken
from a table that ``save`` writes to the cache folder when the run compiled something new. A
run after the first compiles nothing (0.09 ms a class). The table (``kept_table``) is valid for
the exact interpreter (``sys.version`` and ``-O``), is written atomically, and any trouble
reading it means an empty table: the code is then compiled as ``dataclasses`` would. The code
is compiled as ``dataclasses``' own ``exec`` compiles it (no ``__future__`` flags of this
module: the methods' annotations stay types). Only the command line's own process installs it
(``cli.main``); a host that imports ptxlint keeps its ``dataclasses`` untouched.

Cost of a run: reading the table (about 600 small code objects, about 1 ms) and a dictionary
look-up per generated method. Upgrades leave the texts of changed classes behind; a table past
``MAX_KEPT`` entries is cut to what the saving run used, so it cannot grow without end.
"""

from __future__ import annotations

import builtins
from types import CodeType

from ptxlint import kept_table

PREFIX = "dataclass-code"

# Every upgrade that changes a class adds its methods' texts, and the old ones stay useless in
# the table (read at every start): past this many, a save keeps only what its run used.
MAX_KEPT = 2048

_codes: dict[str, CodeType] = {}
_used: set[str] = set()  # the texts this process executed
_compiled = 0  # source texts compiled in this process
_installed_in: object | None = None  # the dataclasses module given our exec


def _exec(source: object, namespace: dict[str, object] | None = None,
          local_names: dict[str, object] | None = None) -> None:
    """``exec(source, namespace, local_names)``; a string's code compiled once and kept."""
    global _compiled
    if isinstance(source, str):
        code = _codes.get(source)
        if code is None:
            # As exec(str) called from dataclasses compiles it: under this name (tracebacks
            # read the same) and without this module's `from __future__ import annotations`,
            # which would leave the methods' annotations as strings.
            code = _codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
            _compiled += 1
        _used.add(source)
        source = code
    builtins.exec(source, namespace, local_names)  # type: ignore[arg-type]


def file_name() -> str:
    """One table per interpreter (``kept_table``)."""
    return kept_table.file_name(PREFIX)


def install(folder: str | None) -> None:
    """Give ``dataclasses`` the caching ``exec``, with the table kept in ``folder`` (None: an
    empty table, nothing read). Call it before the classes are made; a second call does
    nothing."""
    global _installed_in
    import dataclasses

    if _installed_in is not None or "exec" in vars(dataclasses):
        return
    _codes.update(
        (k, v) for k, v in kept_table.read(folder, PREFIX).items()
        if isinstance(k, str) and isinstance(v, CodeType)
    )
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    _installed_in = dataclasses


def uninstall() -> None:
    """Give ``dataclasses`` back the built-in ``exec`` (tests)."""
    global _installed_in
    if _installed_in is not None:
        vars(_installed_in).pop("exec", None)
        _installed_in = None


def save(folder: str | None) -> None:
    """Write the table to ``folder`` when this process compiled something it did not hold;
    atomically, and silently not at all where the folder cannot be written. A table grown past
    ``MAX_KEPT`` keeps only what this process used."""
    global _compiled
    if folder is None or not _compiled:
        return
    if kept_table.write(folder, PREFIX, _codes, _used, MAX_KEPT):
        _compiled = 0
