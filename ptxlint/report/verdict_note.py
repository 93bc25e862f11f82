"""A finding's --verify verdict as the one-line formats append it to the message: the words of
the text format's ``verify:`` line, in parentheses."""

from __future__ import annotations

from ptxlint.model import Finding
from ptxlint.report.run_result import RunResult


def verdict_text(result: RunResult, finding: Finding) -> str | None:
    """``verify: confirmed by ptxas for sm_90: ...`` (the text format's line), or None."""
    from ptxlint.verify.cli import verdict_line  # the text format's wording, in one place

    line = verdict_line(result, finding)
    return line.strip() if line else None


def with_verdict(message: str, result: RunResult, finding: Finding) -> str:
    note = verdict_text(result, finding)
    return f"{message} ({note})" if note else message
