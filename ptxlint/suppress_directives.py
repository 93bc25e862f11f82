"""The suppression comments of one file (``ptxlint: ignore[...]``), as ``ptxlint.suppress``
reads them. Apart from it because a file without the word ``ptxlint`` in it, nearly every one,
never needs them: three data classes fewer at every start (about 0.8 ms of CPU).
``ptxlint.suppress.Directive`` (and ``Code``, ``Region``) still names them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ptxlint.model import Span


@dataclass
class Code:
    """One rule id or name in a suppression's brackets, and whether it suppressed anything."""

    text: str
    span: Span  # in the source
    used: bool = False


@dataclass
class Directive:
    """One ``ptxlint: ignore`` comment: the line or file it applies to, its codes, and whether it
    suppressed anything (PTX901 reports it when not)."""

    line: int
    file_level: bool
    trailing: bool
    span: Span  # the directive text, from the comment opener to ``]`` or ``ignore``
    comment_span: Span  # what deleting the whole directive removes
    codes: list[Code] | None  # None: every rule
    target: int = 0  # the line it applies to (0 for file-level)
    used: bool = False
    codes_span: Span | None = None  # inside the brackets
    kind: str = "ignore"  # ignore | ignore-file | ignore-begin | ignore-end


@dataclass
class Region:
    """An ``ignore-begin`` and the ``ignore-end`` that closes it: the lines they cover."""

    begin: Directive
    end: Directive

    @property
    def first(self) -> int:
        return self.begin.line

    @property
    def last(self) -> int:
        return self.end.line
