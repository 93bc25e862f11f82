"""PTX206 operand-type-mismatch."""

from __future__ import annotations

from collections.abc import Iterator

from ptxlint.analysis.register_types import RegisterMismatch
from ptxlint.analysis.shared_conversion import needs_offset
from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.value_flow import operand_value
from ptxlint.model import AsmStatement, Finding, Severity
from ptxlint.rule import Rule, RuleContext


class OperandTypeMismatch(Rule):
    id = "PTX206"
    name = "operand-type-mismatch"
    pure = True
    scope = "values"  # a 32-bit address traced by value flow to a `cvta` shared offset is fine
    severity = Severity.ERROR
    needs = ("instructions",)
    summary = "Constraint register class cannot be the instruction's operand type"
    tags = ("correctness", "operands", "ptx")
    docs = """\
## What it does
Flags an operand whose constraint letter gives a register that the instruction cannot take:
`r` (a `.b32` register) in `add.f64`, `f` (`.f32`) in `add.u32`, `l` (`.b64`) in a `.u32`
operation, `h` (`.b16`) in `.f32`.

nvcc declares `h` as `.b16`, `r` as `.b32`, `l` as `.b64`, `f` as `.f32` and `d` as `.f64`
below sm_100; for sm_100 and newer it declares `f` and `d` as untyped `.b32`/`.b64` (nvcc
13.0, measured), so `add.u32` with an `f` input is an error for sm_90a and compiles for
sm_100a. The target is `--arch`, else the lowest one the statement's `#if` guards admit. Of
several listed targets (`--arch sm_90a,sm_100a`), it is the lowest the statement's guards
certainly compile it for, whose build sees the typed registers first; where no listed target is
certain (a guard on a macro from another header), the guards decide, as without `--arch`.
Families the instruction grammar knows are checked operand by operand, vector elements and
packed types (`f16x2`, `bf16x2`) included, with the operand types of the matching form;
others with the family's signature. One operand used by several instructions is one
finding, and so are the elements of one vector bound with the same wrong letter (a wgmma's
accumulators in `"f"` where the form takes `.s32`): the first speaks and names the others.
ptxas (13.0, measured) accepts a bit-typed register for any type of the same size (`r` in
`add.f32`, `l` in `add.f64`), a float register for float and bit types of the same size only
(`f` in `mov.b32`, not in `add.u32`), and lets `ld`, `st` and `cvt` take registers wider than
the type (`ld.u8` into `r`). A packed type (`f16x2`, `bf16x2`, `f32x2`, `tf32`, the narrow-float
packs such as PTX ISA 9.4's `e4m3x4` arithmetic) and `bf16` take a bit register of their size
or one declared with their own type only: a template's `.reg .u32` there is "Arguments
mismatch" (ptxas 13.0 to 13.5), and so is an `.f16x2` one for `bf16x2`, an `.f16` one for
`bf16`. ptxas types a vector by its registers before it checks it as one operand: a bit
register makes it a bit vector (`{%u0, %r1}` for a `.v2.f16x2` is taken, and not reported),
registers of two other types or two sizes side by side are an error of their own
(`{%f0, %u1}`: "Vector with elements of different types"), and an integer vector fits a float
one of a `.v2`/`.v4` instruction (`ld.global.v2.f32 {%u0, %u1}`). The matrix fragments take
the ISA's packs: `.f16x2` for the `.f16` inputs and accumulators of `mma` and `wmma`, `.bf16x2`
and `.tf32` for theirs (a bit register or one of the pack's type), their `.s32` accumulators
an integer or bit register; `cvt.rs`'s random bits take an untyped `.b32` register only. Each
side of a `cvt` is checked against its own type, an integer register never holding a float
side (`cvt.f32.f16 f, u16`).

A guard `@p` must be a predicate register ("Predicate expression expected"): a `%N` of any
register letter there is a finding (nvcc has no predicate letter; Triton's `b` is one), and so
is a register the template declares with another type. So is the second half of a pair `d|p`
(`shfl.sync`, `elect.sync`, `setp`): ptxas says "Predicate output expected" (`setp`:
"Arguments mismatch"). A special register has its ISA type,
and a `mov` of it must have that size (`mov.u32 %0, %%clock64;`, `mov.u64 %0, %%laneid;`:
"Arguments mismatch"); ptxas also takes the legacy 16-bit reads of `%tid`, `%ntid`, `%ctaid`
and `%nctaid` and a 32-bit one of `%gridid`, which are not reported.

The register an address `[ ]` is made of is checked too: ptxas takes no float or predicate
register there ("Illegal to use symbol ... as address operand", any state space), and no
32-bit register for a generic or `.global` address of `ld`, `st`, `ldu`, `atom`, `red`,
`prefetch`, `prefetchu`, `discard`, `applypriority`, `multimem` or `mbarrier` ("Program uses
32-bit address ... conflicting with .address_size 64", then "32-Bit ABI ... is not
supported"): an `unsigned` address in `"r"` (C++) or a pointer tensor bound to `r` (Triton).
A `.shared`, `.local`, `.const` or `.param` address is a 32-bit window offset and fine in
`r`. ptxas 13.0 does take a 32-bit register as the `.global` address of `cp.async`, the bulk
copies and reductions (`cp.async.bulk`, `cp.reduce.async.bulk`), the bulk prefetch and
`tensormap.replace`: a global address is 64 bits wide, its upper half is lost, and on an
H200 `cp.async.ca` and `cp.async.bulk` given a `cudaMalloc` buffer's address in `"r"`
faulted with an illegal memory access where `"l"` copied every element. That `%N` is a
finding too; `--verify` leaves it unverifiable, as it compiles (the fault shows at run time).
The surface of `suld` and `sust` is a 64-bit handle (`.u64`, a `cudaSurfaceObject_t`), and
so is the texture of `tex` and `tld4` (a `cudaTextureObject_t`) and their sampler: ptxas
rejects a 32-bit or float register there ("Arguments mismatch for instruction 'sust.b'",
'tex').

The state space itself (a shared-window offset where a generic address is read) is
PTX301's; a pointer or 64-bit value in `"r"` is PTX004's: PTX206 stays silent on both. So it
is on a generic pointer in `"l"` that the template takes as the base of `.shared` accesses and
reads elsewhere only as a 32-bit value (`add.u32 t, %0, 4; st.shared.u32 [t], %1;`): the
template was written for the 32-bit shared-window offset, and PTX301 reports the one missing
conversion, as an error there, with the fix that mends both.

Where ptxas versions disagree the verdict is `cuda-version`'s (13.0 unless configured or found
by `--verify`), and the message names the version: ptxas 13.1 takes a 32-bit register for the
size of `st.bulk`, 13.0 does not.

One defect, one finding (`ptxlint.analysis.roots`): silent where the `%N` is an asm operand
whose constraint nvcc rejects (PTX002), whose type is no scalar (PTX005), whose value its
letter does not take (PTX004: a `double` in `"r"` of an `add.f64` is one defect, the letter;
nvcc refuses the operand before ptxas reads the template; in Triton, an `f64` in `"f"`, whose
register LLVM makes 32 bits wide), or carries a GCC modifier (PTX007:
`%H1` of an `l` operand is not the 64-bit register), and in an instruction that also names a
`%N` past the last operand (PTX001: the numbering itself is off) or an `inline_ptx`
placeholder the lowering numbers again (PTX510), or whose operands run into
the next instruction where two string pieces meet without a `;` (PTX205).

Where the `%N` most likely names the wrong operand, this finding is that defect and says which
operand was meant: exactly one operand that no `%N` names has a register that fits the place,
by the same test and in its role (a place read: an input or a `+` output; a place written: an
output), and the places it fits all belong to one `%N` (`add.u32 %0, %1, %1;` given
`"l"(w), "r"(v)`: "did you mean %2, input operand 2 (v), which no %N names?";
`st.global.u32 [%1], %1;` given `"l"(p), "r"(v)`: `%0`). PTX009 is then silent on that
operand. There is no fix: where the `%N` appears twice, which place was meant is not known.

## Why is this bad?
ptxas stops with "Arguments mismatch for instruction", but only when it compiles the
statement for a target that reaches it.

## Example
```cuda
asm("add.f64 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
asm("add.u32 %0, %1, %2;" : "=f"(x) : "f"(y), "f"(z));
asm("ld.global.u32 %0, [%1];" : "=r"(v) : "r"(addr));  // unsigned addr
```

## Use instead
```cuda
asm("add.f64 %0, %1, %2;" : "=d"(d) : "d"(a), "d"(b));
asm("add.u32 %0, %1, %2;" : "=r"(x) : "r"(y), "r"(z));
asm("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(addr));  // a 64-bit (pointer-sized) value
```
"""

    def check(self, statement: AsmStatement, context: RuleContext) -> Iterator[Finding]:
        if not statement.extended or statement.opaque_sections:
            return
        analysis = analysis_of(statement)
        arch, cuda_version = context.one_arch(analysis), context.options.get("cuda_version")

        def parsed() -> object | None:
            return context.parsed  # read only where an address register asks for value flow

        mismatches = analysis.register_mismatches(arch, cuda_version, parsed)
        if not mismatches:
            return
        mismatches = tuple(m for m in mismatches if not _unconverted_offset(statement, m, context))
        # one finding per asm operand: its letter is the one defect, however many of the
        # template's instructions name it (the first; the message counts the others)
        # and one per vector whose elements miss the same way: a wgmma's accumulators bound to
        # "f" where the form takes .s32 are one choice of letter, not one defect per register
        first: list[RegisterMismatch] = []
        more: dict[int, int] = {}
        elements: dict[tuple[object, ...], list[int]] = {}  # a vector's other elements
        for mismatch in mismatches:
            index, vector = mismatch.index, mismatch.vector
            if index is not None:
                if index in more:
                    more[index] += 1
                    continue
                more[index] = 0
                if vector is not None:
                    if vector in elements:
                        elements[vector].append(index)
                        continue
                    elements[vector] = []
            first.append(mismatch)
        meant = analysis.misnumbered_reference(arch, cuda_version, parsed)
        prefix = statement.ref_prefix
        for mismatch in first:
            index, vector = mismatch.index, mismatch.vector
            message = mismatch.message
            notes = []
            extra = more.get(index, 0) if index is not None else 0
            if extra:
                uses = f"{extra} more use{'s' if extra > 1 else ''}"
                notes.append(f"{uses} of {prefix}{index} in this statement")
            others = elements.get(vector, []) if vector is not None else []
            if others:
                shown = others if len(others) <= 4 else [*others[:3], None, others[-1]]
                named = ", ".join("..." if i is None else f"{prefix}{i}" for i in shown)
                notes.append(f"{len(others)} more element{'s' if len(others) > 1 else ''} of "
                             f"the vector with the same constraint: {named}")
            if notes:
                message = f"{message} (and {'; '.join(notes)})"
            if meant is not None and index == meant.index:
                # no fix: which of the %N's places was meant for the operand is not known
                operand = meant.operand
                what = f" ({operand.expression})" if operand.expression else ""
                message = (f"{message} (did you mean {prefix}{operand.index}, {operand.role} "
                           f"operand {operand.index}{what}, which no {prefix}N names?)")
            yield self.finding(
                statement, self.template_span(statement, mismatch.start, mismatch.end), message)


def _unconverted_offset(
    statement: AsmStatement, mismatch: RegisterMismatch, context: RuleContext
) -> bool:
    """A 64-bit generic pointer in a 32-bit place of a template that also takes it as a
    ``.shared`` address: the missing conversion to the shared-window offset, PTX301's finding
    (``analysis.shared_conversion.needs_offset``)."""
    index = mismatch.index
    if index is None or mismatch.address or index >= len(statement.operands):
        return False
    operand = statement.operands[index]
    return needs_offset(statement, operand, lambda: operand_value(
        statement, operand, True, context.parsed, context.file_statements))
