"""PTX107 carry-flag-across-statements."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ptxlint.analysis.carry import PRODUCERS as _PRODUCERS
from ptxlint.analysis.carry import carry_use
from ptxlint.analysis.cxx_facts import facts_for
from ptxlint.analysis.split_scopes import kept_in_order
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, PtxInstruction, Severity
from ptxlint.rule import Rule, RuleContext


class CarryFlagAcrossStatements(Rule):
    id = "PTX107"
    name = "carry-flag-across-statements"
    # Neighbours are read (context.file_statements) only around a carry flag: the engine
    # memoises the other outcomes, and re-runs these.
    pure = True
    severity = Severity.ERROR
    needs = ("carry-arithmetic",)
    summary = "A carry-flag consumer whose producer is not in the same asm statement"
    tags = ("correctness", "optimizer")
    docs = """\
## What it does
Flags an instruction that reads the carry flag (`addc`, `subc`, `madc`, with or without
`.cc`) when no instruction earlier in the same template sets it (`add.cc`, `sub.cc`,
`mad.lo.cc`, `addc.cc`...). When the previous asm statement of the same function sets it,
the message names that statement, and that statement gets a warning of its own: its last
`.cc` result is never consumed inside it.

The warning also flags a template whose only carry use is a `.cc` producer (`add.cc.u32`
alone): the flag it sets dies with the statement. A chain that ends in `addc.cc` after other
consumers is modular arithmetic dropping its last carry, and stays silent unless the next
asm statement reads it.

## Why is this bad?
The carry flag is not an operand: the compiler does not know that one asm statement leaves a
value in it and the next one reads it. Nothing stops it from placing instructions between the
two statements, from moving the second one, or from hoisting it out of a loop (it is not
volatile and its inputs never change). With `nvcc -arch=sm_90 -O3` (CUDA 13.0), the tutorial
pattern

    asm("add.cc.u32 %0, %0, %1;" : "+r"(a) : "r"(b[i]));
    asm("addc.u32 %0, 0, 0;" : "=r"(c));

inside a loop compiles to one `addc.u32` hoisted above the loop, before any `add.cc`: every
iteration adds the same meaningless carry. With both instructions in one statement the
`addc` stays right after each `add.cc`. tests/test_optimizer_evidence.py compiles both
whenever nvcc is available. nvcc says nothing.

