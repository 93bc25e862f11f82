"""The project headers a file includes, read for the asm helpers they define.

CUTLASS, CuTe, ThunderKittens, DeepGEMM and flashinfer wrap each protocol instruction in a
small ``__device__ __forceinline__`` function in a header (``cp_async_wait<N>()``,
``fence_barrier_init()``, ``warpgroup_arrive()``), and call it from the kernel's file. The
per-function flows (:mod:`ptxlint.analysis.function_flow`) follow such a call, and the
helper's own calls a few levels deep, when the helper is defined in the file or in a header it
includes from the same project (a header's helper finds its callees among all of them),
found where the file's macro table finds its headers (``headers.find_header``: next to the
file, or in a folder above it or that folder's ``include/``, or in the include folders), up
to :data:`DEPTH` includes deep; the result cache's key covers those headers. A file with no
asm of its own is linted for the rules that follow these calls where it names one of the
helpers (:func:`helper_names`, the prefilter's question). A header of another
project (the CUDA toolkit's, a third-party library not in the tree) is not found, and a call
of its helpers stays opaque: the rules stay silent around it.

Each header is read and its asm statements extracted once per process and kept in a small
memo (:data:`KEPT` headers, least recently used first out); headers over :data:`MAX_BYTES`
(CUTLASS's GMMA tables) or without ``asm`` are skipped. A batch run that lints such a header
in turn takes its extraction from here (:func:`extraction_of`) where it was read from the same
text: over the CUDA 13 headers with --preview, 38 of the 61 headers kept were not extracted
again, and the run's CPU went from 6.53-7.24 s to 5.63-6.56 s (peak 161 -> 169 MB); CUTLASS
``include/``'s 30 of 48, 10.60-12.29 s -> 9.56-11.46 s. A header the run linted before a file
included it is extracted again here: keeping the last 64 linted files' extractions for that
(18 of CUTLASS ``include/``'s 48 headers, 22 of the CUDA headers' 61) raised the peak from
238 to 449 MB and from 161 to 207 MB (the last 8 kept: still 412 MB on CUTLASS), for no
CPU the noise of those runs showed.
"""

from __future__ import annotations

import functools
import os
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import field
from typing import TypeVar

import tree_sitter

from ptxlint.analysis.flow_syntax import function_definitions, function_name
from ptxlint.frontends.cxx import headers
from ptxlint.frontends.cxx.types import TypeResolver
from ptxlint.frontends.extraction import ExtractionResult
from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import AsmStatement, SourceFile
from ptxlint.ptx import parser as ptx_parser
from ptxlint.ptx.protocols import SHARED_READ, SHARED_WRITE, STEP_WORDS, statement_events
from ptxlint.value_class import value_class

__all__ = ["DEPTH", "Header", "extraction_of", "helper_names", "included_headers",
           "plain_headers"]

Node = tree_sitter.Node

DEPTH = 2  # includes of includes
MAX_BYTES = 512 * 1024
MAX_HEADERS = 32  # per file
# Headers kept: a tree's files include much the same headers, each read again once evicted.
# CUTLASS include/ with --preview reads 160 headers: 292 reads with 48 kept, 160 with 256, and
# the run's CPU 5.47-5.49 s -> 5.05-5.26 s at the same peak memory (225 MB); flashinfer's
# peak 114 -> 154 MB for 5.69 -> 5.61 s.
KEPT = 256
_parse_template = functools.lru_cache(maxsize=4096)(ptx_parser.parse_template)
_WORD = on_first_use(r"[A-Za-z_]\w*")
_ACCESSES = frozenset({SHARED_READ, SHARED_WRITE})


