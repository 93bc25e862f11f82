"""``--output-format full``: ruff's full layout: each finding with the source lines around it,
numbered, the span underlined, and its fix shown as the lines it changes (``-`` before, ``+``
after), then the text format's notes and --verify verdict.

```
k.cu:15:20: PTX101 [warning] '%clock' changes while the thread runs, ...
   |
13 |   unsigned start;
14 |   // read the clock
15 |   asm("mov.u32 %0, %clock;" : "=r"(start));
   |                    ^^^^^^ PTX101
16 |   return start;
   |
   = fix: Add 'volatile' after 'asm'
   |
15 -   asm("mov.u32 %0, %clock;" : "=r"(start));
15 +   asm volatile("mov.u32 %0, %clock;" : "=r"(start));
   |
```
"""

from __future__ import annotations

from ptxlint.model import Finding, SourceFile
from ptxlint.report.names import branch_words, fix_kind, printable_name
from ptxlint.report.positions import to_range
from ptxlint.report.run_result import RunResult
from ptxlint.report.text_format import SNIPPET_WIDTH, _window, latent_tag, shown, summary
from ptxlint.report.verdict_note import summary_lines, verdict_text

CONTEXT = 2  # lines shown before and after the finding's lines
MAX_SPAN_LINES = 8  # a longer span shows its first and last lines only
MAX_FIX_LINES = 12  # a fix changing more lines is described, not shown


def _cut(text: str) -> str:
    return text if len(text) <= SNIPPET_WIDTH else text[:SNIPPET_WIDTH] + "..."


def _snippet(finding: Finding, source: SourceFile) -> list[str]:
    r = to_range(source, finding.span)
    last_line = r.end_line if r.end_column > 1 or r.end_line == r.line else r.end_line - 1
    total = len(source.line_starts)
    first = max(1, r.line - CONTEXT)
    last = min(total, last_line + CONTEXT)
    gutter = len(str(last))
    blank = " " * gutter + " |"
    out = [blank]
    for number in range(first, last + 1):
        if r.line + MAX_SPAN_LINES // 2 <= number <= last_line - MAX_SPAN_LINES // 2:
            if number == r.line + MAX_SPAN_LINES // 2:
                out.append(" " * gutter + " ...")
            continue
        text = source.line_text(number)
        if number == r.line:
            end_col = r.end_column if r.end_line == r.line else len(text) + 1
            shown_text, column, end_col = _window(text, r.column, end_col)
            pad = "".join("\t" if ch == "\t" else " " for ch in shown_text[: column - 1])
            marker = "^" * max(1, end_col - column)
            out.append(f"{number:>{gutter}} | {shown_text}".rstrip())
            out.append(f"{blank} {pad}{marker} {finding.rule}")
        else:
            out.append(f"{number:>{gutter}} | {_cut(text)}".rstrip())
    out.append(blank)
    return out


def _fix_lines(finding: Finding, source: SourceFile) -> list[str]:
    """The lines the fix changes, before and after, or nothing where that would not help."""
    fix = finding.fix
    if fix is None or not fix.edits:
        return []
    edits = sorted(fix.edits, key=lambda e: (e.span.start, e.span.end))
    if any(a.span.end > b.span.start for a, b in zip(edits, edits[1:], strict=False)):
        return []  # overlapping edits: the fix engine refuses them too
    text = source.text
    first = source.line_col(edits[0].span.start).line
    last = source.line_col(edits[-1].span.end).line
    if last - first + 1 > MAX_FIX_LINES:
        return []
    begin = source.line_starts[first - 1]
    end = source.line_starts[last] if last < len(source.line_starts) else len(text)
    before = text[begin:end]
    after, cursor = [], begin
    for edit in edits:
        after.append(text[cursor : edit.span.start])
        after.append(edit.new_text)
        cursor = edit.span.end
    after.append(text[cursor:end])
    old = before.rstrip("\n").replace("\r", "").split("\n")
    new = "".join(after).rstrip("\n").replace("\r", "").split("\n")
    gutter = len(str(first + max(len(old), len(new)) - 1))
    blank = " " * gutter + " |"
    out = [blank]
    out += [f"{first + i:>{gutter}} - {_cut(line)}".rstrip() for i, line in enumerate(old)]
    out += [f"{first + i:>{gutter}} + {_cut(line)}".rstrip() for i, line in enumerate(new)]
    out.append(blank)
    return out


def render_finding(finding: Finding, result: RunResult) -> str:
    source = result.sources.get(finding.path)
    r = to_range(source, finding.span)
    lines = [
        f"{printable_name(finding.path)}:{r.line}:{r.column}: {finding.rule} "
        f"[{finding.severity.value}]{latent_tag(finding)} {finding.message}"
    ]
    if source is not None:
        lines += _snippet(finding, source)
    indent = "   = "
    if finding.branch:
        lines.append(f"{indent}note: {branch_words(finding)}")
    if finding.latent:
        lines.append(f"{indent}note: latent: {finding.latent}")
    if finding.expansion is not None:
        lines.append(f"{indent}note: {finding.expansion} (#define at "
                     f"{finding.expansion.defined_at})")
    if finding.fix is not None:
        lines.append(f"{indent}fix{fix_kind(finding.fix)}: {finding.fix.description}")
        if source is not None:
            lines += _fix_lines(finding, source)
    verdict = verdict_text(result, finding)
    if verdict:
        lines.append(f"{indent}{verdict}")
    return "\n".join(lines)


def render(result: RunResult, *, quiet: bool = False, show_info: bool = True) -> str:
    parts: list[str] = []
    for finding in shown(result, show_info):
        parts.append(render_finding(finding, result))
        parts.append("")
    if not quiet:
        parts.append(summary(result, show_info))
        parts.extend(summary_lines(result))
    return "\n".join(parts).rstrip("\n") + "\n" if parts else ""
