"""One fix engine behind ``--fix``, ``--diff`` and the editor's quick fixes.

A fix is a list of exact edits and a safety class. Fixes are applied in a fixed order (by where
their first edit starts, then rule id); one that overlaps an edit already taken waits for the
next pass, and passes repeat on the re-linted text until nothing changes, so running ``--fix``
twice changes nothing the second time.
"""

from __future__ import annotations

import difflib
import os
import stat
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ptxlint.model import Edit, Finding, Fix

MAX_PASSES = 8


@dataclass(frozen=True)
class FixOutcome:
    text: str
    applied: int  # fixes applied over all passes
    findings: list[Finding]  # what remains after the last pass


def select_fixes(findings: Sequence[Finding], unsafe: bool) -> list[Fix]:
    return [f.fix for f in findings if f.fix is not None and f.fix.edits and (f.fix.safe or unsafe)]


def _order(fix: Fix) -> tuple[int, int, str]:
    first = min(e.span.start for e in fix.edits)
    last = max(e.span.end for e in fix.edits)
    return (first, last, fix.description)


def apply_edits(text: str, fixes: Sequence[Fix]) -> tuple[str, int]:
    """Apply every fix that does not overlap one already taken; returns the text and the count."""
    taken: list[Edit] = []
    applied = 0
    for fix in sorted(fixes, key=_order):
        edits = sorted(fix.edits, key=lambda e: (e.span.start, e.span.end))
        if any(_overlap(e, t) for e in edits for t in taken) or _self_overlap(edits):
            continue
        if any(e.span.end > len(text) for e in edits):
            continue
        taken.extend(edits)
        applied += 1
    for edit in sorted(taken, key=lambda e: (e.span.start, e.span.end), reverse=True):
        text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    return text, applied


def _overlap(a: Edit, b: Edit) -> bool:
    if a.span.start == a.span.end == b.span.start == b.span.end:
        return True  # two insertions at one point: their order would be arbitrary
    return a.span.start < b.span.end and b.span.start < a.span.end


def _self_overlap(edits: Sequence[Edit]) -> bool:
    return any(edits[i].span.end > edits[i + 1].span.start for i in range(len(edits) - 1))


def fix_text(text: str, lint: Callable[[str], list[Finding]], unsafe: bool = False) -> FixOutcome:
    """Fix ``text`` to a fixed point; ``lint`` lints a text and returns its findings."""
    findings = lint(text)
    applied = 0
    for _ in range(MAX_PASSES):
        fixes = select_fixes(findings, unsafe)
        if not fixes:
            break
        new_text, count = apply_edits(text, fixes)
        if count == 0 or new_text == text:
            break
        text, applied = new_text, applied + count
        findings = lint(text)
    return FixOutcome(text, applied, findings)


def resolved(before: Sequence[Finding], after: Sequence[Finding]) -> dict[str, int]:
    """Findings that fixing made go away, per rule: what "N fixable", "Would fix N" and
    "Fixed N" all count (findings, not edits: one edit may resolve two findings)."""
    counts: dict[str, int] = {}
    for finding in before:
        counts[finding.rule] = counts.get(finding.rule, 0) + 1
    for finding in after:
        if finding.rule in counts:
            counts[finding.rule] -= 1
    return {rule: n for rule, n in sorted(counts.items()) if n > 0}


def unified_diff(path: str, before: str, after: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True),
            after.splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
    )


def write_atomically(path: str, text: str, *, bom: bool = False) -> None:
    """Replace ``path`` with ``text``: a temp file in the same folder, then a rename, mode kept."""
    folder = os.path.dirname(os.path.abspath(path))
    mode = stat.S_IMODE(os.stat(path).st_mode)
    fd, tmp = tempfile.mkstemp(prefix=".ptxlint-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            if bom:
                handle.write("\ufeff")
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, os.path.realpath(path))
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
