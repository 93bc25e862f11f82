"""PTX009 unused-operand."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.branch_roots import inputs_meant_elsewhere
from ptxlint.analysis.cxx_facts import facts_for
from ptxlint.analysis.operand_issues import number_meant_as_operand
from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.unreferenced_operands import named_twin
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext


class UnusedOperand(Rule):
    id = "PTX009"
    name = "unused-operand"
    pure = True
    # a 32-bit address register a `cvta` shared offset flows into is no misnumbered %N (PTX206)
    scope = "values"
    severity = Severity.WARNING
    needs = ("unreferenced-operands",)
    summary = "Operand the template never references"
    tags = ("correctness", "operands")
    docs = """\
## What it does
Flags an operand that no `%N` of the template names.

An empty template (`asm volatile("" : "+r"(x) :: "memory");`) is the usual way to pin a value in
a register or order it against other code, so its operands are not reported; nor are the
read-write operands of a template that names no operand (`asm
volatile("wgmma.fence.sync.aligned;" : "+r"(a[0]), "+r"(a[1]));` completes the writes of the A
fragments before the fence), though an output such a template is given with `=` receives an
undefined value and is. Nor, in LLVM syntax, is an input of a template that only copies inputs
into outputs, every output one of the copies (`mov.b64 $0, $1;` given a pointer and a token, as
Triton kernels return a pointer ordered after the token a wait gave): an elementwise call orders
its result after a value only by taking it as an argument, so the input it does not name is the
dependency it exists for. In C++, where `volatile` and clobbers order a statement, `mov.u32 %0,
%1;` given `x` and `y` is reported as usual (a `%1` meant as `%2` looks the same). It stays
silent when it cannot see the whole template or operand list: a template with a macro piece, an
operand or clobber section that comes through a macro, a constraint from a macro, a `"C"`
operand (its spliced text may name other operands), and symbolic `%[name]` references.

An input bound twice, with one constraint and one expression that changes nothing when
evaluated (no call, increment or assignment), is not reported where the template names the
other of the two, is made of `%N` tokens only and names no operand twice (`prmt.b32 $0, $2,
$3, $4;` given `[sel, lo, hi, sel]`): the template reads the value the unnamed operand holds,
and a `%N` meant for one twin reads the same register bits through the other. A slip that does
change the value puts something else where the unnamed operand was meant: a literal, a
register, or a `%N` that then names its operand twice. Where the template has room for one,
the unnamed twin is reported as usual (`{%13, %14, %15, %15}` or `{%13, %14, %15, 99}` beside
an unnamed `"f"(0.f)` whose twins fill the other vectors). So are both twins unnamed, twins
that may be two values (`"r"(*p++)` twice, `"r"(next())` twice), and one expression under two
constraints (two register classes).

A statement with `#if` inside is linted once per branch. An input that only another branch's
template names (`#if USE_RS` reading the random bits of `cvt.rs` that the `#else` template does
not need) is used by the build that takes that branch, and is not reported; an output that this
branch's template does not name still is, since in this branch's build the variable receives an
undefined value.

An output no `%N` names whose variable nothing reads after the asm is not reported: a local
of the block around the asm that the rest of the block never spells, with no loop around the
asm inside that block (CUTLASS's epilogue iterators prefetch with
`asm volatile("prefetch.global.L1 [ %1 ];" : "=l"(addr) : "l"(addr));`, `addr` declared just
before and never used again). The undefined value it receives reaches nothing. Where the
variable is read later, or may be (a reference, a pointer's target, a member, a `static` or
`__shared__` variable, a local whose address was taken, a loop that brings the next iteration
back to a read), it is reported as before.

