"""PTX503 gcc-clobber-spelling."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.model import AsmStatement, Edit, Finding, Fix, Severity
from ptxlint.rule import Rule, RuleContext

from ._llvm import known_call


class GccClobberSpelling(Rule):
    id = "PTX503"
    name = "gcc-clobber-spelling"
    scope = "statement"
    severity = Severity.ERROR
    needs = ("llvm",)
    summary = "GCC clobber spelling ('memory') in an LLVM constraint string"
    tags = ("correctness", "operands", "python")
    docs = """\
## What it does
Flags `memory` (or `cc`) written as an entry of an LLVM constraint string, the way GCC's
clobber list spells it. LLVM spells a clobber `~{memory}`.

## Why is this bad?
LLVM reads a bare `memory` as one more *input* constraint, so the input count no longer matches
the arguments and LLVM aborts the process (Triton 3.6.0, H100: research note row 3d); with
`~{memory}` the same call works.

## Example
```python
tl.inline_asm_elementwise("st.global.b32 [$1], $2;", "=r,l,r,memory", [p, v],
                          dtype=tl.int32, is_pure=False, pack=1)
```

## Use instead
```python
tl.inline_asm_elementwise("st.global.b32 [$1], $2;", "=r,l,r,~{memory}", [p, v],
                          dtype=tl.int32, is_pure=False, pack=1)
```

## Fix safety
Safe: `~{memory}` is the clobber the author meant.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        known = known_call(statement)
        if known is None:
            return
        _, entries = known
        for entry in entries:
            if entry.role != "gcc-clobber":
                continue
            fix = None
            if statement.source.text[entry.span.start : entry.span.end] == entry.text:
                edit = Edit(entry.span, "~{" + entry.text + "}")
                fix = Fix(f"Write '~{{{entry.text}}}'", (edit,))
            yield self.finding(
                statement,
                entry.span,
                f"'{entry.text}' is GCC's clobber spelling: LLVM reads it as an input "
                f"constraint (and aborts on the input count); write '~{{{entry.text}}}'",
                fix=fix,
            )
