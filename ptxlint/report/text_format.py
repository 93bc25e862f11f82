"""``--format text``: ``path:line:col: ID [severity] message`` with the source line and a caret."""

from __future__ import annotations

from collections import Counter

from ptxlint.model import Finding, Severity
from ptxlint.report.names import branch_words, fix_kind, printable_name
from ptxlint.report.positions import to_range
from ptxlint.report.run_result import RunResult


# A plain class (docs/architecture.md, "Plain classes"): never compared, hashed or printed.
class Style:
    """How the text format paints its output: in ANSI color or plain."""

    __slots__ = ("color",)

    def __init__(self, color: bool = False) -> None:
        self.color = color

    def paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.color else text

    def severity(self, severity: Severity) -> str:
        code = {Severity.ERROR: "1;31", Severity.WARNING: "1;33", Severity.INFO: "1;36"}[severity]
        return self.paint(severity.value, code)


SNIPPET_WIDTH = 160  # characters of a source line shown under a finding
_LEAD = 40  # of which before the finding's column, when the line is cut


_PLAIN = Style()  # the style of a report rendered without color


def _window(text: str, column: int, end_col: int) -> tuple[str, int, int]:
    """(shown text, column, end column) with long lines cut around the finding: a 1 MB
    generated line printed for each of its thousand findings is a gigabyte of output."""
    if len(text) <= SNIPPET_WIDTH:
        return text, column, end_col
    start = max(0, min(column - 1 - _LEAD, len(text) - SNIPPET_WIDTH))
    shown = text[start : start + SNIPPET_WIDTH]
    prefix = "..." if start else ""
    suffix = "..." if start + SNIPPET_WIDTH < len(text) else ""
    column = column - start + len(prefix)
    end_col = min(end_col - start, SNIPPET_WIDTH + 1) + len(prefix)
    return prefix + shown + suffix, column, max(end_col, column + 1)


def latent_tag(finding: Finding) -> str:
    """`` [latent]`` after the severity of a finding in code no build of the file compiles
    (its reason is in JSON and SARIF, and in the text format's note)."""
    return " [latent]" if finding.latent else ""


def render_finding(finding: Finding, result: RunResult, style: Style) -> str:
    source = result.sources.get(finding.path)
    r = to_range(source, finding.span)
    head = (
        f"{style.paint(printable_name(finding.path), '1')}:{r.line}:{r.column}: "
        f"{style.paint(finding.rule, '1;31' if finding.severity is Severity.ERROR else '1')} "
        f"[{style.severity(finding.severity)}]{latent_tag(finding)} {finding.message}"
    )
    lines = [head]
    if source is not None:
        text = source.line_text(r.line)
        if text.strip():
            end_col = r.end_column if r.end_line == r.line else len(text) + 1
            text, first, end_col = _window(text, r.column, end_col)
            width = max(1, end_col - first)
            pad = "".join("\t" if ch == "\t" else " " for ch in text[: first - 1])
            marker = "^" + "~" * (width - 1)
            lines.append(f"  {text}")
            lines.append(f"  {pad}{style.paint(marker, '1;32')}")
    if finding.branch:
        lines.append(f"  {style.paint('note', '1;36')}: {branch_words(finding)}")
    if finding.latent:
        lines.append(f"  {style.paint('note', '1;36')}: latent: {finding.latent}")
    if finding.expansion is not None:
        where = f"#define at {finding.expansion.defined_at}"
        if finding.spelled_at is not None and source is not None:
            at = source.line_col(finding.spelled_at.start)
            where = f"spelled at line {at.line}, column {at.column}"
        lines.append(f"  {style.paint('note', '1;36')}: {finding.expansion} ({where})")
    if finding.fix is not None:
        kind = fix_kind(finding.fix)
        lines.append(f"  {style.paint('fix' + kind, '1;34')}: {finding.fix.description}")
    return "\n".join(lines)


def render(
    result: RunResult,
    *,
    style: Style = _PLAIN,
    quiet: bool = False,
    statistics: bool = False,
    show_info: bool = True,
) -> str:
    parts: list[str] = []
    if statistics:
        counts = Counter((f.rule, f.name) for f in result.findings)
        for (rule, name), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            parts.append(f"{n:6d}  {rule}  {name}")
    else:
        for finding in shown(result, show_info):
            parts.append(render_finding(finding, result, style))
            parts.append("")
    if not quiet:
        parts.append(summary(result, show_info or statistics))
    return "\n".join(parts).rstrip("\n") + "\n" if parts else ""


def shown(result: RunResult, show_info: bool) -> list[Finding]:
    """The findings printed one by one: info findings only when asked for, since hundreds of
    them (a contract point nvcc does not exploit) would bury the errors."""
    if show_info:
        return result.findings
    return [f for f in result.findings if f.severity is not Severity.INFO]


def summary(result: RunResult, info_shown: bool = True) -> str:
    by_severity = Counter(f.severity for f in result.findings)
    total = len(result.findings)
    details = ", ".join(
        f"{by_severity[s]} {s.value}{'s' if by_severity[s] != 1 and s is not Severity.INFO else ''}"
        for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)
        if by_severity[s]
    )
    found = f"Found {total} finding{'s' if total != 1 else ''}" + (
        f" ({details})" if details else ""
    )
    text = (
        f"{found} in {result.files} file{'s' if result.files != 1 else ''} "
        f"({result.statements} asm statement{'s' if result.statements != 1 else ''}, "
        f"{result.seconds:.2f}s)."
    )
    hidden = 0 if info_shown else by_severity[Severity.INFO]
    if hidden:
        rules = ", ".join(sorted({f.rule for f in result.findings if f.severity is Severity.INFO}))
        text += (
            f"\n{hidden} info finding{'s' if hidden != 1 else ''} ({rules}) not shown: "
            "--show-info prints them."
        )
    # --fix leaves a file that is not UTF-8 alone: its fixes are not offered
    fixable = 0
    if any(f.fix is not None for f in result.findings):
        from ptxlint.fix import offers_fix  # here: a run without fixes never loads the fixer

        fixable = sum(1 for f in result.findings
                      if offers_fix(f) and not _undecodable(result, f.path))
    if fixable:
        # Counted without trying the fixes: that is a lint of each file with a fix, a third
        # more CPU for a plain check (CUDA's headers, flashinfer). --fix and --diff try them,
        # refuse a fix whose result has a new error, say which and why, and leave it out here.
        text += (f"\n{fixable} fixable with `ptxlint check --fix` (a fix whose result has a new "
                 "error is refused, with the reason).")
    return text


def _undecodable(result: RunResult, path: str) -> bool:
    source = result.sources.get(path)
    return source is not None and source.decode_errors


def fixes_listing(result: RunResult, *, would: bool = False) -> str:
    """``--show-fixes``: the findings fixing resolved, per file and rule (ruff's layout)."""
    n = result.fixed
    verb = "Would fix" if would else "Fixed"
    if not n:
        return f"{'Would fix' if would else 'Fixed'} no findings.\n"
    from ptxlint.registry import load_rules  # only here: the report modules stay light

    names = {r.id: r.name for r in load_rules().rules}
    lines = [f"{verb} {n} finding{'s' if n != 1 else ''}:"]
    for path, rules in result.fixed_rules.items():
        lines.append(f"- {printable_name(path)}:")
        for rule, count in rules.items():
            name = f" ({names[rule]})" if rule in names else ""
            lines.append(f"    {count} × {rule}{name}")
    return "\n".join(lines) + "\n"
