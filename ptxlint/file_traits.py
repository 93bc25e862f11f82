"""What a rule may know of its file beyond its statement: the few facts of the path and of the
whole text that built-in rules read. A rule the engine memoises (``Rule.pure``) reads its file
only through this module, because ``traits`` is part of the memo's key (ptxlint.rule_memo): a
statement linted before in another file replays that file's outcome only where these agree."""

from __future__ import annotations

import os
import re

from ptxlint.analysis.include_guard import include_guard as _include_guard
from ptxlint.model import SourceFile
from ptxlint.ptx.targets import Target, excluded_by_errors

_CUDA_FILE = re.compile(r"\.(?:cu|cuh)\Z", re.IGNORECASE)


def cuda_file(source: SourceFile) -> bool:
    """A CUDA source by its name (``.cu``, ``.cuh``): its asm is device code."""
    return _CUDA_FILE.search(source.path) is not None


def clang_cuda_header(source: SourceFile) -> bool:
    """One of clang's own CUDA headers (``__clang_cuda_*.h``), which nvcc never includes."""
    return os.path.basename(source.path).startswith("__clang_cuda_")


def spells_volatile_underscores(source: SourceFile) -> bool:
    """The file writes ``__volatile__`` somewhere (a fix then spells the qualifier so)."""
    return "__volatile__" in source.text


def excluded_targets(source: SourceFile) -> frozenset[Target]:
    """Targets for which the file stops with ``#error`` (ptxlint.ptx.targets)."""
    return excluded_by_errors(source)


def include_guard(source: SourceFile) -> str | None:
    """The macro of the file's classic include guard (``#ifndef X_H`` / ``#define X_H`` around
    all of its code), whose condition binds nothing (ptxlint.analysis.include_guard)."""
    return _include_guard(source.text)


def traits(source: SourceFile) -> tuple[object, ...]:
    """Every fact above, for the memo's key: once per file."""
    return (
        cuda_file(source),
        clang_cuda_header(source),
        spells_volatile_underscores(source),
        excluded_targets(source),
        include_guard(source),
    )
