"""PTX208 unused-predicate."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, PtxInstruction, Severity
from ptxlint.ptx.operand_roles import destinations, leaves
from ptxlint.ptx.scopes import braces_known
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
generator's placeholder): it is dead code, not a lost result.

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
        ptx = statement.ptx
        declared: dict[str, int] = {}
        for directive in ptx.directives:
            if directive.depth >= 1 and ".pred" in directive.text.split():
                for name in directive.declared:
                    if "<" not in name:  # p<4> declares p0..p3: not followed here
                        declared.setdefault(name, directive.start)
        if not declared or not braces_known(statement):  # they die with the statement
            return
        # Only the declared predicates are followed (a wgmma's 128 registers and its other
        # operands are never one): reads, writes and constant writes of other names are not
        # kept, and whether an instruction computes from immediates only is asked only where
        # it writes a declared predicate.
        written: dict[str, PtxInstruction] = {}
        constant: set[str] = set()  # written last from immediates only
        read: set[str] = set()
        for instruction in ptx.instructions:
            if instruction.opaque:
                return  # a hole may read it
            if instruction.predicate is not None:
                read.add(instruction.predicate.register.text)
            # the destinations the data-flow rules read (``operand_roles``, the grammar's written
            # positions first); none known (an unknown opcode, a `call`) counts every operand
            # as read
            written_here = destinations(instruction) or ()
            # Of them, those that may spell a declared predicate (``!`` aside): only these can
            # be a declared name's write, and only a declared name's read is told from them
            # (``read`` is asked of declared names alone). A wgmma's 128 destinations spell
            # none: one pass over their texts, where a set of all their identities and a
            # second pass were made (the rule alone over the 2,290 statements of CUTLASS's
            # include/ it is called for: 34.1 -> 26.7 ms, best of 11).
            mine = [d for d in written_here if d.text in declared or "!" in d.text]
            taken = {id(d) for d in mine}
            for operand in instruction.operands:
                if not operand.parts:
                    name = operand.text.lstrip("!")
                    if name in declared and id(operand) not in taken:
                        read.add(name)
                elif any(name in operand.text for name in declared):
                    read.update(part.text.lstrip("!") for part in leaves(operand)
                                if id(part) not in taken)
                # else no part spells a declared predicate (a wgmma's 128 registers)
            from_constants: bool | None = None  # asked of the first declared one written
            for operand in mine:
                if operand.text not in declared:
                    continue
                written[operand.text] = instruction  # the last write is the one lost
                if from_constants is None:
                    # every destination is no source, whatever it spells
                    from_constants = _from_immediates(instruction, {id(d) for d in written_here})
                if from_constants:
                    constant.add(operand.text)
                else:
                    constant.discard(operand.text)
        for name, instruction in written.items():
            # `setp.ne.b32 p1, 1, 0` computes nothing a caller could want: generated code's
            # placeholder (flashinfer's tcgen05 kernels), dead rather than lost
            if name in read or name in constant:
                continue
            if any(issue.severity == "error" and issue.kind != "type"
                   for issue in analysis_of(statement).verdict(instruction).issues):
                continue  # no form spells the instruction (PTX204/PTX207): what it writes is moot
            start = instruction.opcode_start
            yield self.finding(
                statement,
                self.template_span(statement, start, instruction.opcode_end),
                f"predicate '{name}' is written by '{instruction.mnemonic}' and never read: "
                f"a predicate cannot leave the asm by itself, so its value is lost; move it "
                f"into an output (selp.b32 %N, 1, 0, {name};) or use it as a guard",
            )


def _from_immediates(instruction: PtxInstruction, taken: set[int]) -> bool:
    """Whether ``instruction`` computes its result from immediates alone: every leaf it reads
    (the guard apart; ``taken`` holds its destinations' ids) is one, and it reads some."""
    if instruction.opcode not in _PURE:
        return False
    sources = [part for operand in instruction.operands for part in leaves(operand)
               if id(part) not in taken]
    return bool(sources) and all(part.kind == "immediate" for part in sources)


# Instructions whose predicate result is a function of their sources alone; elect.sync's or
# mbarrier.test_wait's is not, even from immediates.
_PURE = frozenset({"setp", "mov", "and", "or", "xor", "not", "selp"})
