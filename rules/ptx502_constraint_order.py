"""PTX502 constraint-order."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

from ._llvm import TRITON_FAMILY, known_call


class ConstraintOrder(Rule):
    id = "PTX502"
    name = "constraint-order"
    scope = "statement"
    severity = Severity.ERROR
    needs = ("llvm",)
    summary = "LLVM constraint string with an output after an input, no '=' output, or '+'"
    tags = ("correctness", "operands", "python")
    docs = """\
## What it does
Checks the shape of an LLVM constraint string (Triton, Pallas, helion, CuTe DSL, llvmlite):
every output (`=r`) must come before every input and clobber; a call that returns a value
(every Triton call does) needs at least one `=` output; and `+` (GCC's read-write modifier)
does not exist in LLVM constraint strings.

## Why is this bad?
LLVM rejects each shape while building the IR, which in Triton aborts the Python process with
no exception (Triton 3.6.0, H100, research note rows 3b and 3c): *output constraint occurs after
input, clobber or label constraint*; *inline asm without outputs must return void* for `"r,r"`
(the output written without `=`) and for `"+r,r"`.

## Example
```python
y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "r,=r", [x], dtype=tl.int32,
                              is_pure=True, pack=1)
y = tl.inline_asm_elementwise("add.s32 $0, $0, $1;", "+r,r", [x], dtype=tl.int32,
                              is_pure=True, pack=1)
```

## Use instead
```python
y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32,
                              is_pure=True, pack=1)
# read-write: an output and an input tied to it ("0" = the same register as $0)
y = tl.inline_asm_elementwise("add.s32 $0, $0, $2;", "=r,0,r", [acc, x], dtype=tl.int32,
                              is_pure=True, pack=1)
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        known = known_call(statement)
        if known is None:
            return
        call, entries = known
        seen_input = None
        for entry in entries:
            if "+" in entry.text:
                yield self.finding(
                    statement,
                    entry.span,
                    f"'{entry.text}': LLVM constraint strings have no '+' modifier (LLVM aborts "
                    "with 'inline asm without outputs must return void'); write an '=' output "
                    "and tie an input to it with its number ('=r,0')",
                )
                continue
            if entry.role == "output" and seen_input is not None:
                yield self.finding(
                    statement,
                    entry.span,
                    f"output '{entry.text}' comes after the {seen_input.role} "
                    f"'{seen_input.text}': LLVM needs every output first (it aborts with "
                    "'output constraint occurs after input, clobber or label constraint')",
                )
            elif entry.role in ("input", "clobber", "gcc-clobber") and seen_input is None:
                seen_input = entry
        returns = call.api in TRITON_FAMILY or (call.api == "cute" and call.results != ())
        has_output = any(e.role == "output" for e in entries)
        plus = any("+" in e.text for e in entries)
        if returns and call.api in TRITON_FAMILY and entries and not has_output and not plus:
            first = entries[0]
            yield self.finding(
                statement,
                first.span,
                f"no output in '{call.constraints.text if call.constraints else ''}': the "
                "call returns a tensor, so its registers come first and are written '=r' "
                "(LLVM aborts with 'inline asm without outputs must return void')",
            )
