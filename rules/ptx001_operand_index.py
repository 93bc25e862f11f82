"""PTX001 operand-index-out-of-range."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.template_refs import comment_refs, refs_of
from ptxlint.model import AsmStatement, Finding, Operand, Severity
from ptxlint.rule import Rule, RuleContext


class OperandIndexOutOfRange(Rule):
    id = "PTX001"
    name = "operand-index-out-of-range"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("stray-references",)
    summary = "Template references an operand that does not exist"
    tags = ("correctness", "operands")
    docs = """\
## What it does
Flags `%N` references in an extended asm template where `N` is not smaller than the number of
operands, and symbolic references `%[name]`, which nvcc cannot resolve.

Where some operand is then named by no `%N`, the finding says which, and where closing the gaps
those operands leave brings every `%N` into range, the numbering that was likely meant (`%8` of
eight operands whose eighth is unnamed: "did you mean %7?"; `%0, %2, %3` of three: the numbers
after the gap shifted by one): the template and the operand list disagree on the numbering, one
defect. The rules that would speak of its consequences stay
silent (`ptxlint.analysis.roots`): PTX009 on the unnamed operands, and, in the instruction that
names the stray `%N`, PTX105, PTX106 and PTX206 on what its other `%N` stand for. Where an
LLVM-syntax constraint string lists fewer operands than the call binds (Triton's `"=r,r"` for
two arguments), a `$N` past the string's operands is PTX501's finding, and this rule is silent
on it; so is a CuTe DSL `inline_ptx` placeholder past its argument list (`{$r1}` given one
read-only argument), which is PTX510's. Where the outputs are listed one `:` too late
(`: : "=r"(a) : "r"`), clobbers spelled as constraints are the inputs the `:` pushed on, and a
`%N` they would number is PTX006's finding.

## Why is this bad?
Operands are numbered outputs first, then inputs. A reference past the last one is an off-by-one
that nvcc 13.0 answers with an *internal compiler error* instead of a diagnostic, and so is
`%[name]`: GCC and clang accept symbolic names, nvcc does not.

`%N` in *basic* asm (no colon) is not an operand reference at all; see PTX008. In a statement
with operands nvcc reads `%N` and `%[name]` inside PTX comments too (`// old: %5` of two
operands is the same internal compiler error, nvcc 13.0), so those are flagged there as well.

In Python (Triton's `inline_asm_elementwise`, CuTe DSL's `llvm.inline_asm`, llvmlite) the
template is LLVM syntax: operands are `$N`/`${N}`, one per entry of the constraint string, and
LLVM replaces them *inside PTX comments too*, so `// old: $2` with two operands kills the
compile (`error: invalid operand in inline asm`, Triton 3.6.0).

## Example
```cuda
asm("add.u32 %0, %1, %3;" : "=r"(d) : "r"(a), "r"(b));   // %3: there are three operands
asm("mov.u32 %[out], 1;" : [out] "=r"(d));               // symbolic name
```

## Use instead
```cuda
asm("add.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
asm("mov.u32 %0, 1;" : "=r"(d));
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if not statement.extended:
            return
        count = len(statement.operands)
        refs = refs_of(statement)
        # The tokens are the template's index's, shared by every statement that spells it; a
        # source span is worked out only for a finding.
        analysis = analysis_of(statement)
        # a constraint string with fewer operands than the call binds: the stray $N are
        # PTX501's finding (the string, not the template, is short)
        strays = analysis.stray_refs if analysis.binding_mismatch is None else ()
        # a CuTe DSL inline_ptx `{$r1}` past its list: the placeholder, not the `$1` the
        # lowering made of it, is the defect (PTX510's finding)
        strays = tuple(t for t in strays if t.index not in analysis.rebound_operands)
        # the operands no %N names: where the numbering is off, what the strays were meant for
        # (PTX009 is silent on them then)
        unnamed = analysis.unreferenced_operands if strays else ()
        hint = ""
        if unnamed:
            listed = ", ".join(
                f"{o.index} ({o.expression})" if o.expression else f"{o.index}" for o in unnamed
            )
            several = len(unnamed) > 1
            hint = f"; operand{'s' if several else ''} {listed} {'are' if several else 'is'} " \
                "never named" + _renumbering(statement, refs.referenced, unnamed, count)
        # outputs one ':' too late: constraints in the clobber list are the inputs it pushed
        # on, so a %N they would number is that defect (PTX006's finding)
        pushed = count + len(analysis.shifted_clobbers)
        strays = tuple(t for t in strays if t.index is None or t.index >= pushed)
        # nvcc reads the references inside PTX comments too (``comment_refs``)
        in_comments = tuple(t for t in comment_refs(statement) if not t.modifier and (
            t.kind == "named" or t.index is not None and t.index >= pushed))
        for token in sorted((*refs.named, *strays, *in_comments), key=lambda t: t.start):
            if token.kind == "named":
                yield self.finding(
                    statement,
                    self.template_span(statement, token.start, token.end),
                    f"symbolic operand reference '%[{token.name}]' is not supported by nvcc; "
                    + ("it reads '%' sequences inside PTX comments too: write '%%' there"
                       if _in_comment(statement, token.start) else "use the operand's number"),
                )
            else:
                have = f"{count} operand{'s' if count != 1 else ''}"
                p = statement.ref_prefix
                valid = f" (valid: {p}0..{p}{count - 1})" if count else ""
                where = ""
                if _in_comment(statement, token.start):
                    where = (" (LLVM replaces operands inside PTX comments too)"
                             if statement.syntax == "llvm" else
                             " (nvcc replaces operands inside PTX comments too: write '%%' "
                             "there)")
                yield self.finding(
                    statement,
                    self.template_span(statement, token.start, token.end),
                    f"'{statement.template.text[token.start : token.end]}' refers to operand "
                    f"{token.index}, but the statement has {have}{valid}{where}{hint}",
                )


def _renumbering(
    statement: AsmStatement, referenced: frozenset[int], unnamed: tuple[Operand, ...], count: int
) -> str:
    """The numbering the author most likely meant, where closing the gaps the unnamed operands
    leave fits every ``%N`` in the operand list: each number less the unnamed ones below it
    (``%8`` of eight operands, the eighth unnamed: ``%7``; ``%0, %2, %3`` of three, the second
    unnamed: ``%0, %1, %2``, the numbers after the gap shifted by one)."""
    gaps = sorted(o.index for o in unnamed)
    meant = {i: i - sum(1 for g in gaps if g < i) for i in sorted(referenced)}
    if any(m >= count for m in meant.values()):
        return ""
    renamed = {i: m for i, m in meant.items() if m != i}
    if not renamed:
        return ""
    p = statement.ref_prefix
    if len(renamed) == 1:
        (was, now), = renamed.items()
        if was >= count:
            return f": did you mean {p}{now}?"
    written = ", ".join(f"{p}{i}" for i in renamed)
    wanted = ", ".join(f"{p}{m}" for m in renamed.values())
    shifted = " (the numbers after the gap look shifted)" if min(renamed) < count else ""
    return f": did you mean {wanted} where the template has {written}?{shifted}"


def _in_comment(statement: AsmStatement, offset: int) -> bool:
    return any(start <= offset < end for start, end in statement.ptx.comments)
