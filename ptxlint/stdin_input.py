"""``ptxlint check - --stdin-filename kernels/k.cu``: lint standard input (editors, scripts).

The file name decides which configuration and per-file ignores apply and is the path findings
carry; nothing is read from or written to it. With ``--fix`` the fixed text goes to standard
output and the report to standard error (as ruff does), so ``ptxlint check --fix - <a >b`` is a
filter; with ``--diff`` the diff goes to standard output. Exit codes are those of a file run.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import BinaryIO, TextIO

from ptxlint.config import RuleSelector
from ptxlint.model import SourceFile
from ptxlint.report.run_result import RunResult
from ptxlint.rule import Rule, RuleContext
from ptxlint.run.discover import (
    _UTF8_BOM,
    BINARY_SNIFF_BYTES,
    PIPE_HARD_LIMIT,
    REASON_BINARY,
    decode_source,
    too_large,
)

STDIN = "-"
DEFAULT_NAME = "stdin.cu"


class TooLarge(Exception):
    """Standard input holds more than ``max-file-size`` bytes: the message says so."""


class Binary(Exception):
    """Standard input has a NUL byte near its start: skipped, as such a file is."""

    def __init__(self, message: str, data: bytes = b"") -> None:
        super().__init__(message)
        self.data = data  # what was read: a filter (``--fix -``) gives it back unchanged


def read_stdin(stream: TextIO | None = None, max_size: int = 0) -> tuple[str, bool]:
    """``read_stdin_bytes`` decoded."""
    return decode_source(read_stdin_bytes(stream, max_size))


def read_stdin_bytes(stream: TextIO | None = None, max_size: int = 0) -> bytes:
    """Standard input decoded like a file (UTF-8, BOM dropped, bad bytes replaced). At most
    one byte more than ``max_size`` (``max-file-size``; 0: no limit, and then a pipe's hard
    limit, as for a pipe named on the command line) is read, and input longer than that
    raises ``TooLarge``, as a file over the limit is refused (``ptxlint check - < /dev/zero``
    read until MemoryError); input with a NUL byte in its first bytes raises ``Binary``, as
    such a file is skipped (tree-sitter took minutes and gigabytes over 16 MiB of random
    bytes)."""
    limit = max_size if max_size > 0 else PIPE_HARD_LIMIT
    stream = stream or sys.stdin
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        data = _read_at_most(buffer, limit + 1)
        if len(data) > limit:
            raise TooLarge(too_large(limit))
        if b"\0" in data[:BINARY_SNIFF_BYTES]:
            raise Binary(REASON_BINARY, data)
        return data
    data = stream.read(limit + 1).encode("utf-8", "surrogatepass")
    if len(data) > limit:
        raise TooLarge(too_large(limit))
    return data


def filter_output(data: bytes, text: str, fixed_text: str) -> bytes:
    """What ``--fix -`` writes to standard output: the input's own bytes where nothing was
    fixed (a file that is not UTF-8 keeps its bytes, where the text has U+FFFD for them), the
    fixed text with the input's BOM otherwise (as ``--fix`` keeps a file's BOM)."""
    if fixed_text == text:
        return data
    return (_UTF8_BOM if data.startswith(_UTF8_BOM) else b"") + fixed_text.encode("utf-8")


def _read_at_most(buffer: BinaryIO, limit: int) -> bytes:
    """Up to ``limit`` bytes: a pipe's ``read(n)`` may return fewer before its end."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = buffer.read(limit - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def lint_stdin(
    text: str,
    decode_errors: bool,
    filename: str,
    selector: RuleSelector,
    rule_classes: Sequence[type[Rule]],
    context: RuleContext,
    fix_mode: str | None = None,
    unsafe_fixes: bool = False,
) -> tuple[RunResult, str]:
    """The run's result for one in-memory file, and its text after fixes (unchanged without)."""
    # the engine loads here, not with this module: the CLI imports it for STDIN on every run
    from ptxlint.engine import instantiate, lint_source
    from ptxlint.fix import fix_text, mark_refused, refusal_notes, resolved, unified_diff
    from ptxlint.frontends.cxx.guards import unread_note

    rules = instantiate(rule_classes)
    source = SourceFile(filename, text, decode_errors)
    linted = lint_source(source, rules, context, selector)
    result = RunResult(files=1, seconds=linted.seconds)
    fixed_text = text
    findings = linted.findings
    if fix_mode and not decode_errors and any(f.fix for f in linted.findings):
        def relint(new_text: str) -> list:
            return lint_source(SourceFile(filename, new_text), rules, context, selector).findings

        fixed = fix_text(text, relint, unsafe_fixes)
        fixed_text = fixed.text
        fixed_rules = resolved(linted.findings, fixed.findings)
        if fixed_rules:
            result.fixed_rules[filename] = fixed_rules
        result.fixed = sum(fixed_rules.values())
        after = " after the diff" if fix_mode == "diff" and fixed_text != text else ""
        result.file_notes.extend((filename, note) for note in refusal_notes(fixed, after))
        if fix_mode == "diff":
            diff = unified_diff(filename, text, fixed_text)
            if diff:
                result.diffs.append(diff)
        elif fixed_text != text:
            source = SourceFile(filename, fixed_text)
            linted = lint_source(source, rules, context, selector)
        # a fix the fix run refused (its result has a new error) says so on its finding
        findings = mark_refused(linted.findings, fixed.refused)
    elif fix_mode and decode_errors:
        # a note on a linted input, not a reason it was skipped ("skipped: not fixed")
        result.file_notes.append((filename, "not fixed: the input is not valid UTF-8"))
    note = unread_note(s.context.guards for s in linted.statements)
    if note is not None:
        result.file_notes.append((filename, note))
    result.statements = len(linted.statements)
    result.files_with_asm = 1 if linted.statements or linted.skipped_statements else 0
    result.findings = findings
    if findings:
        result.sources[filename] = source
    return result, fixed_text
