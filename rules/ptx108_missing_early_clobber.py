"""PTX108 missing-early-clobber."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Edit, Finding, Fix, Operand, Severity, Span
from ptxlint.rule import Rule, RuleContext

from ._optimizer import equals_in_source


class MissingEarlyClobber(Rule):
    id = "PTX108"
    name = "missing-early-clobber"
    pure = True
    scope = "statement"
    severity = Severity.WARNING
    needs = ("write-only-outputs",)
    summary = "An output is written before an input is read, and is not early-clobber ('&')"
    tags = ("correctness", "optimizer", "operands")
    docs = """\
## What it does
Flags a write-only output (`=`, without `&`) that the template writes before it reads an input
of the same register class: `max.s16x2 %0, %3, %4;` followed by `mov.b32 {rs2, rs3}, %3;`,
`mov.b32 %0, 0;` followed by `@p ld.shared.u32 %0, [%1];`, `sub.cc.u64 %1, %4, %6;` followed by
`subc.cc.u64 %0, %3, %5;` (`%1` an output, `%3` an input). The finding points at the read.

It follows the template's control flow (`bra` to labels in the template, so a loop's read
before the write in text order counts too). It stays silent where the registers cannot be
shared or the read cannot see the output:
- an input read by the same instruction that writes the output (an instruction reads its
  sources first);
- an input of another register class (`"=r"` output, `"l"` address);
- a write that copies the input itself (`mov.b64 %0, %1;` then a read of `%1`: a shared
  register still holds the input's value);
- a write under `@p` and a read under `@!p` of the same predicate, with nothing writing it in
  between;
- `+` outputs (their value comes in, so the compiler keeps them apart from every input) and
  `=&` outputs;
- immediates (`n`), an operand section that comes through a macro, and a branch it cannot
  follow;
- CuTe DSL's `inline_ptx`, whose constraints the DSL writes.

A template with a part ptxlint cannot read (a macro it cannot expand, a Python string built
when the program runs: a hole) is flagged where the output's first write runs on every path
before the first hole (nothing before it branches, nor is it guarded) and an input of its class
is read nowhere in the rest of the template: the hole is the only place that input can be
read, after the write. The finding points at the hole. b12x zeroed two `"=r"` outputs and then
accumulated into them in lines `"\\n".join(blocks)` built in a loop, which read the inputs
(fixed in its commit 71f6fe59 by accumulating into scratch registers). Reads the hole may hide
before a known one are not guessed at: a template with a hole and a known read after the write
says nothing more.

One defect, one finding: silent for an output the template reads before it writes it (PTX106,
whose `+` keeps the registers apart too), an output tied to an input, an operand whose binding
is itself the defect (PTX004, PTX005), a `mov` written the wrong way round (PTX105/PTX106), and
a template that names a `%N` past the last operand (PTX001: the numbering is off).

## Why is this bad?
The GCC asm contract, which nvcc and LLVM (Triton, clang) follow, lets the compiler assume an
asm reads all its inputs before it writes any output: an output may get the same register as an
input, unless it is marked early-clobber with `&`. NVPTX registers are virtual, yet the
register coalescer merges an input whose value dies at the asm with the output when a copy
joins them, as in a loop-carried value. With nvcc 13.0 (`-arch=sm_90 -O3`), `x = y` after
`asm("mov.u32 %0, 7; add.u32 %0, %0, %1;" : "=r"(y) : "r"(x))` in a loop becomes
`mov.u32 %r34, 7; add.u32 %r34, %r34, %r34;`: the add reads 7, not `x`. CUDA 13's own
`__vibmax_s16x2` (`crt/device_functions.hpp`) has this defect: used as a running maximum over
eight increasing values, built with `nvcc -arch=sm_90 -O3` and run on an H200, it reported 6
of the 14 halves as "a >= b" where none is, because in the loop nvcc left after unrolling the
maximum and `a` share a register. Nothing warns: the miscompile depends on the code around the
asm, and appears when that code changes.

## Example
```cuda
unsigned y;
asm("mov.u32 %0, 7;\\n\\tadd.u32 %0, %0, %1;" : "=r"(y) : "r"(x));
```

## Use instead
```cuda
unsigned y;
asm("mov.u32 %0, 7;\\n\\tadd.u32 %0, %0, %1;" : "=&r"(y) : "r"(x));
```

## Fix safety
Safe: `&` only keeps the output's register apart from every input's; the template computes
the same where the registers were apart already, and what it was meant to where they were not.
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        clashes = list(analysis_of(statement).early_clobbers.values())
        if not clashes:
            return
        # one finding for the statement: at the earliest read, naming every output to mark
        first = min(clashes, key=lambda c: (c.read_span, c.output.index))
        prefix = statement.ref_prefix
        output, rival = first.output, first.input
        at, end = first.read_span
        others = [c.output for c in clashes if c is not first]
        also = ""
        if others:
            names = ", ".join(f"{prefix}{o.index}" for o in others)
            also = (f" (output{'s' if len(others) > 1 else ''} {names} too "
                    f"{'are' if len(others) > 1 else 'is'} written before an input is read)")
        ordered = sorted(clashes, key=lambda c: c.output.index)
        marked = ", ".join(dict.fromkeys(f"'{_early(c.output.constraint.text)}'"
                                         for c in ordered))
        edits = [_early_clobber(statement, c.output) for c in ordered]
        fix = None
        if all(e is not None for e in edits):
            fix = Fix(
                f"Declare output{'s' if others else ''} "
                + ", ".join(f"{prefix}{c.output.index}" for c in ordered)
                + " early-clobber ('&')",
                tuple(e for e in edits if e is not None),
            )
        read = (f"input {prefix}{rival.index} ('{rival.constraint.text}') is read here"
                if first.read is not None else
                f"this part of the template, which ptxlint cannot read, the only place input "
                f"{prefix}{rival.index} ('{rival.constraint.text}') can be read")
        yield self.finding(
            statement,
            self.template_span(statement, at, end),
            f"output {prefix}{output.index} ('{output.constraint.text}') is written by "
            f"'{first.write.instruction.mnemonic}' before {read}{also}: the compiler assumes an "
            "asm reads all its inputs before it writes any output, so it may give an output and an "
            "input one register, and the read then gets the output's value; declare "
            f"the output{'s' if others else ''} early-clobber ({marked})",
            fix=fix,
        )


def _early(text: str) -> str:
    return text.replace("=", "=&", 1)


def _early_clobber(statement: AsmStatement, output: Operand) -> Edit | None:
    """``&`` after the ``=`` inside the output's constraint, where the source spells it there."""
    at = equals_in_source(statement, output)
    if at is None:
        return None
    span = output.constraint.span
    if _early(output.constraint.text) not in _early(statement.source.text[span.start:span.end]):
        return None
    return Edit(Span(at + 1, at + 1), "&")
