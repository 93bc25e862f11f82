"""The headers a C++ file's result depends on, in a form the file index checks with stats alone.

A C++ file's macro table (``macros.MacroTable``) reads every header its includes reach,
transitively, and the prefilter's verdict on a file without an asm keyword reads the same
closure (``prefilter.uses_included_asm_macro``). So what ptxlint says about a file depends on
its own bytes and on:

- every header of that closure: its bytes decide its definitions and its own includes;
- every place an include was looked for and not found (the ``headers.candidates`` tried before
  the one that was): a header created there would be read instead, so each missed candidate
  path is watched, and must still be no regular file. Watching the folder that would hold it
  (by its modification time) was cheaper to record but wrong in practice: the candidates of
  an include that resolves nowhere run up through every folder above the tree, and any file
  created in /tmp or a home folder then invalidated every result of the tree (a stat per
  candidate costs 7 ms on CUTLASS's include/, 3,113 candidates; 28 ms on the CUDA tree);
- where a found header is reached through a symbolic link, the folder holding the link (a
  retargeted link is a new entry there).

The graph is kept per header (its includes, resolved to real paths, and the paths watching
its misses), not as a closure per file: the CUDA 13 include tree's 1,788 files have 646,000
closure members between them but only 1,737 distinct headers, so recording and checking a tree
costs its include graph's size. Each (folder, name) and each header is resolved once per
process (``macros`` memoises the lookups; this module the paths to watch).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ptxlint.frontends.cxx import headers

_WATCH: dict[tuple[str, str], tuple[str | None, tuple[str, ...]]] = {}


def _resolve(base: str, name: str) -> tuple[str | None, tuple[str, ...]]:
    """The real path ``#include name`` from ``base`` reads, and the paths whose state
    decides that it is this one: each candidate tried before it (which must stay no file) and,
    for a header reached through a link, the folder holding the link (memoised per run)."""
    key = (base, name)
    got = _WATCH.get(key)
    if got is not None:
        return got
    found = headers.find_header(base, name)
    watch: list[str] = []
    for candidate in headers.candidates(base, name):
        if candidate == found:
            break
        watch.append(os.path.abspath(candidate))
    real = None
    if found is not None:
        real = headers.real_path(found)
        shown = os.path.abspath(found)
        if real != shown:
            watch.append(os.path.dirname(shown))
    got = _WATCH[key] = (real, tuple(dict.fromkeys(watch)))
    return got


def _edges(base: str, names: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    reals: list[str] = []
    watch: list[str] = []
    for name in names:
        real, folders = _resolve(base, name)
        if real is not None:
            reals.append(real)
        watch.extend(folders)
    return tuple(dict.fromkeys(reals)), tuple(dict.fromkeys(watch))


def of_file(path: str, names: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The headers ``path``'s includes find directly, as real paths, and the folders to watch
    for their misses: ``names`` as its macro table and the prefilter resolve them
    (``headers.include_names``), from the file's absolute folder."""
    return _edges(os.path.dirname(os.path.abspath(path)), names)


def of_header(real: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The same for a header (read once per process); a header that cannot be read brings
    nothing."""
    names = headers.header_include_names(real)
    if not names:
        return (), ()
    return _edges(os.path.dirname(real), names)


def forget() -> None:
    """Look again from now on (a new run)."""
    _WATCH.clear()
