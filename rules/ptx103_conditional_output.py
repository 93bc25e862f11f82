"""PTX103 conditional-output-not-inout."""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

from ptxlint.analysis.cxx_facts import facts_for
from ptxlint.analysis.llvm_binding import TRITON_FAMILY
from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.template_refs import refs_of
from ptxlint.model import AsmStatement, Finding, Fix, Operand, PtxInstruction, Severity
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
tile schedulers do), or is such an output (an LLVM `"=b"` output `$3` that
`clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 $3, h;` writes, guarding
`@$3 ...get_first_ctaid...`): the caller can tell the output is meaningless on that path.
In LLVM syntax (Triton, CuTe DSL), where an output has no earlier value to lose, the same holds
where each predicate that decides the writes (a guard, or a branch's) is an input, or is set by
`setp` from constants and inputs the template reads for nothing else: a mask the caller passes
only to be tested (`setp.eq.s32 p, $3, 1; @p ld.global.v2.u64 {$0, $1}, [$2];`, or
`@p bra skip;` around the load) leaves undefined exactly the elements the caller's mask rules
out, as Triton's masked `tl.load` without `other` does. A guard computed from memory, or from
an input the template also uses as a value or an address (`setp.gt.f32 p, $1, 0f00000000;
@p mov.b32 $0, $1;`), is still reported.

Where no path from the template's start to its end writes the output at all, the message says
which way it misses: every instruction that writes it is unreachable (a `bra.uni` jumps over
each, as instruction-cache microbenchmarks do), or every path through one leaves the thread
(`exit`) before the end. It is still this rule's one finding: PTX104 is about an output no
instruction writes (a `+` or tied output only read), and this one is written by an instruction,
just not on the paths that return.

One defect, one finding (`ptxlint.analysis.roots`): an output that only a fallback writes
(`@!p mov.u32 %3, 0;`) because the vector of the guarded load lacks it
(`@p ld.global.v4.u32 {%0, %1, %2}, [%4];`) is PTX207's short vector, not a second defect;
so is an output named by an instruction whose operands are out of its form's order (an address
where the form takes none, or none where it takes one): what that instruction writes is a guess.

