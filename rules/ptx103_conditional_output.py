"""PTX103 conditional-output-not-inout."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.cxx_facts import facts_for
from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, PtxInstruction, Severity
from ptxlint.ptx.effects import written_operands
from ptxlint.rule import Rule, RuleContext

from ._optimizer import make_read_write


class ConditionalOutputNotInout(Rule):
    id = "PTX103"
    name = "conditional-output-not-inout"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    # an output is written on some paths only where an instruction may not run
    needs = ("branches",)
    summary = "An '=' output is written only on some paths: its old value is lost on the others"
    tags = ("correctness", "optimizer", "operands")
    docs = """\
## What it does
Flags an output declared with `=` (write-only) that the template writes only under a predicate
(`@p mov.s32 %0, 1;`) or only on some branches (after a `bra`, or between a label and a
branch), so that on some path through the template it is not written at all.

The analysis follows the template's control flow (`bra` to labels in the template) and asks,
for each output, whether every path that reaches the end of the template writes it
unconditionally. `@p` and `@!p` writes of the same output together count as unconditional
(until `p` is written again); paths that end in `ret`, `exit` or `trap` do not count. It does
not flag `+` outputs, outputs written unconditionally before or after the predicated write,
or templates it cannot follow (an opaque macro piece, `call`, `brx.idx`, a branch out of the
template). Nor does it flag when the guarding predicate itself reaches C++ through an output
that is always written (`selp.u32 %3, 1, 0, p;` beside `@p mov.u32 %0, ...`, as CUTLASS's
tile schedulers do): the caller can tell the output is meaningless on that path.

It flags only where the variable has a value to lose: a parameter or reference, memory behind
a pointer, a member or array element it cannot see, a local that is initialised or assigned
(or passed by address, or to a function) before the asm, or assigned later in a loop around
it. An uninitialised local that nothing wrote yet is silent: its value on the unwritten path
was undefined with `+` too, and the caller usually reads it only under the same condition.
The C++ facts come from one pass over the enclosing function (`ptxlint/analysis/cxx_facts.py`).

## Why is this bad?
`=` tells the compiler the old value is dead: it need not put the variable's current value in
the output register at all. With `nvcc -arch=sm_90 -O3` (CUDA 13.0):
`int r = 42; asm("{ .reg .pred p; setp.gt.s32 p, %1, 0; @p mov.s32 %0, 1; }" : "=r"(r) :
"r"(x));` never materializes 42, so when `x <= 0` the result is whatever the register held.
With `"+r"(r)` nvcc emits `mov.u32 %r1, 42;` before the asm. tests/test_optimizer_evidence.py
compiles both whenever nvcc is available. nvcc says nothing.

## Example
```cuda
int found = 0;
asm("{ .reg .pred p; setp.eq.u32 p, %1, %2; @p mov.s32 %0, 1; }"
    : "=r"(found) : "r"(a), "r"(b));
```

## Use instead
```cuda
int found = 0;
asm("{ .reg .pred p; setp.eq.u32 p, %1, %2; @p mov.s32 %0, 1; }"
    : "+r"(found) : "r"(a), "r"(b));
```

## Fix safety
Safe: replaces the `=` in the constraint literal with `+`. The compiler then passes the
variable's current value in, which is what the template relies on; nothing else changes.
(If the variable was uninitialized, it was already read uninitialized on the unwritten path.)
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if statement.opaque_sections:
            return
        analysis = analysis_of(statement).flow
        if analysis is None:
            return
        for operand in statement.outputs:
            modifiers = operand.constraint.modifiers
            if operand.constraint.opaque or "=" not in modifiers or "+" in modifiers:
                continue
            writers = analysis.writes.get(operand.index)
            if not writers or operand.index in analysis.definite:
                continue
            if _guard_is_exported(statement, analysis.definite, writers):
                continue
            facts = facts_for(context, statement)
            if facts is not None and facts.prior_value(
                operand.expression, statement.span.start, statement.span.end
            ) is False:
                continue  # an uninitialised local: no old value to lose
            where = _first_write(writers, operand.index)
            how = (
                f"only under '@{'!' if writers[0].predicate.negated else ''}"
                f"{writers[0].predicate.register.text}'"
                if writers[0].predicate is not None and len(writers) == 1
                else "only on some paths"
            )
            if statement.syntax == "llvm" and any(
                i.constraint.letters == str(operand.index) for i in statement.inputs
            ):
                continue  # "=r,0": the tied input is the value on the paths that skip the write
            if statement.syntax == "llvm":
                # LLVM has no '+': an input tied to the output carries the value in
                yield self.finding(
                    statement,
                    self.template_span(statement, where[0], where[1]),
                    f"output ${operand.index} ('{operand.constraint.text}') is written {how}: "
                    "on the other paths the result is undefined (Triton 3.6.0: garbage or 0); "
                    f"pass the fallback value as an input tied to it ('{operand.index}', as in "
                    '"=r,0,r")',
                )
                continue
            yield self.finding(
                statement,
                self.template_span(statement, where[0], where[1]),
                f"output %{operand.index} ('{operand.constraint.text}') is written {how}: "
                "on the other paths its old value is lost; declare it '+'",
                fix=make_read_write(statement, operand.index),
            )


def _guard_is_exported(
    statement: AsmStatement, definite: frozenset[int], writers: list[PtxInstruction]
) -> bool:
    """Whether the predicate guarding the writes also reaches C++ through an output that is
    always written (``selp.u32 %3, 1, 0, p;`` beside ``@p mov %0, ...``): then the caller can
    tell which path ran, and an unwritten output is documented as meaningless."""
    guards = {w.predicate.register.text for w in writers if w.predicate is not None}
    if not guards:
        return False
    for instruction in statement.ptx.instructions:
        written = written_operands(instruction) or []
        if not any(o.kind == "ref" and o.ref in definite for o in written):
            continue
        sources = instruction.operands[len(written) and 1 :]
        if any(o.kind == "register" and o.text in guards for o in sources):
            return True
    return False


def _first_write(writers: list[PtxInstruction], index: int) -> tuple[int, int]:
    """Template offsets of the first ``%index`` destination, else of the first writer."""
    for instruction in writers:
        for operand in written_operands(instruction) or ():
            if operand.kind == "ref" and operand.ref == index:
                return operand.start, operand.end
    return writers[0].start, writers[0].end
