"""``--output-format pylint``: pylint's ``parseable`` layout, one line per finding.

pylint writes ``{path}:{line}: [{msg_id}({symbol}), {obj}] {msg}``, and the tools that read it
(Jenkins' warnings-ng ``(.*):(\\d+): \\[(\\D\\d*).*\\] (.*)``, Vim's and Emacs' error formats) take
the first letter of ``msg_id`` as the category: E error, W warning, I info. So the msg_id is that
letter, a dash and the rule id (``E-PTX001``); the symbol is the rule name, and ``obj`` (pylint's
enclosing function or class) is empty, as pylint leaves it for a module-level message.
"""

from __future__ import annotations

from ptxlint.model import Severity
from ptxlint.report.names import fix_note, printable_name
from ptxlint.report.positions import to_range
from ptxlint.report.run_result import RunResult
from ptxlint.report.verdict_note import with_verdict

CATEGORY = {Severity.ERROR: "E", Severity.WARNING: "W", Severity.INFO: "I"}


def _one_line(text: str) -> str:
    return " ".join(text.split("\n")).replace("\r", " ")


def render(result: RunResult) -> str:
    lines = []
    for finding in result.findings:
        r = to_range(result.sources.get(finding.path), finding.span)
        message = finding.message
        if finding.fix is not None:
            message += f" (fix{fix_note(finding.fix)}: {finding.fix.description})"
        message = _one_line(with_verdict(message, result, finding))
        msg_id = f"{CATEGORY[finding.severity]}-{finding.rule}"
        where = printable_name(finding.path)
        lines.append(f"{where}:{r.line}: [{msg_id}({finding.name}), ] {message}")
    return "\n".join(lines) + "\n" if lines else ""