@value_class(slots=False)
class Header:
    """One included header: its tree and asm statements."""

    path: str
    parsed: ParsedSource
    statements: tuple[AsmStatement, ...]
    # what the analyses that read the header keep of it while it is kept, by their name
    # (``function_shapes.shapes_of``: its functions' shapes)
    kept: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    # the whole extraction and what it read, as the engine's of the same file makes them
    # (``extraction_of``): the text as read, and the operands' type resolver
    whole: tuple[SourceFile, ExtractionResult, TypeResolver] | None = field(
        default=None, compare=False, repr=False)

    @functools.cached_property
    def definitions(self) -> list[Node]:
        """Its function definitions (``function_definitions``): listed once while the header
        is kept, where each linted file that includes it walked its tree again (CUTLASS
        ``include/`` with --preview: 1,034 walks)."""
        return function_definitions(self.parsed.tree.root_node)

    @functools.cached_property
    def helpers(self) -> frozenset[str]:
        """The names of its functions whose asm takes an asynchronous protocol step, as a call
        spells the callee (``cute::cp_async_wait<N>``: ``cp_async_wait``). Not one that only
        reads or writes shared memory (``ld_shared``), nor one whose asm takes no step:
        every protocol rule speaks of a copy, a commit, a wait, a fence, an mbarrier, a
        wgmma or a Tensor Memory step, and a file that calls only such helpers gives them
        none (the names of every function with asm let 432 of CUTLASS ``include/``'s 742
        files without asm through the prefilter, these 54)."""
        found: set[str] = set()
        for statement in self.statements:
            if all(event.kind in _ACCESSES for _, event in statement_events(statement)):
                continue
            # as recovered from the text, a name may come with its return type
            # (``nv_bfloat162 cvt_relu_bf16x2_f32``): its last word is the name
            words = _WORD().findall(function_name(statement.context.function or ""))
            if words:
                found.add(words[-1])
        return frozenset(found)


_MEMO: OrderedDict[tuple[str, int, int], Header | None] = OrderedDict()


def _read(path: str) -> Header | None:
    return _by_state(_MEMO, KEPT, path, _extract)


def _extract(path: str, text: str) -> Header | None:
    if "asm" not in text:
        return None
    # here, not at the top: rule modules import this one, and a run that takes every result
    # from the cache loads no extraction code
    from ptxlint.frontends.cxx.extract import extract

    # read as the engine reads a file it lints (``engine.extract_statements``: operands typed,
    # the whole tree), so that the engine, linting this header in turn, takes this extraction
    # (``extraction_of``). The resolver is made here, not by ``types.file_resolver``: that
    # keeps the latest file's, the one the file whose flows read this header is linted with.
    # A text read so has no lone "\r" (``open`` makes each line break "\n"), as the engine's
    # ``unified_source`` would make it.
    resolvers: list[TypeResolver] = []

    def type_lookup(parsed: ParsedSource) -> TypeResolver:
        resolvers.append(TypeResolver(parsed.text, parsed.tree, parsed.data))
        return resolvers[-1]

    source = SourceFile(path, text)
    try:
        result = extract(source, _parse_template, type_lookup)
    except (RecursionError, ValueError):
        return None  # an unreadable header is a helper we cannot see: calls stay opaque
    if result.parsed is None or not result.statements:
        return None
    whole = (source, result, resolvers[0]) if len(resolvers) == 1 else None
    return Header(path, result.parsed, tuple(result.statements), whole=whole)


def extraction_of(source: SourceFile) -> tuple[ExtractionResult, TypeResolver] | None:
    """The extraction of a header kept here (with its operands' type resolver) where it was
    read from exactly ``source`` (the same path as spelled, text and decoding, the file
    unchanged on disk since): what the engine's extraction of ``source`` gives, to be taken
    in its place when the batch run lints a header it read for an earlier file's flows (the
    CUDA headers with --preview: 66 headers, a fifth of the run's CPU, extracted twice). The
    lists are the caller's own; the statements and tree are shared with the header's flows,
    which nothing changes."""
    if not _MEMO:
        return None  # no header read (a run without the protocol rules): no stat per file
    try:
        stat = os.stat(source.path)
    except OSError:
        return None
    header = _MEMO.get((source.path, stat.st_mtime_ns, stat.st_size))
    if header is None or header.whole is None or header.whole[0] != source:
        return None
    return header.whole[1].copy(), header.whole[2]


_V = TypeVar("_V")


