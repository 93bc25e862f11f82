"""``--format github``: GitHub Actions workflow commands, one annotation per finding.

``::error file=F,line=L,col=C,endLine=EL,endColumn=EC,title=PTX101 missing-volatile::message``.
GitHub shows only the first few annotations of each kind per step, so the most severe come
first; the summary line at the end is plain log text.
"""

from __future__ import annotations

import os
from pathlib import Path

from ptxlint.model import Finding, Severity
from ptxlint.report.names import fix_note
from ptxlint.report.positions import to_range
from ptxlint.report.run_result import RunResult
from ptxlint.report.text_format import summary
from ptxlint.report.verdict_note import summary_lines, with_verdict

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
INTERNAL_ERROR = "internal-error"


def escape_data(text: str) -> str:
    """The message part, after ``::``."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A ``key=value`` property: data escapes plus ``:`` and ``,``, which end a value."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(name: str, message: str, **properties: object) -> str:
    props = ",".join(
        f"{key}={escape_property(str(value))}" for key, value in properties.items()
        if value is not None
    )
    return f"::{name}{' ' + props if props else ''}::{escape_data(message)}"


def display_path(path: str, root: str) -> str:
    """The path relative to the workspace root (the checkout GitHub resolves against) when it
    lies inside it, with forward slashes; otherwise as given."""
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, os.path.abspath(root))
    except ValueError:
        return Path(path).as_posix()
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return Path(absolute).as_posix()
    return Path(relative).as_posix()


def annotation(finding: Finding, result: RunResult) -> str:
    r = to_range(result.sources.get(finding.path), finding.span)
    message = finding.message
    if finding.fix is not None:
        message += f" (fix{fix_note(finding.fix)}: {finding.fix.description})"
    message = with_verdict(message, result, finding)
    return command(
        COMMANDS[finding.severity],
        message,
        file=display_path(finding.path, result.root),
        line=r.line,
        col=r.column,
        endLine=r.end_line,
        endColumn=r.end_column,
        title=f"{finding.rule} {finding.name}",
    )


def render(result: RunResult) -> str:
    lines: list[str] = []
    for path, reason in result.errors:
        lines.append(command("error", f"could not read the file: {reason}",
                             file=display_path(path, result.root), title="ptxlint"))
    findings = sorted(
        enumerate(result.findings),
        key=lambda pair: (pair[1].rule != INTERNAL_ERROR, -pair[1].severity.rank, pair[0]),
    )
    for _, finding in findings:
        if finding.rule == INTERNAL_ERROR:
            where = (to_range(result.sources.get(finding.path), finding.span).line
                     if finding.statement is not None else None)
            lines.append(command("error", finding.message,
                                 file=display_path(finding.path, result.root), line=where,
                                 title="ptxlint internal error"))
        else:
            lines.append(annotation(finding, result))
    lines.append(summary(result))
    lines.extend(summary_lines(result))
    return "\n".join(lines) + "\n"
