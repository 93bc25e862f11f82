"""``--fix`` and ``--diff`` of one file, in the process that runs ``check`` (it writes files):
the fix loop (``ptxlint.fix``) over the file's lint, the fixed text written atomically with the
byte-order mark it had, and the outcome of the text as written."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ptxlint.config import RuleSelector
from ptxlint.fix import (
    MAX_PASSES,
    fix_text,
    mark_refused,
    refusal_notes,
    resolved,
    unified_diff,
    write_atomically,
)
from ptxlint.model import Finding, SourceFile
from ptxlint.rule import Rule, RuleContext
from ptxlint.run.outcome import FileOutcome, file_outcome

if TYPE_CHECKING:
    from ptxlint.engine import FileResult
    from ptxlint.tier2 import Tier2Session


def fix_file(
    source: SourceFile,
    outcome: FileOutcome,
    rules: Sequence[Rule],
    context: RuleContext,
    selector: RuleSelector,
    fix_mode: str,
    unsafe: bool,
    tier2: Tier2Session | None,
    count_types: bool,
) -> FileOutcome:
    """``outcome`` (``source``'s lint) after ``--fix`` (the file written atomically) or
    ``--diff`` (``fix_mode``): the fixed text's findings, what was fixed, and each fix refused
    with its reason; the file's own outcome with a write error where the fixes did not settle
    or could not be written."""
    from ptxlint.engine import lint_source  # looked up per call: a test counts its lints

    # Tier-2 types belong to the file as saved: the fix passes work on new text, so they use
    # Tier 1 until the result is written and linted again.
    last: list[tuple[str, FileResult]] = []  # the latest relint: that of the fixed text

    def relint(text: str) -> list[Finding]:
        result = lint_source(SourceFile(source.path, text), rules, context, selector)
        last[:] = [(text, result)]
        return result.findings

    # Without Tier 2 the file's own lint is what the first pass would lint again, and the last
    # relint is the fixed text's: each of the two lints saved is a third of a --fix run.
    first = outcome.findings if tier2 is None else None
    fixed = fix_text(source.text, relint, unsafe, findings=first)
    if not fixed.converged:
        outcome.write_error = (f"not fixed: the fixes did not settle after {MAX_PASSES} passes "
                               "(a fix that re-creates its finding); please report this")
        return outcome
    # a fix refused (its result has a new error) is said, here and on its finding
    if not fixed.applied or fixed.text == source.text:
        outcome.findings = mark_refused(outcome.findings, fixed.refused)
        outcome.file_notes.extend(refusal_notes(fixed))
        return outcome
    fixed_rules = resolved(outcome.findings, fixed.findings)
    if fix_mode == "diff":
        outcome.file_notes.extend(refusal_notes(fixed, " after the diff"))
        outcome.fixed_rules = fixed_rules
        outcome.fixed = sum(fixed_rules.values())
        outcome.diff = unified_diff(source.path, source.text, fixed.text)
        return outcome
    try:
        bom = has_bom(source.path)
        expected = (("\ufeff" if bom else "") + source.text).encode("utf-8")
        write_atomically(source.path, fixed.text, bom=bom, expected=expected)
    except OSError as exc:
        outcome.write_error = f"could not write fixes: {exc.strerror or exc}"
        return outcome
    new_source = SourceFile(source.path, fixed.text)
    if last and last[0][0] == fixed.text:
        new_result = last[0][1]
    else:
        new_result = lint_source(new_source, rules, context, selector)
    new_outcome = file_outcome(source.path, new_source, new_result, count_types)
    new_outcome.findings = mark_refused(new_outcome.findings, fixed.refused)
    new_outcome.file_notes.extend(refusal_notes(fixed))
    new_outcome.fixed_rules = fixed_rules
    new_outcome.fixed = sum(fixed_rules.values())
    return new_outcome


def has_bom(path: str) -> bool:
    with open(path, "rb") as handle:
        return handle.read(3) == b"\xef\xbb\xbf"
