"""PTX104 output-not-written."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, PercentToken, Severity, Span
from ptxlint.rule import Rule, RuleContext


class OutputNotWritten(Rule):
    id = "PTX104"
    name = "output-not-written"
    pure = True
    scope = "statement"
    severity = Severity.WARNING
    needs = ("outputs",)
    summary = "An output operand is never written by the template"
    tags = ("correctness", "operands")
    docs = """\
## What it does
Flags an output operand that no instruction of the template writes: it is only read (as a
source, an address, a predicate guard). An output the template never references at all is
PTX009's finding, and a write-only (`=`) output read before any write is PTX106's (the read
gets an undefined value; `ptxlint.analysis` names that root): one cause, one finding. A `+`
(read-write) operand
that is only read is reported as one that *could be an input*.

What counts as a write is the destination of an instruction, per `ptxlint/ptx/effects.py`:
the first operand for most instructions, every element of a braced vector destination
(`{%0, %1}`), both halves of a `p|q` pair; nothing for `st`, `red`, `bar`, `prefetch`,
`cp.async`, `mbarrier.init` and others whose first operand is an address or an input.
It stays silent when the template has an opaque macro piece, an instruction whose
destinations are unknown (`call`, an operand spliced into the mnemonic), when the operand
sections come through a macro, and for an empty template (`asm volatile("" : "+r"(x))` is
the optimization-barrier idiom).

## Why is this bad?
An `=` output that the template never writes hands the C++ variable whatever the register
held: garbage, silently (nvcc does not check). Usually it is a swapped `%N`
(`st.global.u32 [%0], %1` with the address declared as the output) or an output that should
have been an input. A `+` operand that is only read costs an extra register copy and hides
the statement's real data flow; as an input it says what it is.

## Example
```cuda
asm volatile("st.global.u32 [%1], %0;" : "+r"(v) : "l"(p));   // v is stored, never written
```

## Use instead
```cuda
asm volatile("st.global.u32 [%0], %1;" :: "l"(p), "r"(v));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if statement.opaque_sections or not statement.extended or not statement.ptx.instructions:
            return
        facts = analysis_of(statement)
        analysis = facts.flow
        if analysis is None:
            return
        unwritten = [
            o for o in statement.outputs
            if not o.constraint.opaque and o.index not in analysis.writes
            # the roots: an undefined read (PTX106), an operand nvcc rejects (PTX002, PTX005)
            and o.index not in facts.undefined_reads
            and facts.operand_root(o.index) is None
        ]
        if not unwritten:
            return  # most statements: the template writes every output
        refs: dict[int, PercentToken] = {}
        llvm = statement.syntax == "llvm"
        comments = statement.ptx.comments if llvm else ()
        for percent in statement.ptx.percents:
            if percent.kind == "ref" and percent.index is not None:
                if any(start <= percent.start < end for start, end in comments):
                    continue  # `griddepcontrol.wait; // dummy $0`: names it, uses nothing
                refs.setdefault(percent.index, percent)
        for operand in unwritten:
            token = refs.get(operand.index)
            if token is not None:
                span = self.template_span(statement, token.start, token.end)
            else:
                span = Span(operand.span.start, operand.span.end)
            if token is None:
                # Never referenced: PTX009 reports it (naming the undefined value for an '='
                # output); a second finding on the same operand would repeat one cause.
                continue
            name = f"{statement.ref_prefix}{operand.index} ('{operand.constraint.text}')"
            if "+" in operand.constraint.modifiers:
                message = (
                    f"read-write operand {name} is only read by the template: it could be an input"
                )
            else:
                message = (
                    f"output {name} is only read, never written, by the template: the variable "
                    "receives an undefined value"
                )
            yield self.finding(statement, span, message)
