"""PTX104 output-not-written."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.operand_access import written_indices
from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.template_refs import refs_of
from ptxlint.model import AsmStatement, Finding, Severity, Span
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
Flags an output operand whose value the template passes through untouched: a read-write (`+`)
operand, or an output with an input tied to it (`"0"`, LLVM's `"=r,0"`), that no instruction
writes and that is only read (as a source, an address, a predicate guard). It *could be an
input*.

Each way an output can go unwritten has one rule (one cause, one finding,
`ptxlint.analysis.roots`):

- a write-only (`=`) output that the template reads and never writes (or reads before it
  writes it) is PTX106's: the read gets an undefined value, whatever else happens to it;
- an output the template never names at all is PTX009's;
- an output with neither `=` nor `+` (an input list one colon too early) is PTX006's: nvcc
  rejects the statement, so what the variable would receive is no second defect;
- a read-write or tied output that is only read is this rule's;
- a write-only (`=`) output that instructions write, but on no path from the template's start
  to its end (every write jumped over by a `bra.uni`, or every path through one ending in
  `exit`), is PTX103's, whose message says so: an instruction names it as its destination,
  so it counts as written here;
- an output a vector with fewer elements than its form takes lacks (an `mma`'s destination
  `{%0, %1, %2}` where `%3` is the fourth accumulator, still read as its C operand) is
  PTX207's, which names the vector;
- an output named by an instruction whose operands are out of its form's order (`ld.shared.u32
  [%1], %0;`, an `ldmatrix` written with the address first) is PTX207's too: which operand the
  instruction writes is a guess until the order is right;
- a write-only integer output that nothing writes, where the template computes one predicate
  and never reads it (`mbarrier.try_wait.parity.b64 p, [%1], %2;` with its
  `selp.b32 %0, 1, 0, p;` gone), is PTX208's, which names the missing `selp`.

What counts as a write is the destination of an instruction, per `ptxlint/ptx/effects.py`:
the first operand for most instructions, every element of a braced vector destination
(`{%0, %1}`), both halves of a `p|q` pair; nothing for `st`, `red`, `bar`, `prefetch`,
`cp.async`, `mbarrier.init` and others whose first operand is an address or an input.
It stays silent when the template has an opaque macro piece, an instruction whose
destinations are unknown (`call`, an operand spliced into the mnemonic, an instruction no form
spells: PTX204's, whose roles would be a guess), when the operand
sections come through a macro, and for an empty template (`asm volatile("" : "+r"(x))` is
the optimization-barrier idiom).

## Why is this bad?
A `+` operand that is only read tells the compiler the asm may change the variable: it costs a
register copy, keeps the variable from being a constant or shared across the statement, and
hides the statement's real data flow. It is often a swapped `%N` (the address or the stored
value declared as the output) whose only symptom is that extra copy; as an input it says what
it is. nvcc says nothing.

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
        if (
            statement.opaque_sections
            or not statement.extended
            or not statement.ptx.instructions
            or statement.template.has_holes  # a template flow does not follow
        ):
            return
        # The %N the template's instructions write (``written_indices``: the destinations the
        # flow follows, found once per template), as a set: each output is one look-up in it,
        # where the flow's writers map of a template of many destinations answers through a
        # Python call (119,800 outputs over CUTLASS's include/, most of them written: the test
        # that skips them first; this list 20 -> 14 ms).
        written = written_indices(statement)
        unwritten = [
            o for o in statement.outputs if o.index not in written and not o.constraint.opaque
        ]
        if not unwritten:
            # most statements: the template writes every output, whatever its paths, so the
            # flow (successors, paths) is not followed for this rule; PTX103 and PTX106 follow
            # it where they need it. Templates followed: CUTLASS's include/ 2,710 -> 41, the
            # CUDA 13 headers' 2,066 -> 83 (70,000 and 40,000 fewer Python calls)
            return
        facts = analysis_of(statement)
        if facts.flow is None:
            return  # an instruction whose destinations are unknown, a branch not followed
        unwritten = [
            o for o in unwritten
            # the roots: an undefined read (PTX106), an operand nvcc rejects (PTX002, PTX005)
            if o.index not in facts.undefined_reads and facts.operand_root(o.index) is None
            and o.index not in facts.vector_lacks  # the element a short vector lacks: PTX207
            and o.index not in facts.misplaced_refs  # out of its form's order: PTX207
            # the output a lost predicate was meant for (its selp missing): PTX208
            and not (facts.lost_result is not None and facts.lost_result[1] is o)
        ]
        if not unwritten:
            return
        refs = refs_of(statement)
        llvm = statement.syntax == "llvm"
        comments = statement.ptx.comments if llvm else ()
        for operand in unwritten:
            # the first %N outside comments (`griddepcontrol.wait; // dummy $0`: names it, uses
            # nothing)
            token = next((
                t for t in refs.tokens_of(operand.index)
                if not any(start <= t.start < end for start, end in comments)
            ), None)
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
            elif facts.tied_input(operand.index) is not None:
                message = (
                    f"output {name} is only read, never written, by the template: the input tied "
                    "to it passes through unchanged, so both could be one input"
                )
            else:
                # an '=' output the write flow cannot see read (no undefined read was found):
                # what it receives is the register's old content
                message = (
                    f"output {name} is never written by the template: the variable receives "
                    "an undefined value"
                )
            yield self.finding(statement, span, message)
