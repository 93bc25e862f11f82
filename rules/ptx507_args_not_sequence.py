"""PTX507 args-not-sequence."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.model import AsmStatement, Edit, Finding, Fix, Severity
from ptxlint.rule import Rule, RuleContext

from ._llvm import TRITON_FAMILY, llvm_call


class ArgsNotSequence(Rule):
    id = "PTX507"
    name = "args-not-sequence"
    scope = "statement"
    severity = Severity.ERROR
    needs = ("llvm",)
    summary = "inline_asm_elementwise's args is a tensor, not a list or tuple of tensors"
    tags = ("correctness", "python")
    docs = """\
## What it does
Flags `args=` of Triton's (or helion's, or Pallas') `inline_asm_elementwise` when it is a single
tensor expression (`x`, `x.to(...)`, `tl.load(...)`, `a + b`) rather than a list or tuple.

## Why is this bad?
Triton iterates over `args`; a bare tensor fails while tracing with a misleading
*CompilationError: Did you forget to add @triton.jit ? (_semantic argument must be provided
outside of JIT functions.)* (Triton 3.6.0, research note row 12).

## Example
```python
y = tl.inline_asm_elementwise("neg.f32 $0, $1;", "=r,r", x.to(tl.float32), dtype=tl.float32,
                              is_pure=True, pack=1)
```

## Use instead
```python
y = tl.inline_asm_elementwise("neg.f32 $0, $1;", "=r,r", [x.to(tl.float32)],
                              dtype=tl.float32, is_pure=True, pack=1)
```

## Fix safety
Safe: wrapping the tensor in `[ ]` is what the API expects.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        call = llvm_call(statement)
        if call is None or call.api not in TRITON_FAMILY or call.args_kind != "other":
            return
        span = call.args_span
        if span is None:
            return
        text = statement.source.text[span.start : span.end]
        yield self.finding(
            statement,
            span,
            f"args is the tensor '{text}', not a list or tuple of tensors: Triton fails while "
            "tracing with a misleading 'Did you forget to add @triton.jit ?'; write "
            f"[{text}]",
            fix=Fix("Wrap the argument in a list", (Edit(span, f"[{text}]"),)),
        )
