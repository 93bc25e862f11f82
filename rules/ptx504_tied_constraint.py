"""PTX504 tied-constraint-not-output."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

from ._llvm import count, known_call


class TiedConstraintNotOutput(Rule):
    id = "PTX504"
    name = "tied-constraint-not-output"
    scope = "statement"
    severity = Severity.ERROR
    needs = ("llvm",)
    summary = "Matching constraint ('0') that does not name an output"
    tags = ("correctness", "operands", "python")
    docs = """\
## What it does
In an LLVM constraint string an input written as a number (`"=r,0,r"`) shares the register of
the output with that number. The rule flags a number that names an input or no operand at all.

## Why is this bad?
LLVM cannot tie an input to another input: Triton 3.6.0 aborts the process with *failed to
parse constraints* for `"=r,r,1"` (research note row 3e), while `"=r,0,r"` works.

## Example
```python
y = tl.inline_asm_elementwise("add.s32 $0, $1, $2;", "=r,r,1", [a, b], dtype=tl.int32,
                              is_pure=True, pack=1)
```

## Use instead
```python
y = tl.inline_asm_elementwise("add.s32 $0, $1, $2;", "=r,0,r", [a, b], dtype=tl.int32,
                              is_pure=True, pack=1)
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        known = known_call(statement)
        if known is None:
            return
        _, entries = known
        outputs = count(entries, "output")
        for entry in entries:
            if entry.role != "input" or not entry.text.isdigit():
                continue
            target = int(entry.text)
            if target < outputs:
                continue
            what = "an input" if target < len(statement.operands) else "no operand"
            yield self.finding(
                statement,
                entry.span,
                f"'{entry.text}' ties this input to operand {target}, which is {what}: only an "
                f"output can be matched (outputs here: {_range(outputs)}); LLVM aborts "
                "with 'failed to parse constraints'",
            )


def _range(outputs: int) -> str:
    if outputs == 0:
        return "none"
    return "0" if outputs == 1 else f"0..{outputs - 1}"
