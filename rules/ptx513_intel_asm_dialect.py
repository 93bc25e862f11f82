"""PTX513 intel-asm-dialect."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ptxlint.model import AsmStatement, Edit, Finding, Fix, Severity, Span
from ptxlint.rule import Rule, RuleContext

from ._llvm import llvm_call

# `, asm_dialect=llvm.AsmDialect.AD_Intel` as one keyword argument, the comma before it included.
_KEYWORD = re.compile(r",\s*asm_dialect\s*=\s*$")


class IntelAsmDialect(Rule):
    id = "PTX513"
    name = "intel-asm-dialect"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    # preview: shown with upstream LLVM's llc; the DSLs compile through their own LLVM builds,
    # and no public code was found to spell the dialect
    preview = True
    needs = ("llvm",)
    summary = "asm_dialect=AD_Intel: LLVM prints x86 syntax lines in the PTX that ptxas rejects"
    tags = ("correctness", "python")
    docs = """\
## What it does
Flags `llvm.inline_asm(..., asm_dialect=llvm.AsmDialect.AD_Intel)` (CuTe DSL, JAX Mosaic GPU,
any MLIR Python binding) with a template that is not empty.

## Why is this bad?
The dialect is x86's, and LLVM's asm printer does not ask the target before using it
(`EmitInlineAsmStr` in `llvm/lib/CodeGen/AsmPrinter/AsmPrinterInlineAsm.cpp`): for an
`inteldialect` statement it writes a `.intel_syntax` line before the template and an
`.att_syntax` line after it. NVPTX hands that text to the PTX file as it is (it sets
`UseIntegratedAssembler = false`), and neither is a PTX directive: ptxas stops with
"Parsing error near '.intel_syntax': syntax error" (LLVM 14's `llc` for nvptx64 and ptxas
13.0, on a braced template; the same template without the dialect assembles). Only an
empty template is printed without them. The dialect also drops the `$` of a `$$` and picks
another alternative of a `$(a$|b$)` group, neither of which a PTX template needs.

`AD_ATT`, the other value, is LLVM's default and changes nothing for NVPTX (PTX509, retired,
flagged it).

## Example
```python
llvm.inline_asm(T.i32(), [a, b], "mul.lo.u32 $0, $1, $2;", "=r,r,r",
                asm_dialect=llvm.AsmDialect.AD_Intel)
```

## Use instead
```python
llvm.inline_asm(T.i32(), [a, b], "mul.lo.u32 $0, $1, $2;", "=r,r,r")
```

## Fix safety
Safe: the fix removes the `asm_dialect=` keyword argument, leaving LLVM's default dialect,
which prints the template as written. It is offered only where the template spells no `$$`
and no `$(`, the two things the dialects print differently.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        call = llvm_call(statement)
        if call is None or call.asm_dialect != "AD_Intel" or call.asm_dialect_span is None:
            return
        template = statement.template.text
        if not template:
            return  # the printer writes an empty template's markers only
        span = call.asm_dialect_span
        fix = None
        before = _KEYWORD.search(statement.source.text, max(0, span.start - 200), span.start)
        if before is not None and "$$" not in template and "$(" not in template:
            fix = Fix("Remove asm_dialect=", (Edit(Span(before.start(), span.end), ""),))
        yield self.finding(
            statement,
            span,
            "asm_dialect=AD_Intel makes LLVM print '.intel_syntax' before the template and "
            "'.att_syntax' after it, which ptxas rejects (\"Parsing error near "
            "'.intel_syntax'\"); leave the argument out",
            fix=fix,
        )
