"""PTX209 carry-chain-broken."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.carry import PRODUCERS, carry_breaks
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext


class CarryChainBroken(Rule):
    id = "PTX209"
    name = "carry-chain-broken"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("carry-arithmetic",)
    summary = "A carry consumer in the template reads a carry its chain did not mean"
    tags = ("correctness", "template")
    docs = """\
## What it does
Follows the carry flag through one template (`ptxlint.analysis.carry`) and flags a consumer
(`addc`, `subc`, `madc`) that reads a carry other than the one its chain meant:

- **consumed twice**: `add.cc; addc; addc`: the middle `addc` has no `.cc`, so it leaves the
  flag as it was, and the next consumer adds the same carry again;
- **overwritten**: `add.cc; add.cc; addc`: the first producer's carry is replaced by the next
  `.cc` before any instruction reads it (the second was meant to be `addc.cc`, or two chains
  are interleaved);
- **not on every path**: `@p add.cc; addc`: the producer runs under a predicate the consumer
  does not share; where it is false, the consumer reads a stale flag.

A carry read across statements (no producer before the consumer in the template) is PTX107's
finding. After a label, a branch or an instruction it cannot read, the rule follows nothing.

## Why is this bad?
PTX ISA, "Extended-Precision Integer Arithmetic Instructions": the six carry instructions
"reference an implicitly specified condition code register (CC) having a single carry flag
bit (CC.CF)"; `addc` computes `d = a + b + CC.CF` and writes the carry out only "if .cc
specified"; "no other instructions access the condition code". A consumer therefore reads the
carry of the last `.cc` before it, whatever the chain meant. ptxas accepts every one of these
templates without a word (tests/test_carry_chain.py compiles them); the sum is wrong by a
carry, silently, for the inputs that carry. On an H200 (CUDA 13.0), the example below with
`a = {0xffffffff, 0, 0}` and `b = {1, 0, 0}` gives `{0, 1, 1}`; the fix gives `{0, 1, 0}`
(the test runs it wherever a GPU is present).

## Example
```cuda
asm("add.cc.u32  %0, %3, %6;\\n\\t"
    "addc.u32    %1, %4, %7;\\n\\t"     // no .cc: the carry out of word 1 is lost
    "addc.u32    %2, %5, %8;"           // adds word 0's carry a second time
    : "=r"(r0), "=r"(r1), "=r"(r2)
    : "r"(a0), "r"(a1), "r"(a2), "r"(b0), "r"(b1), "r"(b2));
```

## Use instead
```cuda
asm("add.cc.u32  %0, %3, %6;\\n\\t"
    "addc.cc.u32 %1, %4, %7;\\n\\t"
    "addc.u32    %2, %5, %8;"
    : "=r"(r0), "=r"(r1), "=r"(r2)
    : "r"(a0), "r"(a1), "r"(a2), "r"(b0), "r"(b1), "r"(b2));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if PRODUCERS.isdisjoint([i.opcode for i in statement.ptx.instructions]):
            return  # no carry arithmetic (most statements)
        if analysis_of(statement).rocm_guarded:
            return
        for found in carry_breaks(statement):
            at = found.at
            span = self.template_span(statement, at.opcode_start, at.opcode_end)
            producer = found.producer.mnemonic
            if found.kind == "consumed-twice":
                assert found.other is not None
                message = (
                    f"'{at.mnemonic}' reads the carry '{producer}' set, which "
                    f"'{found.other.mnemonic}' before it already consumed without writing a "
                    f"new one: the same carry is added twice; the earlier consumer needs "
                    "'.cc' to pass its own carry on"
                )
            elif found.kind == "overwritten":
                assert found.other is not None
                message = (
                    f"the carry '{producer}' sets is replaced by '{found.other.mnemonic}' "
                    "before any instruction reads it: the chain loses it (was the second "
                    "one meant to be a consumer, 'addc.cc'?)"
                )
            else:
                predicate = found.producer.predicate
                assert predicate is not None
                guard = ("!" if predicate.negated else "") + predicate.register.text
                message = (
                    f"'{at.mnemonic}' reads the carry that '{producer}' sets only under "
                    f"@{guard}: where that is false it reads a stale flag; predicate the "
                    "consumer the same way, or set the carry on every path"
                )
            yield self.finding(statement, span, message)
