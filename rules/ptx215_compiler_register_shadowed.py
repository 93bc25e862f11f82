"""PTX215 compiler-register-shadowed."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.shadowed_registers import shadowing_declarations
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext


def _names(declared: str) -> str:
    """``%%f<11>`` -> ``%f0 to %f10``; ``%%f3`` -> ``%f3``."""
    name = declared[1:]
    base, _, count = name.partition("<")
    return f"{base}0 to {base}{int(count.rstrip('>')) - 1}" if count else name


class CompilerRegisterShadowed(Rule):
    id = "PTX215"
    name = "compiler-register-shadowed"
    pure = True
    scope = "statement"
    severity = Severity.WARNING
    needs = ("directives",)
    summary = "A .reg in braces takes nvcc's register names that the template's %N operands get"
    tags = ("correctness", "template")
    docs = """\
## What it does
Flags a `.reg` declaration inside a template's braces whose name is one of nvcc's own register
schemes (`%%r1`, `%%f<11>`, `%%rd<4>`...), where the template names, after it in the same
braces, an operand that nvcc gives a register of that scheme: nvcc 13.0 names an operand's
register by its constraint letter, `"h"` `%rs`, `"r"` `%r`, `"l"` `%rd`, `"f"` `%f`, `"d"`
`%fd`, `"q"` `%rq`, numbered per function from 1 (a tied `"0"` operand takes its output's).
Only extended asm with operands is read (there `%%f1` reaches ptxas as `%f1`); a declaration at
depth 0 collides with the function's own and is PTX201's. A scheme no operand of the block
gets (`.reg .b32 %%r<3>;` where every operand is `"f"`) is not flagged.

## Why is this bad?
Inside the braces the template's declaration hides the function's register of the same name.
nvcc substitutes `%1` with the register it chose, say `%f2`, and `sub.f32 x, %1, %3` after
`.reg .f32 %%f<11>;` reads the template's own, uninitialized `%f2`; an output named so is
written to the template's register and never reaches the C++ variable. Which operands that
hits depends on the numbering of the function the asm is inlined into: the same code works in
a large kernel (its values numbered in the hundreds) and returns garbage in a small one. ptxas
says nothing. CUTLASS's `fast_masked_softmax` (`sm90_visitor_topk_softmax.hpp`) declares
`.reg .f32 %%f<11>;` that way: inlined into a three-line kernel on an H200 it returned 0 for
`exp(0)`.

## Example
```cuda
asm("{\\n\\t.reg .f32 %%f<3>;\\n\\t"
    "add.f32 %%f1, %1, %2;\\n\\t"
    "mul.f32 %0, %%f1, %%f1;\\n\\t}" : "=f"(y) : "f"(a), "f"(b));
```

## Use instead
Names outside nvcc's schemes:
```cuda
asm("{\\n\\t.reg .f32 t<3>;\\n\\t"
    "add.f32 t1, %1, %2;\\n\\t"
    "mul.f32 %0, t1, t1;\\n\\t}" : "=f"(y) : "f"(a), "f"(b));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        for shadowing in shadowing_declarations(statement):
            directive = shadowing.directive
            operands = ", ".join(f"%{i}" for i in shadowing.operands)
            yield self.finding(
                statement,
                self.template_span(statement, directive.start, directive.end),
                f"'{shadowing.declared}' declares {_names(shadowing.declared)}, nvcc's own "
                f"register names, where the template names {operands}, which nvcc names "
                f"{shadowing.register}<N> too: in a function whose numbering gives one of "
                "them such a number, the template reads (or writes) its own register "
                "instead of the operand; name the template's registers outside nvcc's schemes",
            )
