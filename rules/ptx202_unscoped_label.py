"""PTX202 unscoped-label."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.model import AsmStatement, Finding, Fix, Severity
from ptxlint.ptx.layout import wrap_in_braces
from ptxlint.ptx.scopes import braces_known, is_file_scope, used_names
from ptxlint.rule import Rule, RuleContext

from ._llvm import copies


class UnscopedLabel(Rule):
    id = "PTX202"
    name = "unscoped-label"
    pure = True
    scope = "statement"
    severity = Severity.WARNING
    needs = ("labels",)
    summary = "Label defined outside '{ }' in an asm template"
    tags = ("correctness", "template")
    docs = """\
## What it does
Flags a label (`L1:`) defined at brace depth 0 of an asm template. Labels spelled with `%=`
(`L%=:`) are not flagged: nvcc replaces `%=` with a number unique to each emitted copy of the
statement (also across inlining and unrolling), so they cannot collide.

## Why is this bad?
Labels share the enclosing function's scope. Once the statement is emitted twice — its function
inlined at two call sites, or its loop unrolled — ptxas fails with
`error: Duplicate definition of label 'L1'`. Inside `{ }` each copy has its own scope.

## Example
```cuda
asm("mov.u32 %0, %1;\\n\\t"
    "@p bra DONE;\\n\\t"
    "add.u32 %0, %0, 1;\\n"
    "DONE:" : "=r"(r) : "r"(x));
```

## Use instead
```cuda
asm("{\\n\\tmov.u32 %0, %1;\\n\\t"
    "@p bra DONE;\\n\\t"
    "add.u32 %0, %0, 1;\\n"
    "DONE:\\n}" : "=r"(r) : "r"(x));
```
or name the label `DONE%=`.

## Fix safety
The fix wraps the whole template in `{ }` (see PTX201), in the file's own layout, when both ends
of the template are string literals. It is safe; it is not offered when a label is never branched
to from this template (another asm statement jumps to it, and a scope would hide it).
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if is_file_scope(statement) or not braces_known(statement):
            return
        flagged = [
            label
            for label in statement.ptx.labels
            if label.depth == 0 and "%=" not in label.name and "${:uid}" not in label.name
        ]
        if not flagged:
            return
        used = used_names(statement.ptx)
        fix: Fix | None = None
        if all(label.name in used for label in flagged):
            edits = wrap_in_braces(statement)
            if edits is not None:
                fix = Fix("wrap the template in '{ }' so the label is local to each copy", edits)
        for label in flagged:
            yield self.finding(
                statement,
                self.template_span(statement, label.start, label.start + len(label.name)),
                f"label '{label.name}' is defined outside '{{ }}': "
                + (
                    copies(statement)
                    if statement.syntax == "llvm"
                    else "a second inlined or unrolled copy of this asm"
                )
                + " is a duplicate definition; wrap the template in braces or name it "
                + f"'{label.name}{'${:uid}' if statement.syntax == 'llvm' else '%='}'",
                fix=fix,
            )
