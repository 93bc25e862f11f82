"""What a rule may know of its file beyond its statement: the few facts of the path and of the
whole text that built-in rules read. A rule the engine memoises (``Rule.pure``) reads its file
only through this module, because ``traits`` is part of the memo's key (ptxlint.rule_memo): a
statement linted before in another file replays that file's outcome only where these agree."""

from __future__ import annotations

import os
import re
from functools import lru_cache

from ptxlint import file_memos
from ptxlint.analysis.include_guard import include_guard as _include_guard
from ptxlint.lazy_regex import on_first_use
from ptxlint.model import SourceFile
from ptxlint.ptx.targets import Target, excluded_by_errors
from ptxlint.ptx.versions import CudaVersion, cmake_toolkit_gate

_CUDA_FILE = re.compile(r"\.(?:cu|cuh)(?:\.inc)?\Z", re.IGNORECASE)


def cuda_file(source: SourceFile) -> bool:
    """A CUDA source by its name (``.cu``, ``.cuh``, or a fragment of one: ``.cu.inc``): its asm
    is device code."""
    return _CUDA_FILE.search(source.path) is not None


# clang spells CUDA's execution spaces as attributes (`__attribute__((device))`); nvcc's own
# headers spell them `__location__(device)`, and nvcc and NVRTC define `__device__` themselves.
# A file that defines `__device__` as clang's attribute replaces CUDA's headers for a bare clang
# (Warp's cuda_crt.h, included under `#if defined(__clang__)`): nvcc never compiles it.
_CLANG_DEVICE = on_first_use(
    r"#[ \t]*define[ \t]+__device__[ \t]+__attribute__[ \t]*\(\([ \t]*device\b"
)
_CLANG_SOURCES: dict[int, tuple[SourceFile, bool]] = {}
file_memos.register(_CLANG_SOURCES.clear)  # a batch run lets go of each file after it


def clang_cuda_header(source: SourceFile) -> bool:
    """A CUDA header written for clang, which nvcc never includes: one of clang's own
    (``__clang_cuda_*.h``), or one that defines ``__device__`` as clang's attribute."""
    if os.path.basename(source.path).startswith("__clang_cuda_"):
        return True
    known = _CLANG_SOURCES.get(id(source))
    if known is not None and known[0] is source:
        return known[1]
    answer = "__attribute__" in source.text and _CLANG_DEVICE().search(source.text) is not None
    if len(_CLANG_SOURCES) > 64:
        _CLANG_SOURCES.clear()
    _CLANG_SOURCES[id(source)] = (source, answer)
    return answer


def spells_volatile_underscores(source: SourceFile) -> bool:
    """The file writes ``__volatile__`` somewhere (a fix then spells the qualifier so). Kept
    for the last file: PTX101's fix asks for each finding (266 searches of their files' text
    over the CUDA headers)."""
    for last in _VOLATILE[:1]:  # one read (threads share it): the entry, or none
        if last[0] is source:
            return last[1]
    answer = "__volatile__" in source.text
    _VOLATILE[:] = [(source, answer)]
    return answer


_VOLATILE: list[tuple[SourceFile, bool]] = []
file_memos.register(_VOLATILE.clear)


def excluded_targets(source: SourceFile) -> frozenset[Target]:
    """Targets for which the file stops with ``#error`` (ptxlint.ptx.targets)."""
    return excluded_by_errors(source)


def include_guard(source: SourceFile) -> str | None:
    """The macro of the file's classic include guard (``#ifndef X_H`` / ``#define X_H`` around
    all of its code), whose condition binds nothing (ptxlint.analysis.include_guard)."""
    return _include_guard(source.text)


def toolkit_gate(source: SourceFile) -> tuple[CudaVersion, str] | None:
    """The newest toolkit gate of the CMakeLists.txt files in the file's folder and the folders
    above it (``versions.cmake_toolkit_gate``: the whole file under ``if(CUDA_VERSION
    VERSION_GREATER_EQUAL X)``), with that CMakeLists.txt's path relative to the file's folder:
    an older toolkit builds nothing there. ``None`` where no folder is gated. Kept for the last
    file: PTX403 asks for each statement, and each ask made the path absolute (a ``getcwd``
    where it is relative) to look its folder up (the CUDA 13 headers' 3,746 statements,
    PTX403's check with its facts worked out, paths relative as a run gives them: 55.8 -> 43.8
    ms, best of 6)."""
    for last in _GATE[:1]:  # one read (threads share it): the entry, or none
        if last[0] is source:
            return last[1]
    answer = toolkit_gate_at(source.path)
    _GATE[:] = [(source, answer)]
    return answer


_GATE: list[tuple[SourceFile, tuple[CudaVersion, str] | None]] = []
file_memos.register(_GATE.clear)


def toolkit_gate_at(path: str) -> tuple[CudaVersion, str] | None:
    """``toolkit_gate`` of the file at ``path``: what a cached result's key holds, since the
    gate is read from files other than the source and its headers."""
    return _folder_gate(os.path.dirname(os.path.abspath(path)))


def forget_toolkit_gates() -> None:
    """Read the CMakeLists.txt files again from now on: a run, or a language server told that
    one changed, sees them as they are."""
    _folder_gate.cache_clear()
    _GATE.clear()


@lru_cache(maxsize=4096)
def _folder_gate(folder: str) -> tuple[CudaVersion, str] | None:
    parent = os.path.dirname(folder)
    above = _folder_gate(parent) if parent != folder else None
    if above is not None:
        above = (above[0], os.path.join("..", above[1]))
    own = None
    cmake = os.path.join(folder, "CMakeLists.txt")
    # a stat first: most folders have none, and a warm run opens no file it need not read
    if os.path.isfile(cmake):
        try:
            with open(cmake, encoding="utf-8", errors="replace") as handle:
                own = cmake_toolkit_gate(handle.read(1 << 20))
        except OSError:
            pass
    if own is not None and (above is None or own > above[0]):
        return own, "CMakeLists.txt"
    return above


def traits(source: SourceFile) -> tuple[object, ...]:
    """Every fact above, for the memo's key: once per file."""
    return (
        cuda_file(source),
        clang_cuda_header(source),
        spells_volatile_underscores(source),
        excluded_targets(source),
        include_guard(source),
        toolkit_gate(source),
    )
