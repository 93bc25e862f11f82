"""One fix engine behind ``--fix``, ``--diff`` and the editor's quick fixes.

A fix is a list of exact edits and a safety class. Fixes are applied in a fixed order (by where
their first edit starts, then rule id); one that overlaps an edit already taken waits for the
next pass, and passes repeat on the re-linted text until nothing changes, so running ``--fix``
twice changes nothing the second time.

A fix whose result has an error finding the text had not is refused (``_one_pass``): that is
decided here only, and what a fix run refused is marked on the fix (``Fix.refused``, read by
``offers_fix``), so that the counts, the reports and the editor's quick fixes all say it.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections import Counter
from collections.abc import Callable, Sequence

from ptxlint import leftovers
from ptxlint.frontends.statement_problems import unterminated
from ptxlint.model import Edit, Finding, Fix, Severity

# ruff's limit: fixes that overlap go one per pass, and one statement can need many (a PTX105
# move renumbers the whole template, so a wgmma with 16 inputs it writes takes 16 passes)
MAX_PASSES = 100


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class FixOutcome:
    """A text with fixes applied, pass after pass: how many applied, and the findings left."""

    __slots__ = ("text", "applied", "findings", "converged", "refused")

    def __init__(
        self, text: str, applied: int, findings: list[Finding], converged: bool = True,
        refused: Sequence[Fix] = (),
    ) -> None:
        self.text = text
        self.applied = applied  # fixes applied over all passes
        # what remains after the last pass, a fix that pass refused marked (``Fix.refused``)
        self.findings = findings
        # False when fixes still applied after MAX_PASSES: a fix that re-creates its own finding
        # would grow the file on every run, so such a text is never written
        self.converged = converged
        self.refused = tuple(refused)  # the fixes of ``findings`` the last pass refused, marked


def offers_fix(finding: Finding, unsafe: bool = False) -> bool:
    """Whether ``--fix`` (with ``unsafe``: ``--unsafe-fixes``) would take the finding's fix:
    what "N fixable", the ``[*]`` marks and the editor's quick fixes count. A fix the fix run
    refused is shown, with the reason, and not counted."""
    fix = finding.fix
    return (fix is not None and bool(fix.edits) and (fix.safe or unsafe)
            and fix.refused is None and fix_applies(finding))


def fix_applies(finding: Finding) -> bool:
    # A statement without its closing parenthesis has no end to put a clobber or a qualifier
    # against: every run would add the same edit again.
    statement = finding.statement
    return statement is None or not unterminated(statement.problems)


def select_fixes(findings: Sequence[Finding], unsafe: bool) -> list[Fix]:
    return [f.fix for f in findings if f.fix is not None and f.fix.edits
            and (f.fix.safe or unsafe) and fix_applies(f)]


def _errors(findings: Sequence[Finding]) -> Counter[str]:
    return Counter(f.rule for f in findings if f.severity is Severity.ERROR)


def added_errors(before: Sequence[Finding], after: Sequence[Finding]) -> str | None:
    """Why a fix that turned the findings ``before`` into ``after`` is refused: the rules with
    more error findings after it (None: none)."""
    grown = _errors(after)
    grown.subtract(_errors(before))
    rules = sorted(rule for rule, n in grown.items() if n > 0)
    if not rules:
        return None
    names = {f.rule: f.name for f in after if f.rule in grown}
    return "its result has a new error: " + ", ".join(f"{r} ({names[r]})" for r in rules)


def mark_refused(findings: Sequence[Finding], refused: Sequence[Fix]) -> list[Finding]:
    """``findings`` with each fix equal to one of the ``refused`` fixes (same edits: another
    lint of the same text gives equal fixes) replaced by that fix, which says why."""
    if not refused:
        return list(findings)
    reasons = {dataclasses.replace(fix, refused=None): fix for fix in refused}
    out = []
    for finding in findings:
        if finding.fix is not None:
            marked = reasons.get(dataclasses.replace(finding.fix, refused=None))
            if marked is not None:
                finding = dataclasses.replace(finding, fix=marked)
        out.append(finding)
    return out


def refusals(text: str, fixes: Sequence[Fix], findings: list[Finding],
             lint: Callable[[str], list[Finding]]) -> list[str | None]:
    """For each of ``fixes`` (of ``findings``, the lint of ``text``) applied alone, as an
    editor's quick fix applies it: why the fix loop would refuse it (None: it adds no error).
    Applied together first: one lint where none adds an error, as a fix pass assumes."""
    usable = [fix for fix in fixes if fix.edits]
    if not usable:
        return [None] * len(fixes)
    together, count = apply_edits(text, usable)
    if count == len(usable) and added_errors(findings, lint(together)) is None:
        return [None] * len(fixes)
    out: list[str | None] = []
    for fix in fixes:
        trial, taken = apply_edits(text, [fix])
        out.append(None if not taken or trial == text
                   else added_errors(findings, lint(trial)))
    return out


def _order(fix: Fix) -> tuple[int, int, str]:
    first = min(e.span.start for e in fix.edits)
    last = max(e.span.end for e in fix.edits)
    return (first, last, fix.description)


def apply_edits(text: str, fixes: Sequence[Fix]) -> tuple[str, int]:
    """Apply every fix that does not overlap one already taken; returns the text and the count.

    What is taken is marked per character (``_Taken``), so testing a new edit costs its own
    length, whatever was taken before it, and the text is joined once: linear in the text and
    the edits. Testing every taken edit, and rebuilding the text once per edit, made a file of
    thousands of fixes quadratic; a sorted list of the taken edits still moved its tail on each
    insert."""
    taken = _Taken(len(text))
    chosen: list[Edit] = []
    applied = 0
    for fix in sorted(fixes, key=_order):
        edits = sorted(fix.edits, key=lambda e: (e.span.start, e.span.end))
        if any(e.span.end > len(text) for e in edits) or _self_overlap(edits):
            continue
        if any(taken.overlaps(e.span.start, e.span.end) for e in edits):
            continue
        for e in edits:
            taken.take(e.span.start, e.span.end)
        chosen.extend(edits)
        applied += 1
    pieces: list[str] = []
    at = 0
    # Ties (insertions at one point within one fix) in reverse: as applied last to first, the
    # later insertion ends up first.
    for edit in sorted(reversed(chosen), key=lambda e: (e.span.start, e.span.end)):
        pieces += (text[at : edit.span.start], edit.new_text)
        at = edit.span.end
    pieces.append(text[at:])
    return "".join(pieces), applied


class _Taken:
    """The taken edits of one text, which overlap no other (``_overlap``), marked per character:
    ``covered`` under a replaced span, ``starts`` where one begins, ``points`` where an insertion
    is. A new replacement overlaps when a character under it is covered or an insertion lies
    strictly inside it; a new insertion when one is at its point already, or when the characters
    on both sides of it are covered by one replacement (covered, and no replacement starts at
    the point)."""

    __slots__ = ("covered", "points", "starts")

    def __init__(self, size: int) -> None:
        self.covered = bytearray(size + 1)
        self.starts = bytearray(size + 1)
        self.points = bytearray(size + 1)

    def overlaps(self, start: int, end: int) -> bool:
        if start == end:
            return bool(
                self.points[start]
                or start > 0 and self.covered[start - 1] and self.covered[start]
                and not self.starts[start]
            )
        return self.covered.find(1, start, end) >= 0 or self.points.find(1, start + 1, end) >= 0

    def take(self, start: int, end: int) -> None:
        if start == end:
            self.points[start] = 1
        else:
            self.covered[start:end] = b"\x01" * (end - start)
            self.starts[start] = 1


def _overlap(a: Edit, b: Edit) -> bool:
    if a.span.start == a.span.end == b.span.start == b.span.end:
        return True  # two insertions at one point: their order would be arbitrary
    return a.span.start < b.span.end and b.span.start < a.span.end


def _self_overlap(edits: Sequence[Edit]) -> bool:
    return any(edits[i].span.end > edits[i + 1].span.start for i in range(len(edits) - 1))


def refusal_notes(outcome: FixOutcome, after: str = "") -> list[str]:
    """What ``--fix`` and ``--diff`` say of each fix the fix run refused: where it is in the
    fixed text, the rule, and why (``after``: how that text is named)."""
    notes = []
    for finding in outcome.findings:
        fix = finding.fix
        if fix is not None and fix.refused is not None:
            line = outcome.text.count("\n", 0, finding.span.start) + 1
            notes.append(f"not fixed: {finding.rule} at line {line}{after} "
                         f"({fix.description}): {fix.refused}")
    return notes


def fix_text(text: str, lint: Callable[[str], list[Finding]], unsafe: bool = False,
             findings: list[Finding] | None = None) -> FixOutcome:
    """Fix ``text`` to a fixed point; ``lint`` lints a text and returns its findings.
    ``findings``: what ``lint(text)`` gives, where the caller has it already (a lint of a
    large file costs far more than the fixes).

    Each pass is a function of its text alone (no choice carried over from an earlier pass), and
    the run ends at a text whose pass applies nothing: a second run starts from that text, makes
    the same choice, and changes nothing. Text still changing after MAX_PASSES is not converged.
    """
    if findings is None:
        findings = lint(text)
    applied = 0
    for done in range(MAX_PASSES + 1):
        new_text, count, new_findings, refused = _one_pass(text, findings, lint, unsafe)
        if count == 0:
            return FixOutcome(text, applied, mark_refused(findings, refused), refused=refused)
        if done == MAX_PASSES:
            break
        text, applied, findings = new_text, applied + count, new_findings
    return FixOutcome(text, applied, findings, converged=False)


def _one_pass(text: str, findings: list[Finding], lint: Callable[[str], list[Finding]],
              unsafe: bool) -> tuple[str, int, list[Finding], list[Fix]]:
    """Every offered fix at once; when that adds an error finding (an unsafe fix made the code
    worse, or a safe one whose result another rule rejects), the fixes one at a time in their
    order, each kept only when it adds no error to what is kept before it. Returns the new
    text, how many fixes it took, its findings, and the fixes it refused (marked with why)."""
    fixes = select_fixes(findings, unsafe)
    if not fixes:
        return text, 0, findings, []
    new_text, count = apply_edits(text, fixes)
    if count == 0 or new_text == text:
        return text, 0, findings, []
    new_findings = lint(new_text)
    if added_errors(findings, new_findings) is None:
        return new_text, count, new_findings, []
    kept: list[Fix] = []
    refused: list[Fix] = []
    new_text, new_findings = text, findings
    for fix in sorted(fixes, key=_order):
        # always applied to ``text`` itself, with the fixes kept so far: the edits' offsets are
        # that text's (applied to the text a kept fix already grew, they land off by its size)
        trial, taken = apply_edits(text, [*kept, fix])
        if taken != len(kept) + 1 or trial == new_text:
            continue
        trial_findings = lint(trial)
        reason = added_errors(new_findings, trial_findings)
        if reason is None:
            kept.append(fix)
            new_text, new_findings = trial, trial_findings
        else:
            refused.append(dataclasses.replace(fix, refused=reason))
    return new_text, len(kept), new_findings, refused


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


NO_NEWLINE = "\\ No newline at end of file\n"


def _patch_lines(text: str) -> list[str]:
    # patch and git apply split at "\n" only: "\r" stays part of its line (CRLF and CR-only
    # files diff byte for byte), a form feed or U+2028 is no line break
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


_C_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _patch_name(name: str) -> str:
    """A file name as git writes it in a patch header: C-quoted when it holds a quote, a
    backslash, a control character or a byte that is not UTF-8; else as is, with a tab after
    it when it holds a space (GNU patch ends the name at a tab)."""
    raw = name.encode("utf-8", "surrogateescape")
    plain = not any(b < 0x20 or b == 0x7F or b in b'"\\' for b in raw)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        plain = False
    if plain:
        return name + "\t" if " " in name else name
    out = []
    for char in raw.decode("utf-8", "surrogateescape"):
        if char in _C_ESCAPES:
            out.append(_C_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F or 0xDC80 <= ord(char) <= 0xDCFF:
            out.append(f"\\{(ord(char) - 0xDC00 if ord(char) >= 0xDC80 else ord(char)):03o}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def unified_diff(path: str, before: str, after: str) -> str:
    """A patch that ``git apply`` and ``patch -p1`` accept, also for a file without a final
    newline (the ``\\ No newline at end of file`` marker)."""
    import difflib  # only --diff shows patches, and the engine imports this module for every run

    out = []
    for line in difflib.unified_diff(_patch_lines(before), _patch_lines(after),
                                     fromfile=_patch_name("a/" + path),
                                     tofile=_patch_name("b/" + path)):
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n" + NO_NEWLINE)
    return "".join(out)


class WriteRefused(OSError):
    """The file is not written: read-only, or changed since it was read (the message says)."""


def clean_leftovers(folder: str) -> int:
    """Remove the temporary files a killed ``--fix`` left in ``folder`` (``ptxlint.leftovers``)."""
    return leftovers.clean_folder(folder)


def _fsync_folder(folder: str) -> None:
    """Make the rename itself durable (POSIX: a rename lives in the directory)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems do not sync directories
    finally:
        os.close(fd)


