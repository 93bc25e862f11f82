"""PTX106 output-read-before-write."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from ptxlint.analysis.statement import analysis_of
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext

from ._dataflow import reversed_mov_finding
from ._optimizer import make_read_write


class OutputReadBeforeWrite(Rule):
    id = "PTX106"
    name = "output-read-before-write"
    pure = True
    scope = "statement"
    severity = Severity.ERROR
    needs = ("write-only-outputs",)  # only such an output is read before it is written
    summary = "An '=' output is read before the template writes it"
    tags = ("correctness", "optimizer", "operands")
    docs = """\
## What it does
Flags an output declared with `=` (write-only) that some path through the template reads
before any instruction writes it: as a source (`add.u32 %0, %0, %1;`), inside an address
(`ld [%0]`), or as a guard (`@%0`).

In LLVM-syntax asm (Triton, CuTe DSL), where constraint strings have no `+`, an output with an
input tied to it (`"=f,0"`) is read-write and is not flagged.

An `=` output that the template only reads, and never writes, is this rule's too: the read is
the defect (PTX104 keeps the read-write and tied outputs that are only read, which are harmless
but could be inputs).

It follows the template's control flow the way PTX103 does (`bra` to labels in the template,
`@p`/`@!p` pairs, paths that end in `ret`/`exit`/`trap`): a read under `@p` is fine after a
write under the same `@p`, a read after a label is fine only when every branch to it wrote the
output first. An instruction reads its sources before it writes its destination, so
`add.u32 %0, %0, 1;` reads `%0` first. It stays silent for `+` operands, for templates it
cannot follow (a macro piece, `call`, an indirect or outside branch) and for instructions whose
operands it does not know.

One defect, one finding (`ptxlint.analysis.roots`): silent for an output with an input tied to
it (`"0"`, `"=f,0"`: the read is intended; PTX002 reports the tie where nvcc rejects it) and for
an output whose type is no scalar (PTX005). A `mov` written the wrong way round
(`ptxlint/analysis/reversed_mov.py`), which reads the outputs into a register of the template's
own that nothing reads after (`mov.b128 _d, {%0, %1};` after the load, CCCL 3.0.1's 128-bit
atomic load), is one finding for the `mov`, not one per output, and its fix swaps the `mov`'s
operands: declaring the outputs `+` would compile and still drop the loaded value. A backwards
copy between two asm operands (`mov.u32 %1, %0;`, input `%1`, output `%0`) is one finding too
(PTX105 is silent on the input it writes), a read by an instruction whose operands are out of
its form's order (an `stmatrix` written in `ldmatrix`'s shape, `stmatrix {%0, %1}, [%2];` with
the registers as outputs: declaring them `+` would point the wrong way) is PTX207's, which names
the misplaced operand, and a read in an instruction that names a `%N` past
the last operand is PTX001's defect (the numbering is off), as is one in a CuTe DSL `inline_ptx`
instruction with a placeholder the lowering numbers again (PTX510: `mov.b32 {$w1}, {$r0};`
reads `write_only_types[1]`). A template with an instruction no
form spells (PTX204: `bar.popc.red.u32` for `bar.red.popc.u32`) is not followed: what that
instruction reads and writes would be a guess from its words. An LLVM-syntax constraint string
that lists more or fewer operands than the call binds (PTX501) is that one defect: its entries,
and so the input tied to an output (`"=f,=f,r,0,1"` whose `1` was lost), are not the call's.

Where the template reads exactly one write-only output before writing it and names one input
nowhere (`add.u32 %0, %0, %1;` given `"r"(a), "r"(b)`; in LLVM syntax, Gluon's
`mov.b32 $0, $0;` given `"=r,r"`), the read was most likely meant for that input: the
finding says so (with no fix, since which source was meant is the author's call) and PTX009
is silent on the input.

## Why is this bad?
`=` tells the compiler the variable's value before the asm is dead: it passes nothing in, the
read gets whatever the register held. With `nvcc -arch=sm_90 -O3` (CUDA 13.0),
`int r = 42; asm("add.s32 %0, %0, %1;" : "=r"(r) : "r"(x));` never materializes 42: the add
reads an undefined register. With `"+r"(r)` nvcc emits `mov.u32 %r1, 42;` before the asm.
tests/test_optimizer_evidence.py compiles both whenever nvcc is available. nvcc says nothing.
The classic case is a 128-bit compare-and-swap that used its outputs `%0/%1` as the compare
value instead of the inputs that carry it.

## Example
```cuda
int acc = 42;
asm("add.s32 %0, %0, %1;" : "=r"(acc) : "r"(x));
```

## Use instead
```cuda
int acc = 42;
asm("add.s32 %0, %0, %1;" : "+r"(acc) : "r"(x));
```

## Fix safety
Unsafe: replaces the `=` with `+`, so the compiler passes the variable's value in. That is
right when the read is intended; when the template meant to read an input (a swapped `%N`),
the real fix is to the template, which ptxlint cannot know, except for a backwards `mov`:
there the fix swaps its operands (unsafe too: the template then computes what it was meant
to).
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        analysis = analysis_of(statement)
        if analysis.binding_mismatch is not None:
            # the constraint string lists more or fewer operands than the call binds (PTX501):
            # its entries, and so which input is tied to an output, are not the call's
            return
        for index, read in analysis.undefined_reads.items():
            if analysis.numbering_root(read.operand.start, read.operand.end):
                continue  # its instruction names a %N past the last operand: PTX001's defect
            operand = statement.operands[index]
            span = self.template_span(statement, read.operand.start, read.operand.end)
            mov = analysis.reversed_mov(read.position)
            if mov is not None and not mov.writes_inputs and index in mov.refs:
                if index == mov.refs[0]:  # one finding for the mov, not one per output
                    yield reversed_mov_finding(self, statement, mov)
                continue
            misdirected = analysis.misdirected_read
            if misdirected is not None and misdirected[0] == index:
                # no fix: which of the instruction's sources was meant is the author's to say
                unnamed = misdirected[1]
                what = f" ({unnamed.expression.strip()})" if unnamed.expression.strip() else ""
                prefix = statement.ref_prefix
                yield self.finding(
                    statement, span,
                    f"output {prefix}{operand.index} ('{operand.constraint.text}') is read by "
                    f"'{read.instruction.mnemonic}' before the template writes it, and input "
                    f"{prefix}{unnamed.index}{what} is named nowhere: the read was most likely "
                    f"meant for it (did you mean {prefix}{unnamed.index}?); as written, the "
                    "read gets an undefined value",
                )
                continue
            if statement.syntax == "llvm":
                # LLVM constraint strings have no '+': an input tied to the output
                # ("=f,0") is how a value comes in
                yield self.finding(
                    statement, span,
                    f"output ${operand.index} ('{operand.constraint.text}') is read by "
                    f"'{read.instruction.mnemonic}' before the template writes it: the read "
                    "gets an undefined value; tie an input carrying the value to it "
                    f"('{operand.index}', as in \"=f,{operand.index}\") or read the input "
                    "you meant",
                )
                continue
            fix = make_read_write(statement, operand.index)
            yield self.finding(
                statement, span,
                f"output %{operand.index} ('{operand.constraint.text}') is read by "
                f"'{read.instruction.mnemonic}' before the template writes it: '=' tells "
                "the compiler its old value is dead, so the read gets an undefined value; "
                "declare it '+' (or read the input you meant)",
                fix=dataclasses.replace(fix, safe=False) if fix is not None else None,
            )