Outputs that the same instructions write, each only on some paths, are one defect and one
finding: `@p ld.global.v4.f32 {%0, %1, %2, %3}, [%4];` names the four outputs once, and its fix
declares them all `+`.

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
        # the outputs written only on some paths, grouped by the instructions that write them:
        # a predicated vector load's outputs are one defect (the load's guard), one finding
        groups: dict[tuple[int, ...], list[Operand]] = {}
        writers_of: dict[tuple[int, ...], list[PtxInstruction]] = {}
        for operand in statement.outputs:
            modifiers = operand.constraint.modifiers
            if operand.constraint.opaque or "=" not in modifiers or "+" in modifiers:
                continue
            writers = analysis.writes.get(operand.index)
            if not writers or operand.index in analysis.definite:
                continue
            roots = analysis_of(statement)
            if operand.index in roots.vector_lacks or operand.index in roots.misplaced_refs:
                continue  # an element a too-short vector lacks, a misplaced one: PTX207's
            if _guard_is_exported(statement, analysis.definite, writers):
                continue
            if statement.syntax == "llvm" and _guard_is_the_callers(statement, writers):
                continue  # a mask the caller passes: it knows which elements were written
            facts = facts_for(context, statement)
            if facts is not None and facts.prior_value(
                operand.expression, statement.span.start, statement.span.end
            ) is False:
                continue  # an uninitialised local: no old value to lose
            if statement.syntax == "llvm" and any(
                i.constraint.letters == str(operand.index) for i in statement.inputs
            ):
                continue  # "=r,0": the tied input is the value on the paths that skip the write
            key = tuple(w.start for w in writers)  # the instructions, by place
            groups.setdefault(key, []).append(operand)
            writers_of[key] = writers
        for key, outputs in groups.items():
            # the same instructions write them: the paths miss them alike
            paths = analysis.unwritten_paths(outputs[0].index)
            yield self._finding(statement, outputs, writers_of[key], paths)

    def _finding(
        self, statement: AsmStatement, outputs: list[Operand], writers: list[PtxInstruction],
        paths: str,
    ) -> Finding:
        """One finding for ``outputs``, which ``writers`` alone write, each only on some paths,
        or on none that reaches the template's end (``paths``: ``WriteAnalysis.
        unwritten_paths``)."""
        wheres = [_first_write(writers, o.index) for o in outputs]
        span = self.template_span(statement, min(w[0] for w in wheres), max(w[1] for w in wheres))
        prefix = statement.ref_prefix
        named = ", ".join(f"{prefix}{o.index} ('{o.constraint.text}')" for o in outputs)
        several = len(outputs) > 1
        subject = f"outputs {named} are" if several else f"output {named} is"
        it = "them" if several else "it"
        if paths == "some":
            how = (
                f"written only under '@{'!' if writers[0].predicate.negated else ''}"
                f"{writers[0].predicate.register.text}'"
                if writers[0].predicate is not None and len(writers) == 1
                else "written only on some paths"
            )
            where = ": on the other paths"
        else:
            # no path from the template's start to its end writes them
            one = len(writers) == 1
            if paths == "unreached":
                each = "the instruction" if one else "every instruction"
                how = f"never written: {each} that writes {it} is unreachable from the " \
                      "template's start"
            else:
                each = "the instruction" if one else "an instruction"
                how = f"never written: every path through {each} that writes {it} leaves the " \
                      "thread (exit, ret or trap) before the template's end"
            where = ", so on every path"
        if statement.syntax == "llvm":
            # LLVM has no '+': an input tied to the output carries the value in
            ties = ", ".join(f"'{o.index}'" for o in outputs)
            # what Triton 3.6.0 was seen to leave there; other LLVM-syntax APIs were not measured
            seen = (
                " (Triton 3.6.0: garbage or 0)"
                if statement.llvm is not None and statement.llvm.api in TRITON_FAMILY else ""
            )
            return self.finding(
                statement, span,
                f"{subject} {how}{where} the result is undefined"
                f"{seen}; pass the fallback value as an input tied to "
                f"{'each' if several else 'it'} ({ties}, as in \"=r,0,r\")",
            )
        fixes = [make_read_write(statement, o.index) for o in outputs]
        fix = None
        if all(f is not None for f in fixes):
            edits = tuple(e for f in fixes if f is not None for e in f.edits)
            fix = fixes[0] if not several else Fix(
                f"Declare operands {', '.join(f'%{o.index}' for o in outputs)} read-write ('+')",
                edits,
            )
        lost = "their old values are" if several else "its old value is"
        return self.finding(
            statement, span,
            f"{subject} {how}{where} {lost} lost; declare {it} '+'",
            fix=fix,
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
    # the guard is itself an output the template always writes (an LLVM "=b" operand,
    # ``@$3 ...`` after ``query_cancel.is_canceled.pred.b128 $3, h;``): the caller reads the
    # predicate that chose the path directly
    if any(
        w.predicate is not None and w.predicate.register.kind == "ref"
        and w.predicate.register.ref in definite
        for w in writers
    ):
        return True
    for instruction in statement.ptx.instructions:
        written = written_operands(instruction) or []
        if not any(o.kind == "ref" and o.ref in definite for o in written):
            continue
        sources = instruction.operands[len(written) and 1 :]
        if any(o.kind == "register" and o.text in guards for o in sources):
            return True
    return False


def _guard_is_the_callers(statement: AsmStatement, writers: list[PtxInstruction]) -> bool:
    """LLVM syntax: whether each predicate that decides if the outputs are written (the
    writers' guards and those of the template's branches) is an input, or is set by ``setp``
    from constants and inputs that the template reads for nothing else (a mask passed only to
    be tested: ``setp.eq.s32 p, $3, 1;``). The caller then holds the condition itself, and an
    LLVM output has no earlier value to lose, so the unwritten elements are undefined just
    where the caller's mask says so, as those of Triton's masked ``tl.load`` without
    ``other``. A guard computed from a value the template also uses (``setp.gt.f32 p, $1, 0;``
    then ``@p mov.b32 $0, $1;``) or from memory is not the caller's to know."""
    instructions = statement.ptx.instructions
    guards = [w.predicate.register for w in writers if w.predicate is not None]
    guards += [i.predicate.register for i in instructions
               if i.predicate is not None and i.opcode == "bra"]
    if not guards:
        return False
    inputs = {o.index for o in statement.inputs}
    refs = refs_of(statement)
    for register in guards:
        if register.kind == "ref":
            if register.ref not in inputs:
                return False
            continue
        setters = [i for i in instructions
                   if any(o.text == register.text for o in written_operands(i) or ())]
        if not setters or any(i.opcode != "setp" for i in setters):
            return False
        for setter in setters:
            for source in setter.operands[len(written_operands(setter) or ()) and 1:]:
                if source.kind == "immediate":
                    continue
                if source.kind != "ref" or source.ref not in inputs or any(
                        u.instruction.opcode != "setp" for u in refs.uses(cast(int, source.ref))):
                    return False
    return True


def _first_write(writers: list[PtxInstruction], index: int) -> tuple[int, int]:
    """Template offsets of the first ``%index`` destination, else of the first writer."""
    for instruction in writers:
        for operand in written_operands(instruction) or ():
            if operand.kind == "ref" and operand.ref == index:
                return operand.start, operand.end
    return writers[0].start, writers[0].end
