"""PTX511 torch-inline-asm-contract."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

from ._llvm import llvm_call

# LLVM operand spellings that the eager path's `$N` -> `%N` rewrite (the regex `\$(\d+)`)
# leaves as they are: `${0}`, `${0:...}`, `${:uid}`.
_BRACED = re.compile(r"\$\{[^}]*\}")


class TorchInlineAsmContract(Rule):
    id = "PTX511"
    name = "torch-inline-asm-contract"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("llvm",)
    summary = "PyTorch's inline_asm_elementwise given what its eager path or its checks refuse"
    tags = ("correctness", "python")
    docs = """\
## What it does
Checks calls of PyTorch's higher-order op `torch._higher_order_ops.inline_asm_elementwise`
against what the op itself does with them:

- `is_pure=False`: the op raises `ValueError` ("only supports is_pure=True") at the call;
- an LLVM operand spelled `${N}` or `${:uid}` (warning): in eager mode the op runs the
  template through the CUDA Jiterator, inside `asm volatile("...")`, after rewriting only
  `$N` to `%N`; the braced forms reach nvcc as written and the eager kernel does not compile
  (that CUDA code, built with nvcc 13.0: ptxas "Parsing error near '$'"), while the same call
  under `torch.compile` (lowered to Triton) works.

## Why is this bad?
The op's contract differs from Triton's `tl.inline_asm_elementwise`, whose arguments it
mirrors: code moved from Triton keeps `is_pure=False` for a store or a barrier and fails at the
first call, and a template written for LLVM works under `torch.compile` only. Side effects
cannot be expressed at all: PTX505 reports a template with effects under the op's `is_pure`.

## Example
```python
inline_asm_elementwise(x, asm_str="mov.b32 ${0}, ${1};", constraints="=r,r",
                       dtype=torch.int32, is_pure=False)
```

## Use instead
```python
inline_asm_elementwise(x, asm_str="mov.b32 $0, $1;", constraints="=r,r", dtype=torch.int32)
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        call = llvm_call(statement)
        if call is None or call.api != "torch":
            return
        if call.side_effects is True and call.side_effects_span is not None:
            yield self.finding(
                statement,
                call.side_effects_span,
                "PyTorch's inline_asm_elementwise raises ValueError for is_pure=False (it "
                "only supports pure asm); an asm with side effects cannot go through it",
            )
        text = statement.template.text
        for m in _BRACED.finditer(text):
            written = m.group()
            yield self.finding(
                statement,
                self.template_span(statement, m.start(), m.end()),
                f"'{written}': eager mode rewrites only '$N' to '%N' before putting the "
                "template in CUDA 'asm volatile' (Jiterator), so this reaches nvcc as written; "
                "spell the operand '$N'",
                severity=Severity.WARNING,
            )
