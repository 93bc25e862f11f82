"""``--output-format azure``: Azure DevOps (Azure Pipelines) logging commands.

``##vso[task.logissue type=error;sourcepath=F;linenumber=L;columnnumber=C;code=PTX001;]message``
for each error and warning; Azure Pipelines shows them in the run's summary and on the line.
Info findings have no issue type there, so they are plain log lines. The agent splits the
properties at ``;`` and ends them at the first ``]``, and unescapes ``%3B``, ``%0D``, ``%0A``,
``%5D`` and ``%AZP25`` in properties and message alike (azure-pipelines-agent's
``CommandStringConvertor``), so every value is escaped with those.
"""

from __future__ import annotations

from ptxlint.model import Finding, Severity
from ptxlint.report.github_format import display_path
from ptxlint.report.names import fix_note
from ptxlint.report.positions import to_range
from ptxlint.report.run_result import RunResult
from ptxlint.report.text_format import summary
from ptxlint.report.verdict_note import summary_lines, with_verdict

ISSUE_TYPES = {Severity.ERROR: "error", Severity.WARNING: "warning"}
# '%' first, so the '%' of the other escapes is not escaped again; the agent decodes %AZP25
# by default (its DECODE_PERCENTS knob), and PTX messages are full of '%'
_ESCAPES = (("%", "%AZP25"), (";", "%3B"), ("\r", "%0D"), ("\n", "%0A"), ("]", "%5D"))


def escape(text: str) -> str:
    for token, replacement in _ESCAPES:
        text = text.replace(token, replacement)
    return text


def logissue(issue_type: str, message: str, **properties: object) -> str:
    props = "".join(
        f"{key}={escape(str(value))};" for key, value in properties.items() if value is not None
    )
    return f"##vso[task.logissue type={issue_type};{props}]{escape(message)}"


def _message(finding: Finding, result: RunResult) -> str:
    message = f"{finding.rule} {finding.name}: {finding.message}"
    if finding.fix is not None:
        message += f" (fix{fix_note(finding.fix)}: {finding.fix.description})"
    return with_verdict(message, result, finding)


def render(result: RunResult) -> str:
    lines = [
        logissue("error", f"could not read the file: {reason}",
                 sourcepath=display_path(path, result.root))
        for path, reason in result.errors
    ]
    for finding in result.findings:
        r = to_range(result.sources.get(finding.path), finding.span)
        path = display_path(finding.path, result.root)
        issue_type = ISSUE_TYPES.get(finding.severity)
        if issue_type is None:
            plain = _message(finding, result).replace("\r", " ").replace("\n", " ")
            # a line that merely starts like a command must not become one
            lines.append(f"{path}:{r.line}:{r.column}: [info] {plain}".replace("##vso[", "##vso ["))
            continue
        lines.append(logissue(issue_type, _message(finding, result), sourcepath=path,
                              linenumber=r.line, columnnumber=r.column, code=finding.rule))
    lines.append(summary(result))
    lines.extend(summary_lines(result))
    return "\n".join(lines) + "\n"
