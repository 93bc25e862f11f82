"""Line/column conversion of findings and edits, shared by the formatters."""

from __future__ import annotations

from dataclasses import dataclass

from ptxlint.model import SourceFile, Span


@dataclass(frozen=True)
class Range:
    """A span as reports show it: 1-based lines and columns, the end column exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int  # exclusive: the column just after the last character


def to_range(source: SourceFile | None, span: Span) -> Range:
    if source is None:
        return Range(1, 1, 1, 1)
    start = source.line_col(span.start)
    end = source.line_col(span.end)
    return Range(start.line, start.column, end.line, end.column)
