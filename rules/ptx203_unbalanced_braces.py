"""PTX203 unbalanced-braces."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.split_scopes import kept_in_order, scope_helper, unbalanced
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext


class UnbalancedBraces(Rule):
    id = "PTX203"
    name = "unbalanced-braces"
    pure = True
    severity = Severity.ERROR
    needs = ("braces",)
    summary = "Template's '{' and '}' do not balance"
    tags = ("correctness", "template")
    docs = """\
## What it does
Flags a `}` that closes nothing and a `{` that is never closed, counting across the whole
template (all its string pieces). Braces inside PTX comments and vector operands such as
`{%0, %1}` are not scope braces and are not counted.

## Why is this bad?
The template is spliced into the function's PTX. An unclosed `{` swallows the code the compiler
emits after it into the statement's scope; a stray `}` closes the enclosing function's scope.
ptxas then fails with a syntax error on a PTX line nobody can map back to the source.

When part of the template comes from a macro ptxlint cannot see, the brace could be in the macro,
so the rule says nothing. Nor does it flag a scope deliberately split across consecutive
`volatile` statements of one function (CCCL opens `{ .reg .b128 q;` in one asm and closes it
in a later one): the pair balances, and volatile asm statements keep their order. An asm with
no outputs (a basic `asm("}")` among them) is volatile without the word: GCC, clang and nvcc
treat it so (sppark opens `asm("{ .reg.pred %top;");` and closes it with `asm("}");`). The
same holds for a pair of macros, one that opens the scope and one that closes it, used in
sequence, and for two helper functions whose asm is nothing but the brace (and
declarations), one that opens and one that closes the scope (xmp's `nestStart()` is
`asm volatile("{")`, its `nestEnd()` `asm volatile("}")`): they are called in sequence
wherever they are defined.

## Example
```cuda
asm("{\\n\\t.reg .pred p;\\n\\tsetp.ne.b32 p, %1, 0;\\n\\tselp.u32 %0, 1, 0, p;\\n"
    : "=r"(r) : "r"(x));
```

## Use instead
```cuda
asm("{\\n\\t.reg .pred p;\\n\\tsetp.ne.b32 p, %1, 0;\\n\\tselp.u32 %0, 1, 0, p;\\n}"
    : "=r"(r) : "r"(x));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if statement.template.has_holes:
            return
        unopened, unclosed = unbalanced(statement)
        if not unopened and not unclosed:
            return
        if kept_in_order(statement) and _split_scope(statement, context, bool(unclosed)):
            return
        for offset in unopened:
            yield self.finding(
                statement,
                self.template_span(statement, offset, offset + 1),
                "'}' closes no '{' of this template",
            )
        for offset in unclosed:
            yield self.finding(
                statement,
                self.template_span(statement, offset, offset + 1),
                "'{' is never closed in this template",
            )


def _split_scope(statement: AsmStatement, context: RuleContext, opens: bool) -> bool:
    """Whether a volatile neighbour closes (or opens) this scope: a later (earlier) statement of
    the same function, or, for the statement of a macro's definition, another macro's in
    either order (``OPEN_SCOPE()`` and ``CLOSE_SCOPE()`` expand in sequence where they are
    used, wherever they are defined)."""
    in_macro = statement.context.function is None and statement.context.macro is not None
    helper = scope_helper(statement)

    def helper_pair(other: AsmStatement) -> bool:
        """Two helpers of the file, each only a brace (and declarations): ``nestStart()`` and
        ``nestEnd()`` are called in sequence wherever they are defined."""
        return (helper and other.context.function is not None
                and other.context.function != statement.context.function
                and scope_helper(other))

    def neighbour(other: AsmStatement) -> bool:
        if other is statement or not kept_in_order(other) or other.template.has_holes:
            return False
        if in_macro:
            return other.context.function is None and other.context.macro is not None
        return helper_pair(other) or (other.context.function == statement.context.function
                                      and other.context.macro == statement.context.macro)

    near = [s for s in context.file_statements if neighbour(s)]
    if opens:
        later = [s for s in near
                 if in_macro or helper_pair(s) or s.span.start > statement.span.start]
        return any(unbalanced(s)[0] for s in later)
    earlier = [s for s in near if in_macro or helper_pair(s) or s.span.start < statement.span.start]
    return any(unbalanced(s)[1] for s in earlier)
