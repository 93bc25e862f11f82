"""--verify in every output format: a finding's verdict as the one-line formats append it to the
message (the words of the text format's ``verify:`` line, in parentheses), and the run's
verification summary (the counts as a JSON object, the closing lines as text)."""

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


def verification_summary(result: RunResult) -> dict[str, object] | None:
    """The --verify counts for JSON and SARIF: ``{"confirmed": n, "refuted": n,
    "unverifiable": n, "probe_failures": n, "seconds": s}``; None without --verify."""
    if not result.verifications and result.verify_seconds is None:
        return None
    from ptxlint.verify.verdict import STATUSES

    counts = {status: 0 for status in STATUSES}
    for verdict in result.verifications.values():
        counts[verdict.status] = counts.get(verdict.status, 0) + 1
    out: dict[str, object] = dict(counts)
    out["probe_failures"] = len(result.verify_probe_failures)
    if result.verify_seconds is not None:
        out["seconds"] = round(result.verify_seconds, 3)
    return out


def summary_lines(result: RunResult) -> list[str]:
    """The plain-text verification summary the human formats end with: the probe failures
    (errors only a probe showed, not reported) when there are any, then the counts; [] without
    --verify."""
    if not result.verifications and result.verify_seconds is None:
        return []
    from ptxlint.verify.cli import summary

    lines = []
    failures = len(result.verify_probe_failures)
    if failures:
        lines.append(f"{failures} error{'s' if failures != 1 else ''} only a probe showed, not "
                     "reproduced by a compile of the file: not reported (--verbose lists "
                     f"{'them' if failures != 1 else 'it'}).")
    lines.append(summary(result))
    return lines
