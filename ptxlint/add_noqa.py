"""``ptxlint check --add-noqa``: write a ``// ptxlint: ignore[ID]`` for every current finding.

For adopting ptxlint on a large code base: the existing findings are suppressed where they are,
so that CI gates only new ones, and each can be revisited later (PTX901 reports those that stop
suppressing anything). The comment goes where the editor's "suppress" quick fix puts it: at the
end of the statement's first line, merged into a directive already there. Files that are not
valid UTF-8 are left alone, like ``--fix`` leaves them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict

from ptxlint.fix import write_atomically
from ptxlint.model import Edit, Finding, SourceFile, line_starts
from ptxlint.report.run_result import RunResult
from ptxlint.suppress import SUPPRESSION_RULE
from ptxlint.suppress_edits import suppress_edit

_NEVER = frozenset({SUPPRESSION_RULE, "internal-error", "toolchain-error"})


def add_suppressions(text: str, findings: list[Finding]) -> tuple[str, int]:
    """``text`` with a suppression for each finding; returns the text and how many were added.

    The line starts are carried from one edit to the next (those before the edit kept, those
    after it shifted): finding them anew for each finding made a file of thousands of findings
    quadratic (4,000 statements: 1.85 s)."""
    added = 0
    # Last statement first: an edit never moves the offsets of an earlier statement.
    ordered = sorted(findings, key=lambda f: f.rule)  # ids in order within one comment
    ordered.sort(key=lambda f: f.statement.span.start if f.statement else f.span.start,
                 reverse=True)
    starts = line_starts(text)
    for finding in ordered:
        source = SourceFile("", text)
        vars(source)["line_starts"] = starts  # what its cached property would compute
        edit = suppress_edit(text, finding, source)
        if edit is None:
            continue
        text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
        starts = _moved_line_starts(starts, text, edit)
        added += 1
    return text, added


def _moved_line_starts(starts: list[int], text: str, edit: Edit) -> list[int]:
    """``line_starts(text)`` for ``text``, the result of ``edit``, from ``starts``, the line starts
    before it: a line starts after each line break, so those whose break lies before the edit
    stay, those whose break it replaced go, its own breaks add theirs, and the rest move by
    its length change. Text with a carriage return is read again whole (a "\r" just before
    the edit could pair with an inserted "\n")."""
    if "\r" in text or "\r" in edit.new_text:
        return line_starts(text)
    a, b = edit.span.start, edit.span.end
    delta = len(edit.new_text) - (b - a)
    kept = bisect_right(starts, a)  # starts s <= a: their break, at s - 1, is before the edit
    after = bisect_right(starts, b)  # starts s > b: their break is after the edit
    inserted = [a + i + 1 for i, c in enumerate(edit.new_text) if c == "\n"]
    return starts[:kept] + inserted + [s + delta for s in starts[after:]]


def apply(result: RunResult) -> tuple[int, int, list[tuple[str, str]]]:
    """Add suppressions to the files of ``result``: (suppressions added, files changed, errors)."""
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for finding in result.findings:
        if finding.rule not in _NEVER and finding.statement is not None:
            by_path[finding.path].append(finding)
    added = changed = 0
    errors: list[tuple[str, str]] = []
    for path, findings in by_path.items():
        source = result.sources.get(path)
        if source is None or source.decode_errors:
            continue
        text, count = add_suppressions(source.text, findings)
        if not count or text == source.text:
            continue
        try:
            with open(path, "rb") as handle:
                bom = handle.read(3) == b"\xef\xbb\xbf"
            write_atomically(path, text, bom=bom)
        except OSError as exc:
            errors.append((path, f"could not add suppressions: {exc.strerror or exc}"))
            continue
        added += count
        changed += 1
    return added, changed, errors
