"""``--output-format concise``: one line per finding, ``path:line:col: ID [severity] message``."""

from __future__ import annotations

from ptxlint.fix import offers_fix
from ptxlint.report.names import printable_name
from ptxlint.report.positions import to_range
from ptxlint.report.run_result import RunResult
from ptxlint.report.text_format import latent_tag, summary
from ptxlint.report.verdict_note import summary_lines, with_verdict


def render(result: RunResult, *, quiet: bool = False) -> str:
    lines = []
    for finding in result.findings:
        r = to_range(result.sources.get(finding.path), finding.span)
        fixable = " [*]" if offers_fix(finding) else ""
        lines.append(
            f"{printable_name(finding.path)}:{r.line}:{r.column}: {finding.rule}{fixable} "
            f"[{finding.severity.value}]{latent_tag(finding)} "
            f"{with_verdict(finding.message, result, finding)}"
        )
    if not quiet:
        lines.append(summary(result))
        lines.extend(summary_lines(result))
    return "\n".join(lines) + "\n" if lines else ""
