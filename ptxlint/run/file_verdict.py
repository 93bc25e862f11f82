"""A file's entry in the file index (``file_index``): the prefilter's verdict on its bytes, and
the headers that verdict and a result of the file depend on (``include_graph``)."""

from __future__ import annotations

import os

from ptxlint.frontends.cxx import companion, headers
from ptxlint.run import file_index, include_graph, prefilter
from ptxlint.run.discover import decode_source, is_valid_utf8
from ptxlint.run.file_index import CALLS_HELPERS, MAY_HOLD_ASM, NO_ASM, NO_HELPERS, FileIndex


def judge(path: str, data: bytes, helpers: bool = False,
           ) -> tuple[int, tuple[tuple[str, ...], tuple[str, ...]] | None]:
    """The prefilter's verdict on ``data`` (``helpers``: whether it names an asm helper of an
    included header too, where it has no asm), and the headers that verdict and a result of
    the file depend on (None: none; a C++ file's macro table reads its include closure)."""
    cxx = prefilter.keywords_for(path) is prefilter.CXX_KEYWORDS
    # the includes the file's macro table and the prefilter's question read alike
    names: list[str] | None = None
    if prefilter.has_keyword(path, data):
        verdict = MAY_HOLD_ASM
    elif prefilter.needs_include_check(path, data):
        names = headers.include_names(decode_source(data)[0])
        uses = prefilter.uses_included_asm_macro(path, data, names)
        verdict = MAY_HOLD_ASM if uses else NO_ASM
        if not uses and helpers:
            calls = prefilter.calls_included_helper(path, data)
            verdict = CALLS_HELPERS if calls else NO_HELPERS
    else:
        return NO_ASM, None
    if not cxx:
        return verdict, None
    if names is None:
        names = headers.include_names(decode_source(data)[0])
    other = companion.companion_name(path)  # a header's second half reads its macros too
    if other is not None:
        names = [*names, other]
    return verdict, include_graph.of_file(path, names)


def record_of(
    index: FileIndex, where: str, path: str, data: bytes, digest: bytes,
    st: os.stat_result | None, helpers: bool = False,
) -> file_index.Record:
    """Index what ``data`` says: the prefilter's verdict and the headers it and a result depend
    on; taken over from the last record when only the stat moved (a touch, a checkout) and
    those headers are unchanged, and it answers what this run asks (``helpers``)."""
    prior = index.prior(where, digest)
    if prior is not None and index.deps_valid(prior) and not (helpers and prior[2] == NO_ASM):
        deps = None if prior[4] is None else (prior[4], prior[5])
        return index.put(where, st, digest, prior[2], prior[3], deps, prior[6])
    verdict, deps = judge(path, data, helpers)
    return index.put(where, st, digest, verdict, not is_valid_utf8(data), deps)
