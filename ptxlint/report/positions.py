"""Line/column conversion of findings and edits, shared by the formatters."""

from __future__ import annotations

from ptxlint.model import SourceFile, Span, line_col_in


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class Range:
    """A span as reports show it: 1-based lines and columns, the end column exclusive."""

    __slots__ = ("line", "column", "end_line", "end_column")

    def __init__(self, line: int, column: int, end_line: int, end_column: int) -> None:
        self.line = line
        self.column = column
        self.end_line = end_line
        self.end_column = end_column  # exclusive: the column just after the last character


def to_range(source: SourceFile | None, span: Span) -> Range:
    return Range(*span_position(source, span))


def span_position(source: SourceFile | None, span: Span) -> tuple[int, int, int, int]:
    """``to_range``'s line, column, end line and end column, each end placed as
    ``SourceFile.line_col`` places an offset (``line_col_in``), the text and its line index
    read once for both and no ``LineCol`` or ``Range`` object made: a report reads the four
    numbers of every finding and edit (the CUDA 13 headers' JSON report, 1,908 spans: 9.5 ->
    6.7-6.8 ms of CPU for its findings' entries)."""
    if source is None:
        return 1, 1, 1, 1
    text, starts = source.indexed()
    return (*line_col_in(text, starts, span.start), *line_col_in(text, starts, span.end))
