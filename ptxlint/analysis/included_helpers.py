"""The project headers a file includes, read for the asm helpers they define.

CUTLASS, CuTe, ThunderKittens, DeepGEMM and flashinfer wrap each protocol instruction in a
small ``__device__ __forceinline__`` function in a header (``cp_async_wait<N>()``,
``fence_barrier_init()``, ``warpgroup_arrive()``), and call it from the kernel's file. The
per-function flows (:mod:`ptxlint.analysis.function_flow`) follow such a call, and the
helper's own calls a few levels deep, when the helper is defined in the file or in a header it
includes from the same project (a header's helper finds its callees among all of them),
found where the file's macro table finds its headers (``headers.find_header``: next to the
file, or in a folder above it or that folder's ``include/``, or in the include folders), up
to :data:`DEPTH` includes deep; the result cache's key covers those headers. A header of another
project (the CUDA toolkit's, a third-party library not in the tree) is not found, and a call
of its helpers stays opaque: the rules stay silent around it.

Each header is read and its asm statements extracted once per process and kept in a small
memo (:data:`KEPT` headers, least recently used first out); headers over :data:`MAX_BYTES`
(CUTLASS's GMMA tables) or without ``asm`` are skipped.
"""

from __future__ import annotations

import functools
import os
from collections import OrderedDict
from dataclasses import dataclass

from ptxlint.frontends.cxx import headers
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.model import AsmStatement, SourceFile
from ptxlint.ptx import parser as ptx_parser

__all__ = ["DEPTH", "Header", "included_headers"]

DEPTH = 2  # includes of includes
MAX_BYTES = 512 * 1024
MAX_HEADERS = 32  # per file
# Headers kept: a tree's files include much the same headers, each read again once evicted.
# CUTLASS include/ with --preview reads 160 headers: 292 reads with 48 kept, 160 with 256, and
# the run's CPU 5.47-5.49 s -> 5.05-5.26 s at the same peak memory (225 MB); flashinfer's
# peak 114 -> 154 MB for 5.69 -> 5.61 s.
KEPT = 256
_parse_template = functools.lru_cache(maxsize=4096)(ptx_parser.parse_template)


@dataclass(frozen=True)
class Header:
    """One included header: its tree and asm statements."""

    path: str
    parsed: ParsedSource
    statements: tuple[AsmStatement, ...]


_MEMO: OrderedDict[tuple[str, int, int], Header | None] = OrderedDict()


def _read(path: str) -> Header | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    # by the header's state too: the language server lives while its headers are edited
    key = (path, stat.st_mtime_ns, stat.st_size)
    if key in _MEMO:
        _MEMO.move_to_end(key)
        return _MEMO[key]
    header: Header | None = None
    try:
        if stat.st_size <= MAX_BYTES:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
            if "asm" in text:
                # here, not at the top: rule modules import this one, and a run that takes
                # every result from the cache loads no extraction code
                from ptxlint.frontends.cxx.extract import extract

                result = extract(SourceFile(path, text), _parse_template)
                if result.parsed is not None and result.statements:
                    header = Header(path, result.parsed, tuple(result.statements))
    except (OSError, RecursionError, ValueError):
        header = None  # an unreadable header is a helper we cannot see: calls stay opaque
    _MEMO[key] = header
    while len(_MEMO) > KEPT:
        _MEMO.popitem(last=False)
    return header


def included_headers(path: str, text: str) -> list[Header]:
    """The headers of the same project that ``text`` (the file at ``path``) includes, up to
    :data:`DEPTH` deep, that hold asm statements; nearest first."""
    found: list[Header] = []
    seen = {os.path.normpath(path)}
    frontier = [(path, text)]
    for _ in range(DEPTH):
        following: list[tuple[str, str]] = []
        for including, source in frontier:
            folder = os.path.dirname(os.path.abspath(including))
            # the includes and the headers they name as the macro tables read them, so the
            # result cache's key covers every header read here
            for name in headers.include_names(source):
                resolved = headers.find_header(folder, name)
                if resolved is None or resolved in seen or len(seen) > MAX_HEADERS:
                    continue
                seen.add(resolved)
                header = _read(resolved)
                if header is not None:
                    found.append(header)
                    following.append((resolved, header.parsed.text))
                else:
                    following.extend(_text_of(resolved))
        frontier = following
    return found


def _text_of(path: str) -> list[tuple[str, str]]:
    """A header without asm of its own may still include the helpers' header."""
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return []
        with open(path, encoding="utf-8", errors="replace") as handle:
            return [(path, handle.read())]
    except OSError:
        return []