One defect, one finding (`ptxlint.analysis.roots`): an input tied to an output (`"0"`,
`"=r,0"`) is read through the output's register and is never named; PTX002 reports the tie
where nvcc rejects it. Where the template names a `%N` past the last operand, the numbering
itself is off (`mov.b32 %0, %2;` given two operands): PTX001's finding names the operands no
`%N` reaches, and this rule is silent. So it is where an LLVM-syntax constraint string lists
more operands than the call binds (PTX501's finding: the extra entry is the defect), and for a
write-only output that PTX105 names as the one the template's only written input was meant to
be (`mov.u32 %1, %1;` given `"=r"(d)`), or an input that PTX106 names as the one its only
undefined read was meant for (`add.u32 %0, %0, %1;` given two inputs; `mov.b32 $0, $0;`
given `"=r,r"` in LLVM syntax), or the one whose register fits where PTX206 finds a `%N` of
the wrong register type (`add.u32 %0, %1, %1;` given `"l"(w), "r"(v)`: PTX206's finding
asks whether `%2` was meant), or the write-only output that the one predicate the template
computes and never reads was meant for (its `selp` missing: PTX208's finding names the
output), or the operand whose `%N` a vector of float registers spells as a bare number
(`{%13, %14, %15, 16}` beside an unnamed `"f"` input 16: PTX207's finding says `%16` was
likely meant), and for the operands
a vector with fewer elements than its form takes lacks (`ld.global.v4.u32 {%0, %1, %2}, [%4];`
given four outputs: PTX207's finding names the vector; an operand that is not of the vector's
role and letter, or not next to its elements, is still reported). In a statement with `#if`
inside, an input that such a root in another branch was meant to name is silent in every
branch (`#if LOOSE` reading `%4` where `%5` was meant, the `#else` template naming neither:
PTX206's finding in the one branch is the defect; an output is still reported, as above). In
LLVM syntax, an
operand the template names as `%1` instead of `$1` is PTX008's finding, not an unused one.

In LLVM syntax (Triton, CuTe DSL) an output no `$N` names is reported as in C++: the result is
an undefined value, each packed register of a Triton result its own elements. Not where the
template names no output at all and exists for a side effect (`bar.sync 0;`, a fence, a store):
Triton's `inline_asm_elementwise` must return a tensor, so a barrier comes with an `"=r"` the
caller ignores. Nor where what the template does is unknown: an instruction PTX204 reports
(`prefech.global.L2 [$1];` may be the prefetch it misspells), or one whose mnemonic holds an
operand or a piece the front end cannot read and whose possible spellings do not share their
effects. A packed input is reported only where no register of its tensor is named (a
template may need two random words for eight values).

## Why is this bad?
nvcc accepts it silently, but an operand nobody reads is almost always an off-by-one in the
`%N` numbers (outputs are numbered first, then inputs), a leftover from an edit, or an input
meant to be used. For an output the compiler also believes a value was written there.

## Example
```cuda
asm("add.u32 %0, %1, %1;" : "=r"(d) : "r"(a), "r"(b));   // b (%2) is never used
```

## Use instead
```cuda
asm("add.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        analysis = analysis_of(statement)
        unreferenced = analysis.unreferenced_operands
        if not unreferenced or analysis.stray_refs or analysis.binding_mismatch is not None:
            # (a %N past the last operand: PTX001 names these operands; a constraint string
            # that lists more operands than the call binds: PTX501's finding)
            return
        meant = [m[1] for m in (analysis.misdirected_write, analysis.misdirected_read) if m]
        misnumbered = analysis.misnumbered_reference(
            context.one_arch(analysis), context.options.get("cuda_version"),
            lambda: context.parsed)
        if misnumbered is not None:
            meant.append(misnumbered.operand)
        number = number_meant_as_operand(statement, context.one_arch(analysis),
                                         context.options.get("cuda_version"))
        if number is not None:
            meant.append(number.operand)  # its %N spelled as a bare number: PTX207's finding
        elsewhere: frozenset[int] | None = None  # asked only of an input still unnamed
        for operand in unreferenced:
            if any(operand is m for m in meant):
                # a write or read meant for it went to another operand (PTX105/106's), or a
                # %N of the wrong register type was meant to name it (PTX206's)
                continue
            if operand.index in analysis.vector_lacks:
                continue  # the element a too-short vector lacks: PTX207's finding
            lost = analysis.lost_result
            if lost is not None and lost[1] is operand:
                continue  # the output a lost predicate was meant for: PTX208's finding
            if operand.role == "input" and statement.context.branch:
                if elsewhere is None:
                    elsewhere = inputs_meant_elsewhere(
                        statement, context.file_statements, context.one_arch,
                        context.options.get("cuda_version"), lambda: context.parsed)
                if operand.index in elsewhere:
                    continue  # another #if branch's root was meant to name it (PTX206's, ...)
            if named_twin(statement, operand):
                continue  # `[sel, lo, hi, sel]` naming `$4` only: its value is read
            consequence = ""
            if operand.role == "output" and "+" not in operand.constraint.modifiers:
                facts = facts_for(context, statement)
                if facts is not None and facts.read_after(
                        operand.expression, statement.span.start, statement.span.end) is False:
                    continue  # a local nothing reads after the asm: the undefined value is lost
                consequence = ": the variable receives an undefined value"
            what = f" ({operand.expression})" if operand.expression else ""
            yield self.finding(
                statement,
                operand.span,
                f"{operand.role} operand {operand.index}{what} is never referenced by the "
                f"template (no {statement.ref_prefix}{operand.index}){consequence}",
            )