def _by_state(memo: OrderedDict[tuple[str, int, int], _V | None], kept: int, path: str,
              compute: Callable[[str, str], _V | None]) -> _V | None:
    """``compute(path, text)`` for the header at ``path``, kept in ``memo`` by the header's
    state (the language server lives while its headers are edited), at most ``kept`` entries,
    least recently used first out; None for a header that cannot be read or is over
    :data:`MAX_BYTES`."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    key = (path, stat.st_mtime_ns, stat.st_size)
    if key in memo:
        memo.move_to_end(key)
        return memo[key]
    value: _V | None = None
    if stat.st_size <= MAX_BYTES:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            text = None
        if text is not None:
            value = compute(path, text)
    memo[key] = value
    while len(memo) > kept:
        memo.popitem(last=False)
    return value


# Per header (by its state, as ``_MEMO``): its include names, and whether it spells ``asm`` and
# a protocol step's opcode; read once per process, where the walk used to read every header
# without asm again for each file that reached it.
_SCANS: OrderedDict[tuple[str, int, int], tuple[list[str], bool, bool] | None] = OrderedDict()
KEPT_SCANS = 8192


def _scan(path: str) -> tuple[list[str], bool, bool] | None:
    """``path``'s include names, whether it holds ``asm``, and whether it spells one of
    ``STEP_WORDS``; None for a header that cannot be read or is over :data:`MAX_BYTES`."""
    return _by_state(_SCANS, KEPT_SCANS, path, lambda _, text: (
        headers.include_names(text), "asm" in text, any(word in text for word in STEP_WORDS)))


def _reached(path: str, text: str, plain: list[str] | None = None) -> list[tuple[str, bool]]:
    """The headers of the same project that ``text`` (the file at ``path``) includes, up to
    :data:`DEPTH` deep, that hold ``asm``, nearest first, each with whether it spells a
    protocol step's opcode; those that hold none are added to ``plain``."""
    found: list[tuple[str, bool]] = []
    seen = {os.path.normpath(path)}
    frontier = [(path, headers.include_names(text))]
    for _ in range(DEPTH):
        following: list[tuple[str, list[str]]] = []
        for including, names in frontier:
            folder = os.path.dirname(os.path.abspath(including))
            # the includes and the headers they name as the macro tables read them, so the
            # result cache's key covers every header read here
            for name in names:
                resolved = headers.find_header(folder, name)
                if resolved is None or resolved in seen or len(seen) > MAX_HEADERS:
                    continue
                seen.add(resolved)
                scanned = _scan(resolved)
                if scanned is None:
                    continue
                if scanned[1]:
                    found.append((resolved, scanned[2]))
                elif plain is not None:
                    plain.append(resolved)
                following.append((resolved, scanned[0]))
        frontier = following
    return found


def included_headers(path: str, text: str) -> list[Header]:
    """The headers of the same project that ``text`` (the file at ``path``) includes, up to
    :data:`DEPTH` deep, that hold asm statements; nearest first."""
    return [header for resolved, _ in _reached(path, text)
            if (header := _read(resolved)) is not None]


def plain_headers(path: str, text: str) -> list[str]:
    """The headers of the same project that ``text`` (the file at ``path``) includes, up to
    :data:`DEPTH` deep, that hold no ``asm`` (their real paths), nearest first."""
    plain: list[str] = []
    _reached(path, text, plain)
    return plain


def helper_names(path: str, text: str) -> frozenset[str]:
    """The names of the asm helpers that take a protocol step in the headers of
    :func:`included_headers`: what a file without asm must name for the protocol flows to
    find a step in it (the prefilter's question, ``prefilter.calls_included_helper``). Only
    a header that spells a step's opcode is extracted for it: asked of CUTLASS ``include/``'s
    742 files without asm, in one process, 13 headers extracted instead of 115 and 0.7 s of
    CPU instead of 2.2 s (each header's includes read once, not once per file reaching it:
    13,630 reads before)."""
    found: set[str] = set()
    for resolved, steps in _reached(path, text):
        header = _read(resolved) if steps else None
        if header is not None:
            found |= header.helpers
    return frozenset(found)
