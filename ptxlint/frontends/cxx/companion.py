"""The header a header is the second half of, and the macros in force where it is included.

The CUDA toolkit splits a header in two: ``cuda_fp16.h`` defines ``__HALF_TO_US`` and the
types, then ends with ``#include "cuda_fp16.hpp"``, whose functions use them and which
includes nothing itself (``cuda_bf16``, ``cuda_fp8``, ``cuda_fp6``, ``cuda_fp4`` alike; copies
of these headers ship in other projects). The second half compiles only there: every
translation unit that reads it reads its companion's definitions first, so a name the half
neither defines nor ``#undef``\\ s before a use, and its own includes do not define, is the
macro its companion defines at the ``#include`` (``MacroTable.lookup`` there).

The companion is the file of the same name with another header suffix in the same folder
(``x.hpp`` -> ``x.h``) that includes the half by that name once, from that folder. Nothing
else is searched: a header included from elsewhere has no companion here, and its names
stay unknown. A result that read a companion depends on it (``companion_name``: the result
cache's record of the header lists it with its includes).
"""

from __future__ import annotations

import os

from ptxlint.frontends.cxx.defines import (
    MAX_HEADER_BYTES,
    MacroDef,
    include_offsets,
    read_header_bytes,
)
from ptxlint.frontends.cxx.include_lookup import find_header, is_file, real_path
from ptxlint.frontends.cxx.macros import MacroTable

HEADER_SUFFIXES = (".h", ".hpp", ".cuh", ".hxx", ".hh", ".inl")

# real path of a half -> (its companion's table, the offset of the #include of the half in
# it), or None; per process, as headers are (``headers._header``)
_TABLES: dict[str, tuple[MacroTable, int] | None] = {}
_NAMES: dict[str, str | None] = {}


def companion_name(path: str) -> str | None:
    """The file name, in ``path``'s folder, of the header ``path`` is the second half of, or
    None. Memoised per process."""
    real = real_path(path)
    if real in _NAMES:
        return _NAMES[real]
    found = _find(real)
    _NAMES[real] = found[0] if found is not None else None
    return _NAMES[real]


def companion_table(path: str) -> tuple[MacroTable, int] | None:
    """The macro table of the header ``path`` is the second half of, and the offset of its
    ``#include`` of ``path`` there; None where it has none. Made once per process."""
    real = real_path(path)
    if real in _TABLES:
        return _TABLES[real]
    found = _find(real)
    table = None
    if found is not None:
        name, text, at = found
        table = MacroTable(os.path.join(os.path.dirname(real), name), text), at
    _TABLES[real] = table
    return table


def looked_up_in(table: MacroTable, name: str, at: int) -> tuple[MacroTable, int] | None:
    r"""The table and offset whose definitions a use of ``name`` at offset ``at`` of
    ``table``'s file reads: the file's own (``table``, ``at``) where it or its headers define
    ``name`` or it ``#undef``\ s it before ``at``; else its companion's at the ``#include`` of
    the file, where it has one; else None."""
    if table.definitions(name) or any(u < at for u in table.own.undefs.get(name, ())):
        return table, at
    return companion_table(table.path)


def in_force(table: MacroTable, name: str, at: int
             ) -> tuple[MacroTable, int, list[MacroDef]] | None:
    """``looked_up_in``'s table and offset with the definitions of ``name`` in force there
    (empty where that table undefines it or defines it under conditions that cannot hold)."""
    where = looked_up_in(table, name, at)
    if where is None:
        return None
    source, place = where
    return source, place, source.alternatives(name, place)


def _find(real: str) -> tuple[str, str, int] | None:
    """(the companion's file name, its text, the offset of its include of ``real``)."""
    folder, own = os.path.split(real)
    stem, suffix = os.path.splitext(own)
    if suffix not in HEADER_SUFFIXES:
        return None
    found = None
    for other in HEADER_SUFFIXES:
        candidate = os.path.join(folder, stem + other)
        if other == suffix or not is_file(candidate):
            continue
        data = read_header_bytes(candidate, None, MAX_HEADER_BYTES)
        if data is None:
            continue
        text = data.decode("utf-8", "replace")
        places = [at for at, name in include_offsets(text) if name == own]
        reached = find_header(folder, own)
        if len(places) != 1 or reached is None or real_path(reached) != real:
            continue
        if found is not None:
            return None  # two companions: neither is the one
        found = (stem + other, text, places[0])
    return found


def forget() -> None:
    """Look again from now on (a new run)."""
    _TABLES.clear()
    _NAMES.clear()
