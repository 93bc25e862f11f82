"""Code actions: a quick fix per fixable finding, suppress-on-this-line, fix-all-in-file.

Edits come from the findings' own ``Fix`` objects and from ``fix_text``: the fix engine behind
``--fix``; this module only turns them into LSP workspace edits. A fix whose result has a new
error is offered neither by ``--fix`` nor as a quick fix: the server asks the fix engine about
the fixes of the findings a request covers (``fix.refusals``, a lint per fix, so only when the
editor asks) and marks them (``Fix.refused``) before the actions are made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lsprotocol import types as lsp

from ptxlint.engine import INTERNAL_ERROR
from ptxlint.fix import offers_fix
from ptxlint.lsp.capabilities import CODE_ACTION_KINDS, FIX_ALL_KIND
from ptxlint.lsp.conversions import LineIndex
from ptxlint.lsp.diagnostics import same_place, to_diagnostic, to_range
from ptxlint.lsp.rule_docs import RuleDocs
from ptxlint.model import Edit, Finding, SourceFile, Span

# One grammar for suppressions: the engine's own (``// ptxlint: ignore[...]``); the edit that
# adds one is shared with ``ptxlint check --add-noqa``.
from ptxlint.suppress_edits import suppress_edit
from ptxlint.value_class import value_class

KINDS = (lsp.CodeActionKind(CODE_ACTION_KINDS[0]), FIX_ALL_KIND)


@value_class(slots=False)
class ActionRequest:
    """An editor's request for code actions: the document, the range asked about, and the findings
    and diagnostics there."""

    uri: str
    text: str
    index: LineIndex
    encoding: str
    findings: Sequence[Finding]
    start: int  # the requested range, as offsets
    end: int
    diagnostics: Sequence[lsp.Diagnostic]
    only: Sequence[str] | None


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """LSP kinds are hierarchical: asking for ``source.fixAll`` includes ours."""
    return only is None or any(kind == k or kind.startswith(k + ".") for k in only)


def code_actions(
    request: ActionRequest, docs: RuleDocs, fix_all: Callable[[], str | None]
) -> list[lsp.CodeAction]:
    actions: list[lsp.CodeAction] = []
    suppressions: set[tuple[str, Edit]] = set()  # two findings of a rule on a line: one action
    if wanted(lsp.CodeActionKind.QuickFix, request.only):
        # one reading of the text for every finding: a range over a whole file can hold thousands
        source = SourceFile("", request.text)
        for finding in findings_in_request(request):
            diagnostic = to_diagnostic(finding, request.index, request.encoding, docs)
            if offers_fix(finding, unsafe=True):  # unsafe ones too, labelled: the user reviews
                actions.append(_quick_fix(request, finding, diagnostic))
            if finding.rule != INTERNAL_ERROR:
                suppress = suppress_edit(request.text, finding, source)
                if suppress is not None and (finding.rule, suppress) not in suppressions:
                    suppressions.add((finding.rule, suppress))
                    actions.append(_suppress_action(request, finding, diagnostic, suppress))
    if wanted(FIX_ALL_KIND, request.only) and any(
        f.fix is not None and f.fix.safe for f in request.findings
    ):
        fixed = fix_all()
        if fixed is not None and fixed != request.text:
            actions.append(_fix_all_action(request, fixed))
    return actions


def findings_in_request(request: ActionRequest) -> list[Finding]:
    chosen = []
    for finding in request.findings:
        touches = finding.span.start <= request.end and request.start <= finding.span.end
        if touches or any(
            same_place(d, finding, request.index, request.encoding) for d in request.diagnostics
        ):
            chosen.append(finding)
    return chosen


def _workspace_edit(request: ActionRequest, edits: Sequence[Edit]) -> lsp.WorkspaceEdit:
    text_edits = [
        lsp.TextEdit(to_range(request.index, e.span, request.encoding), e.new_text)
        for e in sorted(edits, key=lambda e: (e.span.start, e.span.end))
    ]
    return lsp.WorkspaceEdit(changes={request.uri: text_edits})


def _quick_fix(
    request: ActionRequest, finding: Finding, diagnostic: lsp.Diagnostic
) -> lsp.CodeAction:
    fix = finding.fix
    assert fix is not None
    label = f"{fix.description} ({finding.rule})"
    if not fix.safe:
        label += " [unsafe: review the result]"
    return lsp.CodeAction(
        title=label,
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        is_preferred=fix.safe,
        edit=_workspace_edit(request, fix.edits),
    )


def _suppress_action(
    request: ActionRequest, finding: Finding, diagnostic: lsp.Diagnostic, edit: Edit
) -> lsp.CodeAction:
    return lsp.CodeAction(
        title=f"Suppress {finding.rule} on this line",
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=_workspace_edit(request, [edit]),
    )


def _fix_all_action(request: ActionRequest, fixed: str) -> lsp.CodeAction:
    return lsp.CodeAction(
        title="Fix all auto-fixable ptxlint problems in this file",
        kind=FIX_ALL_KIND,
        edit=_workspace_edit(request, [minimal_edit(request.text, fixed)]),
    )


def minimal_edit(before: str, after: str) -> Edit:
    """One edit turning ``before`` into ``after``, covering only what changed.

    Replacing the whole document would move the cursor and fold state in most editors.
    """
    limit = min(len(before), len(after))
    prefix = 0
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while (
        suffix < limit - prefix
        and before[len(before) - 1 - suffix] == after[len(after) - 1 - suffix]
    ):
        suffix += 1
    # Never split a "\r\n": the range's ends must be positions an editor has.
    if 0 < prefix < len(before) and before[prefix - 1] == "\r" and before[prefix] == "\n":
        prefix -= 1
    end = len(before) - suffix
    if 0 < end < len(before) and before[end - 1] == "\r" and before[end] == "\n":
        suffix -= 1
    return Edit(Span(prefix, len(before) - suffix), after[prefix : len(after) - suffix])
