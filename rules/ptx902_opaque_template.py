"""PTX902 opaque-template."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ptxlint.model import HOLE, AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

from ._llvm import API_NAMES, llvm_call

_CALL = re.compile(r"^\s*([\w.]+)\s*\(")
_BINDING = re.compile(r"^\s*([\w.]+)\s*\+?=[^=]")
_BRANCH = re.compile(r"^\s*(if|for|while|try|match|with)\b")
_NAME = re.compile(r"^\s*([\w.]+)\s*$")


class OpaqueTemplate(Rule):
    id = "PTX902"
    name = "opaque-template"
    pure = True
    scope = "statement"
    severity = Severity.INFO
    needs = ("llvm",)
    summary = "An asm call whose whole template ptxlint cannot read: nothing in it is linted"
    tags = ("python",)
    docs = """\
## What it does
Notes a Triton, Pallas, CuTe DSL, llvmlite or Julia asm call whose template string is not
knowable from the file at all: it comes from a function of another module, a parameter, a
lookup table, or a helper of this module that ptxlint does not follow (its arguments are not
literals or module constants, or it uses a form of Python the reader does not know).
A template that is known in part is linted in part, with holes, and gets no note.

A module-level wrapper that passes its own parameter on as the template is read at each of
its uses in the module instead (`_asm(T.i32(), "add.u32 $0, $1, $2;", "=r,r,r", [a, b])`,
or `partial(_asm, ptx="...")`), with that use's arguments: the note is then for a use whose
template is not knowable, and for the wrapper's call where no use is read (none in the
module, or the call sits in an `if` arm of the wrapper or after a `return`).

## Why is this bad?
No rule can say anything about the PTX: a typo in it, a missing `volatile` or a
`.reg` outside braces is found only when the kernel is first launched (ptxas runs at the first
call, not at import). The note says where ptxlint stopped, so that the silence is not read as
a clean bill.

## Example
```python
tl.inline_asm_elementwise(ASM_TABLE[kind], "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
```

## Use instead
Spell the template where the call can see it: a literal, a module constant, or a helper of
the same module called with literal arguments.
```python
tl.inline_asm_elementwise(CVT_ASM, "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        call = llvm_call(statement)
        if call is None or not statement.template.has_holes:
            return
        text = statement.template.text
        if text.replace(HOLE, "").strip():
            return  # known in part: what is known is linted
        pieces = [p for p in statement.template.pieces if p.kind == "macro"]
        if not pieces:
            return
        span = pieces[0].span
        written = statement.source.text[span.start : span.end]
        api = API_NAMES.get(call.api, call.api)
        m = _BINDING.match(written) or _BRANCH.match(written)
        if m is not None:
            why = (
                "it is bound on one branch of an 'if' or in a loop, so which value reaches the "
                "call is known only when the program runs"
            )
        elif (m := _CALL.match(written)) is not None:
            why = (
                f"it is built by '{m.group(1)}(...)', which ptxlint follows only into a "
                "function of this module called with literal arguments"
            )
        elif (m := _NAME.match(written)) is not None:
            why = f"'{m.group(1)}' is not bound to a string this file spells"
        else:
            why = f"'{' '.join(written.split())[:60]}' is computed when the program runs"
        yield self.finding(
            statement,
            span,
            f"the asm template of this call ({api}) is not knowable from this file ({why}): "
            "nothing in it is linted",
        )