Both statements `volatile` (CuTe DSL's `add_cc`/`addc` wrappers are `has_side_effects`) keep
their order, and the consumer is then a **warning**, not an error: the chain still relies on
nothing between the two statements touching the flag, and the compiler does place its own
code there (the same loop, volatile, gets the loop's other arithmetic between `add.cc` and
`addc`), including the `add.cc.u64`/`addc.u64` pairs it emits for 128-bit integers. An asm
with no output operand counts as volatile (GCC's rule, which clang and nvcc follow: nvcc 13.0
keeps both of two identical `asm("membar.gl;")`, and drops the second of two identical
`asm("mov.u32 %0, %%clock;" : "=r"(r))`), so `asm("{ .reg .u32 t; add.cc.u32 t, %0, %1; }"
:: "r"(a), "r"(b))` followed by `asm volatile("addc.u32 %0, 0, 0;" : "=r"(c))` is a warning too.

## Example
```cuda
asm("add.cc.u32 %0, %0, %1;" : "+r"(lo) : "r"(b_lo));
asm("addc.u32 %0, %0, %1;" : "+r"(hi) : "r"(b_hi));
```

## Use instead
```cuda
asm("add.cc.u32 %0, %0, %2;\\n\\t"
    "addc.u32 %1, %1, %3;"
    : "+r"(lo), "+r"(hi) : "r"(b_lo), "r"(b_hi));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if _PRODUCERS.isdisjoint([i.opcode for i in statement.ptx.instructions]):
            return  # no carry arithmetic (most statements): nothing below could speak
        analysis = analysis_of(statement)
        if analysis.rocm_guarded:
            return
        use = carry_use(statement)
        if use is None:
            return
        if use.first_unfed is not None and not analysis.misspelled(use.first_unfed):
            yield self._unfed(statement, use.first_unfed, context)
        if use.last_producer is not None and not use.consumed_after_last_producer \
                and not analysis.misspelled(use.last_producer):
            after = _neighbour(statement, context, +1)
            fed = after is not None and (u := carry_use(after)) is not None and \
                u.first_unfed is not None
            if use.consumers == 0 or fed:
                yield self._unconsumed(statement, use.last_producer, after if fed else None)

    def _unfed(self, statement: AsmStatement, consumer: PtxInstruction,
               context: RuleContext) -> Finding:
        span = self.template_span(statement, consumer.opcode_start, consumer.opcode_end)
        before = _neighbour(statement, context, -1)
        use = carry_use(before) if before is not None else None
        fed = before is not None and use is not None and use.last_producer is not None \
            and not use.consumed_after_last_producer
        # Volatile statements (an asm without outputs is one: ``kept_in_order``) keep their
        # order, so the consumer is not hoisted away from its producer; the compiler may still
        # put its own code between them, and the add.cc/addc it emits for 128-bit integers
        # reuses the flag: a warning. Otherwise an error: nvcc moves a non-volatile consumer
        # (the docs' evidence).
        ordered = kept_in_order(statement) and (not fed or before is None or kept_in_order(before))
        severity = Severity.WARNING if ordered else None
        hazard = (
            "only volatile keeps the two in order, and the compiler may still put its own "
            "carry arithmetic (128-bit integers) between them"
            if ordered else "the compiler may move code or this statement between the two"
        )
        if fed:
            assert before is not None and use is not None and use.last_producer is not None
            where = before.source.line_col(before.span.start)
            return self.finding(
                statement, span,
                f"'{consumer.mnemonic}' reads the carry flag that "
                f"'{use.last_producer.mnemonic}' in the asm statement on line {where.line} "
                f"sets: the flag is not an operand, so {hazard}; put producer and consumers "
                "in one asm statement",
                severity=severity,
            )
        return self.finding(
            statement, span,
            f"'{consumer.mnemonic}' reads the carry flag, but no instruction before it in this "
            "asm statement sets it ('.cc'): the flag does not survive between statements "
            f"({hazard}); put the producer and its consumers in one asm statement",
            severity=severity,
        )

    def _unconsumed(self, statement: AsmStatement, producer: PtxInstruction,
                    consumer: AsmStatement | None) -> Finding:
        span = self.template_span(statement, producer.opcode_start, producer.opcode_end)
        if consumer is not None:
            line = consumer.source.line_col(consumer.span.start).line
            why = (f"the asm statement on line {line} reads it, but the flag does not survive "
                   "between statements")
        else:
            why = "nothing reads it"
        return self.finding(
            statement, span,
            f"the carry flag '{producer.mnemonic}' sets is never consumed in this asm "
            f"statement: {why}",
            severity=Severity.WARNING,
        )


_POSITIONS: list[tuple[Sequence[AsmStatement], dict[int, int]]] = []


def _positions(statements: Sequence[AsmStatement]) -> dict[int, int]:
    """Each statement's index in the file's list, built once per file (the last file's kept)."""
    entry = _POSITIONS[0] if _POSITIONS else None
    if entry is None or entry[0] is not statements:
        entry = (statements, {id(s): i for i, s in enumerate(statements)})
        _POSITIONS[:] = [entry]
    return entry[1]


def _neighbour(statement: AsmStatement, context: RuleContext, step: int) -> AsmStatement | None:
    """The asm statement just before (``step`` -1) or after (+1) ``statement`` in the same
    function, or ``None``."""
    facts = facts_for(context, statement)
    if facts is None:
        return None
    statements = context.file_statements
    at = _positions(statements).get(id(statement))
    if at is None:
        return None
    other = at + step
    if not 0 <= other < len(statements):
        return None
    neighbour = statements[other]
    if neighbour.context.macro is not None or not facts.contains(neighbour.span.start):
        return None
    return neighbour
