"""PTX212 access-wider-than-object."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.access_width import wide_accesses
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

_MEMORY = frozenset({"ld", "ldu", "st", "atom", "red"})


class AccessWiderThanObject(Rule):
    id = "PTX212"
    name = "access-wider-than-object"
    pure = False  # reads the object's declaration in the file
    scope = "statement"
    severity = Severity.ERROR
    needs = ("instructions",)
    summary = "A memory access moves more bytes than the C++ object its address points to"
    tags = ("correctness", "memory", "operands")
    docs = """\
## What it does
Flags a load, store, atomic or reduction (`ld`, `ldu`, `st`, `atom`, `red`) whose address is
the address of one named C++ object (`&flag`, `&s`, an array, also through pointer casts such
as `(unsigned long long*)&flag`) and that moves more bytes than the object has: the type's
size times the vector count, plus an offset in the address (`[%0+4]`), past `sizeof` the
object (`ptxlint.analysis.access_width`).

An element's address (`&arr[i]`) is never judged: a vectorized access over its neighbours is
the point of many kernels. Nor is an object whose size is unknown (a class ptxlint cannot
size, a pointer parameter).

## Why is this bad?
The access moves the bytes after the object too: a store overwrites whatever the compiler put
next to it (another local, the next member, padding it reuses), a load returns them as part of
the value. The operand is a 64-bit address, so nvcc and ptxas accept it without a word
(tests/test_access_width.py compiles it); what breaks depends on the layout the optimizer
chose.

## Example
```cuda
int flag;
asm volatile("st.global.u64 [%0], %1;" :: "l"(&flag), "l"(v) : "memory");
```

## Use instead
```cuda
unsigned long long flag;
asm volatile("st.global.u64 [%0], %1;" :: "l"(&flag), "l"(v) : "memory");
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if _MEMORY.isdisjoint(i.opcode for i in statement.ptx.instructions):
            return
        parsed = context.parsed
        if parsed is None or getattr(parsed, "text", None) is not statement.source.text:
            return
        if analysis_of(statement).rocm_guarded:
            return
        for access in wide_accesses(statement, parsed):  # type: ignore[arg-type]
            yield self.finding(
                statement,
                self.template_span(statement, access.address.start, access.address.end),
                f"'{access.instruction.mnemonic}' ends {access.end} bytes past '&{access.name}', "
                f"but '{access.name}' ({access.spelling}) has {access.size}: the access reaches "
                "past the object into whatever lies next to it",
            )
