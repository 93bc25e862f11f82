"""``--output-format grouped``: ruff's grouped layout, the findings under their file's name.

```
src/k.cu:
  3:24  PTX001 [error] '%3' refers to operand 3 ...
  15:20 PTX101 [*] [warning] '%clock' changes while the thread runs ...
```
``[*]`` marks a finding ``--fix`` fixes; a --verify verdict is the text format's ``verify:`` line
under its finding.
"""

from __future__ import annotations

from itertools import groupby

from ptxlint.fix import offers_fix
from ptxlint.report.names import printable_name
from ptxlint.report.positions import to_range
from ptxlint.report.run_result import RunResult
from ptxlint.report.text_format import latent_tag, shown, summary
from ptxlint.report.verdict_note import summary_lines, verdict_text


def render(result: RunResult, *, quiet: bool = False, show_info: bool = True) -> str:
    parts: list[str] = []
    findings = shown(result, show_info)
    # the run's own order within a file; files in the order they first appear
    order = {path: i for i, path in reversed(list(enumerate(f.path for f in findings)))}
    ordered = sorted(findings, key=lambda f: order[f.path])
    for path, group in groupby(ordered, key=lambda f: f.path):
        rows = []
        for finding in group:
            r = to_range(result.sources.get(path), finding.span)
            fixable = " [*]" if offers_fix(finding) else ""
            head = (f"{finding.rule}{fixable} [{finding.severity.value}]{latent_tag(finding)} "
                    f"{finding.message}")
            rows.append((f"{r.line}:{r.column}", head, verdict_text(result, finding)))
        width = max(len(where) for where, _, _ in rows)
        parts.append(f"{printable_name(path)}:")
        for where, head, verdict in rows:
            parts.append(f"  {where:<{width}} {head}")
            if verdict:
                parts.append(f"  {' ' * width} {verdict}")
        parts.append("")
    if not quiet:
        parts.append(summary(result, show_info))
        parts.extend(summary_lines(result))
    return "\n".join(parts).rstrip("\n") + "\n" if parts else ""
