"""What a front end hands the engine for one file: its asm statements, and what it read but did
not lint, with the reason. Every front end (C++, Python, Julia) fills the same record."""

from __future__ import annotations

from typing import NamedTuple

from ptxlint.frontends.syntax_tree import ParsedSource
from ptxlint.model import AsmStatement


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class ExtractionResult:
    """What the extractor read from one file: its asm statements, those it did not lint and why, and
    the macros it expanded or could not."""

    __slots__ = ("statements", "skipped", "parsed", "expanded_macros", "unexpanded_macros",
                 "skipped_invocations", "branch_variants", "left_out")

    def __init__(self) -> None:
        self.statements: list[AsmStatement] = []
        # Statements found but not linted (host asm, unknown dialect), kept for `stats`.
        self.skipped: list[tuple[int, str]] = []  # (offset, reason)
        self.parsed: ParsedSource | None = None
        # asm-bearing macros: expanded here ("path:line" of each #define), and those defined in
        # this file with parameters that no invocation here expanded (offset, name): opaque
        self.expanded_macros: set[str] = set()
        self.unexpanded_macros: list[tuple[int, str]] = []
        self.skipped_invocations: list[tuple[int, str]] = []  # (offset, reason)
        # statements with #if inside are linted once per branch: the readings beyond the first
        self.branch_variants = 0
        # of the statements in ``skipped``, those left out for what their reading found
        # (``statement_problems.left_out``: nvcc rejects what they spell), as read, with their
        # problems: only the rules that need "left-out" are asked about them (ptxlint.engine)
        self.left_out: list[AsmStatement] = []

    def copy(self) -> ExtractionResult:
        """A result of its own lists and sets, sharing the statements and the tree."""
        other = ExtractionResult()
        other.statements = list(self.statements)
        other.skipped = list(self.skipped)
        other.parsed = self.parsed
        other.expanded_macros = set(self.expanded_macros)
        other.unexpanded_macros = list(self.unexpanded_macros)
        other.skipped_invocations = list(self.skipped_invocations)
        other.branch_variants = self.branch_variants
        other.left_out = list(self.left_out)
        return other


class Share(NamedTuple):
    """Part of a file's statements, for a file linted in parts (``ptxlint.run``): those whose
    asm keyword starts in ``[start, end)``, and, for the last part (``end`` None), the file's
    macro invocations too. The parts of a file, in order, read exactly the statements a
    whole-file extraction reads, in its order (its keywords' statements in text order, then
    the expansions)."""

    start: int = 0
    end: int | None = None

    def holds(self, offset: int) -> bool:
        return self.start <= offset and (self.end is None or offset < self.end)


WHOLE = Share()  # every statement of the file
