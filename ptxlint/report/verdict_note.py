"""--verify in every output format: a finding's verdict as the one-line formats append it to the
message (the words of the text format's ``verify:`` line, in parentheses), and the run's
verification summary (the counts as a JSON object, the closing lines as text)."""

from __future__ import annotations

from collections import Counter

from ptxlint.model import Finding
from ptxlint.report.run_result import RunResult


def verdict_line(result: RunResult, finding: object) -> str | None:
    """The text format's line under a finding: ``  verify: confirmed by ptxas for sm_90: ...``."""
    verdict = result.verifications.get(id(finding))
    if verdict is None:
        return None
    tool = f" by {verdict.tool}" if verdict.tool else ""
    arch = f" for {verdict.arch}" if verdict.arch else ""
    return f"  verify: {verdict.status}{tool}{arch}: {verdict.evidence}"


def summary(result: RunResult) -> str:
    """``Verification: 2 confirmed, 0 refuted, 1 unverifiable in 0.52s.``"""
    from ptxlint.verify.verdict import STATUSES  # only with --verify: verify/ stays unloaded

    counts = Counter(v.status for v in result.verifications.values())
    parts = ", ".join(f"{counts[s]} {s}" for s in STATUSES)
    # the lint's own summary line reports the lint's time; this one reports verification's
    took = f" in {result.verify_seconds:.2f}s" if result.verify_seconds is not None else ""
    return f"Verification: {parts}{took}."


def verdict_text(result: RunResult, finding: Finding) -> str | None:
    """``verify: confirmed by ptxas for sm_90: ...`` (the text format's line), or None."""
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
    lines = []
    failures = len(result.verify_probe_failures)
    if failures:
        lines.append(f"{failures} error{'s' if failures != 1 else ''} only a probe showed, not "
                     "reproduced by a compile of the file: not reported (--verbose lists "
                     f"{'them' if failures != 1 else 'it'}).")
    lines.append(summary(result))
    return lines
