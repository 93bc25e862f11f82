"""PTX007 unsupported-operand-modifier."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.template_refs import comment_refs
from ptxlint.model import AsmStatement, Finding, Fix, Severity
from ptxlint.rule import Rule, RuleContext


class UnsupportedOperandModifier(Rule):
    id = "PTX007"
    name = "unsupported-operand-modifier"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("modified-references",)
    summary = "GCC operand modifier in a PTX template"
    tags = ("correctness", "template")
    docs = """\
## What it does
Flags GCC operand modifiers between `%` and the operand number: `%n1`, `%c0`, `%a2`, `%x1`,
`%w0`, `%P1` and the like.

In a statement with operands nvcc reads `%` sequences inside PTX comments too, so `// %L577`
(a label pasted from a listing) or `// %f1` is the same error there.

## Why is this bad?
They are x86/ARM printing directives (negate a constant, print without punctuation, print a
register's 16-bit name...). NVPTX has none: nvcc 13.0 rejects them with *Asm operand modifier not
supported*, and older nvcc passed the letter through to ptxas, where it meant whatever the
resulting text happened to mean.

## Example
```cuda
asm("add.u32 %0, %1, %n2;" : "=r"(d) : "r"(a), "n"(4));
```

## Use instead
```cuda
asm("sub.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "n"(4));
```

## Fix safety
Removing the modifier is offered as an unsafe fix: the template then compiles, but whatever the
modifier was meant to do (negate, print an address) is not done. In a PTX comment the fix
escapes the `%` (`%%L577`), which leaves the comment as written for ptxas: a safe fix.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        in_comments = [t for t in comment_refs(statement) if t.modifier]
        for token in (*analysis_of(statement).modified_tokens, *in_comments):
            if token in in_comments:  # a comment's text: kept as written, its '%' escaped
                edit = self.template_edit(statement, token.start, token.start + 1, "%%")
                fix = Fix("Escape the '%' in the PTX comment", (edit,)) if edit else None
            else:
                start = token.start + 1
                edit = self.template_edit(statement, start, start + len(token.modifier), "")
                fix = Fix(f"Remove the '{token.modifier}' modifier", (edit,), safe=False) \
                    if edit else None
            yield self.finding(
                statement,
                self.template_span(statement, token.start, token.end),
                f"operand modifier '{token.modifier}' in '%{token.modifier}{token.index}' is a "
                "GCC modifier that nvcc does not support"
                + (" (nvcc reads '%' sequences inside PTX comments too: write '%%' there)"
                   if token in in_comments else ""),
                fix=fix,
            )
