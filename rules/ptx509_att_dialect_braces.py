"""PTX509 att-dialect-braces."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ptxlint.model import AsmStatement, Edit, Finding, Fix, Severity, Span
from ptxlint.rule import Rule, RuleContext

from ._llvm import llvm_call

# `, asm_dialect=llvm.AsmDialect.AD_ATT` as one keyword argument, the comma before it included.
_KEYWORD = re.compile(r",\s*asm_dialect\s*=\s*$")


class AttDialectBraces(Rule):
    id = "PTX509"
    name = "att-dialect-braces"
    pure = True
    scope = "statement"
    # info: the argument is a no-op for PTX (LLVM prints braces as written) and the failure
    # quack reported was not reproduced (see the docs)
    severity = Severity.INFO
    preview = True
    needs = ("braces",)
    summary = "asm_dialect=AD_ATT on an llvm.inline_asm template with PTX braces"
    tags = ("correctness", "python")
    docs = """\
## What it does
Flags `llvm.inline_asm(..., asm_dialect=llvm.AsmDialect.AD_ATT)` (CuTe DSL, JAX Mosaic GPU,
any MLIR Python binding) whose template holds `{` or `}`: a scope block (`{ .reg .b32 t; ... }`)
or a register vector (`mov.b64 {$1, $0}, prod;`).

## Why is this bad?
It is not: the argument changes nothing, and the finding says it can go. `AD_ATT` is
`llvm::InlineAsm`'s default dialect, and LLVM's asm printer copies `{`, `}` and `|` into the
output as written under it: its dialect alternatives are spelled `$(`, `$|` and `$)`, the form
clang gives GCC's `{att|intel}` (only `AD_Intel` changes what LLVM prints, wrapping the template
in `.intel_syntax` and `.att_syntax` lines). quack's PR 98 reports ptxas parse errors
("Parsing error near '.reg': syntax error") at 12 such call sites with nvidia-cutlass-dsl 4.4.1
and CUDA 13.0 on sm_121a, fixed by removing the argument; nvidia-cutlass-dsl 4.4.1 and 4.8.1
compiled braced `AD_ATT` templates (quack's `mul_wide_u32` and `store_shared_remote_x4` among
them) to the same PTX as without the argument for sm_90a and sm_121a in ptxlint's own checks,
CUTLASS's own CuTe DSL examples and flashinfer ship 249 such calls, and MLIR's
`nvvm.inline_ptx` lowering itself emits `asm_dialect = att` around braced templates. The
failure depends on something else (quack's failing tensormap call also passed three operands
for two constraints: PTX501). Hence a preview rule at info severity.

## Example
```python
llvm.inline_asm(T.i32(), [a, b], "{\\n.reg .u64 p;\\nmul.wide.u32 p, $1, $2;\\n"
                "cvt.u32.u64 $0, p;\\n}", "=r,r,r", asm_dialect=llvm.AsmDialect.AD_ATT)
```

## Use instead
```python
llvm.inline_asm(T.i32(), [a, b], "{\\n.reg .u64 p;\\nmul.wide.u32 p, $1, $2;\\n"
                "cvt.u32.u64 $0, p;\\n}", "=r,r,r")
```

## Fix safety
Safe: the fix removes the `asm_dialect=` keyword argument, leaving LLVM's default.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        call = llvm_call(statement)
        if call is None or call.asm_dialect != "AD_ATT" or call.asm_dialect_span is None:
            return
        if not statement.ptx.braces:
            return
        span = call.asm_dialect_span
        text = statement.source.text
        fix = None
        before = _KEYWORD.search(text, max(0, span.start - 200), span.start)
        if before is not None:
            fix = Fix("Remove asm_dialect=", (Edit(Span(before.start(), span.end), ""),))
        yield self.finding(
            statement,
            span,
            "asm_dialect=AD_ATT is LLVM's default dialect and changes nothing here: LLVM "
            "copies '{' and '}' into the PTX as written (its dialect alternatives are spelled "
            "'$(', '$|', '$)'); quack PR 98 blamed it for ptxas parse errors that were not "
            "reproduced; it can be left out",
            fix=fix,
        )
