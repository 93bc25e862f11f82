"""Inline suppressions: ``// ptxlint: ignore[PTX101, missing-volatile]`` or ``// ptxlint: ignore``.

A suppression applies to findings on its own line and on the line below, so it can sit at the end
of the statement's first line or on a line of its own above the statement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ptxlint.model import Finding, SourceFile

DIRECTIVE = re.compile(r"(?://|/\*)\s*ptxlint:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.I)


@dataclass(frozen=True)
class Suppression:
    line: int
    codes: frozenset[str] | None  # None: every rule


def suppressions(source: SourceFile) -> dict[int, list[Suppression]]:
    """Suppressions by the lines they cover."""
    covered: dict[int, list[Suppression]] = {}
    if "ptxlint" not in source.text:
        return covered
    for m in DIRECTIVE.finditer(source.text):
        line = source.line_col(m.start()).line
        codes = None
        if m.group("codes") is not None:
            codes = frozenset(c.strip() for c in m.group("codes").split(",") if c.strip())
        s = Suppression(line, codes)
        for target in (line, line + 1):
            covered.setdefault(target, []).append(s)
    return covered


def is_suppressed(
    finding: Finding, source: SourceFile, table: dict[int, list[Suppression]]
) -> bool:
    if not table:
        return False
    lines = {source.line_col(finding.span.start).line}
    if finding.statement is not None:
        lines.add(finding.statement.line)
    for line in lines:
        for s in table.get(line, ()):
            if s.codes is None or finding.rule in s.codes or finding.name in s.codes:
                return True
    return False
