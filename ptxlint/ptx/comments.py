"""A template's comments found and blanked out, for the parser (:mod:`ptxlint.ptx.parser`):
``//`` to the end of the line and ``/* ... */``, and the ``#`` lines PTX does not have."""

from __future__ import annotations

import re

from ptxlint.lazy_regex import on_first_use

_COMMENT_START = on_first_use(r"//|/\*")
# A '#' where a statement would start: the first thing on its line, or after a ';', '{' or '}'
# (Python's and the shell's comment, a C preprocessor line). PTX has neither: ptxas 13.0 stops
# there ("Parsing error near '#': syntax error"), '#line' included. Read to the end of its line
# as the comment it was meant to be, so that what follows parses as written and the '#' is the
# one defect reported (PTX204), not a ';' missing before the next line's instruction.
_HASH_LINE = on_first_use(r"(?:^|(?<=[;{}]))[ \t]*(#[^\n]*)", re.M)

# (message, start, end, kind) of a problem, as ``PtxProblem`` takes them
Problem = tuple[str, int, int, str]


def mask_comments(text: str) -> tuple[str | None, list[tuple[int, int]], list[Problem]]:
    """``text`` with its comments blanked to spaces (same length and offsets; ``None`` where
    it has none), the comments' (start, end) in text order, and the problems: an unterminated
    ``/*`` (it runs to the end of the text) and each ``#`` line."""
    comments: list[tuple[int, int]] = []
    problems: list[Problem] = []
    masked = _mask(text, _slash_comments(text, comments, problems), text)
    if "#" in masked:
        hashes: list[tuple[int, int]] = []
        for m in _HASH_LINE().finditer(masked):
            start, end = m.span(1)
            hashes.append((start, end))
            problems.append(("'#' starts no PTX comment", start, end, "hash-comment"))
        if hashes:
            masked = _mask(masked, hashes, masked)
            comments = sorted(comments + hashes)
    return (masked if comments else None), comments, problems


def _slash_comments(
    text: str, comments: list[tuple[int, int]], problems: list[Problem]
) -> list[tuple[int, int]]:
    """The ``//`` and ``/* */`` comments of ``text``, appended to ``comments`` and returned."""
    if "/" not in text:
        return comments
    n = len(text)
    m = _COMMENT_START().search(text)
    while m is not None:
        start = m.start()
        if m.group() == "//":
            end = text.find("\n", start)
            if end == -1:
                end = n
        else:
            end = text.find("*/", start + 2)
            if end == -1:
                end = n
                problems.append(("unterminated '/*' comment", start, end, "syntax"))
            else:
                end += 2
        comments.append((start, end))
        m = _COMMENT_START().search(text, end)
    return comments


def _mask(text: str, spans: list[tuple[int, int]], unchanged: str) -> str:
    """``text`` with each span blanked to spaces; ``unchanged`` itself where there is none."""
    if not spans:
        return unchanged
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        pieces.append(text[last:start])
        pieces.append(" " * (end - start))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)