def write_atomically(path: str, text: str, *, bom: bool = False,
                     expected: bytes | None = None) -> None:
    """Replace ``path``'s content with ``text``, keeping what the content is not: the mode, the
    owner and group, hard links (a file with several links is rewritten in place, the new
    content first saved beside it), and a symlink stays a link to the file it names.

    WriteRefused when the file is read-only (its owner's write bit is off: even root does not
    fix it) or, given the bytes ``expected`` there (what was read and linted), when the file
    changed since: an editor's save in between is never overwritten."""
    real = os.path.realpath(path)
    folder = os.path.dirname(real)
    info = os.stat(real)
    if not info.st_mode & stat.S_IWUSR:
        raise WriteRefused("read-only: not fixed (make it writable to let --fix change it)")
    clean_leftovers(folder)
    data = (("\ufeff" if bom else "") + text).encode("utf-8")
    if expected is not None:
        with open(real, "rb") as handle:
            if handle.read() != expected:
                raise WriteRefused("changed since ptxlint read it: not fixed (run again)")
    if info.st_nlink > 1:
        _write_in_place(real, data, folder)
        return
    # locked while open: a run that finds it later knows whether its writer is still alive
    out, tmp = leftovers.create(folder)
    try:
        with out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
            os.chmod(tmp, stat.S_IMODE(info.st_mode))
            if (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
                try:
                    os.chown(tmp, info.st_uid, info.st_gid)
                except OSError:
                    # not allowed to give the file its owner back: rewrite it in place instead
                    os.unlink(tmp)
                    _write_in_place(real, data, folder)
                    return
            os.replace(tmp, real)
        _fsync_folder(folder)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _write_in_place(real: str, data: bytes, folder: str) -> None:
    """Overwrite ``real`` itself (its inode: hard links, owner and group stay). The new content
    is first saved and synced beside it (``.ptxlint-NAME-*.bak``, removed afterwards), so a run
    killed half-way loses nothing."""
    import tempfile  # with random: only when a file is written (about 1 ms at start-up)

    base = os.path.basename(real)
    fd, backup = tempfile.mkstemp(prefix=f".ptxlint-{base}-", suffix=".bak", dir=folder)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    with open(real, "r+b") as handle:
        handle.write(data)
        handle.truncate()
        handle.flush()
        os.fsync(handle.fileno())
    os.unlink(backup)
