"""PTX202 unscoped-label."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.emission import declared_once
from ptxlint.analysis.split_scopes import inside_split_scope
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Fix, Severity
from ptxlint.ptx.layout import wrap_in_braces
from ptxlint.rule import Rule, RuleContext

from ._copies import second_copy


class UnscopedLabel(Rule):
    id = "PTX202"
    name = "unscoped-label"
    pure = True  # reads the file's other statements only where the template has an unscoped label
    scope = "file"  # a scope an earlier statement opens holds this one's labels
    severity = Severity.WARNING
    needs = ("labels",)
    summary = "Label defined outside '{ }' in an asm template"
    tags = ("correctness", "template")
    docs = """\
## What it does
Flags a label (`L1:`) defined at brace depth 0 of an asm template. Labels spelled with `%=`
(`L%=:`) are not flagged: nvcc replaces `%=` with a number unique to each emitted copy of the
statement (also across inlining and unrolling), so they cannot collide.

One defect, one finding: the missing braces. The finding names every such label of the
template; where the template also declares a register outside braces, PTX201's finding names the
labels and this rule is silent. Nor does it flag a statement inside a scope an earlier statement
of its function opens and a later one closes (PTX201 says when). A template with a hole is read
up to its first hole, as PTX201 reads it: a label defined before the hole is flagged, one after it
is not (the hole may open a scope). Nor is a label of a statement emitted once into its PTX
function: one of a `__global__` function's own body outside every loop, lambda and `goto`, whose
label no earlier statement of the kernel defines (PTX201 says why, and when the finding names
that statement).

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
to from this template (another asm statement jumps to it, and a scope would hide it), nor for a
template with a hole (it may hold a brace, or branch to the label).
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        found = analysis_of(statement).unscoped
        if found is None or not found.labels or found.declarations:
            return  # (declarations too: PTX201's finding names the labels, its fix scopes both)
        if inside_split_scope(statement, context.file_statements):
            return
        if declared_once(statement, context):
            return  # a kernel's statement outside loops: its one copy in the entry
        fix: Fix | None = None
        if found.all_used:
            edits = wrap_in_braces(statement)
            if edits is not None:
                fix = Fix("wrap the template in '{ }' so the label is local to each copy", edits)
        several = len(found.labels) > 1
        names = ", ".join(f"'{label.name}'" for label in found.labels)
        unique = "${:uid}" if statement.syntax == "llvm" else "%="
        renamed = ", ".join(f"'{label.name}{unique}'" for label in found.labels)
        first = found.labels[0]
        yield self.finding(
            statement,
            self.template_span(statement, first.start, first.start + len(first.name)),
            f"label{'s' if several else ''} {names} {'are' if several else 'is'} defined outside "
            "'{ }': "
            + second_copy(statement, context)
            + f" is a duplicate definition; wrap the template in braces or name "
            f"{'them' if several else 'it'} {renamed}",
            fix=fix,
        )

