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
from ptxlint.model import Edit, Finding, has_lone_cr, line_starts
from ptxlint.report.run_result import RunResult
from ptxlint.suppress import SUPPRESSION_RULE
from ptxlint.suppress_edits import suppress_edit

_NEVER = frozenset({SUPPRESSION_RULE, "internal-error", "toolchain-error"})


def add_suppressions(text: str, findings: list[Finding]) -> tuple[str, int]:
    """``text`` with a suppression for each finding; returns the text and how many were added.

    The last statement's finding first: an edit never moves the offsets of an earlier
    statement. Each edit is worked out on a window of the text (``_Backwards``), the lines it
    can read and write, never on the whole text: a copy of the text per finding made a file of
    thousands of findings quadratic (16,000 findings: 7.9 s). O(text + findings x window)."""
    # ids in order within one comment, then the last statement first
    ordered = sorted(findings, key=lambda f: f.rule)
    ordered.sort(key=_anchor, reverse=True)
    if has_lone_cr(text):
        return _one_by_one(text, ordered)
    document = _Backwards(text)
    added = 0
    for finding in ordered:
        start, window = document.window(_anchor(finding))
        edit = suppress_edit(window, finding, base=start)
        if edit is None:
            continue
        document.replace(start, window, edit)
        added += 1
    return document.text(), added


def _anchor(finding: Finding) -> int:
    return finding.statement.span.start if finding.statement else finding.span.start


class _Backwards:
    """A text edited from its end towards its start: the original text up to ``cut``, a line
    start, then what the edits made of the rest, as pieces (string, start, end) in reverse
    order, joined once at the end.

    The statements come last first, and an edit lies at or after the line above its statement's
    first line, so that line's start in the text as edited so far is found from ``cut``: in the
    original before it, or within the few edited lines after it. A window is those two lines,
    read from the original or from the first pieces: O(window) each, never the whole text."""

    def __init__(self, text: str) -> None:
        self.original = text
        self.starts = line_starts(text)
        self.cut = len(text)
        self.pieces: list[tuple[str, int, int]] = []  # after cut, the first one last
        # what the last window read after cut: the pieces, where the last was cut, that text,
        # and how much of its start lies before the window (kept as it is)
        self._read: tuple[int, int, str, int] | None = None

    def window(self, anchor: int) -> tuple[int, str]:
        """(where it starts, the text) of the window for a statement at ``anchor`` (an offset
        of the text as edited so far, as ``suppress_edit`` reads it): from the start of the
        line above the anchor's line through the end of that line, its line break included."""
        starts, cut = self.starts, self.cut
        if anchor < cut:
            self._read = None
            line = bisect_right(starts, anchor)  # 1-based; lines before cut end before it
            start = starts[line - 2] if line >= 2 else 0
            end = starts[line] if line < len(starts) else len(self.original)
            return start, self.original[start:end]
        after, read, split = self._through_line_end(anchor - cut)
        above = after.rfind("\n", 0, anchor - cut)
        if above < 0:  # the anchor's line starts at cut: the line above is the original's
            start = starts[bisect_right(starts, cut - 1) - 1] if cut else 0
            self._read = (read, split, after, 0)
            return start, self.original[start:cut] + after
        keep = after.rfind("\n", 0, above) + 1
        self._read = (read, split, after, keep)
        return cut + keep, after[keep:]

    def _through_line_end(self, need: int) -> tuple[str, int, int]:
        """The text after cut through the line break at or after ``need`` characters (or to
        the end), how many pieces it takes and where the last of them is cut (0: whole)."""
        parts: list[str] = []
        pieces = self.pieces
        k = len(pieces)
        while k:
            k -= 1
            string, a, b = pieces[k]
            newline = string.find("\n", a + max(0, need), b)
            if newline >= 0:
                parts.append(string[a : newline + 1])
                return "".join(parts), len(pieces) - k, newline + 1
            parts.append(string[a:b])
            need -= b - a
        return "".join(parts), len(pieces), 0

    def replace(self, start: int, window: str, edit: Edit) -> None:
        """Put ``window`` (the last one read), with ``edit`` (in its offsets) made, in place of
        the text it was read from."""
        edited = window[: edit.span.start] + edit.new_text + window[edit.span.end :]
        pieces = self.pieces
        if self._read is None:  # a slice of the original: what follows it up to cut stays
            end = start + len(window)
            if end < self.cut:
                pieces.append((self.original, end, self.cut))
            pieces.append((edited, 0, len(edited)))
            self.cut = start
            return
        read, split, after, keep = self._read
        if read:
            string, _, b = pieces[len(pieces) - read]
            del pieces[len(pieces) - read :]
            if split and split < b:
                pieces.append((string, split, b))
        pieces.append((edited, 0, len(edited)))
        if keep:
            pieces.append((after, 0, keep))
        self.cut = min(self.cut, start)

    def text(self) -> str:
        return self.original[: self.cut] + "".join(s[a:b] for s, a, b in reversed(self.pieces))


def _one_by_one(text: str, ordered: list[Finding]) -> tuple[str, int]:
    """``add_suppressions`` for a text with a lone "\r" (a line break there too, where the
    window's "\n" search would not see one): each edit worked out on the whole text."""
    added = 0
    for finding in ordered:
        edit = suppress_edit(text, finding)
        if edit is None:
            continue
        text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
        added += 1
    return text, added


def apply(
    result: RunResult,
) -> tuple[int, int, list[tuple[str, str]], list[tuple[str, str]]]:
    """Add suppressions to the files of ``result``: (suppressions added, files changed, errors,
    notes on the files left alone)."""
    by_path: dict[str, list[Finding]] = defaultdict(list)
    for finding in result.findings:
        if finding.rule not in _NEVER:  # one without a statement: at its line
            by_path[finding.path].append(finding)
    added = changed = 0
    errors: list[tuple[str, str]] = []
    notes: list[tuple[str, str]] = []
    for path, findings in by_path.items():
        source = result.sources.get(path)
        if source is None:
            continue
        if source.decode_errors:  # said, or "Added 0" reads as if it had nothing to suppress
            notes.append((path, f"not changed: the file is not valid UTF-8 ({len(findings)} "
                                f"finding{'s' if len(findings) != 1 else ''} left)"))
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
    return added, changed, errors, notes
