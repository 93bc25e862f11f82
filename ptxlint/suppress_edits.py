"""Edits that add a ``// ptxlint: ignore[ID]`` for a finding: the editor's "suppress" quick fix
and ``ptxlint check --add-noqa`` share them."""

from __future__ import annotations

from ptxlint.model import Edit, Finding, SourceFile, Span
from ptxlint.suppress import DIRECTIVE


def suppress_edit(
    text: str, finding: Finding, source: SourceFile | None = None, base: int = 0
) -> Edit | None:
    """An edit adding ``finding.rule`` to a ``// ptxlint: ignore[...]`` for its statement.

    The comment belongs at the end of the statement's first line (``is_suppressed`` looks at
    that line and at the finding's own). Where one is already there or on a line of its own just
    above, the id joins its list. Where the first line ends inside a string literal (a raw
    string or a backslash-continued literal), a comment there would become template text, so
    the comment goes on a new line above; inside a ``#define`` (a line ending in ``\\``) it is a
    ``/* */`` comment that keeps the continuation.

    ``source``: ``text`` as a ``SourceFile`` whose line starts the caller already holds (one
    built here costs a pass over the whole text). ``base``: where ``text`` starts in the text
    the finding's offsets are in (``text`` a window of it, at least the statement's first line
    and the line above, from a line start); the edit is in ``text``'s own offsets.
    """
    if source is None or source.text is not text:
        source = SourceFile("", text)
    anchor = (finding.statement.span.start if finding.statement else finding.span.start) - base
    line = source.line_col(anchor).line
    code = finding.rule
    for candidate in (line, line - 1):
        existing = _existing_directive(source, candidate, own_line=candidate != line)
        if existing is None:
            continue
        codes, end_of_codes = existing
        if code in codes:
            return None  # suppressed already (another finding of the rule on this statement)
        separator = ", " if codes else ""
        return Edit(Span(end_of_codes, end_of_codes), f"{separator}{code}")
    start = source.line_starts[line - 1]
    content = source.line_text(line)
    end = start + len(content.rstrip())
    if finding.statement is not None and finding.statement.syntax == "llvm":
        # Python: a line of its own above the call (its first line may end inside a string)
        indent = content[: len(content) - len(content.lstrip())]
        return Edit(Span(start, start), f"{indent}# ptxlint: ignore[{code}]{_break(source, line)}")
    if finding.statement is not None and _inside_literal(finding, base + start + len(content)):
        indent = content[: len(content) - len(content.lstrip())]
        above = source.line_text(line - 1) if line > 1 else ""
        newline = _break(source, line)
        if above.rstrip().endswith("\\"):
            comment = f"{indent}/* ptxlint: ignore[{code}] */ \\{newline}"
        else:
            comment = f"{indent}// ptxlint: ignore[{code}]{newline}"
        return Edit(Span(start, start), comment)
    if content.rstrip().endswith("\\"):
        backslash = end - 1
        return Edit(Span(backslash, backslash), f"/* ptxlint: ignore[{code}] */ ")
    return Edit(Span(end, end), f"  // ptxlint: ignore[{code}]")


def _break(source: SourceFile, line: int) -> str:
    """The line break ending ``line`` (the one above's for the last line, else LF): a line put
    above it ends the same way, so that a CRLF file stays CRLF."""
    starts = source.line_starts
    if line >= len(starts):
        return _break(source, line - 1) if line > 1 else "\n"
    content = source.text[starts[line - 1] : starts[line]]
    return content[len(content.rstrip("\r\n")) :] or "\n"


def _existing_directive(
    source: SourceFile, line: int, own_line: bool
) -> tuple[frozenset[str], int] | None:
    """The ids of the ``ignore[...]`` directive on ``line`` that covers the statement, and
    where its list ends; None where there is none (or, ``own_line``, the comment ends a line of
    code: it suppresses that line's code, not ours)."""
    if line < 1:
        return None
    content = source.line_text(line)
    match = DIRECTIVE().search(content)
    if match is None or match.group("codes") is None or match.group("kind").lower() != "ignore":
        return None
    if own_line and content[: match.start()].strip():
        return None
    codes = match.group("codes")
    start = source.line_starts[line - 1]
    listed = frozenset(c.strip() for c in codes.split(",") if c.strip())
    return listed, start + match.start("codes") + len(codes.rstrip())


def _inside_literal(finding: Finding, offset: int) -> bool:
    statement = finding.statement
    assert statement is not None
    return any(
        piece.kind != "macro" and piece.span.start < offset < piece.span.end
        for piece in statement.template.pieces
    )
