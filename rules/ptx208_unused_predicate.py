"""PTX208 unused-predicate."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.lost_predicates import SELP_TYPES
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext


class UnusedPredicate(Rule):
    id = "PTX208"
    name = "unused-predicate"
    pure = True
    scope = "statement"
    severity = Severity.WARNING
    needs = ("directives",)
    summary = "A predicate the template computes is never read"
    tags = ("correctness", "template")
    docs = """\
## What it does
Flags a predicate register declared inside the template's braces (`.reg .pred p;`) that an
instruction writes and no instruction reads: no `@p` guard, no `selp`/`and`/`not` that takes it,
no operand of the asm statement that receives it. Silent where no form of the writing instruction
spells it (PTX204, PTX207): `match.any` takes no predicate output at all, and one defect is one
finding.

Where the template loses one predicate and writes one write-only output `selp` can fill
(`=r`, `=h`, `=l`; `=f`, `=d`, a choice between two values) with no instruction, the two are
one defect, the move between them missing (a `try_wait` whose `selp` was deleted): this
finding names the output and the `selp` it lacks, and PTX009 ("never referenced") and PTX104
("never written") are silent on the output (`ptxlint.analysis.roots`: `lost-result`).

## Why is this bad?
A predicate cannot leave an asm statement by itself: an output operand must be given its value
(`selp.b32 %0, 1, 0, p;`). A predicate that is written and then dropped means the result the
template was written for is lost, and the statement quietly does less than it says. CCCL's
generated `cuda::ptx::mbarrier_test_wait`/`try_wait` wrappers did exactly that: they set the
predicate from an input, let `mbarrier.test_wait` overwrite it, and returned nothing, so callers
could never see that the phase had completed (fixed in CCCL #3670).

A predicate declared at the top level of the template, or inside braces that a later asm
statement closes, may be read by another statement and is left alone (PTX201 and PTX203 speak
about that pattern). So is one computed from immediates only (`setp.ne.b32 p1, 1, 0;`, a code
generator's placeholder): it is dead code, not a lost result. So is the unread half of a `p|q`
pair whose other half is read (`setp.ltu.f16x2 lo|hi, a, b;` where only `lo` matters): the
comparison's result is used, and the other half is a by-product of the form (the sink `_`
would name it).

## Example
```cuda
asm volatile("{\\n\\t.reg .pred p;\\n\\t"
             "mbarrier.test_wait.shared::cta.b64 p, [%0], %1;\\n\\t}"
             :: "r"(bar), "l"(state) : "memory");
```

## Use instead
```cuda
uint32_t done;
asm volatile("{\\n\\t.reg .pred p;\\n\\t"
             "mbarrier.test_wait.shared::cta.b64 p, [%1], %2;\\n\\t"
             "selp.b32 %0, 1, 0, p;\\n\\t}"
             : "=r"(done) : "r"(bar), "l"(state) : "memory");
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        analysis = analysis_of(statement)
        lost = analysis.lost_predicates
        if not lost:
            return
        result = analysis.lost_result
        for predicate in lost:
            instruction = predicate.instruction
            name = predicate.name
            span = self.template_span(statement, instruction.opcode_start, instruction.opcode_end)
            head = (
                f"predicate '{name}' is written by '{instruction.mnemonic}' and never read"
            )
            if result is not None and result[0] is predicate:
                output = result[1]
                ref = f"{statement.ref_prefix}{output.index}"
                what = f" ({output.expression})" if output.expression else ""
                selp = SELP_TYPES[output.constraint.letters]
                # an integer output takes the flag; a floating one, one of two values
                chosen = "a, b" if selp.startswith("f") else "1, 0"
                yield self.finding(
                    statement, span,
                    f"{head}, and output {ref}{what} is written by no instruction: the move of "
                    f"the one into the other is missing (selp.{selp} {ref}, {chosen}, {name};), "
                    "so the variable receives an undefined value",
                )
                continue
            yield self.finding(
                statement, span,
                f"{head}: a predicate cannot leave the asm by itself, so its value is lost; "
                f"move it into an output (selp.b32 %N, 1, 0, {name};) or use it as a guard",
            )
