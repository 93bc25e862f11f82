"""PTX206 operand-type-mismatch."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from ptxlint.analysis.guards import model_dependent
from ptxlint.analysis.operand_summary import summary_of
from ptxlint.analysis.statement import analysis_of
from ptxlint.analysis.value_flow import holds_shared_address
from ptxlint.model import AsmStatement, Finding, Operand, PtxInstruction, PtxOperand, Severity
from ptxlint.ptx.address_values import is_shared_offset
from ptxlint.ptx.grammar import Verdict
from ptxlint.ptx.instructions import (
    REGISTER_CLASSES,
    TypeInfo,
    operand_types,
    register_fits,
    unknown_modifier,
)
from ptxlint.ptx.judge import float_letters_typed
from ptxlint.ptx.toolkit import toolkit_accepts
from ptxlint.rule import Rule, RuleContext

# Register declarations nvcc writes for each letter, for the message.
_DECLARED = {"h": ".b16", "r": ".b32", "l": ".b64", "q": ".b128", "f": ".f32", "d": ".f64"}
# Instructions whose vector operands hold one register per element of the instruction type.
_ELEMENTWISE_VECTORS = frozenset({"ld", "ldu", "st", "atom", "red"})


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
sm_100a. The target is `--arch`, else the lowest one the statement's `#if` guards admit.
Families the instruction grammar knows are checked operand by operand, vector elements and
packed types (`f16x2`, `bf16x2`) included, with the operand types of the matching form;
others with the family's signature. One operand used by several instructions is one
finding, and so are the elements of one vector bound with the same wrong letter (a wgmma's
accumulators in `"f"` where the form takes `.s32`): the first speaks and names the others.
ptxas (13.0, measured) accepts a bit-typed register for any type of the same size (`r` in
`add.f32`, `l` in `add.f64`), a float register for float and bit types of the same size only
(`f` in `mov.b32`, not in `add.u32`), and lets `ld`, `st` and `cvt` take registers wider than
the type (`ld.u8` into `r`). Each side of a `cvt` is checked against its own type.

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
`r`. The state space itself (a shared-window offset where a generic address is read) is
PTX301's; a pointer or 64-bit value in `"r"` is PTX004's: PTX206 stays silent on both.

Where ptxas versions disagree the verdict is `cuda-version`'s (13.0 unless configured or found
by `--verify`), and the message names the version: ptxas 13.1 takes a 32-bit register for the
size of `st.bulk`, 13.0 does not.

One defect, one finding (`ptxlint.analysis.roots`): silent where the `%N` is an asm operand
whose constraint nvcc rejects (PTX002), whose type is no scalar (PTX005), whose value its
letter does not take (PTX004: a `double` in `"r"` of an `add.f64` is one defect, the letter;
nvcc refuses the operand before ptxas reads the template; in Triton, an `f64` in `"f"`, whose
register LLVM makes 32 bits wide), or carries a GCC modifier (PTX007:
`%H1` of an `l` operand is not the 64-bit register), and in an instruction that also names a
`%N` past the last operand (PTX001: the numbering itself is off), or whose operands run into
the next instruction where two string pieces meet without a `;` (PTX205).

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
        # one finding per asm operand: its letter is the one defect, however many of the
        # template's instructions name it (the first; the message counts the others)
        # and one per vector whose elements miss the same way: a wgmma's accumulators bound to
        # "f" where the form takes .s32 are one choice of letter, not one defect per register
        first: list[tuple[int | None, Finding, tuple[object, ...] | None]] = []
        more: dict[int, int] = {}
        elements: dict[tuple[object, ...], list[int]] = {}  # a vector's other elements
        for index, finding, vector in self._findings(statement, context):
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
            first.append((index, finding, vector))
        prefix = statement.ref_prefix
        for index, finding, vector in first:
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
                finding = dataclasses.replace(
                    finding, message=f"{finding.message} (and {'; '.join(notes)})")
            yield finding

    def _findings(
        self, statement: AsmStatement, context: RuleContext
    ) -> Iterator[tuple[int | None, Finding, tuple[object, ...] | None]]:
        """Each finding, with the asm operand whose register it is about (None: no operand)
        and, for an element of a vector operand, what makes it one with its neighbours (the
        vector, the letter and the type it misses)."""
        if not statement.extended or statement.opaque_sections:
            return
        typed: bool | None = None
        analysis = analysis_of(statement)
        # each judged instruction's verdict ("f"/"d" as float registers; None for an opaque
        # instruction or a spelling the grammar does not judge), PTX204's
        verdicts = analysis.verdicts
        for instruction, verdict in zip(statement.ptx.instructions, verdicts, strict=True):
            if instruction.opaque:
                continue
            if verdict is not None:  # judged
                if typed is None:
                    # without an "f"/"d" operand nvcc declares the same registers for every
                    # target, and the verdicts are the same (``judge``): the guards' lowest
                    # target is not asked, and the verdict is the one PTX204 read
                    typed = (
                        _floats_typed(statement, context)
                        if summary_of(statement).float_operands
                        else True
                    )
                if not typed:
                    verdict = analysis.verdict(instruction, typed)
                # most verdicts have no issue; an instruction whose operands run into the next
                # one's words (a missing ';' between pieces) is PTX205's defect
                if verdict.issues and not analysis.runs_together(instruction):
                    yield from self._grammar_findings(statement, instruction, verdict, typed,
                                                      context)
                continue
            if unknown_modifier(instruction.opcode, instruction.modifiers) is not None:
                continue  # PTX204's business; the types are anyone's guess
            types = operand_types(instruction.opcode, instruction.modifiers)
            if types is None:
                continue
            for position, operand in enumerate(instruction.operands):
                if position >= len(types.types):
                    break
                expected = types.types[position]
                if expected is None:
                    continue
                for ref in _refs(operand, instruction.opcode in _ELEMENTWISE_VECTORS):
                    finding = self._check_ref(
                        statement,
                        ref,
                        expected,
                        types.relaxed,
                        types.names[position],
                        instruction.mnemonic,
                    )
                    if finding is not None and not analysis.runs_together(instruction):
                        yield ref.ref, finding, None

    def _grammar_findings(
        self, statement: AsmStatement, instruction: PtxInstruction, verdict: Verdict,
        typed: bool, context: RuleContext,
    ) -> Iterator[tuple[int | None, Finding, tuple[object, ...] | None]]:
        analysis = analysis_of(statement)
        cuda_version = context.options.get("cuda_version")
        for issue in verdict.issues:
            if issue.kind != "type" or toolkit_accepts(issue, cuda_version, analysis.guards):
                continue  # (a newer ptxas than the configured one's verdict: not this one's)
            if analysis.register_type_root(issue.start, issue.end) is not None:
                continue  # the operand or its %N is the defect (PTX001, 002, 004, 005, 007)
            message = issue.message
            index = None
            vector: tuple[object, ...] | None = None
            ref = _ref_at(instruction.operands, issue.start, issue.end)
            if ref is None and instruction.predicate is not None:
                guard = instruction.predicate.register  # "the guard ... must be a .pred"
                if guard.kind == "ref" and (guard.start, guard.end) == (issue.start, issue.end):
                    ref = guard
            if (ref is not None and ref.ref is not None and ref.ref < len(statement.operands)
                    and _in_address(instruction.operands, ref)
                    and _claimed_elsewhere(statement, statement.operands[ref.ref], context)):
                continue
            if ref is not None and ref.ref is not None and ref.ref < len(statement.operands):
                index = ref.ref
                letter = statement.operands[ref.ref].constraint.letters
                declared = _DECLARED.get(letter, "")
                if letter in ("f", "d") and typed:
                    declared += " register below sm_100"
                else:
                    declared += " register"
                wanted = message.split(' but ', 1)[1]
                message = (f"'{ref.text}' is operand {ref.ref} with constraint '{letter}' (a "
                           f"{declared}), but {wanted}")
                holder = _vector_around(instruction.operands, ref)
                if holder is not None:
                    vector = (instruction.opcode_start, holder.start, letter, wanted)
            yield index, self.finding(
                statement, self.template_span(statement, issue.start, issue.end), message
            ), vector

    def _check_ref(
        self,
        statement: AsmStatement,
        ref: PtxOperand,
        expected: TypeInfo,
        relaxed: bool,
        type_name: str,
        mnemonic: str,
    ) -> Finding | None:
        if ref.ref is None or ref.ref >= len(statement.operands):
            return None
        if analysis_of(statement).register_type_root(ref.start, ref.end) is not None:
            return None  # the operand or its %N is the defect (PTX001, 002, 004, 005, 007)
        operand = statement.operands[ref.ref]
        constraint = operand.constraint
        letter = constraint.letters
        if constraint.opaque or len(letter) != 1 or letter not in REGISTER_CLASSES:
            return None
        if register_fits(REGISTER_CLASSES[letter], expected, relaxed):
            return None
        return self.finding(
            statement,
            self.template_span(statement, ref.start, ref.end),
            f"'{ref.text}' is operand {ref.ref} with constraint '{letter}' "
            f"(a {_DECLARED[letter]} register), but '{mnemonic}' takes .{type_name} here",
        )


def _refs(operand: PtxOperand, elementwise: bool) -> list[PtxOperand]:
    if operand.kind == "ref":
        return [operand] if not operand.negated else []
    if operand.kind == "pair" and operand.parts and operand.parts[0].kind == "ref":
        return [operand.parts[0]]  # `d|p`: the data half
    if operand.kind == "vector" and elementwise:
        return [p for p in operand.parts if p.kind == "ref"]
    return []


def _vector_around(operands: tuple[PtxOperand, ...], ref: PtxOperand) -> PtxOperand | None:
    """The vector operand ``ref`` is an element of, or None."""
    for operand in operands:
        if operand.kind == "vector" and any(part is ref for part in operand.parts):
            return operand
    return None


def _ref_at(operands: tuple[PtxOperand, ...], start: int, end: int) -> PtxOperand | None:
    for operand in operands:
        if operand.start == start and operand.end == end:
            return operand
        found = _ref_at(operand.parts, start, end)
        if found is not None:
            return found
    return None


def _in_address(operands: tuple[PtxOperand, ...], ref: PtxOperand) -> bool:
    """Whether ``ref`` sits inside an address ``[...]`` of the instruction."""
    return any(o.kind == "address" and o.start <= ref.start and ref.end <= o.end
               for o in operands)


def _claimed_elsewhere(statement: AsmStatement, operand: Operand, context: RuleContext) -> bool:
    """An address register whose C++ value another rule reports as the defect, or may be fine
    in: a pointer where the guards may mean a 32-bit build (PTX004 is silent there too), or a
    shared-window offset used
    as a generic or global address (PTX301, which follows it through the file's functions:
    asked only here, where a finding is at stake, so the rule's other outcomes stay memoised)."""
    ctype = operand.ctype
    # (a value nvcc refuses under its letter, a pointer in "r", is PTX004's root: asked before)
    if ctype is not None and model_dependent(ctype) and analysis_of(statement).data_model_guarded:
        return True  # maybe a 32-bit build, where a pointer is a 32-bit address (PTX004's)
    if is_shared_offset(operand):
        return True
    if ctype is not None and ctype.kind != "integer":
        return False
    return holds_shared_address(statement, operand, context.parsed)


def _floats_typed(statement: AsmStatement, context: RuleContext) -> bool:
    """Whether nvcc declares "f"/"d" as .f32/.f64 where this statement is compiled: below
    sm_100 (``--arch``, else the lowest target its guards allow)."""
    if context.arch is not None:
        return float_letters_typed(context.arch)
    lowest = analysis_of(statement).lowest_target  # PTX401's too: include guard left out
    return float_letters_typed(lowest.sm if lowest is not None else None)
